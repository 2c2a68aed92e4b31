"""C1 / C5 readings and wrong-claim precision of the heldout8 round: both sides said in other
words, a both-sides range in maths notation, a negated restriction, a token placed "at the end",
an analogy's figure named by "think of X as", the consequence of a supposition, a use set aside
("instead of being used to"), "you'd", discriminative / generative uses and a telegraphic line
with one family per item. Each with near misses that must keep their old reading. Sentences
written for these tests."""

from __future__ import annotations

import pytest
from rule_verdicts import rules  # the rules alone (a helper beside this file)


# -- C1: both sides in other words ---------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "BERT guesses each hidden word with both neighbours in plain view.",
        "The masked model fills a gap from both of its neighbouring words.",
        "A masked LM predicts the blank from what lies to its right as well as to its left.",
        "BERT restores a hidden token from the words after it as well as the words before it.",
    ],
)
def test_both_sides_in_other_words_meets_c1(text: str) -> None:
    assert rules(text)["C1"] == "met"


@pytest.mark.parametrize(
    "text",
    [
        "GPT writes left to right and uses the left context only.",
        "BERT fills a blank from the words on its right and not from those on its left.",
    ],
)
def test_one_side_near_misses_do_not_meet_c1(text: str) -> None:
    assert rules(text)["C1"] != "met"


# -- C1: maths notation for both sides -----------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "MLM: every hidden x_j is predicted from x_{<j} and x_{>j}.",
        "The masked LM models p(x_k | x_<k, x_>k) for each masked k.",
    ],
)
def test_both_ranges_are_both_sides_not_a_restriction(text: str) -> None:
    assert rules(text)["C1"] == "met"


def test_one_range_with_the_other_denied_stays_one_sided() -> None:
    assert rules("The masked LM predicts x_j from x_{<j}, never x_{>j}.")["C1"] == "contradicted"


# -- C1: "not restricted in any direction" is unrestricted ------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "BERT's attention is not restricted in any direction when it fills a blank.",
        "In the masked model attention is not limited in either direction.",
    ],
)
def test_negated_restriction_is_no_one_sided_claim(text: str) -> None:
    assert rules(text)["C1"] != "contradicted"


def test_a_plain_negated_both_sides_is_still_one_sided() -> None:
    assert rules("BERT does not see both sides of the blank.")["C1"] == "contradicted"


# -- C1: a token put "at the end of the sentence" is a place, not context used ---------------
def test_mask_placed_at_the_end_is_no_both_sides_claim() -> None:
    text = "BERT copes: you put a [MASK] at the end of the sentence and it predicts that token."
    assert rules(text)["C1"] != "met"


def test_reading_up_to_the_end_of_the_sentence_still_counts() -> None:
    assert rules("BERT looks at the end of the sentence when it fills a blank.")["C1"] != "missing"


# -- analogies: "think of BERT as a student who ..." names the figure for that model only ------
def test_think_of_x_as_a_figure_keeps_the_sentence_about_x() -> None:
    text = (
        "Think of BERT as a reader who fills a gap by reading the words before the gap and the "
        "words after it. GPT is the reader who writes a letter one word at a time, only ever "
        "seeing what is already written."
    )
    v = rules(text)
    assert v["C1"] == "met"
    assert v["C3"] != "contradicted"


def test_a_figure_mapped_to_one_model_still_names_it() -> None:
    text = "Picture GPT as a juggler. The juggler sees only the earlier words."
    assert rules(text)["C3"] == "met"


# -- suppositions: the consequence is as hypothetical as the premise --------------------------
@pytest.mark.parametrize(
    "text",
    [
        "Suppose BERT could only read leftward words: then it would be a causal LM and generating "
        "would be fine. It really fills blanks from both sides.",
        "If BERT could only see the left context; then its generations would come out fine.",
    ],
)
def test_consequence_of_a_supposition_is_no_false_claim(text: str) -> None:
    assert rules(text)["C5"] != "contradicted"


def test_a_fact_after_the_supposition_still_counts() -> None:
    text = "If BERT were trained left to right, it would work: but BERT generates fine anyway."
    assert rules(text)["C5"] == "contradicted"


# -- uses set aside / supposed -----------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "BERT-like encoders get fine-tuned for tagging instead of being used to write text.",
        "The masked model is kept for ranking rather than being used for generation.",
        "BERT was trained differently from how you'd use it for writing.",
    ],
)
def test_use_set_aside_or_supposed_is_no_false_claim(text: str) -> None:
    assert rules(text)["C5"] != "contradicted"


