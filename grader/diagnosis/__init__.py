"""Known misconceptions: the catalogue hidden tests name when observed values match one.

The catalogue is data (`catalogue.toml`): id, title, a one-or-two sentence explanation and a
hint the student can act on. Tests name a misconception through
`grader.suite.checks.fail(..., diagnoses=["forgot_shift"])`; renderers look the id up here.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

CATALOGUE = Path(__file__).with_name("catalogue.toml")


@dataclass(frozen=True)
class Misconception:
    id: str
    part: str
    title: str
    explanation: str
    hint: str


@cache
def catalogue() -> dict[str, Misconception]:
    """All misconceptions by id (loaded once)."""
    data = tomllib.loads(CATALOGUE.read_text(encoding="utf-8"))
    out = {}
    for mid, entry in data.items():
        out[mid] = Misconception(
            id=mid,
            part=str(entry["part"]),
            title=str(entry["title"]),
            explanation=str(entry["explanation"]).strip(),
            hint=str(entry["hint"]).strip(),
        )
    return out


def describe(mid: str) -> Misconception | None:
    """The catalogue entry for `mid`, or None for an unknown id."""
    return catalogue().get(mid)
