"""Known misconceptions: the catalogue hidden tests name when observed values match one.

The catalogue is data (`catalogue.toml`): id, title, a one-or-two sentence explanation and a
hint the student can act on; `downstream` (optional) says which results of other calls the mistake
changes as well ("seeded": every result drawn from a given generator, by the function or a
function that calls it; `grader.diagnosis.downstream`). Tests name a misconception through
`grader.suite.checks.fail(..., diagnoses=["forgot_shift"])`; renderers look the id up here.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from types import MappingProxyType

from grader.resources import data_path

CATALOGUE = data_path("grader.diagnosis", "catalogue.toml")


@dataclass(frozen=True)
class Misconception:
    id: str
    part: str
    title: str
    explanation: str
    hint: str
    downstream: str = ""  # "" or "seeded"


@cache
def catalogue() -> Mapping[str, Misconception]:
    """All misconceptions by id (loaded once; read-only, since every caller shares it)."""
    data = tomllib.loads(CATALOGUE.read_text(encoding="utf-8"))
    out = {}
    for mid, entry in data.items():
        out[mid] = Misconception(
            id=mid,
            part=str(entry["part"]),
            title=str(entry["title"]),
            explanation=str(entry["explanation"]).strip(),
            hint=str(entry["hint"]).strip(),
            downstream=str(entry.get("downstream", "")),
        )
    return MappingProxyType(out)


def describe(mid: str) -> Misconception | None:
    """The catalogue entry for `mid`, or None for an unknown id."""
    return catalogue().get(mid)


_MARK = "\n  Likely mistake - "


def explain_ids(ids: Iterable[str]) -> str:
    """The text appended to a failure message for its misconception ids (unknown ids skipped).

    Each becomes an indented "Likely mistake - <title>: <explanation>" line and a "Hint:" line,
    so a message read on its own (JSON, a platform's test output) is self-contained.
    """
    parts = []
    for mid in ids:
        m = describe(mid)
        if m is not None:
            parts.append(f"{_MARK}{m.title}: {m.explanation}\n  Hint: {m.hint}")
    return "".join(parts)


def strip_explanations(message: str) -> str:
    """The message without the text `explain_ids` appended (renderers show it once instead)."""
    i = message.find(_MARK)
    return message if i < 0 else message[:i]
