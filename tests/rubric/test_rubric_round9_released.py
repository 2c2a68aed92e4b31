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


# -- wrong-claim precision: what a notebook reports is not always what the student asserts ---
CLM_OK = (
    "GPT predicts each token from the earlier tokens only, because its causal mask hides the rest."
)
MLM_OK = "BERT fills each blank from the words on both sides of it."


def test_a_supposition_opening_its_sentence_needs_no_modal():
    # "Suppose" as an imperative supposes; nothing in the sentence is asserted
    text = "Suppose BERT only saw the tokens before each blank. " + MLM_OK + " " + CLM_OK
    assert rules(text)["C1"] != "contradicted"


def test_an_opinion_with_i_suppose_is_still_a_claim():
    text = "I suppose BERT only sees the tokens before each blank, like GPT. " + CLM_OK
    assert rules(text)["C1"] == "contradicted"


@pytest.mark.parametrize(
    "frame",
    [
        "Next week I want to check whether",
        "It would be worth finding out if",
        "I wonder whether",
    ],
)
def test_an_experiment_still_to_run_is_asked_not_claimed(frame):
    text = (
        MLM_OK + " " + frame + " a BERT given a causal mask, so that it sees only the left "
        "context, behaves like GPT, but there was no time. " + CLM_OK
    )
    assert rules(text)["C1"] != "contradicted"


def test_a_bare_if_clause_with_a_causal_mask_is_still_read():
    text = "BERT has a causal mask, so if it predicts a blank it sees only the left. " + CLM_OK
    assert rules(text)["C1"] == "contradicted"


C4_OK = (
    "GPT is trained in exactly the situation it generates in, while BERT trains with a right "
    "side that generation never gives it."
)


def test_a_measured_gap_for_the_causal_model_is_no_mismatch_claim():
    text = (
        MLM_OK + " " + CLM_OK + " " + C4_OK + " In exercise 5 my prefix-consistency gap was "
        "0.02 for the causal model and 1.6 for the masked model."
    )
    assert rules(text)["C4"] == "met"


def test_a_mismatch_said_of_the_causal_model_in_words_is_still_wrong():
    text = (
        MLM_OK + " " + CLM_OK + " GPT has a big gap between how it is trained and how it generates."
    )
    assert rules(text)["C4"] == "contradicted"


# -- more of the notebook's experiments: bugs, ablations, failed loops; analogies' "both" ----
def test_a_reported_bug_is_the_broken_model_not_the_causal_lm():
    text = (
        MLM_OK + " In the drill my bug swapped triu for tril, so the network attended to "
        "the future and the loss fell to zero."
    )
    assert rules(text)["C3"] != "contradicted"


def test_the_causal_lm_said_to_see_the_future_is_still_wrong():
    text = MLM_OK + " GPT attends to the future tokens as well as the past ones."
    assert rules(text)["C3"] == "contradicted"


def test_an_ablation_names_what_was_done_to_the_input():
    text = (
        "BERT learns to rely on the later words: in my test, removing the right half lowered "
        "its accuracy from 70% to 25%. " + CLM_OK
    )
    assert rules(text)["C1"] != "contradicted"


def test_a_trailing_mask_loop_whose_output_fails_is_an_experiment():
    text = (
        MLM_OK + "\n\nNext I tried a loop that appends a [MASK] and takes the argmax, as a "
        "next-word generator:\n\n```\nthe , , . the .\n```\n\nThe trouble is that the words "
        "to the right never exist while writing. " + CLM_OK
    )
    assert rules(text)["C2"] != "contradicted"


def test_a_trailing_mask_loop_said_to_work_is_still_wrong():
    text = (
        MLM_OK + " Appending a [MASK] at the end turns BERT into a next-word generator that "
        "works fine. " + CLM_OK
    )
    assert rules(text)["C2"] == "contradicted"


def test_a_use_compared_with_training_is_not_a_choice_of_the_model():
    text = (
        MLM_OK + " " + CLM_OK + " So the training of BERT and its use for writing text do "
        "not match. BERT serves classification and GPT is used for chatbots."
    )
    assert rules(text)["C5"] == "met"


