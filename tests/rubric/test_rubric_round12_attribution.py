"""Attribution and scope of false claims, issue-19 round 12 (track C: contradicted precision).

Mechanisms pinned here:
- a dot that fills a slot of a formula ("q(. | y_<t)") is no sentence end;
- an appositive model name set off after another name ("BERT, the decoder, ...",
  "GPT (an encoder)") describes that name: the first name stays the clause's subject, and an
  appositive naming the other family's architecture swaps encoder and decoder (C5);
- "the difference is (only) that GPT is bigger / has more data" says what sets the models
  apart, not a gap between one model's training and its use: no C4 mismatch of that model;
- a context restriction under a hypothetical obligation ("would have to / would need to /
  would be forced to predict without the right context") is the condition the masked LM would
  meet at use, not what it sees: no C1 false claim.

Sentences written for these tests."""

from __future__ import annotations

import pytest
from rule_verdicts import rules  # the rules alone (a helper beside this file)

from grader.rubric.text import split_sentences

MLM_VIEW = "The masked model guesses each hidden word from the words on its left and its right."
CLM_ONLY = (
    "The causal model predicts every word from only the words before it, because of its mask."
)


# -- a placeholder dot in notation ------------------------------------------------------------
@pytest.mark.parametrize(
    "text, n",
    [
        ("At step t the decoder scores q(. | y_<t) for every word. Then it samples one.", 2),
        ("We only ever evaluate f(. , z) there. That is the point.", 2),
        # guard: an ordinary full stop still ends a sentence
        ("The model reads a prefix. It writes the next word.", 2),
    ],
)
def test_dot_filling_a_formula_slot_is_no_sentence_end(text: str, n: int) -> None:
    assert len(split_sentences(text)) == n


# -- an appositive describes the name before it ----------------------------------------------
def test_appositive_keeps_the_first_name_as_subject() -> None:
    text = (
        "The masked model, a decoder, fills in hidden words using the words on both sides. "
        + CLM_ONLY
    )
    v = rules(text)
    assert v["C3"] != "contradicted"  # "both sides" is said of the masked model
    assert v["C1"] == "met"


@pytest.mark.parametrize(
    "text",
    [
        "RoBERTa, the decoder, fills the gaps from both sides, and GPT-2, the encoder, is what "
        "people use to write stories.",
        # guard (already contradicted before this round, by the use said of "a decoder")
        "BERT (a decoder) is picked for tagging and sentiment, GPT (an encoder) for chatbots.",
    ],
)
def test_appositive_naming_the_other_architecture_swaps_them(text: str) -> None:
    assert rules(text)["C5"] == "contradicted"


# -- a difference in a property is no train/use mismatch -------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        # guard (not contradicted before this round either)
        MLM_VIEW + " The only difference is that GPT is larger and was trained on more data, "
        "so it generates better.",
        MLM_VIEW + " The main difference lies in the causal model being bigger, trained with "
        "more parameters, which is why it generates better.",
    ],
)
def test_difference_in_size_is_no_mismatch_of_the_causal_model(text: str) -> None:
    assert rules(text)["C4"] != "contradicted"


def test_difference_in_what_is_seen_still_counts() -> None:
    # a difference whose complement names the models is between them, not one model's gap
    text = (
        MLM_VIEW + " " + CLM_ONLY + " The difference is that the causal model trains on the "
        "same left-only context it has when it generates, while the masked model trains with "
        "a right side that generation never gives."
    )
    assert rules(text)["C4"] == "met"


# -- a supposed obligation is the use condition ------------------------------------------------
@pytest.mark.parametrize(
    "tail",
    [
        "The masked model, in contrast, would need to guess without the right-hand context it "
        "always had.",
        # guard: "with no right context" was not read as a restriction before this round
        "RoBERTa, on the other hand, would be forced to predict with no right context at all.",
    ],
)
def test_hypothetical_obligation_is_no_c1_false_claim(tail: str) -> None:
    text = (
        MLM_VIEW + " " + CLM_ONLY + " Text is written one word after another, so the later "
        "words do not exist. For the causal model that is nothing new. " + tail
    )
    assert rules(text)["C1"] != "contradicted"


