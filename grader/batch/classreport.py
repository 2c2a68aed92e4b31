"""The class report (`OUT/report.html`): distribution, failure rates, misconceptions, review,
and the submissions that need a look (not graded, several copies, duplicates, similarity).

`class_view()` turns the graded reports into plain numbers and strings (plot geometry
included); `feedback_templates/class_report.html.j2` draws them as one self-contained page with
inline SVG: no scripts, no external assets, every piece of student text escaped by Jinja's
autoescaping.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from grader.batch.duplicates import Duplicate
from grader.batch.gradebook import format_points
from grader.diagnosis import describe
from grader.loading.model import read_copies_note
from grader.parts import PART_IDS, PART_TITLES
from grader.render import environment
from grader.report import GradeReport, ScoreAdjustment

TEMPLATE = "class_report.html.j2"
STATUSES = ("failed", "error", "timeout", "missing")
CHART_TESTS = 30


@dataclass(frozen=True)
class ClassRow:
    """One entry of the class as the report sees it."""

    key: str
    display: str
    source: str
    late: bool
    status: str  # "graded" | "unreadable" | "error"
    report: GradeReport | None
    message: str = ""
    # the gradebook's score when it is not the report's own (a late penalty)
    adjustment: ScoreAdjustment | None = None


def score_centre(scores: list[float]) -> dict[str, str]:
    """`mean` and `median` of the graded totals as the class report shows them ("-" for an
    empty class); the batch's summary line prints the same two."""
    if not scores:
        return {"mean": "-", "median": "-"}
    return {
        "mean": format_points(statistics.fmean(scores)),
        "median": format_points(statistics.median(scores)),
    }


def render_class_report(
    rows: list[ClassRow],
    *,
    title: str,
    layout: str,
    fingerprint: str,
    version: str,
    feedback_dir: str = "feedback",
    duplicates: Sequence[Duplicate] = (),
    similarity: Sequence[dict[str, Any]] = (),
    compared: int = 0,
) -> str:
    """The page. `duplicates`: students listed by several entries (shown with all of them);
    `similarity`: the most similar pairs (grader.batch.similarity.view) of `compared`."""
    view = class_view(
        rows,
        title=title,
        layout=layout,
        fingerprint=fingerprint,
        version=version,
        feedback_dir=feedback_dir,
    )
    view["duplicates"] = [
        {"student": d.label(), "entries": [{"key": k, "display": v} for k, v in d.entries]}
        for d in duplicates
    ]
    view["similarity"] = list(similarity)
    view["compared"] = compared
    return environment(autoescape=True).get_template(TEMPLATE).render(**view)


def _pct(score: float, max_score: float) -> float:
    return 100.0 * score / max_score if max_score else 0.0


def class_view(
    rows: list[ClassRow],
    *,
    title: str,
    layout: str,
    fingerprint: str,
    version: str,
    feedback_dir: str = "feedback",
) -> dict[str, Any]:
    """The template context of the class report for `rows`: counts, score summary and
    histogram, per-part and per-test results, misconceptions, the review queue, problems and
    one line per student (entries that could not be graded are counted apart, not scored)."""
    graded = [r for r in rows if r.report is not None]
    reports = [r.report for r in graded if r.report is not None]
    n = len(reports)
    scores = [rep.score for rep in reports]
    max_score = Counter(rep.max_score for rep in reports).most_common(1)[0][0] if reports else 0
    pcts = [_pct(rep.score, rep.max_score) for rep in reports]
    summary = {
        "entries": len(rows),
        "graded": n,
        "unreadable": sum(1 for r in rows if r.status == "unreadable"),
        "errors": sum(1 for r in rows if r.status == "error"),
        "late": sum(1 for r in rows if r.late),
        "adjusted": sum(1 for r in graded if r.adjustment is not None),
        "max_score": format_points(max_score),
        **score_centre(scores),
        "stdev": format_points(statistics.pstdev(scores)) if len(scores) > 1 else "-",
        "min": format_points(min(scores)) if scores else "-",
        "max": format_points(max(scores)) if scores else "-",
        "full_marks": sum(1 for rep in reports if rep.max_score and rep.score >= rep.max_score),
    }
    return {
        "title": title,
        "layout": layout,
        "version": version,
        "fingerprint": fingerprint[:12],
        "summary": summary,
        "histogram": _histogram(pcts),
        "parts": _parts(reports),
        "tests": _tests(reports),
        "misconceptions": _misconceptions(reports),
        "review": _review(graded),
        "problems": [
            {
                "key": r.key,
                "display": r.display,
                "source": r.source,
                "status": r.status,
                "message": r.message,
            }
            for r in rows
            if r.status != "graded"
        ],
        "copies": _copies(graded, feedback_dir),
        "students": _students(rows, feedback_dir),
        "part_ids": [p for p in PART_IDS if any(p in rep.parts for rep in reports)],
        "part_titles": PART_TITLES,
        "status_names": STATUSES,
    }


