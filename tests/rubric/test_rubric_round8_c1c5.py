"""Credit levels of C1, C3 and C5 in round 8 (track c1): the consequence and the two models'
views said in journalistic, legal, philosophical and hedged voices, and the near misses that
must stay where they are.

- C5: a family chosen for a use in other verbs ("dominate", "the ones deployed", "the ones we
  turn to", "assistants are built on decoders"), writing as drafting, composing or conversation,
  the job named in the passive ("whenever text must be produced"); a use named in a fronted
  condition before any model belongs to the family chosen right after it;
- near misses: an exam analogy's "answering questions", "built on having ...", an unfit choice,
  a use that is the question restated.

Sentences written for these tests."""

from __future__ import annotations

import pytest
from rule_verdicts import rules  # the rules alone (a helper beside this file)


# -- C5: the consequence in other verbs -----------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "Encoders like BERT handle sentiment classification and retrieval. Decoder models "
        "such as GPT now dominate text generation.",
        "BERT-style encoders are kept for entity recognition. Decoders are the ones deployed "
        "when the job is to produce text.",
        "Encoders serve search ranking. For chatbots we turn to GPT-like decoders.",
        "BERT-type encoders serve classification, and most writing assistants are built on "
        "GPT-style decoders.",
        "Firms keep BERT-type encoders for tagging, and GPT-type decoders for drafting text.",
        "The encoder reviews and classifies a finished contract, and the decoder drafts it.",
        "BERT is for understanding, GPT is for talking.",
    ],
)
def test_the_split_in_other_verbs_is_met(text: str) -> None:
    assert rules(text)["C5"] == "met"


def test_a_use_in_a_fronted_condition_belongs_to_the_family_chosen_after_it() -> None:
    text = (
        "Where the whole input is handed over at once (classification, retrieval), the "
        "bidirectional encoder is preferred; for open-ended generation the GPT-style decoder "
        "is the default."
    )
    assert rules(text)["C5"] == "met"


@pytest.mark.parametrize(
    "text",
    [
        # the family named after the fronted use is judged unfit: no use claimed for it
        "For classification tasks, GPT is a poor choice.",
        # the fronted use and a family that only reads, with no word of choice
        "For classification tasks, BERT reads the whole input.",
    ],
)
def test_a_fronted_use_without_a_choice_earns_nothing(text: str) -> None:
    assert rules(text)["C5"] == "missing"


@pytest.mark.parametrize(
    "text",
    [
        # an exam analogy: "answering questions" is no understanding task, "built on having"
        # no choice of a family
        "BERT's skill was built on having the right half; take it away and it is answering "
        "questions it never practised.",
        # talking about a model is no conversation use
        "When talking about GPT, people mean a decoder that predicts the next token.",
    ],
)
def test_near_misses_of_the_new_uses_earn_nothing(text: str) -> None:
    assert rules(text)["C5"] == "missing"


def test_one_half_in_the_new_verbs_stays_partial() -> None:
    assert rules("In short, GPT-style systems dominate text generation.")["C5"] == "partial"


# -- C1: both sides in other constructions ---------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        # the later side coordinated with the earlier side shares its verb
        "BERT guesses each hidden word conditioned on the earlier words and on the later words.",
        "The masked objective models p(x_k | rest): x_k is conditioned on x_1..x_{k-1} and "
        "on x_{k+1}..x_n.",
        # the two sides as relative clauses of "precede" and "follow", in either order
        "A masked model restores each blank by weighing both the words that precede it and "
        "those that follow it.",
        "BERT fills a hidden slot from the tokens that follow it as well as those that precede it.",
        # both flanks of the gap
        "During pretraining BERT always had words on both flanks of every blank it filled.",
    ],
)
def test_both_sides_in_other_constructions_is_met(text: str) -> None:
    assert rules(text)["C1"] == "met"


@pytest.mark.parametrize(
    "text",
    [
        # one side denied between the two: the causal LM's restriction, no both-sides view
        "GPT reads the words that precede the current one and never those that follow.",
        "GPT is conditioned on the earlier tokens and never on the later tokens.",
    ],
)
def test_a_side_denied_between_the_two_is_not_both_sides(text: str) -> None:
    v = rules(text)
    assert v["C1"] != "met"
    assert v["C3"] != "contradicted"


