"""C4 readings of round 11 (track G: the causal side beside the C2 link).

- The masked LM's link ("while writing, the later words are missing, and it never trained
  without them") with the causal LM only described after it ("the causal model predicts from
  the preceding words only") compares what each model has, not the causal LM's training with
  its generation: partial. The description counts as the causal side when it is tied to the
  conditions: a training word or its whole past ("only ever"), a contrast with the masked
  model ("on the other hand"), or a sentence after it carrying it to training and generation.
- A sameness phrase that is the comparand of a difference word ("different from the way they
  are used") states the difference, not a sameness: a vague comparison, partial.
- A difference said of no one model ("how these models are trained differs from how they are
  used") takes back a causal side read from the restriction alone: partial.

Sentences written for these tests."""

from __future__ import annotations

from rule_verdicts import rules  # the rules alone (a helper beside this file)

MLM_VIEW = "The masked model fills each blank using the words to its left and to its right."
LINK = (
    "When we write a text one word after another, the words further on are not there yet, so "
    "the masked model loses the right-hand context it leaned on, and it was never trained "
    "without it."
)


def test_causal_lm_only_described_after_the_link_is_partial() -> None:
    text = (
        MLM_VIEW + " " + LINK + " The causal model predicts the next word from the preceding "
        "words only."
    )
    assert rules(text)["C4"] == "partial"


def test_causal_mask_described_after_the_link_is_partial() -> None:
    text = (
        MLM_VIEW + " " + LINK + " GPT forecasts each token from only the earlier tokens, since "
        "its causal mask blocks the later positions. That is why BERT suits classification."
    )
    assert rules(text)["C4"] == "partial"


def test_sameness_phrase_after_different_from_is_the_comparand_of_a_difference() -> None:
    text = (
        "BERT guesses a covered word from the words in front of it and behind it. Once you "
        "produce a text word by word, the coming words do not exist yet. GPT is a causal model "
        "that predicts the following word. How these models learn is different from the way "
        "they are used."
    )
    assert rules(text)["C4"] == "partial"


def test_a_difference_said_of_no_one_model_takes_the_contrasted_causal_side_back() -> None:
    text = (
        MLM_VIEW + " " + LINK + " The causal model, on the other hand, predicts each word from "
        "the preceding words only. All in all, how these models are trained differs from how "
        "they are used."
    )
    assert rules(text)["C4"] == "partial"