# ----------------------------------------------------------------------------- sections


def _histogram(pcts: list[float]) -> dict[str, Any]:
    """Ten bins of the score in % (the last bin includes 100%), as SVG geometry."""
    counts = [0] * 10
    for p in pcts:
        counts[min(9, max(0, int(p // 10)))] += 1
    top = max(counts) if any(counts) else 1
    width, height, left, bottom = 560, 220, 36, 30
    plot_h = height - bottom - 16
    bar_w = (width - left - 10) / 10
    bars = []
    for i, c in enumerate(counts):
        h = plot_h * c / top
        bars.append(
            {
                "x": round(left + i * bar_w + 2, 1),
                "y": round(height - bottom - h, 1),
                "w": round(bar_w - 4, 1),
                "h": round(h, 1),
                "count": c,
                "label": f"{i * 10}-{i * 10 + 10}%" if i < 9 else "90-100%",
                "cx": round(left + (i + 0.5) * bar_w, 1),
            }
        )
    ticks = sorted({0, top, (top + 1) // 2})
    return {
        "width": width,
        "height": height,
        "left": left,
        "base": height - bottom,
        "bars": bars,
        "ticks": [{"value": t, "y": round(height - bottom - plot_h * t / top, 1)} for t in ticks],
        "empty": not pcts,
    }


def _bar_rows(items: list[dict[str, Any]], value_key: str, *, scale: float) -> dict[str, Any]:
    """Horizontal bar chart geometry: one row per item, value in [0, scale]."""
    row_h, label_w, bar_w = 22, 330, 300
    for i, it in enumerate(items):
        v = float(it[value_key])
        it["y"] = 4 + i * row_h
        it["w"] = round(bar_w * (v / scale if scale else 0), 1)
        it["ty"] = it["y"] + 14
    return {
        "width": label_w + bar_w + 70,
        "height": 8 + row_h * len(items),
        "label_w": label_w,
        "bar_w": bar_w,
        "rows": items,
    }


def _parts(reports: list[GradeReport]) -> dict[str, Any]:
    totals: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for rep in reports:
        for pid, ps in rep.parts.items():
            totals[pid][0] += ps.score
            totals[pid][1] += ps.max_score
    items = [
        {
            "id": pid,
            "title": PART_TITLES.get(pid, pid),
            "pct": round(_pct(s, m), 1),
            "mean": format_points(s / len(reports)),
            "max": format_points(m / len(reports)),
        }
        for pid, (s, m) in totals.items()
    ]
    return _bar_rows(items, "pct", scale=100.0)


def _tests(reports: list[GradeReport]) -> dict[str, Any]:
    by_id: dict[str, dict[str, Any]] = {}
    for rep in reports:
        for t in rep.tests:
            row = by_id.setdefault(
                t.id,
                {
                    "id": t.id,
                    "part": t.part,
                    "max_score": t.max_score,
                    "n": 0,
                    "counts": Counter(),
                    "diagnoses": Counter(),
                },
            )
            row["n"] += 1
            row["counts"][t.status] += 1
            for d in t.diagnoses:
                row["diagnoses"][d] += 1
    items = []
    for row in by_id.values():
        n = row["n"]
        not_passed = n - row["counts"]["passed"]
        segments = []
        offset = 0.0
        for status in STATUSES:
            c = row["counts"][status]
            if c:
                segments.append({"status": status, "count": c, "frac": c / n, "offset": offset})
                offset += c / n
        items.append(
            {
                "id": row["id"],
                "part": row["part"],
                "points": format_points(row["max_score"]),
                "n": n,
                "rate": round(100.0 * not_passed / n, 1) if n else 0.0,
                "counts": {s: row["counts"][s] for s in ("passed", *STATUSES)},
                "segments": segments,
                "diagnoses": [
                    {"id": d, "count": c, "title": _title(d)}
                    for d, c in row["diagnoses"].most_common(3)
                ],
            }
        )
    items.sort(key=lambda it: (-it["rate"], it["id"]))
    # The chart shows the hardest tests; the table below it lists every test.
    chart = _bar_rows(
        [dict(it) for it in items if it["rate"] > 0][:CHART_TESTS], "rate", scale=100.0
    )
    chart["all"] = items
    chart["hidden"] = sum(1 for it in items if it["rate"] > 0) - len(chart["rows"])
    for it in chart["rows"]:
        for seg in it["segments"]:
            seg["x"] = round(chart["label_w"] + chart["bar_w"] * seg["offset"], 1)
            seg["w"] = round(chart["bar_w"] * seg["frac"], 1)
    return chart


def _title(mid: str) -> str:
    m = describe(mid)
    return m.title if m else mid


def _misconceptions(reports: list[GradeReport]) -> dict[str, Any]:
    counts: Counter[str] = Counter()
    for rep in reports:
        for d in rep.diagnoses:
            counts[d] += 1
    items = []
    for mid, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        m = describe(mid)
        items.append(
            {
                "id": mid,
                "count": c,
                "title": m.title if m else mid,
                "part": m.part if m else "",
                "hint": m.hint if m else "",
                "share": round(100.0 * c / len(reports), 1) if reports else 0.0,
            }
        )
    top = max((it["count"] for it in items), default=1)
    return _bar_rows(items, "count", scale=float(top))


def _review(graded: list[ClassRow]) -> list[dict[str, Any]]:
    """One row per student with a written answer to review (`answers`: each flagged answer,
    its score, why it was flagged and the criteria with the quoted evidence)."""
    out = []
    for row in graded:
        rep = row.report
        if rep is None:
            continue
        answers = [
            {
                "answer": name,
                "score": format_points(w.score),
                "max_score": format_points(w.max_score),
                "summary": w.summary,
                "reasons": list(w.review_reasons),
                "criteria": [
                    {
                        "id": c.id,
                        "verdict": c.verdict,
                        "evidence": c.evidence,
                        "confidence": f"{c.confidence:.2f}",
                        "flagged": c.needs_review,
                    }
                    for c in w.criteria
                ],
            }
            for name, w in rep.written.items()
            if w.needs_review
        ]
        if answers:
            out.append({"key": row.key, "display": row.display, "answers": answers})
    return out


def _copies(graded: list[ClassRow], feedback_dir: str) -> list[dict[str, Any]]:
    """One row per submission that held several copies of the exercise files: which copy was
    graded (the most recently modified, `grader.loading.model.choose_root`) and the note."""
    out = []
    for row in graded:
        for note in row.report.errors if row.report is not None else ():
            found = read_copies_note(note)
            if found is not None:
                out.append(
                    {
                        "key": row.key,
                        "display": row.display,
                        "copies": found[0],
                        "graded": found[1],
                        "note": note,
                        "html": f"{feedback_dir}/{row.key}.html",
                    }
                )
                break
    return out


def _students(rows: list[ClassRow], feedback_dir: str) -> list[dict[str, Any]]:
    """The table of students. The score is the one the gradebook holds: with a late penalty
    that is the adjusted total, shown next to the report's own and the reason."""
    out = []
    for r in rows:
        rep, adj = r.report, r.adjustment
        score = adj.score if rep and adj else rep.score if rep else 0.0
        out.append(
            {
                "key": r.key,
                "display": r.display,
                "late": r.late,
                "status": r.status,
                "score": format_points(score) if rep else "",
                "max_score": format_points(rep.max_score) if rep else "",
                "pct": f"{_pct(score, rep.max_score):.0f}%" if rep and rep.max_score else "",
                "raw": format_points(rep.score) if rep and adj else "",
                "adjustment": f"{adj.label}: {adj.reason}" if rep and adj else "",
                "parts": {p: format_points(ps.score) for p, ps in rep.parts.items()} if rep else {},
                "review": bool(rep and any(w.needs_review for w in rep.written.values())),
                "notes": len(rep.errors) if rep else 0,
                "md": f"{feedback_dir}/{r.key}.md" if rep else "",
                "html": f"{feedback_dir}/{r.key}.html" if rep else "",
                "message": r.message,
            }
        )
    return out
