"""Instructor overrides of rubric verdicts, applied to finished reports without re-running code.

The overrides file is TOML, one table per student (the report's `submission` name) and
criterion:

    [alice.C2]
    verdict = "met"                      # met | partial | missing | contradicted
    note = "The link is made by the crossword analogy in paragraph 2."

    [alice]
    reviewed = true                      # read it: clear the remaining review flags

    ["bob smith".C4]                     # quote names with spaces or dots
    verdict = "partial"

`apply_overrides` sets each listed verdict, re-scores the part with the rubric's weights,
marks the criterion `overridden=True`, clears its `needs_review`, regenerates its feedback from
the rubric's level texts (plus the instructor's note) and regenerates the overall paragraph.
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.errors import UsageError
from grader.report import CriterionResult, GradeReport, Verdict, WrittenResult
from grader.rubric.feedback import WRONG, criterion_feedback, split_feedback, summary
from grader.rubric.model import VERDICTS, Rubric, load_rubric

DEFAULT_PART = "explanation"


class OverridesError(UsageError, ValueError):
    """The overrides file is unreadable or malformed, or does not fit the report."""


@dataclass(frozen=True)
class CriterionOverride:
    verdict: Verdict
    note: str = ""


@dataclass(frozen=True)
class StudentOverrides:
    criteria: Mapping[str, CriterionOverride] = field(default_factory=dict)
    reviewed: bool = False


def load_overrides(path: str | Path, rubric: Rubric | None = None) -> dict[str, StudentOverrides]:
    """Read and validate an overrides TOML file; `OverridesError` says what is wrong and where."""
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise OverridesError(f"cannot read overrides file {p}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise OverridesError(f"{p}: not valid TOML: {exc}") from None
    return parse_overrides(data, rubric, str(p))


def parse_overrides(
    data: Mapping[str, Any], rubric: Rubric | None = None, where: str = "overrides"
) -> dict[str, StudentOverrides]:
    """Validate the parsed TOML structure (see module doc) against the rubric's criterion ids."""
    rubric = rubric or load_rubric()
    ids = [c.id for c in rubric.criteria]
    out: dict[str, StudentOverrides] = {}
    for student, table in data.items():
        if not isinstance(table, dict):
            raise OverridesError(
                f"{where}: [{student}] must be a table of criteria, e.g. [{student}.C2]"
            )
        crits: dict[str, CriterionOverride] = {}
        reviewed = False
        for key, value in table.items():
            if key == "reviewed":
                if not isinstance(value, bool):
                    raise OverridesError(f"{where}: {student}.reviewed must be true or false")
                reviewed = value
                continue
            if key not in ids:
                raise OverridesError(
                    f"{where}: {student}.{key}: unknown criterion "
                    f"(the rubric has {', '.join(ids)}; "
                    "the only other key is 'reviewed')"
                )
            if not isinstance(value, dict):
                raise OverridesError(
                    f'{where}: {student}.{key} must be a table, e.g. verdict = "met"'
                )
            extra = sorted(set(value) - {"verdict", "note"})
            if extra:
                raise OverridesError(
                    f"{where}: {student}.{key}: unknown key(s) {extra}; use verdict and note"
                )
            verdict = value.get("verdict")
            if verdict not in VERDICTS:
                raise OverridesError(
                    f"{where}: {student}.{key}.verdict must be one of "
                    f"{', '.join(VERDICTS)}, got {verdict!r}"
                )
            note = value.get("note", "")
            if not isinstance(note, str):
                raise OverridesError(f"{where}: {student}.{key}.note must be a string")
            crits[key] = CriterionOverride(verdict, note)
        out[student] = StudentOverrides(crits, reviewed)
    return out


def apply_overrides(
    report: GradeReport,
    overrides: Mapping[str, StudentOverrides],
    student: str,
    rubric: Rubric | None = None,
    part: str = DEFAULT_PART,
) -> GradeReport:
    """Return `report` with `student`'s overrides applied to written part `part`.

    Unchanged if the student has no overrides. Raises `OverridesError` if the report has no
    such part or lacks an overridden criterion. Deterministic and idempotent.
    """
    ov = overrides.get(student)
    if ov is None or (not ov.criteria and not ov.reviewed):
        return report
    rubric = rubric or load_rubric()
    written = report.written.get(part)
    if written is None:
        raise OverridesError(f"{student}: the report has no written part {part!r} to override")
    present = {c.id for c in written.criteria}
    for cid in ov.criteria:
        if cid not in present:
            raise OverridesError(f"{student}: the report has no criterion {cid} in {part!r}")

    criteria = []
    for c in written.criteria:
        o = ov.criteria.get(c.id)
        if o is not None:
            criteria.append(_overridden(c, o, rubric))
        elif ov.reviewed:
            criteria.append(dataclasses.replace(c, needs_review=False))
        else:
            criteria.append(c)
    new_criteria = tuple(criteria)
    score = round(sum(_points(rubric, c) for c in new_criteria), 4)
    ids = [c.id for c in new_criteria]
    reasons = tuple(
        r for r in written.review_reasons if reason_criterion(r, ids) not in ov.criteria
    )
    answer_level = [r for r in reasons if reason_criterion(r, ids) is None]
    needs_review = any(c.needs_review for c in new_criteria) or (
        bool(answer_level) and not ov.reviewed
    )
    new_written = WrittenResult(
        score=score,
        max_score=rubric.max_score,
        needs_review=needs_review,
        criteria=new_criteria,
        summary=summary(rubric, new_criteria, score, review=needs_review),
        review_reasons=reasons,
    )
    return dataclasses.replace(report, written={**report.written, part: new_written})


def _overridden(c: CriterionResult, o: CriterionOverride, rubric: Rubric) -> CriterionResult:
    feedback = criterion_feedback(rubric, c.id, o.verdict, c.evidence, note=o.note)
    if o.verdict == c.verdict == "contradicted":
        # keep the scorer's specific "what is wrong" text: it names the false claim
        old = [t for label, t in split_feedback(c.feedback) if label == WRONG]
        new = [line for line in feedback.splitlines() if not line.startswith(WRONG + ":")]
        if old:
            feedback = "\n".join([f"{WRONG}: {old[0]}", *new])
    return dataclasses.replace(
        c,
        verdict=o.verdict,
        feedback=feedback,
        confidence=1.0,
        needs_review=False,
        overridden=True,
    )


def _points(rubric: Rubric, c: CriterionResult) -> float:
    try:
        return rubric.points(c.id, c.verdict)
    except KeyError:
        raise OverridesError(f"criterion {c.id} is in the report but not in the rubric") from None


def reason_criterion(reason: str, ids: list[str]) -> str | None:
    """The criterion a review reason is about ("C2: ..."), or None for an answer-level reason."""
    for cid in ids:
        if reason.startswith(cid + ": "):
            return cid
    return None


def verdict_changes(old: GradeReport, new: GradeReport, part: str) -> list[str]:
    """What overriding `old` into `new` changed in `part`, one line per criterion: a new
    verdict ("alice C2: missing -> met") or a flagged verdict confirmed ("alice C1: met
    confirmed"). Callers add the score line they need."""
    ow, nw = old.written.get(part), new.written.get(part)
    if ow is None or nw is None:
        return []
    lines = []
    for a, b in zip(ow.criteria, nw.criteria, strict=True):
        if a.verdict != b.verdict:
            lines.append(f"{old.submission} {a.id}: {a.verdict} -> {b.verdict}")
        elif a.needs_review and not b.needs_review:
            lines.append(f"{old.submission} {a.id}: {a.verdict} confirmed")
    return lines
