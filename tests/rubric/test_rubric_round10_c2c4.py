"""C2 and C4 readings of issue-19 round 10 (track C2/C4).

- C4: a likeness between training and use ("looks like generation") is a
  vague comparison (partial, never a false claim); a denied mismatch whose sentence names the
  masked LM only as its comparison object is no false claim; a mismatch carried to a model by
  an additive ("as well", "either", "the same mismatch as") is that model's.
- C2: left-to-right generation given as why the causal LM is used for generation is no
  generation condition for the masked LM; "has no words after the position it writes" and
  "nothing exists after the current word" are the generation condition.

Sentences written for these tests."""

from __future__ import annotations

import pytest
from rule_verdicts import rules  # the rules alone (a helper beside this file)

MLM_VIEW = "The masked model guesses each hidden word from the words on its left and its right."
CLM_ONLY = (
    "The causal model predicts every word from only the words before it, because of its mask."
)


# -- C4: a likeness is a vague comparison ------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        MLM_VIEW + " " + CLM_ONLY + " For the causal model, training looks like generation.",
    ],
)
def test_likeness_between_training_and_use_is_partial(text: str) -> None:
    assert rules(text)["C4"] == "partial"


def test_use_named_as_the_object_of_the_difference() -> None:
    text = (
        MLM_VIEW + " " + CLM_ONLY + " In short, the masked model is trained in a different "
        "setting from the one we use it in."
    )
    assert rules(text)["C4"] == "partial"


# -- C4: the masked LM as the comparison object of a denied mismatch ---------------------------
def test_denied_mismatch_unlike_the_masked_model_is_no_false_claim() -> None:
    text = (
        MLM_VIEW + " When we write, the words after the current one do not exist yet, and "
        "the masked model was never trained for that. " + CLM_ONLY + " That is the writing "
        "condition itself, so there is no mismatch between how it learned and how it is "
        "used, unlike BERT, whose training condition cannot be recreated while writing."
    )
    assert rules(text)["C4"] == "met"


# -- C4: a mismatch carried to a model by an additive -------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        MLM_VIEW + " In my notebook the triangle mask of GPT is only switched on inside "
        "generate(), so during training it attends to every position. So GPT has the same "
        "mismatch as BERT and simply copes with it better.",
        MLM_VIEW + " In my notebook the triangle mask of GPT is only switched on inside "
        "generate(), so during training it attends to every position. So the mismatch is "
        "there for GPT as well.",
        MLM_VIEW + " To generate, you put a [MASK] after the prefix and BERT fills it in, "
        "which is the kind of prediction BERT is trained for. So there is no real mismatch "
        "for BERT either. " + CLM_ONLY,
    ],
)
def test_mismatch_carried_by_an_additive_is_contradicted(text: str) -> None:
    assert rules(text)["C4"] == "contradicted"


# -- C2: the causal LM's use is no generation condition ----------------------------------------
def test_left_to_right_as_the_reason_for_the_causal_use_is_no_condition() -> None:
    text = (
        "BERT predicts masked words. GPT reads text from left to right, and that is why it "
        "is used for chat assistants and text generation."
    )
    assert rules(text)["C2"] == "missing"


# -- C2: absence with a verb of having or existing ---------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        MLM_VIEW + " A left-to-right writer has no words after the spot it is filling. So "
        "the masked model would predict without the right side it always had in training.",
        MLM_VIEW + " While generating from left to right, nothing exists after the current "
        "word. The masked model was trained with the right side present and never had to "
        "predict without it.",
    ],
)
def test_absence_said_with_having_or_existing_is_the_condition(text: str) -> None:
    assert rules(text)["C2"] == "met"
