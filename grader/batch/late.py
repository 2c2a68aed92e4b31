"""Late policy: points off for late submissions, applied to the gradebook only.

Two kinds of lateness are known:

* **flagged**: Canvas marks a late file `name_LATE_userid_...`; `--late-penalty PCT` takes PCT
  percent of the points possible off each flagged submission;
* **timed**: a Gradescope export's `submission_metadata.yml` gives each submission's
  `:created_at:`; with `--due ISO --late-penalty-per-day PCT [--late-cap PCT]` every started
  day (24 h) after the due date costs PCT percent of the points possible, at most the cap.

Percentages are of the points possible, as Canvas's own late policy deducts them; a score never
goes below 0. The report (`results.jsonl`) keeps the raw score; `gradebook.csv` holds the
adjusted one, `gradebook_notes.csv` the raw score and the penalty, and the student's feedback
files show the adjusted score with the raw score and the penalty (`Penalty.adjustment`).
"""

from __future__ import annotations

import datetime as dt
import math
import re
from dataclasses import dataclass

from grader.errors import UsageError
from grader.report import ScoreAdjustment

# 2024-03-01 12:00:00.000000000 -08:00 (Ruby's Time#to_s with fractions), or ISO 8601
_STAMP = re.compile(
    r"(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d(?::\d\d)?)(?:\.\d+)?\s*(Z|[+-]\d\d:?\d\d)?\s*$"
)


def parse_time(text: str) -> dt.datetime | None:
    """A timestamp from an export or an option; naive times are the machine's local time.
    None if it is not one."""
    m = _STAMP.match(text.strip().strip("'\""))
    if not m:
        return None
    zone = m.group(3) or ""
    if zone == "Z":
        zone = "+00:00"
    elif zone and ":" not in zone:
        zone = zone[:3] + ":" + zone[3:]
    try:
        stamp = dt.datetime.fromisoformat(f"{m.group(1)}T{m.group(2)}{zone}")
    except ValueError:
        return None
    return stamp if stamp.tzinfo else stamp.astimezone()


def parse_gradescope_times(text: str) -> dict[str, str]:
    """`submission_metadata.yml` -> folder -> `:created_at:` (ISO 8601), where one is given.

    Only the submission's own `:created_at:` counts (a key at its first indent), never one of
    its `:history:` entries (the earlier submissions), wherever they come in the file."""
    out: dict[str, str] = {}
    current: str | None = None
    own_indent = -1  # the indent of the submission's own keys, from its first line
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line.startswith((" ", "-")):
            m = re.match(r"^:?([^:\s][^:]*?):\s*$", line.strip())
            current = m.group(1).strip("'\"") if m else None
            own_indent = -1
            continue
        indent = len(line) - len(line.lstrip(" "))
        if own_indent < 0:
            own_indent = indent
        m = re.match(r"^\s*:?created_at:\s*(.+)$", line)
        if current is not None and m and indent == own_indent and current not in out:
            stamp = parse_time(m.group(1))
            if stamp is not None:
                out[current] = stamp.isoformat()
    return out


def format_points(x: float) -> str:
    """Points as a gradebook writes them: at most two decimals, no trailing zeros."""
    text = f"{x:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


@dataclass(frozen=True)
class Penalty:
    """Points off one late submission: `percent` of the points possible, `points` of them."""

    percent: float
    points: float
    reason: str

    def applied_to(self, score: float) -> float:
        """The score after the penalty; never below 0."""
        return round(max(0.0, score - self.points), 4)

    def describe(self, max_score: float) -> str:
        """E.g. "10% off (1.6 of 16 points): flagged late by Canvas"."""
        return (
            f"{self.percent:g}% off ({format_points(self.points)} of "
            f"{format_points(max_score)} points): {self.reason}"
        )

    def adjustment(self, score: float, max_score: float) -> ScoreAdjustment:
        """What the student's feedback shows: the score that goes in the gradebook, and why
        it is not the report's own."""
        return ScoreAdjustment(
            score=self.applied_to(score),
            label="late penalty",
            reason=self.describe(max_score),
        )


@dataclass(frozen=True)
class LatePolicy:
    """What a late submission costs (see the module doc). All percentages in [0, 100]."""

    flagged_pct: float | None = None
    due: dt.datetime | None = None
    per_day_pct: float | None = None
    cap_pct: float | None = None

    def __post_init__(self) -> None:
        for name in ("flagged_pct", "per_day_pct", "cap_pct"):
            v = getattr(self, name)
            if v is not None and not 0 <= v <= 100:
                raise UsageError(
                    f"--{name.removesuffix('_pct').replace('_', '-')} must be "
                    f"a percentage between 0 and 100, got {v:g}"
                )
        if (self.due is None) != (self.per_day_pct is None):
            raise UsageError("--due and --late-penalty-per-day go together")
        if self.cap_pct is not None and self.per_day_pct is None:
            raise UsageError("--late-cap needs --due and --late-penalty-per-day")

    @classmethod
    def from_options(
        cls, flagged: float | None, due: str | None, per_day: float | None, cap: float | None
    ) -> LatePolicy | None:
        """The policy the options ask for (None: no late policy). Bad values: UsageError."""
        if flagged is None and due is None and per_day is None and cap is None:
            return None
        when = None
        if due is not None:
            when = parse_time(due)
            if when is None:
                raise UsageError(
                    f"--due {due!r} is not a date and time, e.g. 2026-03-01T23:59-08:00"
                )
        return cls(flagged, when, per_day, cap)

    def to_dict(self) -> dict[str, object]:
        return {
            "late_penalty": self.flagged_pct,
            "due": self.due.isoformat() if self.due else None,
            "late_penalty_per_day": self.per_day_pct,
            "late_cap": self.cap_pct,
        }

    @classmethod
    def from_dict(cls, data: dict[str, object] | None) -> LatePolicy | None:
        if not data:
            return None
        due = data.get("due")
        return cls.from_options(
            _num(data.get("late_penalty")),
            str(due) if due else None,
            _num(data.get("late_penalty_per_day")),
            _num(data.get("late_cap")),
        )

    def penalty(self, *, flagged: bool, submitted_at: str, max_score: float) -> Penalty | None:
        """The penalty for one submission, or None if it is on time (or costs nothing)."""
        stamp = parse_time(submitted_at) if submitted_at else None
        if self.due is not None and self.per_day_pct is not None and stamp is not None:
            late = (stamp - self.due).total_seconds()
            if late <= 0:
                return None
            days = math.ceil(late / 86400)
            pct = days * self.per_day_pct
            if self.cap_pct is not None:
                pct = min(pct, self.cap_pct)
            pct = min(pct, 100.0)
            reason = (
                f"submitted {stamp.isoformat()}, {days} day(s) after the due date "
                f"{self.due.isoformat()}"
            )
        elif flagged and self.flagged_pct is not None:
            pct = self.flagged_pct
            reason = "flagged late by Canvas"
        else:
            return None
        return Penalty(pct, round(max_score * pct / 100, 4), reason)


def _num(v: object) -> float | None:
    return None if v is None else float(v)  # type: ignore[arg-type]
