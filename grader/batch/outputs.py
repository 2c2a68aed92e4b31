"""Everything a batch writes into OUT, rebuilt from the graded reports at the end of a run.

Each file is written atomically (temporary file + rename) and only when its content changed,
so a re-run that changed nothing rewrites nothing and a crash never leaves half a file:

  results.jsonl            one GradeReport (the design's JSON) per graded student, by key
  gradebook.csv            Canvas import (see gradebook.py); gradebook_notes.csv beside it
  feedback/<key>.md|.html  the student's own report
  report.html              the class report
  manifest.json            who was found where, and what happened to each entry
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.batch.classreport import ClassRow, render_class_report
from grader.batch.duplicates import Duplicate, find_duplicates
from grader.batch.gradebook import GradebookLine, Roster, points_possible, render_gradebook, resolve
from grader.batch.intake import Identity
from grader.output import write_atomic

FEEDBACK_DIR = "feedback"


@dataclass
class EntryOutcome:
    """One entry of INPUT at the end of a run."""

    key: str
    display: str
    source: str
    members: list[Identity]
    late: bool
    status: str  # "graded" | "unreadable" | "error"
    report: Any = None  # GradeReport when graded
    message: str = ""
    cache_key: str = ""
    cached: bool = False


@dataclass
class WriteResult:
    written: list[str] = field(default_factory=list)
    unchanged: int = 0
    removed: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    duplicates: list[Duplicate] = field(default_factory=list)  # students in several entries


def write_if_changed(path: Path, text: str, result: WriteResult) -> None:
    try:
        if path.is_file() and path.read_bytes() == text.encode("utf-8"):
            result.unchanged += 1
            return
    except OSError:
        pass
    write_atomic(path, text)
    result.written.append(str(path))


def write_outputs(out: Path, outcomes: list[EntryOutcome], *, layout: str, input_path: str,
                  assignment: str, roster: Roster | None, fingerprint: str, version: str,
                  render: Callable[[Any, str], str] | None = None) -> WriteResult:
    """(Re)generate every output from `outcomes` (sorted by key)."""
    out = Path(out)
    result = WriteResult()
    outcomes = sorted(outcomes, key=lambda o: o.key)
    graded = [o for o in outcomes if o.report is not None]

    lines = [json.dumps(o.report.to_dict(), ensure_ascii=False) for o in graded]
    write_if_changed(out / "results.jsonl", "".join(line + "\n" for line in lines), result)

    people = [(o, resolve(who, roster, entry_name=o.display)) for o in outcomes
              for who in o.members]
    dups = find_duplicates([(o.key, o.display, who) for o, who in people])
    result.duplicates = dups.students
    book: list[GradebookLine] = []
    for i, (o, full) in enumerate(people):
        if i in dups.repeats:
            continue
        dup = dups.by_position.get(i)
        if o.report is not None:
            note = "late (Canvas)" if o.late else ""
            if dup is not None:
                note = (note + "; " if note else "") + _duplicate_note(dup)
            book.append(GradebookLine(o.key, full, o.report.score, note,
                                      withheld=dup is not None))
        else:
            note = f"not graded ({o.status}): {o.message}"
            if dup is not None:
                note += "; " + _duplicate_note(dup)
            book.append(GradebookLine(o.key, full, None, note))
    pts = points_possible([o.report.max_score for o in graded])
    csv_text, notes_text = render_gradebook(book, assignment, pts)
    write_if_changed(out / "gradebook.csv", csv_text, result)
    write_if_changed(out / "gradebook_notes.csv", notes_text, result)

    _write_feedback(out / FEEDBACK_DIR, graded, render, result)

    rows = [ClassRow(o.key, o.display, o.source, o.late, o.status, o.report, o.message)
            for o in outcomes]
    try:
        html = render_class_report(rows, title=assignment, layout=layout,
                                   fingerprint=fingerprint, version=version,
                                   feedback_dir=FEEDBACK_DIR, duplicates=result.duplicates)
    except Exception as exc:  # noqa: BLE001 - the other outputs are still useful
        result.errors.append(f"report.html: {type(exc).__name__}: {exc}")
    else:
        write_if_changed(out / "report.html", html, result)

    manifest = {
        "input": input_path,
        "layout": layout,
        "grader_version": version,
        "fingerprint": fingerprint,
        "assignment": assignment,
        "entries": [
            {
                "key": o.key, "display": o.display, "source": o.source, "status": o.status,
                "late": o.late, "members": [m.to_dict() for m in o.members],
                "score": o.report.score if o.report is not None else None,
                "max_score": o.report.max_score if o.report is not None else None,
                "message": o.message, "cache_key": o.cache_key,
            }
            for o in outcomes
        ],
        "duplicates": [d.to_dict() for d in result.duplicates],
    }
    write_if_changed(out / "manifest.json",
                     json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", result)
    return result


def _duplicate_note(dup: Duplicate) -> str:
    return (f"this student is in {len(dup.entries)} submissions: {dup.describe()}; no score in "
            "gradebook.csv until the instructor decides which counts (fix the group in "
            "Gradescope and re-export, or enter the grade by hand)")


def _write_feedback(folder: Path, graded: list[EntryOutcome],
                    render: Callable[[Any, str], str] | None, result: WriteResult) -> None:
    if render is None:
        from grader.render import render_report

        def render(report: Any, fmt: str) -> str:
            return render_report(report, fmt)

    wanted: set[str] = set()
    for o in graded:
        for fmt in ("md", "html"):
            name = f"{o.key}.{fmt}"
            wanted.add(name)
            try:
                text = render(o.report, fmt)
            except Exception as exc:  # noqa: BLE001 - one broken render must not stop the rest
                result.errors.append(f"{FEEDBACK_DIR}/{name}: {type(exc).__name__}: {exc}")
                continue
            write_if_changed(folder / name, text, result)
    if folder.is_dir():  # feedback of students no longer in INPUT would mislead
        for f in folder.iterdir():
            if f.is_file() and f.suffix in (".md", ".html") and f.name not in wanted:
                try:
                    os.unlink(f)
                    result.removed.append(str(f))
                except OSError:
                    pass