def test_masked_model_said_to_see_only_the_left_is_still_false() -> None:
    # guard: the restriction asserted, not supposed, stays a false claim
    text = "The masked model only uses the left context when it fills a blank. " + CLM_ONLY
    assert rules(text)["C1"] == "contradicted"


# -- a definite "the model" after a "they" of two families is either of them -----------------
@pytest.mark.parametrize(
    "second",
    [
        "What matters is how they learn: learning is different from how the model is "
        "deployed later, and for BERT that is important.",
        # guard (not contradicted before this round either)
        "They are trained in one way and the model is then used in a different way.",
    ],
)
def test_the_model_after_a_plural_they_is_generic(second: str) -> None:
    text = "BERT sees the words on both sides, GPT reads left to right. " + second
    assert rules(text)["C4"] != "contradicted"


# -- two figures of one noun told apart by their descriptions --------------------------------
ANALOGY = (
    "BERT is like a pupil who only ever did gap-fill worksheets, with the words on both sides "
    "of each gap printed. A causal LM is a pupil who practised writing stories word by word, "
    "seeing only what was already written. In the exam the task is to write a story. "
)


@pytest.mark.parametrize(
    "tail",
    [
        "The story pupil meets exactly the conditions he trained under.",
        "The gap-fill pupil is stuck, since nothing after the current word exists yet. The "
        "story pupil meets exactly the conditions he trained under.",
    ],
)
def test_figure_named_by_its_description_is_its_model(tail: str) -> None:
    assert rules(ANALOGY + tail)["C4"] != "contradicted"


def test_one_figure_noun_for_both_models_is_neither_alone() -> None:
    # "the pupil" alone names neither model once both are pupils
    text = ANALOGY + "The pupil meets exactly the conditions he trained under."
    assert rules(text)["C4"] != "contradicted"


# -- a fronted "for generation" before a clause of need is no use choice ---------------------
@pytest.mark.parametrize(
    "second",
    [
        "For writing it needs the whole sentence, so it can't really manage.",
        # guard (not contradicted before this round either)
        "For generation, RoBERTa would have to know the words after the gap.",
        "RoBERTa: for text generation it needs both neighbours of every position.",
    ],
)
def test_for_generation_opening_a_need_is_no_use_of_the_masked_model(second: str) -> None:
    text = "RoBERTa: hidden tokens filled from the tokens on both sides of each gap. " + second
    assert rules(text)["C5"] != "contradicted"


def test_for_generation_as_a_choice_still_counts() -> None:
    # guard: the use chosen for the masked LM stays a false claim
    text = "For generation RoBERTa is used, for tagging GPT."
    assert rules(text)["C5"] == "contradicted"


# -- the two models said to share one training condition --------------------------------------
@pytest.mark.parametrize(
    "claim",
    [
        "So in the end both models have the same training condition.",
        "Therefore the two models are trained under exactly the same conditions.",
    ],
)
def test_two_models_with_one_training_condition_contradict_c4(claim: str) -> None:
    text = (
        "RoBERTa also looks only at the words to its left, because its right side is hidden "
        "while it learns. " + claim
    )
    assert rules(text)["C4"] == "contradicted"


@pytest.mark.parametrize(
    "claim",
    [
        # guards: a sameness of data, or one denied, is no shared condition
        "Both models are trained on the same web text.",
        "The two models do not have the same training condition at all.",
    ],
)
def test_same_data_or_denied_sameness_is_no_shared_condition(claim: str) -> None:
    text = MLM_VIEW + " " + CLM_ONLY + " " + claim
    assert rules(text)["C4"] != "contradicted"


# -- an objective named after a training verb is no subject ----------------------------------
def test_objective_after_training_verb_leaves_the_model_as_subject() -> None:
    text = (
        "GPT-2 is pretrained using masked language modelling: it guesses the blanks from "
        "the words on both sides of them."
    )
    assert rules(text)["C3"] == "contradicted"  # said of GPT-2, not of a masked model


def test_objective_as_subject_of_its_own_clause_still_names_the_masked_side() -> None:
    # guard: an objective opening its own clause is still about the masked side
    text = "Masked language modelling uses the words on both sides of each blank."
    assert rules(text)["C3"] != "contradicted"
