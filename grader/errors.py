"""The grader's own error types. Only the CLI catches them; each carries its exit code.

    GraderError                      exit 3 unless a subclass says otherwise
    |-- UsageError                   exit 2: bad options or input that cannot be used at all
    |   |-- SubmissionError          grader.loading: the submission cannot be read
    |   |-- OverridesError           grader.rubric.overrides (also a ValueError)
    |   |-- ReviewInputError         grader.rubric.cli: `grader review` input
    |   `-- ReleaseError             grader.release
    `-- InternalError                exit 3: a bug or a broken installation
        |-- RubricError              grader.rubric.model: the installed rubric (also a ValueError)
        `-- PoolError                grader.batch.pool: no worker could start (also a RuntimeError)

`grader.cli` maps a GraderError to "Error: <message>" and its `exit_code`; click's own
exceptions, an interrupt (130) and any other exception (3, "Internal grader error") are the only
other cases. Student failures are never exceptions at this level: they are data in the
GradeReport.
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
