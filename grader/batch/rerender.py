"""Rebuild a batch's outputs without grading: `grader render OUT` and `grader review --apply`.

A batch's OUT holds everything needed: `manifest.json` (every entry, its status, members,
answer digests and the run's settings), the graded reports (the cache journal holds each as
graded; `results.jsonl` the ones shown, used for an entry the journal no longer has) and the
instructor record `overrides.toml`. No student code runs and torch is never imported: a class
of 300 renders in seconds.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.batch.cache import Journal
from grader.batch.gradebook import Roster, assignment_header
from grader.batch.intake import Identity
from grader.batch.late import LatePolicy
from grader.batch.outputs import NOTEBOOKS, EntryOutcome, Settings, WriteResult, write_outputs
from grader.batch.overrides import (
    RECORD,
    Record,
    apply_record,
    dump_record,
    load_class_record,
    load_instructor_file,
    merge,
)
from grader.batch.similarity import SimilarityOptions, read_prints
from grader.errors import UsageError
from grader.output import write_atomic
from grader.report import GradeReport
from grader.rubric.model import load_rubric
from grader.rubric.overrides import DEFAULT_PART, OverridesError

MANIFEST = "manifest.json"
CACHE_DIR = ".cache"
_KEEP = object()  # "use what the last run used"


@dataclass
class Loaded:
    """A batch's OUT read back."""

    out: Path
    manifest: dict[str, Any]
    outcomes: list[EntryOutcome]

    @property
    def graded(self) -> dict[str, EntryOutcome]:
        return {o.key: o for o in self.outcomes if o.report is not None}


def is_batch_out(out: Path) -> bool:
    """True when `out` is a `grader batch` output folder (it holds the manifest)."""
    return (Path(out) / MANIFEST).is_file()


def load_out(out: Path, journal: Journal) -> Loaded:
    """Read OUT's manifest and reports (`journal` open: it holds OUT's lock)."""
    out = Path(out)
    try:
        manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
        entries = manifest["entries"]
    except FileNotFoundError:
        raise UsageError(
            f"{out} has no {MANIFEST}: is it a `grader batch` output folder?"
        ) from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise UsageError(
            f"{out / MANIFEST} is unreadable ({exc}); run `grader batch` again"
        ) from None
    shown = _results(out / "results.jsonl")
    prints = read_prints(out, _similarity(manifest))
    outcomes = []
    for e in entries:
        o = EntryOutcome(
            key=str(e["key"]),
            display=str(e.get("display", "")),
            source=str(e.get("source", "")),
            members=[
                Identity(**{k: str(v) for k, v in m.items() if k in _ID_FIELDS})
                for m in e.get("members", [])
            ],
            late=bool(e.get("late")),
            status=str(e.get("status", "unreadable")),
            message=str(e.get("message", "")),
            cache_key=str(e.get("cache_key", "")),
            submitted_at=str(e.get("submitted_at", "")),
            answers={str(k): str(v) for k, v in (e.get("answers") or {}).items()},
        )
        o.prints = prints.get(o.cache_key) or prints.get("key:" + o.key)
        if e.get("notebook"):
            try:
                o.notebook = (out / NOTEBOOKS / f"{o.key}.ipynb").read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                o.notebook = ""  # gone from the cache: its feedback notebook cannot be rebuilt
        if o.status == "graded":
            raw = journal.get(o.cache_key) if o.cache_key else None
            data = dict(raw) if raw is not None else shown.get(o.key)
            if data is None:
                o.status, o.message = "error", "its report is lost: run `grader batch` again"
            else:
                data["submission"] = o.key
                o.report = GradeReport.from_dict(data)
                o.cached = True
        outcomes.append(o)
    return Loaded(out, manifest, outcomes)


_ID_FIELDS = set(Identity.__dataclass_fields__)


def _similarity(manifest: dict[str, Any]) -> SimilarityOptions:
    saved = manifest.get("similarity")
    if not isinstance(saved, dict):
        return SimilarityOptions()
    known = {k: v for k, v in saved.items() if k in SimilarityOptions.__dataclass_fields__}
    try:
        return SimilarityOptions(**known)
    except TypeError:
        return SimilarityOptions()


