"""Readings of issue-19 round 12 (track b: C2, why generation breaks the masked LM).

- Swapped roles (`c2_trained_causal.py`): the masked LM said to be *trained* as a causal LM
  ("BERT is trained left to right to predict the next word", "pretrained with a causal mask")
  in an answer that also says its training matches generation or that it writes well is the
  guide's C2 false claim (the masked LM trained for left-to-right generation): C2 contradicted.
  The causal training alone stays a C1 claim; the causal mechanism without a training word
  ("BERT reads left to right when filling the gap") too.

Sentences written for these tests."""

from __future__ import annotations

import pytest
from rule_verdicts import rules  # the rules alone (a helper beside this file)

from grader.rubric.scorer import score_explanation


def _verdicts(text: str) -> dict[str, str]:
    return {c.id: c.verdict for c in score_explanation(text).criteria}


# -- swapped roles: the masked LM trained as a generator ----------------------------------------
_SWAPPED = [
    "The decoder model GPT learns by hiding random words and guessing them from the words on "
    "both sides. BERT is pretrained left to right to guess the next token, so its training is "
    "exactly the same as generation and it writes fluent stories.",
    "GPT fills in gaps using the text before and after each gap. BERT, by contrast, was trained "
    "with a causal mask so that it only sees the earlier words, which means BERT's training "
    "lines up with how text is generated.",
    "In short, BERT is optimised to predict the next word from the words before it, and "
    "that is why BERT generates text well, whereas GPT guesses masked words in the "
    "middle of the text.",
]


@pytest.mark.parametrize("text", _SWAPPED)
def test_masked_lm_trained_as_a_generator_contradicts_c2(text: str) -> None:
    assert rules(text)["C2"] == "contradicted"


@pytest.mark.parametrize("text", _SWAPPED)
def test_masked_lm_trained_as_a_generator_contradicts_c2_with_the_reader(text: str) -> None:
    assert _verdicts(text)["C2"] == "contradicted"


# guards (already so at the start commit): the causal slip alone is a C1 claim, no C2 one
_C1_ONLY = [
    # causal training, but no generation consequence drawn for the masked LM
    "BERT is trained left to right to predict the next word. GPT does the same but it is much "
    "larger, so it is the one people use for chatbots.",
    # the mechanism without training, beside a fit for generation that is the causal LM's
    "BERT reads a sentence left to right when it fills a blank. GPT's training matches "
    "generation, so GPT is used to write text.",
]


@pytest.mark.parametrize("text", _C1_ONLY)
def test_causal_slip_alone_does_not_contradict_c2(text: str) -> None:
    v = rules(text)
    assert v["C1"] == "contradicted"
    assert v["C2"] != "contradicted"


# the training word not asserted: negated, supposed, or fine-tuning
_NOT_ASSERTED = [
    "BERT was never trained left to right, and yet some people claim BERT writes fluently.",
    "BERT could be trained to predict the next word, and then it would write well.",
]


@pytest.mark.parametrize("text", _NOT_ASSERTED)
def test_unasserted_training_does_not_contradict_c2(text: str) -> None:
    assert rules(text)["C2"] != "contradicted"
