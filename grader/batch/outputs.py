"""Everything a batch writes into OUT, rebuilt from the graded reports at the end of a run.

Each file is written atomically (temporary file + rename) and only when its content changed,
so a re-run that changed nothing rewrites nothing and a crash never leaves half a file:

  results.jsonl            one GradeReport (the design's JSON) per graded student, by key
  gradebook.csv            Canvas import (see gradebook.py); gradebook_notes.csv beside it
  feedback/<key>.md|.html  the student's own report
  report.html              the class report
  manifest.json            who was found where, what happened to each entry, the settings
  similarity.csv           pairs of unusually similar submissions (similarity.py)

The instructor's overrides (`OUT/overrides.toml`, see overrides.py) and the late policy are
applied here, so every output (and `grader render`) shows the same grades.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from grader.batch.classreport import ClassRow, render_class_report
from grader.batch.duplicates import Duplicate, find_duplicates
from grader.batch.gradebook import (
    GradebookLine,
    Roster,
    points_possible,
    render_gradebook,
    resolve,
)
from grader.batch.intake import Identity
from grader.batch.late import LatePolicy, Penalty
from grader.batch.overrides import Applied, Record
from grader.batch.similarity import SimilarityOptions, compare, print_shape, render_csv, view
from grader.loading import SubmissionError
from grader.output import write_atomic
from grader.report import ScoreAdjustment

# Every CSV in OUT starts with a UTF-8 byte-order mark. Without one, Excel reads a CSV in the
# ANSI code page and shows `Müller` as `MÃ¼ller`. Canvas's gradebook importer accepts it (it
# finds the header with `row[0].include?("Student")`, and Canvas's own gradebook export writes
# one when the user asks), and `--roster` reads a Canvas export with or without one. Nothing
# in OUT feeds an importer that refuses a mark (docs/instructor.md, "Encoding").
EXCEL_BOM = "\ufeff"
FEEDBACK_DIR = "feedback"
PRINTS = ".cache/fingerprints.jsonl"  # similarity fingerprints by entry, for `grader render`
NOTEBOOKS = ".cache/notebooks"  # notebook submissions, for their feedback notebooks
NOTEBOOK_HTML_SECONDS = 20.0  # nbconvert on one feedback notebook (a normal one takes ~0.3 s)
NOTEBOOK_HTML_MEMORY_MB = 1024
NOTEBOOK_HTML_CHILDREN = 2  # the pages are made side by side (the pool has finished by then)


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
    submitted_at: str = ""  # ISO 8601 when the export gives it (the late policy uses it)
    answers: dict[str, str] = field(default_factory=dict)  # written part -> answer_digest
    prints: Any = None  # similarity fingerprints (grader.batch.similarity), None if unknown
    notebook: str = ""  # a notebook submission's JSON, for feedback inside it


@dataclass
class WriteResult:
    written: list[str] = field(default_factory=list)
    unchanged: int = 0
    removed: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    duplicates: list[Duplicate] = field(default_factory=list)  # students in several entries
    overrides: Applied = field(default_factory=Applied)  # what the instructor record did
    # the graded totals the outputs were written with (overrides applied, before any late
    # penalty): what report.html's summary describes, and so the run's summary line
    scores: list[float] = field(default_factory=list)


def write_if_changed(path: Path, text: str, result: WriteResult) -> None:
    """Write `text` to `path` atomically unless the file already holds exactly those bytes; counted
    in `result` either way."""
    try:
        if path.is_file() and path.read_bytes() == text.encode("utf-8"):
            result.unchanged += 1
            return
    except OSError:
        pass
    write_atomic(path, text)
    result.written.append(str(path))


@dataclass
class Settings:
    """How the outputs are made, beside the reports: kept in manifest.json for `grader render`."""

    assignment: str = "Autograder"
    roster: Roster | None = None
    roster_path: str = ""
    late: LatePolicy | None = None
    overrides: Record = field(default_factory=dict)  # OUT/overrides.toml, validated
    similarity: SimilarityOptions = field(default_factory=SimilarityOptions)


def write_outputs(
    out: Path,
    outcomes: list[EntryOutcome],
    *,
    layout: str,
    input_path: str,
    assignment: str,
    roster: Roster | None,
    fingerprint: str,
    version: str,
    render: Callable[[Any, str], str] | None = None,
    settings: Settings | None = None,
) -> WriteResult:
    """(Re)generate every output from `outcomes` (sorted by key), with the instructor
    overrides and the late policy of `settings` applied.

    Everything is rendered before the first file is written, so an override that does not
    fit its report (`OverridesError`) leaves every output as it was."""
    out = Path(out)
    settings = settings or Settings(assignment=assignment, roster=roster)
    result = WriteResult()
    outcomes = _with_overrides(sorted(outcomes, key=lambda o: o.key), settings, result)
    graded = [o for o in outcomes if o.report is not None]
    result.scores = [o.report.score for o in graded]
    files: dict[Path, str] = {}

    lines = [json.dumps(o.report.to_dict(), ensure_ascii=False) for o in graded]
    files[out / "results.jsonl"] = "".join(line + "\n" for line in lines)

    people = [
        (o, resolve(who, roster, entry_name=o.display)) for o in outcomes for who in o.members
    ]
    dups = find_duplicates([(o.key, o.display, who) for o, who in people])
    result.duplicates = dups.students
    book: list[GradebookLine] = []
    penalties = _penalties(graded, settings.late)
    for i, (o, full) in enumerate(people):
        if i in dups.repeats:
            continue
        dup = dups.by_position.get(i)
        if o.report is not None:
            note = "late (Canvas)" if o.late else ""
            if dup is not None:
                note = (note + "; " if note else "") + _duplicate_note(dup)
            score, raw, penalty = o.report.score, None, ""
            pen = penalties.get(o.key)
            if pen is not None:
                raw, score = score, pen.applied_to(score)
                penalty = pen.describe(o.report.max_score)
            book.append(
                GradebookLine(
                    o.key, full, score, note, withheld=dup is not None, raw=raw, penalty=penalty
                )
            )
        else:
            note = f"not graded ({o.status}): {o.message}"
            if dup is not None:
                note += "; " + _duplicate_note(dup)
            book.append(GradebookLine(o.key, full, None, note))
    pts = points_possible([o.report.max_score for o in graded])
    csv_text, notes_text = render_gradebook(book, assignment, pts, roster_given=roster is not None)
    files[out / "gradebook.csv"] = EXCEL_BOM + csv_text
    files[out / "gradebook_notes.csv"] = EXCEL_BOM + notes_text

    # the student's feedback shows the score that goes in the gradebook (late penalty applied)
    adjusted = {
        o.key: penalties[o.key].adjustment(o.report.score, o.report.max_score)
        for o in graded
        if o.key in penalties
    }
    wanted = _feedback(out / FEEDBACK_DIR, graded, render, result, files, adjusted)
    for o in graded:
        if o.notebook:
            files[out / NOTEBOOKS / f"{o.key}.ipynb"] = o.notebook
    wanted |= _notebook_feedback(
        out / FEEDBACK_DIR, [o for o in graded if o.notebook], result, files, adjusted
    )

    prints = {o.key: o.prints for o in graded if o.prints is not None}
    pairs = compare(prints, settings.similarity)
    files[out / "similarity.csv"] = EXCEL_BOM + render_csv(pairs)
    files[out / PRINTS] = "".join(
        json.dumps(
            {
                "key": o.key,
                "cache_key": o.cache_key,
                "shape": print_shape(settings.similarity),
                "prints": o.prints,
            },
            separators=(",", ":"),
        )
        + "\n"
        for o in outcomes
        if o.prints is not None
    )

    rows = [
        ClassRow(
            o.key, o.display, o.source, o.late, o.status, o.report, o.message, adjusted.get(o.key)
        )
        for o in outcomes
    ]
    try:
        html = render_class_report(
            rows,
            title=assignment,
            layout=layout,
            fingerprint=fingerprint,
            version=version,
            feedback_dir=FEEDBACK_DIR,
            duplicates=result.duplicates,
            similarity=view(pairs),
            compared=len(prints),
        )
    except Exception as exc:  # noqa: BLE001 - the other outputs are still useful
        result.errors.append(f"report.html: {type(exc).__name__}: {exc}")
    else:
        files[out / "report.html"] = html

    manifest = {
        "input": input_path,
        "layout": layout,
        "grader_version": version,
        "fingerprint": fingerprint,
        "assignment": assignment,
        "roster": settings.roster_path or None,
        "late_policy": settings.late.to_dict() if settings.late else None,
        "similarity": asdict(settings.similarity),
        "entries": [
            {
                "key": o.key,
                "display": o.display,
                "source": o.source,
                "status": o.status,
                "late": o.late,
                "members": [m.to_dict() for m in o.members],
                "score": o.report.score if o.report is not None else None,
                "max_score": o.report.max_score if o.report is not None else None,
                "message": o.message,
                "cache_key": o.cache_key,
                "submitted_at": o.submitted_at,
                "answers": o.answers,
                "notebook": bool(o.notebook),
                **({"late_penalty": penalties[o.key].percent} if o.key in penalties else {}),
            }
            for o in outcomes
        ],
        "duplicates": [d.to_dict() for d in result.duplicates],
    }
    ours = _previous_keys(out / "manifest.json")  # read before this run's manifest replaces it
    files[out / "manifest.json"] = json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"
    for path, text in files.items():
        write_if_changed(path, text, result)
    _remove_stale_feedback(out / FEEDBACK_DIR, wanted, ours, result)
    return result


def _with_overrides(
    outcomes: list[EntryOutcome], settings: Settings, result: WriteResult
) -> list[EntryOutcome]:
    """The outcomes with the instructor record applied (new objects; the raw ones are kept)."""
    if not settings.overrides:
        return outcomes
    from grader.batch.overrides import apply_record
    from grader.rubric.model import load_rubric

    reports = {o.key: o.report for o in outcomes if o.report is not None}
    answers = {o.key: o.answers.get("explanation") for o in outcomes}
    final, result.overrides = apply_record(reports, settings.overrides, answers, load_rubric())
    return [replace(o, report=final[o.key]) if o.report is not None else o for o in outcomes]


def _penalties(graded: list[EntryOutcome], policy: LatePolicy | None) -> dict[str, Penalty]:
    """Each graded entry's late penalty, by key (none without a policy, none when on time)."""
    if policy is None:
        return {}
    pens = {
        o.key: policy.penalty(
            flagged=o.late, submitted_at=o.submitted_at, max_score=o.report.max_score
        )
        for o in graded
    }
    return {k: p for k, p in pens.items() if p is not None}


