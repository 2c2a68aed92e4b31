"""Issue 19, round 9 (the released sets heldout17-19: maths notation, teachers explaining to
pupils and parents, notebooks written after the experiments). Sentences written for these
tests, not taken from any labelled set; each mechanism has the case it clears and, where a
rule could over-reach, a near miss that must keep its old verdict."""

from __future__ import annotations

import pytest
from rule_verdicts import rules

# -- C5: both halves of the split in the forms these voices use ------------------------------
C5_BOTH_HALVES = [
    # the chat product named for the causal family
    "Models like ChatGPT are the ones used for writing essays, and BERT-like ones for tagging.",
    # continuing a text named as the use
    "In the lab we picked BERT for sentiment and GPT-2 for text continuation.",
    # grammar checking as a reading task
    "A teacher could let BERT check the grammar of an essay and let GPT write a model answer.",
    # the model's examples in brackets before the arrow, one line per half
    "Encoders (BERT, ALBERT) -> tagging.\nDecoders (GPT-3) -> chatbots.",
]


@pytest.mark.parametrize("text", C5_BOTH_HALVES)
def test_both_halves_of_the_split_are_read(text):
    assert rules(text)["C5"] == "met"


def test_one_half_with_brackets_stays_partial():
    assert rules("Encoders (BERT, ALBERT) -> tagging.")["C5"] == "partial"