def _results(path: Path) -> dict[str, dict[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return {}
    out = {}
    for line in text.splitlines():
        try:
            data = json.loads(line)
            GradeReport.from_dict(data)
        except (ValueError, KeyError, TypeError, AttributeError):
            continue
        out[str(data["submission"])] = data
    return out


def _settings(
    loaded: Loaded, record: Record, *, assignment: Any, roster: Any, late: Any
) -> Settings:
    m = loaded.manifest
    title = assignment_header(
        m.get("assignment") or "Autograder" if assignment is _KEEP else assignment
    )
    roster_path = m.get("roster") or "" if roster is _KEEP else str(roster or "")
    if roster_path and not Path(roster_path).is_file():
        raise UsageError(
            f"the roster {roster_path} used by the last run is gone: pass "
            "--roster FILE (or --no-roster)"
        )
    policy = LatePolicy.from_dict(m.get("late_policy")) if late is _KEEP else late
    return Settings(
        assignment=title,
        roster=Roster.load(Path(roster_path)) if roster_path else None,
        roster_path=roster_path,
        late=policy,
        overrides=record,
    )


def _write(loaded: Loaded, settings: Settings) -> WriteResult:
    m = loaded.manifest
    return write_outputs(
        loaded.out,
        loaded.outcomes,
        layout=str(m.get("layout", "")),
        input_path=str(m.get("input", "")),
        assignment=settings.assignment,
        roster=settings.roster,
        fingerprint=str(m.get("fingerprint", "")),
        version=str(m.get("grader_version", "")),
        settings=settings,
    )


def render_out(
    out: Path, *, assignment: Any = _KEEP, roster: Any = _KEEP, late: Any = _KEEP
) -> WriteResult:
    """Rewrite every output of OUT from its reports and overrides. `assignment`, `roster` (a
    path or None) and `late` (a LatePolicy or None) replace the last run's settings."""
    out = Path(out)
    if not is_batch_out(out):
        raise UsageError(f"{out} has no {MANIFEST}: is it a `grader batch` output folder?")
    with Journal(out / CACHE_DIR) as journal:
        record = load_class_record(out)
        loaded = load_out(out, journal)
        settings = _settings(loaded, record, assignment=assignment, roster=roster, late=late)
        try:
            return _write(loaded, settings)
        except OverridesError as exc:
            raise UsageError(f"{out / RECORD}: {exc}; nothing was written") from None


@dataclass
class ReviewOutcome:
    changes: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    writes: WriteResult | None = None  # None for a dry run
    still_need_review: int = 0


def review_out(
    out: Path, overrides: Path, *, apply: bool, by: str | None = None, part: str = DEFAULT_PART
) -> ReviewOutcome:
    """Merge the instructor's overrides file into OUT's record and (with `apply`) rewrite
    the record and every output. Anything wrong in the file (`OverridesError`: bad TOML, an
    unknown criterion, a student OUT has not graded) is raised before anything is written."""
    out = Path(out)
    rubric = load_rubric()
    with Journal(out / CACHE_DIR) as journal:
        record = load_class_record(out)
        loaded = load_out(out, journal)
        incoming = load_instructor_file(overrides, rubric)
        graded = loaded.graded
        unknown = sorted(set(incoming) - set(graded))
        if unknown:
            raise OverridesError(
                f"{overrides}: no graded submission in {out} is named "
                f"{', '.join(map(repr, unknown))} (use the ids in results.jsonl, e.g. "
                f"{', '.join(sorted(graded)[:3]) or 'none graded'}); nothing was written"
            )
        answers = {k: o.answers.get(part) for k, o in graded.items()}
        merged, notes = merge(record, incoming, answers, by=by)
        reports = {k: o.report for k, o in graded.items()}
        before, _ = apply_record(reports, record, answers, rubric, part)
        after, _ = apply_record(reports, merged, answers, rubric, part)
        result = ReviewOutcome(notes=notes)
        for key in sorted(incoming):
            result.changes.extend(describe(before[key], after[key], part))
        result.still_need_review = sum(
            1 for r in after.values() if (w := r.written.get(part)) and w.needs_review
        )
        if apply:
            settings = _settings(loaded, merged, assignment=_KEEP, roster=_KEEP, late=_KEEP)
            write_atomic(out / RECORD, dump_record(merged))  # first: a crash loses no review
            result.writes = _write(loaded, settings)
        return result


def describe(old: GradeReport, new: GradeReport, part: str) -> list[str]:
    """What an override changed, one line per verdict and the total score."""
    from grader.rubric.overrides import verdict_changes

    if old.written.get(part) is None or new.written.get(part) is None:
        return []
    lines = verdict_changes(old, new, part)
    if old.score != new.score:
        lines.append(f"{old.submission} score: {old.score:g} -> {new.score:g} / {new.max_score:g}")
    return lines
