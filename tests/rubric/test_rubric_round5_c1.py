"""C1 readings of issue-19 round 5: what the masked LM uses, said through the structure of the
sentence rather than through one phrase.

- the earlier and the later side joined by an additive ("... before the gap but also ... after
  it", "preceding it as well as ... following it");
- a "like" comparison shares what it says with the model it likens ("GPT, like BERT, attends
  to every position"), for credit only;
- the whole sequence perceived as the context of each prediction is both sides ("during
  training each token attends to the whole sequence"), not "sees the complete text at once";
- the masked LM named by the mask it lacks ("BERT has no causal mask") and masking in other
  words ("hides a few random words") earn partial.

Each with near misses that keep their old reading. Sentences written for these tests."""

from __future__ import annotations

import pytest
from rule_verdicts import rules  # the rules alone (a helper beside this file)


@pytest.mark.parametrize(
    "text",
    [
        "BERT may look at the words before the gap but also at the ones after it.",
        "In BERT each blank is filled from the tokens preceding it as well as the tokens "
        "following it.",
        "A masked LM draws on the earlier words and also on the words after the hidden one.",
    ],
)
def test_two_sides_joined_by_an_additive_meet_c1(text: str) -> None:
    assert rules(text)["C1"] == "met"


@pytest.mark.parametrize(
    "text",
    [
        "BERT uses the words before the gap, but not the ones after it.",
        "BERT looks at the preceding words as well as only a few following ones.",
    ],
)
def test_a_negated_or_restricted_side_does_not_meet_c1(text: str) -> None:
    assert rules(text)["C1"] != "met"


def test_like_comparison_shares_the_view_with_the_masked_model() -> None:
    v = rules("GPT, like BERT, may look at all the positions of the input while training.")
    assert v["C1"] == "met"
    assert v["C3"] == "contradicted"  # the subject's own false claim stays


def test_like_comparison_shares_the_restriction_with_the_causal_model() -> None:
    v = rules("BERT, just like GPT, only ever sees the earlier tokens.")
    assert v["C3"] == "met"
    assert v["C1"] == "contradicted"


@pytest.mark.parametrize(
    "text",
    [
        "GPT, unlike BERT, may look at all the positions of the input while training.",
        "Like BERT, GPT is a transformer; it predicts the next word.",
    ],
)
def test_unlike_or_a_comparison_without_a_view_shares_nothing(text: str) -> None:
    assert rules(text)["C1"] != "met"


@pytest.mark.parametrize(
    "text",
    [
        "During training every token in BERT attends to the whole sequence.",
        "BERT skips the causal mask, so each position attends to the full input.",
        "When BERT predicts a [MASK] it looks at the entire sentence.",
    ],
)
def test_whole_sequence_as_the_context_of_a_prediction_meets_c1(text: str) -> None:
    assert rules(text)["C1"] == "met"


@pytest.mark.parametrize(
    "text",
    ["BERT sees the complete text all at once.", "BERT needs the whole sentence to be present."],
)
def test_whole_sentence_without_a_prediction_stays_partial(text: str) -> None:
    assert rules(text)["C1"] == "partial"


@pytest.mark.parametrize(
    "text",
    [
        "BERT has no causal mask.",
        "Unlike GPT, BERT applies no causal mask to its attention.",
        "BERT hides a few random words and guesses them.",
        "The masked model is trained with masks.",
    ],
)
def test_the_mask_it_lacks_or_masking_in_other_words_is_partial(text: str) -> None:
    assert rules(text)["C1"] == "partial"


@pytest.mark.parametrize(
    "text",
    ["GPT has a causal mask.", "GPT hides nothing from itself at generation time."],
)
def test_the_causal_models_mask_is_no_c1_evidence(text: str) -> None:
    assert rules(text)["C1"] == "missing"


@pytest.mark.parametrize(
    "text",
    [
        "BERT skips the causal mask, so it can use the words after the gap.",
        "The masked model omits the triangular mask that GPT applies.",
    ],
)
def test_leaving_the_causal_mask_out_is_no_false_claim(text: str) -> None:
    assert rules(text)["C1"] != "contradicted"


def test_applying_the_causal_mask_to_bert_still_contradicts() -> None:
    assert rules("BERT applies a causal mask, just as GPT does.")["C1"] == "contradicted"


# -- the two sides in two short parallel sentences ----------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "BERT reads a gap. It checks left. It checks right. It guesses.",
        "BERT covers a word. It checks the words after it. It checks the words before it too.",
    ],
)
def test_two_parallel_sentences_one_side_each_meet_c1(text: str) -> None:
    assert rules(text)["C1"] == "met"


@pytest.mark.parametrize(
    "text",
    [
        "BERT reads a gap. It checks left. It only checks left.",
        "GPT reads the words on the left. It also reads the words on the right.",
        "BERT fills a blank. It uses the previous words. Then it predicts the next word.",
    ],
)
def test_a_restricted_side_another_model_or_no_parallel_does_not(text: str) -> None:
    assert rules(text)["C1"] != "met"
