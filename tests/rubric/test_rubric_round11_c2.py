"""Readings of issue-19 round 11 (track f: C2 over-credit).

- The train / generation gap given to the causal LM, singled out as the one that has it
  ("it's GPT that has the mismatch"): the answer's conditions link nothing to the masked LM,
  so C2 is at most partial, by the rules and by the second reader.
- The blank-filling task alone ("a fill-in-the-blank exercise") is no masked side of the C2
  link: beside the later tokens' absence the second reader does not raise it to met.
- "because it is not autoregressive": the family's label said of a model through a pronoun is
  no generation condition (no C2 half).
- "BERT is better for generation since it goes left to right": the order given as the masked
  LM's strength is a false claim, no C2 half.
- "generating needs the model to work without the future": the reliance verb's subject is the
  generation, so it is no reliance of the masked LM's (no C2 link).

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


# -- the blank-filling task alone is no masked side of the link --------------------------------
_BLANKS = [
    "A masked model plays a cloze game: words are hidden and it must guess what goes there. "
    "At generation time you add one token after another, so later tokens don't exist yet when "
    "you predict. A causal model guesses the next token from the ones before it.",
    "Masked LM: a fill-in-the-blank exercise where the network guesses the hidden words. When "
    "generating you build the text one word at a time, so the rest of the sentence hasn't been "
    "written yet. This is why GPT-type models are what people use to write text.",
]


@pytest.mark.parametrize("text", _BLANKS)
def test_blank_filling_beside_the_absence_is_not_raised_to_met(text: str) -> None:
    assert rules(text)["C2"] == "partial"
    assert _c2(text) == "partial"


# -- "autoregressive" said of a model through a pronoun is its label, not how generation goes -----
@pytest.mark.parametrize(
    "text",
    [
        "The encoder cannot write text because it is not autoregressive.",
        "BERT won't generate well since it isn't autoregressive, unlike GPT.",
        "Masked models fail at generating text because they aren't autoregressive.",
    ],
)
def test_not_autoregressive_as_the_masked_lms_label_earns_no_c2(text: str) -> None:
    assert rules(text)["C2"] == "missing"


# -- the left-to-right order given as why the masked LM suits generating -----------------------
def test_order_as_the_masked_lms_strength_is_no_c2_half() -> None:
    text = "The masked model is better for generation since it writes left to right."
    assert rules(text)["C2"] == "missing"


# -- what generation needs is no reliance of the masked LM -------------------------------------
def test_generation_as_the_one_that_needs_is_no_masked_lm_reliance() -> None:
    text = (
        "When writing new text you only have the words so far, so the decoder is fine. The "
        "masked model was just trained another way, so it fails at generation, because "
        "generating needs a model that works without the future."
    )
    assert rules(text)["C2"] != "met"
