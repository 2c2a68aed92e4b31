"""When "the causal LM trains the way it generates" implies the C3 restriction (round 9).

`c4._clm_trains_as_generates` reads the later tokens' absence at generation together with the
causal LM's sameness of training and use as the restriction in other words ("it trains
without the later tokens"). The two premises must be stated together: a sameness that names
the information condition ("the same conditions", "the very constraint") pairs with the
absence anywhere in the answer; a sameness of manner only ("GPT trains the way it is used",
"does the same thing it was trained on") pairs only with an absence stated within
`LINK_WINDOW` sentences, since far from it the sentence compares tasks or habits, not what the
model sees. A sameness phrase that is the object of a difference ("the way they are trained is
different from the way they are used") is no sameness at all.
"""

from __future__ import annotations

import re

from grader.rubric.facts import Analysis, Claim, SentenceFacts
from grader.rubric.judgement import LINK_WINDOW

__all__ = ["premises_together"]

_CONDITION = re.compile(
    r"\b(?:conditions?|constraints?|situations?|setting|setup|information|restrictions?|"
    r"inputs?|context|circumstances|view|limits?|limitations?)\b",
    re.IGNORECASE,
)
_DIFFERENT_FROM = re.compile(r"\bdiffer\w*\s+(?:from|to|than)\s+$", re.IGNORECASE)


def premises_together(an: Analysis, same: Claim) -> bool:
    """`same` (a causal-LM sameness of training and generation) implies the restriction."""
    if _difference_too(an, same):
        return False
    return _names_condition(an, same) or _absence_near(an, same)


def _sentence_of(an: Analysis, c: Claim) -> SentenceFacts:
    return next(f for f in an.sentences if f.sentence.index == c.sentence)


def _names_condition(an: Analysis, c: Claim) -> bool:
    """The sameness is of the information condition: a condition noun in its sentence."""
    return bool(_CONDITION.search(_sentence_of(an, c).sentence.norm))


def _difference_too(an: Analysis, c: Claim) -> bool:
    """The sameness phrase is the object of "different from": the term compared."""
    norm = _sentence_of(an, c).sentence.norm
    at = norm.find(c.text) if c.text else -1
    return at > 0 and bool(_DIFFERENT_FROM.search(norm, 0, at))


def _absence_near(an: Analysis, c: Claim) -> bool:
    """The later tokens said to be absent at generation within `LINK_WINDOW` sentences."""
    return any(abs(a.sentence - c.sentence) <= LINK_WINDOW for a in an.claims("future_absent"))
