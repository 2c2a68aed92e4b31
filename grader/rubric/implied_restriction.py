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

Round 10 (the teachers' voice): a sameness of manner that spells out the order of
prediction ("it trains the way it generates, one word after another") repeats that order and
adds no restriction when the answer states the causal objective itself without "only" ("GPT
is trained to predict the next word from the previous words"). A sameness of the information
condition ("the same conditions") still implies it.
"""

from __future__ import annotations

import re

from grader.rubric.facts import CLM, Analysis, Claim
from grader.rubric.judgement import LINK_WINDOW

__all__ = ["premises_together"]

_CONDITION = re.compile(
    r"\b(?:conditions?|constraints?|situations?|setting|setup|information|restrictions?|"
    r"inputs?|context|circumstances|view|limits?|limitations?)\b",
    re.IGNORECASE,
)
# the order of prediction spelled out: "one word after another", "word by word", "next word,
# next word", "one token at a time"
_ORDER = re.compile(
    r"\b(?:one (?:word|token) (?:after|at) (?:another|a time)|(?:word|token) by (?:word|token)|"
    r"next (?:word|token),? next (?:word|token))\b",
    re.IGNORECASE,
)
_CONTRAST = re.compile(r"\b(?:whereas|while|but|unlike)\b", re.IGNORECASE)
_DIFFERENT_FROM = re.compile(r"\bdiffer\w*\s+(?:from|to|than)\s+$", re.IGNORECASE)


def premises_together(an: Analysis, same: Claim) -> bool:
    """`same` (a causal-LM sameness of training and generation) implies the restriction."""
    if _difference_too(an, same):
        return False
    if _names_condition(an, same):
        return True
    return _absence_near(an, same) and not (_order_only(an, same) and _objective_stated(an))


def _names_condition(an: Analysis, c: Claim) -> bool:
    """The sameness is of the information condition: a condition noun in its sentence, not
    in a contrast clause about the other model after it ("GPT trains the way it generates,
    whereas BERT's training condition never happens")."""
    norm = an.fact(c.sentence).sentence.norm
    at = norm.find(c.text) if c.text else -1
    turn = _CONTRAST.search(norm, at + len(c.text)) if at >= 0 else None
    return bool(_CONDITION.search(norm, 0, turn.start() if turn else len(norm)))


def _difference_too(an: Analysis, c: Claim) -> bool:
    """The sameness phrase is the object of "different from": the term compared."""
    norm = an.fact(c.sentence).sentence.norm
    at = norm.find(c.text) if c.text else -1
    return at > 0 and bool(_DIFFERENT_FROM.search(norm, 0, at))


def _order_only(an: Analysis, c: Claim) -> bool:
    """The sameness spells its manner out as the order of prediction ("the way it generates,
    one word after another", "next word, next word")."""
    return bool(_ORDER.search(an.fact(c.sentence).sentence.norm))


def _objective_stated(an: Analysis) -> bool:
    """The answer states the causal LM's objective in words of its own: a next-token
    prediction said of the causal LM, from the earlier words."""
    uses = {c.sentence for c in an.claims("uses_earlier") if c.subject == CLM}
    return any(c.subject == CLM and c.sentence in uses for c in an.claims("predicts_next"))


def _absence_near(an: Analysis, c: Claim) -> bool:
    """The later tokens said to be absent at generation within `LINK_WINDOW` sentences."""
    return any(abs(a.sentence - c.sentence) <= LINK_WINDOW for a in an.claims("future_absent"))
