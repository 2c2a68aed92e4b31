"""Renderers: a GradeReport becomes text, JSON, Markdown or HTML. Only jinja2 lives here.

Templates are in `feedback_templates/` (top level, so instructors can edit them); the written
answer's section is rendered by `grader.rubric.render` from `feedback_templates/written/`.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import jinja2

from grader.render.view import report_view
from grader.report import GradeReport, ScoreAdjustment
from grader.resources import data_path
from grader.textsafe import md_escape

TEMPLATES = data_path("feedback_templates")
_FILES = {
    "text": "report/report.txt.j2",
    "md": "report/report.md.j2",
    "html": "report/report.html.j2",
}


@cache
def environment(autoescape: bool) -> jinja2.Environment:
    """The Jinja2 environment over `feedback_templates/`: undefined variables are errors, `md`
    escapes Markdown; `autoescape` for HTML."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=autoescape,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["md"] = md_escape
    return env


def render_report(
    report: GradeReport,
    fmt: str,
    *,
    color: bool = False,
    title: str | None = None,
    adjustment: ScoreAdjustment | None = None,
    shared: dict[str, Any] | None = None,
) -> str:
    """Render `report` as "text", "json", "md", "html" (a full standalone page), or with
    default options as "gradescope" (results.json), "junit" (XML) or "github" (annotations;
    `grader.render.github.github_output` also writes the step summary).

    `adjustment`: the total that counts when it is not the report's own (a batch's late
    penalty); text, md and html show it as the score, with the report's own and the reason.
    `shared`: one dict per report for rendering it in several formats (see `report_view`).
    """
    if fmt == "json":
        return report.to_json() + "\n"
    if fmt == "gradescope":
        from grader.render.gradescope import render_gradescope

        return render_gradescope(report)
    if fmt == "junit":
        from grader.render.junit import render_junit

        return render_junit(report)
    if fmt == "github":
        from grader.render.github import annotations

        return annotations(report)
    if fmt not in _FILES:
        raise ValueError(f"unknown format {fmt!r}")
    view = report_view(report, fmt, title=title, adjustment=adjustment, shared=shared)
    template = environment(fmt == "html").get_template(_FILES[fmt])
    text = template.render(**view, color=color)
    if fmt == "text" and color:
        text = _colorize(text)
    return text


_COLORS = {
    "PASS": "\x1b[32mPASS\x1b[0m",
    "FAIL": "\x1b[31mFAIL\x1b[0m",
    "TIME": "\x1b[33mTIME\x1b[0m",
    "MISS": "\x1b[33mMISS\x1b[0m",
    "ERR ": "\x1b[31mERR \x1b[0m",
}


def _colorize(text: str) -> str:
    for plain, colored in _COLORS.items():
        text = text.replace(f"[{plain}]", f"[{colored}]")
    return text