def test_bert_chosen_for_writing_is_still_wrong():
    text = MLM_OK + " " + CLM_OK + " In practice BERT is used for text generation."
    assert rules(text)["C5"] == "contradicted"


def test_a_floating_both_after_a_pronoun_is_not_both_models():
    text = (
        "A cloze model fills the blank from both sides: the words before it and the words "
        "after it both get a say. " + CLM_OK
    )
    assert rules(text)["C3"] != "contradicted"


def test_a_bare_both_opening_the_sentence_is_still_both_models():
    text = MLM_OK + " Both see the words after the current position. "
    assert rules(text)["C3"] == "contradicted"


# -- C4: the causal LM's fit with generation in a classroom's words (one side: partial) ------
@pytest.mark.parametrize(
    "sentence",
    [
        "Writing goes one word at a time, so GPT fits the task.",
        "When a story is written word by word, for GPT that is only natural.",
        "Writing is guessing the next word again and again, so GPT is just doing its job.",
        "Writing goes word by word, and for GPT what it practised is what it does.",
    ],
)
def test_the_causal_fit_in_plain_words_is_one_side(sentence):
    text = MLM_OK + " " + CLM_OK + " " + sentence
    assert rules(text)["C4"] == "partial"


def test_the_masked_lm_doing_its_job_is_no_causal_fit():
    text = MLM_OK + " " + CLM_OK + " For tagging, BERT is just doing its job."
    assert rules(text)["C4"] == "missing"


# -- C3: the question's family word given to a model is no mechanism -------------------------
def test_a_model_called_causal_earns_nothing_for_c3():
    assert rules("GPT-2 is causal, so it writes well.")["C3"] == "missing"


def test_causal_attention_in_the_copula_is_still_the_mechanism():
    assert rules("In GPT the attention is causal.")["C3"] == "partial"


# -- C1: a teacher's wording of the masked LM ------------------------------------------------
def test_a_bracketed_example_of_a_kind_is_its_subject():
    text = "The gap-guessing type (like BERT) peeks at the words on both sides of each hole."
    assert rules(text)["C1"] == "met"


def test_in_front_of_and_behind_the_gap_is_both_sides():
    text = "BERT guesses each covered word from the words in front of it and the words behind it."
    assert rules(text)["C1"] == "met"


# -- C2: the notebook's generate loop is the generation scene --------------------------------
def test_inside_the_loop_the_missing_later_words_are_the_generation_condition():
    text = (
        MLM_OK + " " + CLM_OK + " In my loop the right-hand part is never there, and BERT "
        "was never trained for that."
    )
    assert rules(text)["C2"] == "met"


def test_the_later_words_pointed_to_and_said_available_at_generation_are_wrong():
    text = (
        MLM_OK + " To write, BERT needs the following words as well, and at generation time "
        "these are there too. " + CLM_OK
    )
    assert rules(text)["C2"] == "contradicted"


def test_the_later_words_pointed_to_and_said_missing_are_the_condition():
    text = (
        MLM_OK + " To write, BERT needs the following words as well, but at generation time "
        "these are not there yet. " + CLM_OK
    )
    assert rules(text)["C2"] != "contradicted"


# -- C5 false claims a notebook makes from its own runs --------------------------------------
def test_both_families_said_able_to_generate_is_the_c5_false_claim():
    text = MLM_OK + " " + CLM_OK + " So both of them can write text; GPT is merely faster."
    assert rules(text)["C5"] == "contradicted"


def test_both_can_generate_but_only_one_well_is_no_false_claim():
    text = MLM_OK + " " + CLM_OK + " Both of them can generate, but only GPT does it well."
    assert rules(text)["C5"] != "contradicted"


def test_the_students_own_results_are_their_claim():
    text = MLM_OK + " " + CLM_OK + " My runs say BERT can generate fine."
    assert rules(text)["C5"] == "contradicted"


def test_a_friend_saying_it_is_still_reported():
    text = MLM_OK + " " + CLM_OK + " My flatmate says BERT can generate fine, but it cannot."
    assert rules(text)["C5"] != "contradicted"
