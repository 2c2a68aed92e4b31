"""The template context for a report: plain dicts and strings, computed once per render."""

from __future__ import annotations

import re
from typing import Any

from grader.diagnosis import describe, strip_explanations
from grader.report import PART_TITLES, GradeReport, TestResult

_STATUS_TAG = {
    "passed": "PASS",
    "failed": "FAIL",
    "timeout": "TIME",
    "missing": "MISS",
    "error": "ERR ",
}


_BACKTICKS = re.compile(r"`+")


def _pct(score: float, max_score: float) -> str:
    return f"{100 * score / max_score:.0f}%" if max_score else "-"


def _test_view(t: TestResult) -> dict[str, Any]:
    return {
        "id": t.id,
        "name": t.name,
        "status": t.status,
        "tag": _STATUS_TAG.get(t.status, "????"),
        "score": f"{t.score:g}",
        "max_score": f"{t.max_score:g}",
        "message": strip_explanations(t.message),
        "message_lines": strip_explanations(t.message).splitlines() or [""],
        # Markdown: a code fence longer than any backtick run in the message, so no line of
        # it (student text included) can close the fence early
        "fence": "`" * max(3, 1 + max((len(r) for r in _BACKTICKS.findall(t.message)), default=0)),
        "diagnoses": list(t.diagnoses),
    }


def likely_misconceptions(report: GradeReport) -> list[tuple[str, int]]:
    """Misconceptions worth showing, with how many failed checks point to each.

    Several mistakes can explain one observed value (on oracle logits every misaligned loss is
    about 10), so a single check may name several. Across a part the true mistake is the one
    most failures agree on: within each part, keep the ids named by at least half as many
    failures as the best-supported one, most supported first.
    """
    by_part: dict[str, dict[str, int]] = {}
    for t in report.tests:
        for d in t.diagnoses:
            counts = by_part.setdefault(t.part, {})
            counts[d] = counts.get(d, 0) + 1
    kept: dict[str, int] = {}
    for counts in by_part.values():
        best = max(counts.values())
        for d, n in counts.items():
            if 2 * n >= best:
                kept[d] = max(kept.get(d, 0), n)
    order = {d: i for i, d in enumerate(report.diagnoses)}
    return sorted(kept.items(), key=lambda kv: (-kv[1], order[kv[0]]))


def report_view(report: GradeReport, fmt: str, *, title: str | None = None) -> dict[str, Any]:
    """Everything the report templates use."""
    parts = []
    for pid, ps in report.parts.items():
        tests = [_test_view(t) for t in report.tests if t.part == pid]
        parts.append(
            {
                "id": pid,
                "title": PART_TITLES.get(pid, pid),
                "score": f"{ps.score:g}",
                "max_score": f"{ps.max_score:g}",
                "pct": _pct(ps.score, ps.max_score),
                "tests": tests,
                "failed": [t for t in tests if t["status"] != "passed"],
                "passed_count": sum(1 for t in tests if t["status"] == "passed"),
            }
        )
    misconceptions = []
    for mid, support in likely_misconceptions(report):
        m = describe(mid)
        if m is not None:
            misconceptions.append(
                {
                    "id": mid,
                    "title": m.title,
                    "explanation": m.explanation,
                    "hint": m.hint,
                    "support": support,
                }
            )
    written = {}
    if report.written:
        from grader.rubric.render import render_written

        wfmt = {"text": "text", "md": "md", "html": "html"}[fmt]
        written = {name: render_written(w, wfmt) for name, w in report.written.items()}
    return {
        "title": title or "Grade report",
        "submission": report.submission,
        "version": report.grader_version,
        "score": f"{report.score:g}",
        "max_score": f"{report.max_score:g}",
        "pct": _pct(report.score, report.max_score),
        "parts": parts,
        "misconceptions": misconceptions,
        "written": written,
        "errors": list(report.errors),
    }
