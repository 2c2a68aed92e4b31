"""Exercise 2: rubric scoring of the written explanation (see docs/rubric.md).

Public API:
    load_rubric(path=None) -> Rubric
    score_explanation(text, rubric=None) -> WrittenResult
    render_written(result, fmt, rubric=None, *, audience="student") -> str
    load_overrides(path, rubric=None) -> dict[str, StudentOverrides]
    apply_overrides(report, overrides, student, rubric=None, part="explanation") -> GradeReport
    grader.rubric.cli.review   (click command `grader review`)
"""

from grader.rubric.model import Rubric, RubricError, load_rubric
from grader.rubric.overrides import (
    OverridesError,
    StudentOverrides,
    apply_overrides,
    load_overrides,
    parse_overrides,
)
from grader.rubric.render import render_written
from grader.rubric.scorer import score_explanation

__all__ = [
    "OverridesError",
    "Rubric",
    "RubricError",
    "StudentOverrides",
    "apply_overrides",
    "load_overrides",
    "load_rubric",
    "parse_overrides",
    "render_written",
    "score_explanation",
]
