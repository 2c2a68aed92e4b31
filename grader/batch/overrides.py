"""The class's record of instructor overrides: `OUT/overrides.toml`.

The record is the rubric's overrides format (`grader.rubric.overrides`) plus who, when and why
for every entry and the digest of the answer each student's entries were made for:

    [alice]
    answer = "9f86d0..."        # sha256 of the explanation that was reviewed
    reviewed = true             # optional, as in the rubric's format
    by = "jsmith"
    at = "2026-12-01T12:40:00+00:00"
    why = "read it"

    [alice.C2]
    verdict = "met"
    note = "The crossword analogy makes the link."   # shown to the student
    by = "jsmith"
    at = "2026-12-01T12:40:00+00:00"
    why = "paragraph 2 explains it"                  # for the instructors only

`grader review OUT --overrides F --apply` merges F into the record; `grader batch` and
`grader render` apply the record whenever they write the outputs. A student's entries are
applied only while their answer's digest is the recorded one: a student who handed in a new
answer is listed for review again (their entries stay on file until replaced).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import getpass
import hashlib
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.errors import UsageError
from grader.report import GradeReport
from grader.rubric.model import Rubric
from grader.rubric.overrides import (
    DEFAULT_PART,
    OverridesError,
    StudentOverrides,
    apply_overrides,
    parse_overrides,
)

RECORD = "overrides.toml"
META = ("by", "at", "why")
STUDENT_KEYS = ("answer", "reviewed", *META)
Record = dict[str, dict[str, Any]]  # student -> table (criteria are sub-tables)


def answer_digest(text: str) -> str:
    """The digest an override is tied to: sha256 of the written answer as graded."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _meta_ok(table: Mapping[str, Any], where: str) -> dict[str, str]:
    out = {}
    for k in META:
        if k in table:
            v = table[k]
            if isinstance(v, dt.datetime | dt.date):
                v = v.isoformat()
            if not isinstance(v, str):
                raise OverridesError(f"{where}.{k} must be a string")
            out[k] = v
    return out


def validate(data: Mapping[str, Any], rubric: Rubric, where: str) -> Record:
    """Check a parsed record or instructor file; return it as a plain `Record`.

    Raises `OverridesError` naming the file, student and key for anything malformed or any
    criterion the rubric does not have."""
    record: Record = {}
    stripped: dict[str, Any] = {}
    for student, table in data.items():
        if not isinstance(table, dict):
            raise OverridesError(
                f"{where}: [{student}] must be a table of criteria, e.g. [{student}.C2]"
            )
        entry: dict[str, Any] = _meta_ok(table, f"{where}: {student}")
        core: dict[str, Any] = {}
        for key, value in table.items():
            if key in META:
                continue
            if key == "answer":
                if not isinstance(value, str) or not re.fullmatch(r"[0-9a-f]{64}", value):
                    raise OverridesError(f"{where}: {student}.answer must be a sha256 hex digest")
                entry["answer"] = value
                continue
            if isinstance(value, dict):
                meta = _meta_ok(value, f"{where}: {student}.{key}")
                core[key] = {k: v for k, v in value.items() if k not in META}
                entry[key] = {**core[key], **meta}
            else:
                core[key] = value
                entry[key] = value
        stripped[student] = core
        record[student] = entry
    parse_overrides(stripped, rubric, where)  # verdicts, notes, criterion ids
    return record


def load_record(path: Path, rubric: Rubric) -> Record:
    """Read and validate a record or instructor overrides file (empty if absent)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise OverridesError(f"cannot read overrides file {p}: {exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise OverridesError(f"{p}: not valid TOML: {exc}") from None
    return validate(data, rubric, str(p))


def load_class_record(out: Path) -> Record:
    """OUT/overrides.toml, validated against the rubric ({} if there is none). A broken
    record is a `UsageError`: the caller stops before writing anything."""
    path = Path(out) / RECORD
    if not path.exists():
        return {}
    from grader.rubric.model import load_rubric

    try:
        return load_record(path, load_rubric())
    except OverridesError as exc:
        raise UsageError(
            f"{exc}; fix it (or move it away) and run again: nothing was written"
        ) from None


def load_instructor_file(path: Path, rubric: Rubric) -> Record:
    """The file given to `grader review --overrides`: it must exist."""
    if not Path(path).is_file():
        raise OverridesError(f"cannot read overrides file {path}: no such file")
    return load_record(path, rubric)


def to_overrides(record: Record, rubric: Rubric) -> dict[str, StudentOverrides]:
    """The rubric's view of the record (verdicts, notes, reviewed)."""
    core = {
        s: {
            k: ({kk: vv for kk, vv in v.items() if kk not in META} if isinstance(v, dict) else v)
            for k, v in t.items()
            if k not in STUDENT_KEYS or k == "reviewed"
        }
        for s, t in record.items()
    }
    return parse_overrides(core, rubric, RECORD)


def _criteria(table: Mapping[str, Any]) -> list[str]:
    return [k for k, v in table.items() if isinstance(v, dict)]


