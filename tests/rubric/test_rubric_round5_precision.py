"""Wrong-claim precision and recall of issue-19 round 5 on C1 / C2 / C3 / C5.

False charges removed: a later token named as the *target* of a prediction ("guess
word i+1") is not context the causal LM sees; a condition the masked LM was "never optimised for"
is the generation condition; "for BERT, ..." names a topic, not a use. Missed claims found: a
left-to-right reading said of both families blames the masked LM too; a trailing [MASK]
presented as a generator after a reported view ("People say ..., but actually ..."); the
causal LM filling in hidden words. Each with near misses. Sentences written for these tests."""

from __future__ import annotations

import pytest
from rule_verdicts import rules  # the rules alone (a helper beside this file)


# -- false charges -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "GPT is trained to predict word i+1 from words 1..i.",
        "| | BERT | GPT |\n|---|---|---|\n| Objective | fill in hidden words | guess word i+1 |",
    ],
)
def test_a_later_token_as_the_prediction_target_is_no_view_of_it(text: str) -> None:
    assert rules(text)["C3"] != "contradicted"


def test_attending_to_a_later_token_still_contradicts_c3() -> None:
    assert rules("GPT attends to token t+1 when it predicts token t.")["C3"] == "contradicted"


def test_a_condition_never_optimised_for_is_the_generation_condition() -> None:
    text = "Here BERT is handed x_{<t} alone, a conditional it was never optimised for."
    assert rules(text)["C1"] != "contradicted"


def test_the_left_only_view_in_training_still_contradicts_c1() -> None:
    assert rules("During training BERT only ever sees x_{<t}.")["C1"] == "contradicted"


def test_for_a_model_names_a_topic_not_a_use() -> None:
    text = (
        "Honestly, for BERT learning and generation look alike. Encoders are used for "
        "classification and decoders for text generation."
    )
    assert rules(text)["C5"] == "met"


def test_masked_model_used_for_generation_still_contradicts_c5() -> None:
    assert rules("Encoders such as BERT are used for text generation.")["C5"] == "contradicted"


# -- missed claims -------------------------------------------------------------------------------
def test_left_to_right_said_of_both_families_blames_the_masked_lm() -> None:
    assert rules("BERT and GPT alike scan their input from left to right.")["C1"] == "contradicted"


def test_left_to_right_said_of_gpt_alone_does_not() -> None:
    text = "Both are transformers, and GPT processes text from left to right."
    assert rules(text)["C1"] != "contradicted"


def test_trailing_mask_after_a_reported_view_is_claimed() -> None:
    text = (
        "Some say BERT cannot write, but in fact you just append a [MASK] at the end and BERT "
        "gives the next word like GPT."
    )
    assert rules(text)["C2"] == "contradicted"


@pytest.mark.parametrize(
    "text",
    [
        "You can append a [MASK] at the end, but the words BERT picks are poor.",
        "Some say it works, but a [MASK] appended at the end gives BERT nothing on its right, "
        "so the next word is garbage.",
    ],
)
def test_trailing_mask_that_fails_is_no_claim(text: str) -> None:
    assert rules(text)["C2"] != "contradicted"


def test_causal_lm_filling_hidden_words_contradicts_c3() -> None:
    assert rules("GPT, like BERT, fills in hidden tokens too.")["C3"] == "contradicted"


def test_masked_lm_filling_hidden_words_is_no_c3_claim() -> None:
    assert rules("BERT fills in hidden words; GPT predicts the next one.")["C3"] != "contradicted"