def test_the_masked_lm_given_one_side_and_denied_the_other_stays_a_false_claim() -> None:
    text = (
        "BERT hides some words. It uses the words that precede a blank and not the ones "
        "that follow it."
    )
    assert rules(text)["C1"] == "contradicted"


# -- polarity: the student's own first-person rejection ---------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "I am not persuaded by the view that BERT reads the words after a blank as well as "
        "the words before it.",
        "I remain unconvinced that the masked model uses both sides of each gap.",
        "I reject the idea that BERT draws on the tokens on both sides of the mask.",
    ],
)
def test_a_rejected_view_earns_no_credit(text: str) -> None:
    assert rules(text)["C1"] == "missing"


def test_a_rejected_false_claim_is_not_the_students_claim() -> None:
    text = "Nor do I accept that GPT sees the whole sentence when it predicts a word."
    assert rules(text)["C3"] != "contradicted"


@pytest.mark.parametrize(
    "text",
    [
        # accepting or being persuaded is the student's own claim
        "I accept that BERT draws on the words after the blank as well as those before it.",
        "I am persuaded that BERT uses the words on both sides of each blank.",
        # the rejection ends at the clause that returns to the student's view
        "I doubt that BERT sees only the left; it uses the words on both sides of each gap.",
    ],
)
def test_an_accepted_view_still_earns_credit(text: str) -> None:
    assert rules(text)["C1"] == "met"


# -- C3: the restriction said of one later position, and a condition set aside ------------------
def test_a_mask_keeping_it_from_any_later_token_is_the_restriction() -> None:
    text = (
        "GPT guesses each next word, and its causal mask keeps it from reading any word after it."
    )
    assert rules(text)["C3"] == "met"


def test_seeing_any_later_token_is_still_the_false_claim() -> None:
    text = "GPT predicts the next token, and in training it may look at any token after it."
    assert rules(text)["C3"] == "contradicted"


def test_whether_or_not_is_a_condition_set_aside_not_a_hedge() -> None:
    text = (
        "The causal model only ever conditions on the earlier tokens, whether the later text "
        "has been written or not."
    )
    assert rules(text)["C3"] == "met"


def test_a_claim_offered_with_its_alternative_still_earns_nothing() -> None:
    text = "The causal model only ever conditions on the earlier tokens, or maybe it does not."
    assert rules(text)["C3"] == "missing"


# -- C5: a fronted job and a comparison ---------------------------------------------------------
def test_a_job_in_a_fronted_condition_is_a_use_of_the_family_chosen_after_it() -> None:
    text = (
        "Encoders are preferred for sentiment analysis. Wherever prose has to be written, "
        "GPT-style decoders have become the usual choice."
    )
    assert rules(text)["C5"] == "met"


def test_a_fronted_job_with_no_choice_is_no_use() -> None:
    text = "Whenever text must be generated, the decoder only ever attends to earlier tokens."
    assert rules(text)["C5"] == "missing"


@pytest.mark.parametrize(
    "text",
    [
        "Decoders are simply better at producing text.",
        "So it seems the causal model is better suited to writing stories.",
    ],
)
def test_a_comparison_alone_restates_the_question(text: str) -> None:
    assert rules(text)["C5"] == "missing"


def test_a_comparison_beside_an_understanding_use_is_the_other_half() -> None:
    text = "Encoders are used for retrieval and tagging; decoders are better at producing text."
    assert rules(text)["C5"] == "met"


def test_a_choice_without_a_comparison_still_earns_its_half() -> None:
    assert rules("Decoders are the standard choice for text generation.")["C5"] == "partial"


# -- C1: a label without its mechanism stays partial ---------------------------------------
def test_a_bidirectional_view_is_the_label_not_what_it_uses() -> None:
    assert rules("BERT's bidirectional view gives it a firm grip on meaning.")["C1"] == "partial"


def test_bidirectional_context_of_a_blank_is_still_what_it_uses() -> None:
    assert rules("BERT fills each blank from bidirectional context.")["C1"] == "met"


def test_a_trailing_mask_token_is_the_generation_hack_not_the_objective() -> None:
    text = "Adding a trailing [MASK] to the prompt does not make BERT a storyteller."
    assert rules(text)["C1"] == "missing"


def test_mask_tokens_in_the_training_input_are_still_the_objective() -> None:
    text = (
        "During pretraining BERT sees sentences where some words became [MASK] and restores them."
    )
    assert rules(text)["C1"] == "partial"