def test_a_stated_use_for_writing_stays_a_false_claim() -> None:
    assert rules("BERT is what we use for writing stories.")["C5"] == "contradicted"


# -- C5: uses by their ML names ---------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "In practice, encoders for discriminative tasks and decoders for generative ones.",
        "Encoders handle discriminative work; decoders handle generative tasks.",
    ],
)
def test_discriminative_and_generative_uses_meet_c5(text: str) -> None:
    assert rules(text)["C5"] == "met"


def test_generative_as_a_label_is_no_use() -> None:
    assert rules("GPT is a generative model. BERT is an encoder.")["C5"] == "missing"


# -- C5: a telegraphic line with one family per item ------------------------------------------
def test_one_family_per_item_is_a_pair_of_claims() -> None:
    assert (
        rules("BERT: encoder, sentiment, NER, retrieval; GPT: decoder, chat, summarisation")["C5"]
        == "met"
    )


def test_a_salad_through_both_families_earns_no_c5() -> None:
    text = "BERT, GPT, bidirectional, causal mask, generation, classification, NER"
    assert rules(text)["C5"] != "met"


# -- an analogy's figure mapped to a model by the next sentence -------------------------------
def test_figure_mapped_by_the_next_sentence_is_that_model() -> None:
    text = (
        "A chef who only ever learned by restoring a missing ingredient in a recipe, with the "
        "steps before and after it written down, cannot invent a dish from nothing. That is the "
        "masked LM."
    )
    assert rules(text)["C1"] == "met"


@pytest.mark.parametrize(
    "text",
    [
        # the next sentence draws a consequence, it maps nothing
        "A chef restores missing steps with the steps before and after in view. That's why "
        "BERT fails.",
        # the mapping is not right after the figure's sentence
        "A chef restores missing steps with the steps before and after in view. Cooking is "
        "hard. That is the masked LM.",
    ],
)
def test_no_mapping_sentence_no_model(text: str) -> None:
    assert rules(text)["C1"] != "met"


# -- "the text around the blank" -----------------------------------------------------------------
def test_text_around_the_blanks_is_both_sides() -> None:
    assert rules("BERT hides some words. It guesses them from the text around them.")["C1"] == "met"


def test_moving_around_is_no_context() -> None:
    assert rules("BERT hides words and jumps around the text.")["C1"] != "met"


# -- a [MASK] on the next token is the causal objective said of the masked LM ------------------
@pytest.mark.parametrize(
    "text",
    [
        "The masked LM always puts a [MASK] over the next word and predicts it from the words on "
        "its left.",
        "BERT masks the next token and guesses it.",
    ],
)
def test_masking_the_next_token_is_a_wrong_mechanism(text: str) -> None:
    assert rules(text)["C1"] == "contradicted"


def test_masking_random_tokens_not_the_next_is_no_wrong_mechanism() -> None:
    assert rules("BERT masks random tokens, not the next token.")["C1"] != "contradicted"


# -- "trained for / works for generation" restates the question (no C5 credit) -----------------
@pytest.mark.parametrize(
    "text",
    [
        "Causal LMs are trained for generation, so they generate well.",
        "GPT works for generation because it was trained that way.",
    ],
)
def test_restating_that_gpt_generates_earns_no_c5(text: str) -> None:
    assert rules(text)["C5"] == "missing"


@pytest.mark.parametrize(
    "text", ["GPT is used for generation.", "Decoders are the standard choice for generation."]
)
def test_choosing_gpt_for_generation_is_half_of_c5(text: str) -> None:
    assert rules(text)["C5"] == "partial"


# -- C3: an elided denial of the later words states the restriction ---------------------------
@pytest.mark.parametrize(
    "text",
    [
        "BERT can also use the words after the blank, while GPT can't.",
        "The masked model reads the future tokens; the causal one does not.",
    ],
)
def test_elided_denial_of_the_later_words_meets_c3(text: str) -> None:
    assert rules(text)["C3"] == "met"


@pytest.mark.parametrize(
    "text",
    [
        "BERT sees both sides, GPT doesn't.",
        "BERT sees the words before and after the blank, GPT doesn't.",
    ],
)
def test_elided_denial_of_both_sides_stays_partial(text: str) -> None:
    assert rules(text)["C3"] == "partial"
