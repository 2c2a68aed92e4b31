"""The verdict type every criterion judge returns, its confidence levels and small helpers
shared by `criteria.py` (C1-C3, C5) and `c4.py`."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from grader.report import Verdict
from grader.rubric.facts import Analysis, Claim

CONF_MET_SAME = 0.9  # concepts linked inside one sentence
CONF_MET_LINKED = 0.8  # linked across adjacent sentences
CONF_PARTIAL = 0.7
CONF_MISSING = 0.85
CONF_MISSING_NEAR = 0.7  # related words present, but nothing that counts
CONF_CONTRADICTED = 0.75
CONF_CONFLICTED = 0.45  # the answer both states and contradicts the point
LINK_WINDOW = 2  # sentences apart that a "what generation lacks" / "what MLM relied on" pair may be
# words between two sentences that still count as neighbours when only short sentences lie
# between them (staccato answers: "It also uses the words on the right. ... There is no right
# side yet.")
SHORT_LINK_WORDS = 25


@dataclass(frozen=True)
class Judgement:
    """A verdict with the sentences (indices) that earned it and how sure the judge is."""

    verdict: Verdict
    evidence: tuple[int, ...] = ()
    confidence: float = CONF_MISSING
    claim: str | None = None  # key of rubric.claims for a contradicted verdict
    conflicted: bool = False


# -- helpers --------------------------------------------------------------------------------
def _of(claims: Iterable[Claim], *subjects: object) -> list[Claim]:
    return [c for c in claims if c.subject in subjects]


def _idx(claims: Iterable[Claim]) -> tuple[int, ...]:
    return tuple(sorted({c.sentence for c in claims}))


def _first(claims: list[Claim]) -> tuple[int, ...]:
    return (min(c.sentence for c in claims),) if claims else ()


def _missing(an: Analysis, near_keys: tuple[str, ...]) -> Judgement:
    near = any(s.has(k) for s in an.sentences for k in near_keys)
    return Judgement("missing", (), CONF_MISSING_NEAR if near else CONF_MISSING)


def _contradicted(claims: list[Claim], key: str, supported: bool) -> Judgement:
    return Judgement(
        "contradicted",
        _first(claims),
        CONF_CONFLICTED if supported else CONF_CONTRADICTED,
        claim=key,
        conflicted=supported,
    )
