"""Batch grading for instructors: a whole class from a folder, a Canvas zip or a Gradescope
export, graded by a warm pool, cached and resumable, with a gradebook, per-student feedback and
a class report. `run_batch` is the library entry point; `grader batch` (cli.py) the command.

The names below are imported lazily so that `grader --help` stays fast.
"""

from __future__ import annotations

from typing import Any

__all__ = ["BatchOptions", "BatchResult", "run_batch"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from grader.batch import runner

        return getattr(runner, name)
    raise AttributeError(name)