def _duplicate_note(dup: Duplicate) -> str:
    return (
        f"this student is in {len(dup.entries)} submissions: {dup.describe()}; no score in "
        "gradebook.csv until the instructor decides which counts (fix the group in "
        "Gradescope and re-export, or enter the grade by hand)"
    )


def _feedback(
    folder: Path,
    graded: list[EntryOutcome],
    render: Callable[..., str] | None,
    result: WriteResult,
    files: dict[Path, str],
    adjusted: dict[str, ScoreAdjustment],
) -> set[str]:
    """Render each student's feedback into `files`; returns the file names wanted.
    `render(report, fmt, adjustment=...)` gets the entry's late penalty, if any."""
    from grader.render import render_report

    wanted: set[str] = set()
    for o in graded:
        shared: dict[str, Any] = {}  # this report's format-free view, made once for both
        for fmt in ("md", "html"):
            name = f"{o.key}.{fmt}"
            wanted.add(name)
            adjustment = adjusted.get(o.key)
            try:
                if render is None:
                    text = render_report(o.report, fmt, adjustment=adjustment, shared=shared)
                else:
                    text = render(o.report, fmt, adjustment=adjustment)
                files[folder / name] = text
            except Exception as exc:  # noqa: BLE001 - one broken render must not stop the rest
                result.errors.append(f"{FEEDBACK_DIR}/{name}: {type(exc).__name__}: {exc}")
    return wanted


