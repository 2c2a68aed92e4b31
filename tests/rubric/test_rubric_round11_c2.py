"""Readings of issue-19 round 11 (track f: C2 over-credit).

- The train / generation gap given to the causal LM, singled out as the one that has it
  ("it's GPT that has the mismatch"): the answer's conditions link nothing to the masked LM,
  so C2 is at most partial, by the rules and by the second reader.

Sentences written for these tests."""

from __future__ import annotations

import pytest
from rule_verdicts import rules  # the rules alone (a helper beside this file)

from grader.rubric.scorer import score_explanation

_VIEW = "The masked model fills each blank from the words to its left and to its right."
_ABSENT = "When a text is produced word by word, the upcoming words are not there yet."

_GAP_TO_CAUSAL = [
    "So in fact it is the decoder that has the mismatch between training and sampling.",
    "Really the causal model is the one with the train/test gap, not the encoder.",
    "It's actually GPT that suffers the mismatch, since it trains on whole sentences at once.",
]


def _c2(text: str) -> str:
    return next(c.verdict for c in score_explanation(text).criteria if c.id == "C2")


@pytest.mark.parametrize("gap", _GAP_TO_CAUSAL)
def test_gap_given_to_the_causal_lm_is_no_c2_link_for_the_rules(gap: str) -> None:
    assert rules(f"{_VIEW} {_ABSENT} {gap}")["C2"] == "partial"


@pytest.mark.parametrize("gap", _GAP_TO_CAUSAL)
def test_gap_given_to_the_causal_lm_is_not_raised_by_the_reader(gap: str) -> None:
    assert _c2(f"{_VIEW} {_ABSENT} {gap}") == "partial"
