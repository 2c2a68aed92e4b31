"""Gradescope's `results.json` from a GradeReport (`grader grade --format gradescope`).

    results = gradescope_results(report, GradescopeOptions(execution_time=2.1))
    text = render_gradescope(report, options)          # the file's bytes, as text

One entry per code part (its total, and a line per function it has not attempted or does not
define, `grader.render.view`), one per hidden test (name `<part title> / <id>`, unique,
with the failure message and the misconception it names), one per written answer (its rubric
feedback); the top-level `score` is the report's total, so the part entries do not count twice
(Gradescope lets a top-level score override the sum of the entries). Visibility is an option:
by default totals and the written answer are `visible`, hidden-test details `after_published`.
The drill's checks (Exercise 3, `grader.parts.OPEN_PARTS`) are no hidden tests: every rule is
in the student's docs and they read only the student's own files and rerun, so they are shown
like the written answer's feedback, with the totals' visibility (docs/ci.md).
The schema is `grader/schema/gradescope_results.schema.json`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from grader.autograder import VISIBILITIES, Visibility
from grader.diagnosis import explain_ids, strip_explanations
from grader.parts import OPEN_PARTS, PART_TITLES
from grader.report import GradeReport, TestResult, WrittenResult
from grader.resources import data_path

SCHEMA_PATH = data_path("grader", "schema", "gradescope_results.schema.json")
METADATA_MAX_BYTES = 1_000_000
INTERNAL_NOTE = (
    "The grader had an internal problem with this submission (see the notes below); points "
    "may be missing through no fault of yours: please tell your instructor, who can regrade it."
)

_STATUS_TEXT = {
    "passed": "passed",
    "failed": "failed",
    "error": "your code raised an error",
    "timeout": "timed out",
    "missing": "not attempted or missing",
}


@dataclass(frozen=True)
class Lateness:
    """When the submission came in relative to the assignment's due dates (from Gradescope)."""

    submitted_at: str
    due_date: str
    seconds_late: float  # <= 0: on time
    late_due_date: str | None = None
    after_late_due_date: bool = False

    @property
    def late(self) -> bool:
        return self.seconds_late > 0

    def describe(self) -> str:
        """One sentence for the student. No penalty is applied here (see docs/ci.md)."""
        if not self.late:
            return f"Submitted on time (due {self.due_date})."
        text = f"Submitted {_duration(self.seconds_late)} after the due date ({self.due_date})"
        if self.after_late_due_date:
            text += f", and after the late due date ({self.late_due_date})"
        return text + ". The autograder applies no late penalty; your instructor may."

    def to_dict(self) -> dict[str, Any]:
        return {
            "late": self.late,
            "seconds_late": round(max(self.seconds_late, 0.0), 3),
            "submitted_at": self.submitted_at,
            "due_date": self.due_date,
            "late_due_date": self.late_due_date,
            "after_late_due_date": self.after_late_due_date,
        }


@dataclass(frozen=True)
class GradescopeOptions:
    """How the results are shown. `execution_time`: seconds the grading took (Gradescope shows
    it to instructors); `lateness`: from `read_lateness`, or None when unknown; `notes`: extra
    lines for the instructor (stored in `extra_data`, never shown to the student)."""

    tests_visibility: Visibility = "after_published"
    totals_visibility: Visibility = "visible"
    execution_time: float = 0.0
    lateness: Lateness | None = None
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for v in (self.tests_visibility, self.totals_visibility):
            if v not in VISIBILITIES:
                raise ValueError(f"unknown Gradescope visibility {v!r}; use one of {VISIBILITIES}")


def gradescope_options(
    metadata: str | Path | None,
    tests_visibility: str = "after_published",
    totals_visibility: str = "visible",
    execution_time: float = 0.0,
) -> GradescopeOptions:
    """Options for one run: lateness from `metadata` (Gradescope's submission_metadata.json;
    None or unreadable: unknown, with a note for the instructor)."""
    lateness, why = read_lateness(metadata) if metadata is not None else (None, "")
    return GradescopeOptions(
        tests_visibility=tests_visibility,  # type: ignore[arg-type]
        totals_visibility=totals_visibility,  # type: ignore[arg-type]
        execution_time=execution_time,
        lateness=lateness,
        notes=(f"lateness unknown: {why}",) if why else (),
    )


def read_lateness(path: str | Path) -> tuple[Lateness | None, str]:
    """(lateness, "") from Gradescope's `submission_metadata.json`, or (None, why not).

    The file is read size-capped; any missing or malformed field gives None with a reason
    (grading goes on: lateness is information, not a grade).
    """
    p = Path(path)
    try:
        with open(p, "rb") as f:
            data = f.read(METADATA_MAX_BYTES + 1)
    except OSError as exc:
        return None, f"{p.name} could not be read ({exc.strerror})"
    if len(data) > METADATA_MAX_BYTES:
        return None, f"{p.name} is larger than {METADATA_MAX_BYTES // 1000} kB"
    try:
        meta = json.loads(data.decode("utf-8"))
        created = meta["created_at"]
        assignment = meta["assignment"]
        due = assignment["due_date"]
        late_due = assignment.get("late_due_date")
        submitted_at, due_at = _when(created), _when(due)
        late_due_at = _when(late_due) if late_due else None
    except (ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError) as exc:
        why = type(exc).__name__
        return None, f"{p.name} has no usable created_at / assignment.due_date ({why})"
    seconds = (submitted_at - due_at).total_seconds()
    return (
        Lateness(
            submitted_at=str(created),
            due_date=str(due),
            seconds_late=seconds,
            late_due_date=str(late_due) if late_due else None,
            after_late_due_date=late_due_at is not None and submitted_at > late_due_at,
        ),
        "",
    )


