"""`grader demo`: grade the bundled sample class end to end and print a summary table.

The class lives in `grader/demo_class/<student>/`: an `explanation.md` each, and an
`edits.toml` of textual edits to the base (`solutions/` for most students, the untouched
`exercises/` stubs for `ben`) for the buggy and hostile ones, so the demo always tracks the
current reference. Students:

ada  - the reference code, a strong explanation and the reference drill
ben  - the untouched stubs and drill scaffold (nothing attempted)
cleo - forgot to shift the causal LM loss; a keyword-only explanation; no drill
dev  - triu instead of tril in the causal mask; top-p that drops the crossing token; the
       reference drill's files, which his own masks do not reproduce
eve  - hostile: reads secrets and plants files at import, sys.exit() in mask_tokens,
       an infinite loop that ignores SIGTERM in greedy_generate, an injection in the answer,
       a drill that tries the network and fakes its results

`drill = true` in a student's edits.toml hands in base's drill/ folder (edits may change it).
"""

from __future__ import annotations

import time
import tomllib
from collections.abc import Callable
from pathlib import Path

from grader.loading import Submission
from grader.output import write_atomic
from grader.parts import PART_IDS
from grader.pipeline import GradeOptions, Grader
from grader.render import render_report
from grader.render.view import likely_misconceptions
from grader.report import GradeReport
from grader.resources import data_path
from grader.sandbox.limits import SandboxLimits
from grader.testing import SOLUTIONS, STUBS, reference_submission

DEMO_DIR = data_path("grader", "demo_class")
STUB_STUDENTS = {"ben"}


def demo_submissions() -> list[Submission]:
    """The sample class as loaded Submissions.

    Each student folder holds an `explanation.md` and, for the buggy and hostile students, an
    `edits.toml` of textual edits to the reference (each must apply exactly once), so the demo
    always tracks the current solutions instead of keeping copies that drift.
    """
    subs = []
    for folder in sorted(p for p in DEMO_DIR.iterdir() if p.is_dir()):
        base = STUBS if folder.name in STUB_STUDENTS else SOLUTIONS
        overrides: dict[str, str | bytes | None] = {}
        edits = folder / "edits.toml"
        spec = tomllib.loads(edits.read_text(encoding="utf-8")) if edits.exists() else {}
        if spec:
            for edit in spec.get("edit", []):
                name = edit["file"]
                src = str(overrides.get(name) or (base / name).read_text(encoding="utf-8"))
                count = src.count(edit["old"])
                if count != 1:
                    raise ValueError(f"{edits}: {edit['old']!r} occurs {count} times in {name}")
                overrides[name] = src.replace(edit["old"], edit["new"])
        for f in sorted(folder.glob("*.md")):
            overrides[f.name] = f.read_bytes()
        drill = bool(spec.get("drill", False))
        subs.append(reference_submission(folder.name, overrides, base=base, drill=drill))
    return subs


def run_demo(
    *, out: Path | None = None, color: bool = False, echo: Callable[[str], None] = print
) -> list[GradeReport]:
    """Grade the sample class, print one line per student, optionally write their reports."""
    options = GradeOptions(
        limits=SandboxLimits(call_timeout=3.0, submission_timeout=30.0, drill_timeout=15.0)
    )
    reports: list[GradeReport] = []
    columns = PART_IDS
    header = f"{'student':<8}" + "".join(f"{c:>12}" for c in columns) + f"{'total':>14}{'time':>7}"
    echo("Grading the bundled sample class (5 submissions, hidden tests, sandboxed)...\n")
    echo(header)
    echo("-" * len(header))
    t_all = time.perf_counter()
    with Grader(options) as grader:
        for sub in demo_submissions():
            t0 = time.perf_counter()
            report = grader.grade(sub)
            dt = time.perf_counter() - t0
            reports.append(report)
            parts = report.parts
            cells = "".join(
                f"{_cell(parts[c].score, parts[c].max_score) if c in parts else '-':>12}"
                for c in columns
            )
            total = _cell(report.score, report.max_score)
            echo(f"{sub.name:<8}{cells}{total:>14}{dt:>6.2f}s")
            if out is not None:
                write_atomic(out / f"{sub.name}.json", report.to_json() + "\n")
                write_atomic(out / f"{sub.name}.md", render_report(report, "md"))
    elapsed = time.perf_counter() - t_all
    echo("")
    for report in reports:
        notes = _notes(report)
        if notes:
            echo(f"{report.submission}: {notes}")
    echo(f"\nGraded {len(reports)} submissions in {elapsed:.1f} s.")
    if out is not None:
        echo(
            f"Reports written to {out}/ (JSON and Markdown). "
            f"For one student in full: grader grade <folder> --format md"
        )
    else:
        echo(
            "Full feedback for one student: grader demo --out demo-reports/ "
            "(or grader grade <folder>)"
        )
    return reports


def _cell(score: float, max_score: float) -> str:
    return f"{score:g}/{max_score:g}"


def _notes(report: GradeReport) -> str:
    bits = []
    statuses = [t.status for t in report.tests]
    if statuses and all(s == "missing" for s in statuses):
        bits.append("nothing attempted yet")
    for status in ("timeout", "error"):
        n = statuses.count(status)
        if n:
            bits.append(f"{n} test(s) {status}")
    likely = [mid for mid, _ in likely_misconceptions(report)]
    if likely:
        bits.append("misconceptions: " + ", ".join(likely[:4]))
    explanation = report.written.get("explanation")
    if explanation is not None and explanation.needs_review:
        bits.append("explanation flagged for review")
    return "; ".join(bits)
