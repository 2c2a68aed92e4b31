"""What `grader grade --format FMT` writes: one function per step after grading.

    notebook = prepare_export(path, "ipynb")       # before grading: a bad path costs no sandbox
    report = grade_path(path, ...)
    text = export_report(report, "gradescope", submission=path, gradescope=options)

The CLI parses the options and calls these; the renderers and exporters themselves live
in `grader.render` (`render_report`, `render_gradescope`, `github_output`,
`feedback_notebook`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from grader.report import GradeReport

if TYPE_CHECKING:
    from grader.render.gradescope import GradescopeOptions


def prepare_export(submission: Path, fmt: str) -> str | None:
    """What a format needs from the submission before it is graded: the notebook's text for
    "ipynb" (raises `UsageError` when `submission` is not a readable .ipynb), else None."""
    if fmt != "ipynb":
        return None
    from grader.render.ipynb import read_notebook

    return read_notebook(submission)


def export_report(
    report: GradeReport,
    fmt: str,
    *,
    submission: Path,
    notebook: str | None = None,
    gradescope: GradescopeOptions | None = None,
    color: bool = False,
) -> str:
    """`report` in format `fmt`, as `grader grade` writes it.

    "ipynb": `notebook` (from `prepare_export`) with feedback cells; "gradescope": results.json
    with `gradescope`'s options (defaults when None); "github": the annotations, with the step
    summary appended to $GITHUB_STEP_SUMMARY when it is set (`submission` names the files);
    every other format is `render_report`'s (`color`: ANSI colours for "text").
    """
    if fmt == "ipynb":
        from grader.render.ipynb import feedback_notebook

        if notebook is None:
            raise ValueError("the ipynb format needs the notebook from prepare_export")
        return feedback_notebook(notebook, report)
    if fmt == "gradescope":
        from grader.render.gradescope import render_gradescope

        return render_gradescope(report, gradescope)
    if fmt == "github":
        from grader.render.github import github_output

        return github_output(report, submission)
    from grader.render import render_report

    return render_report(report, fmt, color=color)


def below(report: GradeReport, fail_under: float | None) -> bool:
    """Whether `report`'s score, in percent of its maximum, is below `fail_under` (never when
    `fail_under` is None or the report has no points to score)."""
    if fail_under is None or not report.max_score:
        return False
    return 100 * report.score / report.max_score < fail_under