def _notebook_feedback(
    folder: Path,
    notebooks: list[EntryOutcome],
    result: WriteResult,
    files: dict[Path, str],
    adjusted: dict[str, ScoreAdjustment] | None = None,
) -> set[str]:
    """feedback/<key>.ipynb (the student's notebook with feedback cells) and its nbconvert
    HTML, feedback/<key>.notebook.html, for each of `notebooks`; returns the names written.
    The pages are made by one warm nbconvert exporter, inherited by a few bounded children
    that share them out (`bounded_texts`); errors are reported in the order of `notebooks`."""
    from grader.loading.guarded import bounded_texts
    from grader.render.ipynb import EMPTY_NOTEBOOK, feedback_notebook, html_exporter, notebook_html

    names: set[str] = set()
    errors: dict[str, list[str]] = {}
    pages: dict[str, tuple[Path, str]] = {}  # key -> (page, its feedback notebook)
    for o in notebooks:
        names.add(f"{o.key}.ipynb")
        errors[o.key] = []
        try:
            nb = feedback_notebook(o.notebook, o.report, adjustment=(adjusted or {}).get(o.key))
            files[folder / f"{o.key}.ipynb"] = nb
        except Exception as exc:  # noqa: BLE001 - one broken notebook must not stop the rest
            errors[o.key].append(f"{FEEDBACK_DIR}/{o.key}.ipynb: {type(exc).__name__}: {exc}")
            continue
        page = folder / f"{o.key}.notebook.html"
        if _unchanged(folder / f"{o.key}.ipynb", nb) and page.is_file():
            # the page already on disk was made from this very notebook: nbconvert costs
            # ~0.2 s a notebook, most of a re-run of a class that changed nothing
            files[page] = page.read_text(encoding="utf-8")
            names.add(page.name)
        else:
            pages[o.key] = (page, nb)
    if pages:
        # nbconvert parses the student's Markdown cells, and its parser can backtrack for
        # minutes on hostile text: bounded like every other parse of student bytes.
        exporter = html_exporter()
        notebook_html(EMPTY_NOTEBOOK, exporter)  # our own notebook: compiles the templates
        makes = [lambda nb=nb: notebook_html(nb, exporter) for _, nb in pages.values()]
        made = bounded_texts(
            makes,
            seconds=NOTEBOOK_HTML_SECONDS,
            memory_mb=NOTEBOOK_HTML_MEMORY_MB,
            children=NOTEBOOK_HTML_CHILDREN,
        )
        for (key, (page, _)), html in zip(pages.items(), made, strict=True):
            if isinstance(html, SubmissionError):  # and a stale page from an earlier run goes
                errors[key].append(f"{FEEDBACK_DIR}/{key}.notebook.html not written: {html}")
            else:
                files[page] = html
                names.add(page.name)
    for o in notebooks:
        result.errors.extend(errors[o.key])
    return names