def merge(
    record: Record,
    incoming: Record,
    answers: Mapping[str, str | None],
    *,
    by: str | None = None,
    now: dt.datetime | None = None,
) -> tuple[Record, list[str]]:
    """`record` with `incoming`'s entries added (an entry for the same criterion replaces the
    old one). Each new entry gets who (its own `by`, else `by`, else the login name), when
    (now) and why (its own `why`, else its note). A student whose recorded answer is not
    their current one (`answers`) starts afresh. Returns (new record, what happened)."""
    who = by or getpass.getuser()
    when = (now or dt.datetime.now(dt.UTC)).replace(microsecond=0).isoformat()
    out = {s: dict(t) for s, t in record.items()}
    notes: list[str] = []
    for student, table in incoming.items():
        old = out.get(student, {})
        current = answers.get(student)
        if old and old.get("answer") and current and old["answer"] != current:
            notes.append(f"{student}: replaced the entries made for an earlier answer")
            old = {}
        entry = dict(old)
        if current:
            entry["answer"] = current
        stamp = {"by": table.get("by", who), "at": table.get("at", when)}
        if "reviewed" in table:
            entry["reviewed"] = table["reviewed"]
            entry.update(stamp)
            entry["why"] = table.get("why", "reviewed")
        for cid in _criteria(table):
            c = dict(table[cid])
            c.setdefault("by", stamp["by"])
            c.setdefault("at", stamp["at"])
            c.setdefault("why", c.get("note", "") or table.get("why", ""))
            entry[cid] = c
        out[student] = entry
    return out, notes


# ----------------------------------------------------------------------------- applying


@dataclass
class Applied:
    """What applying the record did to a class."""

    applied: list[str] = field(default_factory=list)  # students whose entries were applied
    stale: list[str] = field(default_factory=list)  # their answer changed: review again
    absent: list[str] = field(default_factory=list)  # in the record, not graded in this run

    def summary(self) -> str:
        """One line for the run's output ("" when the record is empty)."""
        if not (self.applied or self.stale or self.absent):
            return ""
        text = (
            f"Kept the instructor overrides in {RECORD}: applied for {len(self.applied)} student(s)"
        )
        if self.stale:
            text += (
                f"; {len(self.stale)} answer(s) changed since they were reviewed, listed "
                f"for review again: {', '.join(self.stale)}"
            )
        if self.absent:
            text += f"; kept on file for students not in this run: {', '.join(self.absent)}"
        return text + "."


def stale_reason(entry: Mapping[str, Any]) -> str:
    """The review note for an override `entry` that was made for an earlier version of the answer:
    who made it and when, and that it is not applied."""
    stamps = sorted(
        {f"{v.get('by', '?')} on {v.get('at', '?')}" for v in entry.values() if isinstance(v, dict)}
        | ({f"{entry.get('by', '?')} on {entry.get('at', '?')}"} if "reviewed" in entry else set())
    )
    return (
        "reviewed for an earlier answer: the instructor override ("
        + "; ".join(stamps)
        + ") was made for an earlier version of this answer and is not applied; review it "
        "again"
    )


def apply_record(
    reports: Mapping[str, GradeReport],
    record: Record,
    answers: Mapping[str, str | None],
    rubric: Rubric,
    part: str = DEFAULT_PART,
) -> tuple[dict[str, GradeReport], Applied]:
    """The reports with the record applied, by key. Raises `OverridesError` if an entry does
    not fit its report (a criterion the report lacks). Never changes `reports`."""
    parsed = to_overrides(record, rubric)
    done = Applied()
    out = dict(reports)
    for student in sorted(record):
        report = reports.get(student)
        if report is None:
            done.absent.append(student)
            continue
        entry = record[student]
        recorded, current = entry.get("answer"), answers.get(student)
        if recorded and current and recorded != current:
            done.stale.append(student)
            w = report.written.get(part)
            if w is not None:
                flagged = dataclasses.replace(
                    w, needs_review=True, review_reasons=(*w.review_reasons, stale_reason(entry))
                )
                out[student] = dataclasses.replace(
                    report, written={**report.written, part: flagged}
                )
            continue
        out[student] = apply_overrides(report, parsed, student, rubric, part)
        done.applied.append(student)
    return out, done


# ----------------------------------------------------------------------------- writing

_BARE = re.compile(r"^[A-Za-z0-9_-]+$")
HEADER = (
    "# Instructor overrides for this class, kept by `grader batch`, `grader render` and\n"
    "# `grader review --apply` (see docs/instructor.md). A student's entries apply while their\n"
    "# answer's sha256 is `answer`.\n"
)


def _key(k: str) -> str:
    return k if _BARE.match(k) else _string(k)


def _string(s: str) -> str:
    out = []
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return _string(str(v))


def dump_record(record: Record) -> str:
    """The record as TOML (deterministic: students and criteria sorted)."""
    lines = [HEADER]
    for student in sorted(record):
        table = record[student]
        lines.append(f"[{_key(student)}]")
        for k in STUDENT_KEYS:
            if k in table:
                lines.append(f"{k} = {_value(table[k])}")
        lines.append("")
        for cid in sorted(_criteria(table)):
            lines.append(f"[{_key(student)}.{_key(cid)}]")
            c = table[cid]
            for k in ("verdict", "note", *META):
                if k in c:
                    lines.append(f"{k} = {_value(c[k])}")
            lines.append("")
    return "\n".join(lines)
