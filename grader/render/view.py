"""The template context for a report: plain dicts and strings, computed once per render.

Every text format lays out the same feedback (`feedback_view`), most useful first:

1. `fixes`: one entry per likely misconception, its hint and the checks it explains. A check
   named by several shown misconceptions is listed under each: the checks could not tell those
   mistakes apart, so each entry lists every check it would explain.
2. `unexplained`: the checks that failed (failed, error, timeout) with no shown misconception.
3. `not_attempted`: the "missing" checks, one entry per function (or missing file), not one
   per check: a stub submission has a dozen entries instead of a hundred. A function the
   submission does not define at all is one entry too, with the checks of the functions that
   need it (`follows`: they fail only because it is missing).
4. `parts[*].evidence`: one compact entry per failed check, the full message to fold away.
"""

from __future__ import annotations

import re
from typing import Any

from grader.diagnosis import describe, strip_explanations
from grader.diagnosis.downstream import FOLLOWS
from grader.parts import PART_IDS, PART_TITLES
from grader.report import NOT_DEFINED, GradeReport, ScoreAdjustment, TestResult

_STATUS_TAG = {
    "passed": "PASS",
    "failed": "FAIL",
    "timeout": "TIME",
    "missing": "MISS",
    "error": "ERR ",
}


_BACKTICKS = re.compile(r"`+")
# a not-attempted check's message: "not attempted: calling mask_tokens() raised ..."
_CALLING = re.compile(r"\bcalling (\w+)\(\)")
# a NotDefined message's first line (`grader.sandbox.client.not_defined`)
_NOT_DEFINED = re.compile(
    rf"^{NOT_DEFINED}(?P<where>.{{1,300}}?) does not define (?P<name>\w{{1,100}})\(\)"
    r"(?P<via> \(this check .{1,300}\))?$"
)
_ADVICE = "  What to do: "
SUMMARY_CHARS = 400


def _pct(score: float, max_score: float) -> str:
    return f"{100 * score / max_score:.0f}%" if max_score else "-"


def summary_line(message: str) -> str:
    """The first line of a message, capped: what a compact one-line entry shows. A first line
    that ends with a colon introduces its next line ("...raised RuntimeError instead:" then
    the error): that line is joined to it when it says something the first does not, else
    the colon is dropped, so no entry ends on a colon with nothing after it."""
    lines = message.splitlines() if message else [""]
    first = lines[0].rstrip()
    if first.endswith(":"):
        after = next((ln.strip() for ln in lines[1:] if ln.strip()), "")
        first = f"{first} {after}" if after and after not in first else first[:-1].rstrip()
    return first if len(first) <= SUMMARY_CHARS else first[: SUMMARY_CHARS - 3] + "..."


