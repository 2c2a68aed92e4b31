"""The grader's own error types. Only the CLI catches them; each carries its exit code.

Student failures are never exceptions at this level: they are data in the GradeReport.
"""

from __future__ import annotations


class GraderError(Exception):
    """Base class: a problem the user can read about. Subclasses set `exit_code`."""

    exit_code = 3

    def format_message(self) -> str:
        return str(self)


class UsageError(GraderError):
    """Bad options or an input that cannot be used at all (exit 2)."""

    exit_code = 2


class InternalError(GraderError):
    """A bug or a broken installation of the grader itself (exit 3)."""

    exit_code = 3
