"""Render a rubric-scored written answer (`WrittenResult`) as a terminal, Markdown or HTML fragment.

    render_written(result, fmt, rubric=None, *, audience="student") -> str

Templates live in `feedback_templates/written/explanation.{txt,md,html}.j2`; the main report
renderers include the returned fragment. HTML is autoescaped; Markdown escapes the characters
that would let student text become markup. Rendering reads only the result and the rubric
(titles, weights), never the submission, so it can be redone after instructor overrides.
`audience="instructor"` adds confidence, review flags and review reasons.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import jinja2

from grader.report import WrittenResult
from grader.resources import data_path
from grader.rubric.feedback import NOT_JUDGED, split_feedback
from grader.rubric.model import Rubric, load_rubric
from grader.textsafe import md_escape

Format = Literal["text", "md", "html"]
TEMPLATE_DIR = data_path("feedback_templates", "written")
_TEMPLATES: dict[str, str] = {
    "text": "explanation.txt.j2",
    "md": "explanation.md.j2",
    "html": "explanation.html.j2",
}
VERDICT_LABELS = {
    "met": "met",
    "partial": "partially met",
    "missing": "missing",
    "contradicted": "contains an error",
}
_QUOTE_MARK = 'You wrote: "'


def split_quote(text: str) -> tuple[str, str]:
    """(feedback, the student's words) of `... You wrote: "<quote>"`, else (text, "").

    Found with `str.find`: the regex `^(.*?)\\s*You wrote: "(.*)"$` is quadratic in a long
    run of spaces when the marker is absent, and the quote is student text."""
    body = text[:-1] if text.endswith("\n") else text
    at = body.find(_QUOTE_MARK)
    if at < 0 or not body.endswith('"') or len(body) < at + len(_QUOTE_MARK) + 1:
        return text, ""
    return body[:at].rstrip(), body[at + len(_QUOTE_MARK) : -1]


def _fmt_points(x: float) -> str:
    return f"{x:g}"


@lru_cache(maxsize=4)
def _env(template_dir: str, html: bool) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(template_dir),
        autoescape=html,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["md"] = md_escape
    env.filters["points"] = _fmt_points
    return env


def context(result: WrittenResult, rubric: Rubric, audience: str = "student") -> dict[str, Any]:
    """The plain data every template receives (documented in docs/rubric.md)."""
    rows = []
    for c in result.criteria:
        try:
            crit = rubric.criterion(c.id)
            title, weight = crit.title, crit.weight
            points = rubric.points(c.id, c.verdict)
        except KeyError:  # a criterion the rubric no longer has: show it, score unknown
            title, weight, points = c.id, 0.0, 0.0
        sections = []
        for label, text in split_feedback(c.feedback):
            said, quote = split_quote(text)
            sections.append({"label": label, "text": said, "quote": quote})
        rows.append(
            {
                "id": c.id,
                "title": title,
                "weight": weight,
                "points": points,
                "verdict": c.verdict,
                # a criterion the scorer declined to judge shows no verdict of its own
                "verdict_label": "not judged"
                if sections and sections[0]["label"] == NOT_JUDGED
                else VERDICT_LABELS.get(c.verdict, c.verdict),
                "evidence": c.evidence,
                "sections": sections,
                "confidence": c.confidence,
                "needs_review": c.needs_review,
                "overridden": c.overridden,
            }
        )
    return {
        "title": rubric.title,
        "score": result.score,
        "max_score": result.max_score,
        "needs_review": result.needs_review,
        "summary": result.summary,
        "review_reasons": list(result.review_reasons),
        "criteria": rows,
        "instructor": audience == "instructor",
    }


def render_written(
    result: WrittenResult,
    fmt: Format,
    rubric: Rubric | None = None,
    *,
    audience: Literal["student", "instructor"] = "student",
    template_dir: str | Path | None = None,
) -> str:
    """Render `result` in `fmt` ("text", "md" or "html"); ValueError for another format."""
    if fmt not in _TEMPLATES:
        raise ValueError(f"unknown format {fmt!r}; expected one of {sorted(_TEMPLATES)}")
    rubric = rubric or load_rubric()
    directory = str(template_dir or TEMPLATE_DIR)
    env = _env(directory, fmt == "html")
    try:
        template = env.get_template(_TEMPLATES[fmt])
    except jinja2.TemplateNotFound:
        raise FileNotFoundError(
            f"feedback template {_TEMPLATES[fmt]} not found in {directory}"
        ) from None
    return template.render(**context(result, rubric, audience))