def _when(value: Any) -> datetime:
    if not isinstance(value, str):
        raise TypeError("not a string")
    dt = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)


def _duration(seconds: float) -> str:
    minutes = int(seconds // 60)
    if minutes < 1:
        return f"{int(seconds)} s"
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    parts = [(days, "d"), (hours, "h"), (mins, "min")]
    return " ".join(f"{n} {unit}" for n, unit in parts if n)


def _pts(x: float) -> str:
    return f"{x:g}"


def _test_entry(t: TestResult, number: str, visibility: str) -> dict[str, Any]:
    head = f"{_STATUS_TEXT.get(t.status, t.status)} ({_pts(t.score)}/{_pts(t.max_score)} points)"
    body = strip_explanations(t.message)
    output = head + (f"\n{body}" if body else "") + explain_ids(t.diagnoses)
    case = t.id.split(".", 1)[1] if "." in t.id else t.id
    return {
        "name": f"{PART_TITLES.get(t.part, t.part)} / {case}",
        "number": number,
        "score": t.score,
        "max_score": t.max_score,
        "status": "passed" if t.status == "passed" else "failed",
        "output": output,
        "tags": [t.part, *t.diagnoses],
        "visibility": visibility,
        "extra_data": {"id": t.id, "status": t.status, "diagnoses": list(t.diagnoses)},
    }


def _written_entry(name: str, w: WrittenResult, number: str, visibility: str) -> dict[str, Any]:
    from grader.rubric.render import render_written

    return {
        "name": PART_TITLES.get(name, name),
        "number": number,
        "score": w.score,
        "max_score": w.max_score,
        "status": "passed" if w.score >= w.max_score else "failed",
        "output": render_written(w, "text"),
        "tags": [name],
        "visibility": visibility,
        "extra_data": {
            "needs_review": w.needs_review,
            "verdicts": {c.id: c.verdict for c in w.criteria},
        },
    }


def gradescope_results(report: GradeReport, options: GradescopeOptions | None = None) -> dict:
    """The results.json object for `report` (see the module docstring for its entries)."""
    o = options or GradescopeOptions()
    tests: list[dict[str, Any]] = []
    summary = [f"Total: {_pts(report.score)} / {_pts(report.max_score)} points"]
    parts = report.parts
    from grader.render.view import feedback_view

    absent: dict[str, list[str]] = {}  # part -> one line per function it has not attempted
    for e in feedback_view(report)["not_attempted"]:
        if e["kind"] == "file":  # a file's own message is in its checks' (visible) entries
            continue
        line = f"Not attempted: {e['function']}" + (f": {e['reason']}" if e["reason"] else "")
        line += f" ({e['count']} check(s))" + (
            f". What to do: {e['advice']}" if e["advice"] else ""
        )
        absent.setdefault(e["part"], []).append(line)
    for index, (pid, ps) in enumerate(parts.items(), start=1):
        title = PART_TITLES.get(pid, pid)
        summary.append(f"  {title}: {_pts(ps.score)} / {_pts(ps.max_score)}")
        own = [t for t in report.tests if t.part == pid]
        if pid in report.written:
            tests.append(_written_entry(pid, report.written[pid], f"{index}", o.totals_visibility))
        if not own:
            continue
        passed = sum(1 for t in own if t.status == "passed")
        kind = "checks" if pid in OPEN_PARTS else "hidden checks"
        tests.append(
            {
                "name": f"{title} (total)",
                "number": f"{index}.0",
                "score": ps.score,
                "max_score": ps.max_score,
                "status": "passed" if passed == len(own) else "failed",
                "output": "\n".join(
                    [f"{passed} of {len(own)} {kind} passed.", *absent.get(pid, [])]
                ),
                "tags": [pid, "total"],
                "visibility": o.totals_visibility,
            }
        )
        visibility = o.totals_visibility if pid in OPEN_PARTS else o.tests_visibility
        for k, t in enumerate(own, start=1):
            tests.append(_test_entry(t, f"{index}.{k}", visibility))
    if any(e.startswith("internal:") for e in report.errors):
        summary.insert(0, INTERNAL_NOTE)
    if report.errors:
        summary += ["", "Notes:", *(f"  - {e}" for e in report.errors)]
    if o.lateness is not None:
        summary += ["", o.lateness.describe()]
    extra: dict[str, Any] = {
        "grader_version": report.grader_version,
        "submission": report.submission,
        "parts": {p: {"score": s.score, "max_score": s.max_score} for p, s in parts.items()},
        "late": o.lateness.to_dict() if o.lateness is not None else None,
    }
    if o.notes:
        extra["notes"] = list(o.notes)
    extra["internal_error"] = any(e.startswith("internal:") for e in report.errors)
    return {
        "score": report.score,
        "execution_time": round(max(o.execution_time, 0.0), 3),
        "output": "\n".join(summary),
        "output_format": "text",
        "test_output_format": "text",
        "test_name_format": "text",
        "visibility": o.totals_visibility,
        "stdout_visibility": "hidden",
        "extra_data": extra,
        "tests": tests,
    }


def render_gradescope(report: GradeReport, options: GradescopeOptions | None = None) -> str:
    """results.json as text. ASCII-escaped, so no student character can make it unreadable."""
    return json.dumps(gradescope_results(report, options), indent=2, ensure_ascii=True) + "\n"


def validate_gradescope_dict(data: dict[str, Any]) -> None:
    """Raise jsonschema.ValidationError unless `data` follows Gradescope's results format."""
    import jsonschema

    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.validate(data, schema)