def _test_view(t: TestResult) -> dict[str, Any]:
    head = {
        "id": t.id,
        "name": t.name,
        "status": t.status,
        "tag": _STATUS_TAG.get(t.status, "????"),
        "score": f"{t.score:g}",
        "max_score": f"{t.max_score:g}",
    }
    if not t.message:  # most checks: nothing to clean, summarise or fence
        text = {"message": "", "message_lines": [""], "summary": "", "more": False, "fence": "```"}
        return {**head, **text, "diagnoses": list(t.diagnoses)}
    message = strip_explanations(t.message)
    summary = summary_line(message)
    return {
        **head,
        "message": message,
        "message_lines": message.splitlines() or [""],
        "summary": summary,
        # whether the folded details add anything the one-line summary does not show
        "more": message.strip() != summary.strip(),
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
    failures as the best-supported one, most supported first. A failure a diagnosis explains
    as its consequence (`grader.diagnosis.downstream`) is listed under it but is no support.
    """
    by_part: dict[str, dict[str, int]] = {}
    for t in report.tests:
        if FOLLOWS in t.message:
            continue
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


def function_key(message: str) -> dict[str, Any]:
    """What a not-attempted check is about and why: `key` (the function, or for a missing file
    its message's first line), `kind` ("stub", "undefined" or "file"), `reason`, `advice`
    (what to do, or ""), `via` (whether the check failed only through a function that needs
    the undefined one)."""
    first = message.splitlines()[0] if message else ""
    m = _NOT_DEFINED.match(first)
    if m:
        advice = next(
            (ln[len(_ADVICE) :] for ln in message.splitlines() if ln.startswith(_ADVICE)), ""
        )
        return {
            "key": f"{m.group('name')}()",
            "kind": "undefined",
            "reason": f"{m.group('where')} does not define it",
            "advice": advice,
            "via": m.group("via") is not None,
        }
    m = _CALLING.search(message)
    if m:
        reason = "it still raises NotImplementedError"
        return {
            "key": f"{m.group(1)}()",
            "kind": "stub",
            "reason": reason,
            "advice": "",
            "via": False,
        }
    # listed under "...not attempted yet": a leading "not attempted: " would say it twice
    key = summary_line(message).removeprefix("not attempted: ")
    return {"key": key, "kind": "file", "reason": "", "advice": "", "via": False}


def feedback_view(report: GradeReport) -> dict[str, Any]:
    """The report's feedback grouped by cause (see the module docstring): a pure function of
    `report`, shared by the text, Markdown and HTML templates.

    Returns `fixes` (misconception entries with `tests`, `points_lost`), `unexplained` and
    `not_attempted` (entries with `function`, `reason`, `part`, `count`, `points`, `summary`,
    `tests`).
    Every not-passed check is in exactly one of `unexplained`, `not_attempted` or (at least
    one entry of) `fixes`.
    """
    likely = likely_misconceptions(report)
    shown = {mid: describe(mid) for mid, _ in likely}
    shown = {mid: m for mid, m in shown.items() if m is not None}
    explains: dict[str, list[TestResult]] = {mid: [] for mid in shown}
    unexplained: list[dict[str, Any]] = []
    not_attempted: dict[str, dict[str, Any]] = {}
    for t in report.tests:
        if t.status == "passed":
            continue
        if t.status == "missing":
            message = strip_explanations(t.message)
            found = function_key(message)
            entry = not_attempted.setdefault(
                found["key"],
                {
                    "function": found["key"],
                    "kind": found["kind"],
                    "reason": found["reason"],
                    "advice": found["advice"],
                    "part": t.part,
                    "part_title": PART_TITLES.get(t.part, t.part),
                    "count": 0,
                    "points": 0.0,
                    "summary": summary_line(message),
                    "tests": [],
                    "follows": [],
                },
            )
            if found["via"]:  # no first line of its own: the function's own entry has one
                entry["follows"].append(t.id)
            else:
                entry["reason"], entry["summary"] = found["reason"], summary_line(message)
            entry["count"] += 1
            entry["points"] += t.max_score
            entry["tests"].append(t.id)
            continue
        named = [d for d in t.diagnoses if d in explains]
        for d in named:
            explains[d].append(t)
        if not named:
            unexplained.append(_test_view(t))
    fixes = []
    for mid, support in likely:
        m = shown.get(mid)
        if m is None:
            continue
        tests = explains[mid]
        fixes.append(
            {
                "id": mid,
                "title": m.title,
                "explanation": m.explanation,
                "hint": m.hint,
                "support": support,
                "tests": [t.id for t in tests],
                "points_lost": f"{sum(t.max_score - t.score for t in tests):g}",
            }
        )
    for entry in not_attempted.values():
        entry["points"] = f"{entry['points']:g}"
    order = {p: i for i, p in enumerate(PART_IDS)}
    entries = sorted(not_attempted.values(), key=lambda e: order.get(e["part"], 99))
    return {
        "fixes": fixes,
        "unexplained": unexplained,
        # in the handout's order (parts A-D), each part's functions as the suite first met them
        "not_attempted": entries,
        "not_attempted_heading": _not_attempted_heading(entries),
    }


def _not_attempted_heading(entries: list[dict[str, Any]]) -> str:
    """The section's heading, true of what it lists: functions, files (a missing module, the
    drill's note or script), or both."""
    files = any(e["kind"] == "file" for e in entries)
    functions = any(e["kind"] != "file" for e in entries)
    if files and functions:
        return "Functions and files you have not attempted yet"
    return "Files you have not attempted yet" if files else "Functions you have not attempted yet"


def report_view(
    report: GradeReport,
    fmt: str,
    *,
    title: str | None = None,
    adjustment: ScoreAdjustment | None = None,
    shared: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Everything the report templates use: the totals, `feedback_view`'s groups, and per part
    the compact evidence (`evidence`: its failed checks that were attempted).

    With an `adjustment`, `score` and `pct` are the adjusted total and `adjustment` holds
    `label`, `reason` and the report's own total (`raw_score`); else `adjustment` is None.

    `shared`: a dict the caller keeps while it renders this one `report` in several formats
    (a batch writes .md and .html): the parts and the feedback groups, the same in every
    format, are computed for the first and reused by the others. The templates only read
    them. Never share one dict between two reports."""
    if shared is None:
        shared = {}
    if "report" in shared and shared["report"] is not report:
        raise ValueError("a shared view belongs to one report")
    if "parts" not in shared:
        shared.update(report=report, parts=_parts_view(report), feedback=feedback_view(report))
    parts, feedback = shared["parts"], shared["feedback"]
    written = {}
    if report.written:
        from grader.rubric.render import render_written

        wfmt = {"text": "text", "md": "md", "html": "html"}[fmt]
        written = {name: render_written(w, wfmt) for name, w in report.written.items()}
    total = report.score if adjustment is None else adjustment.score
    return {
        "title": title or "Grade report",
        "submission": report.submission,
        "version": report.grader_version,
        "score": f"{total:g}",
        "max_score": f"{report.max_score:g}",
        "pct": _pct(total, report.max_score),
        "adjustment": None
        if adjustment is None
        else {
            "label": adjustment.label,
            "reason": adjustment.reason,
            "raw_score": f"{report.score:g}",
        },
        "parts": parts,
        # the misconceptions as before (the GitHub step summary lists them on their own)
        "misconceptions": feedback["fixes"],
        **feedback,
        "written": written,
        "errors": list(report.errors),
    }


def _parts_view(report: GradeReport) -> list[dict[str, Any]]:
    """Per part: its totals, every check's view, the failed ones and the compact evidence."""
    parts = []
    by_part: dict[str, list[dict[str, Any]]] = {}
    for t in report.tests:
        by_part.setdefault(t.part, []).append(_test_view(t))
    for pid, ps in report.parts.items():
        tests = by_part.get(pid, [])
        failed = [t for t in tests if t["status"] != "passed"]
        parts.append(
            {
                "id": pid,
                "title": PART_TITLES.get(pid, pid),
                "score": f"{ps.score:g}",
                "max_score": f"{ps.max_score:g}",
                "pct": _pct(ps.score, ps.max_score),
                "tests": tests,
                "failed": failed,
                "evidence": [t for t in failed if t["status"] != "missing"],
                "passed_count": sum(1 for t in tests if t["status"] == "passed"),
            }
        )
    return parts