def _unchanged(path: Path, text: str) -> bool:
    try:
        return path.read_text(encoding="utf-8") == text
    except (OSError, UnicodeDecodeError):
        return False


_FEEDBACK_SUFFIXES = (".notebook.html", ".md", ".html", ".ipynb")


def _previous_keys(manifest: Path) -> set[str]:
    """The entry keys of the run that last wrote OUT (none if no grader run wrote there)."""
    try:
        entries = json.loads(manifest.read_text(encoding="utf-8")).get("entries", [])
        return {str(e["key"]) for e in entries if isinstance(e, dict) and "key" in e}
    except (OSError, ValueError, AttributeError, TypeError):
        return set()


def _remove_stale_feedback(
    folder: Path, wanted: set[str], ours: set[str], result: WriteResult
) -> None:
    """Remove the feedback of students no longer in INPUT (it would mislead): only files an
    earlier run wrote for a key in its manifest (`ours`). Anything else in OUT/feedback/ is
    someone's own file (an index page, notes) and is never touched."""
    if folder.is_dir():
        for f in folder.iterdir():
            key = next((f.name[: -len(x)] for x in _FEEDBACK_SUFFIXES if f.name.endswith(x)), "")
            if f.is_file() and key in ours and f.name not in wanted:
                try:
                    os.unlink(f)
                    result.removed.append(str(f))
                except OSError:
                    pass
