"""Issue 19, round 8 (wrong-claim precision): false contradictions. One sentence does not
assert both sides of a point, and a view a denier or a hearer reports is not the student's.
Sentences written for these tests, not taken from any labelled set; each mechanism has the
case it clears and a near miss that must still be a wrong claim."""

from __future__ import annotations

import pytest
from rule_verdicts import rules

from grader.rubric.polarity import unasserted_spans

CLM_SIDE = (
    "The causal LM is trained on the prefix only, which is the very situation it generates in."
)


# -- C4: a sameness word inside a sentence that states the masked LM's mismatch ---------------
@pytest.mark.parametrize(
    "sentence",
    [
        # the emphasiser "exactly the" next to the context the masked LM relies on and its absence
        "When the model generates, the next words do not exist yet, which removes exactly the "
        "context the masked model learned to depend on.",
        # "exactly that" emphasises the text relied on; "never trained without it" is the gap
        "The masked model, which has learned to lean on exactly that later text and was never "
        "trained without it, is left stranded when writing.",
    ],
)
def test_a_masked_mismatch_sentence_is_not_read_as_masked_consistency(sentence):
    assert rules(CLM_SIDE + " " + sentence)["C4"] != "contradicted"


def test_a_plain_masked_consistency_claim_is_still_wrong():
    text = CLM_SIDE + " BERT is also trained under exactly the conditions it meets at generation."
    assert rules(text)["C4"] == "contradicted"


# -- C3: a later-token phrase in the sentence that states the causal restriction -------------
@pytest.mark.parametrize(
    "sentence",
    [
        "GPT conditions each prediction only on the earlier tokens; its mask rules out any "
        "look-ahead.",
        "A causal model predicts each word from only the words to its left, since the mask hides "
        "the positions after it.",
    ],
)
def test_the_restriction_and_what_it_excludes_are_one_claim(sentence):
    assert rules(sentence)["C3"] == "met"


@pytest.mark.parametrize(
    "sentence",
    [
        "GPT looks at the whole sentence when it is trained.",
        # seeing everything in training, restricted only at generation: still wrong
        "GPT sees the entire sentence during training, but when generating it is limited to "
        "the left context.",
    ],
)
def test_a_causal_model_seeing_the_future_is_still_wrong(sentence):
    assert rules(sentence)["C3"] == "contradicted"


# -- denial and report frames ----------------------------------------------------------------
def test_a_denier_qualified_by_a_relative_clause_denies():
    s = "Nobody who has looked at the attention mask claims that GPT attends to the later tokens."
    spans = unasserted_spans(s)
    assert spans and spans[0][1] >= s.index("later tokens")
    assert rules(s)["C3"] != "contradicted"


def test_a_named_believer_still_asserts():
    # not a denial frame: the student states the (wrong) view as their own
    s = "Everyone who trained such a model believes, rightly, that GPT attends to the later tokens."
    assert rules(s)["C3"] == "contradicted"


def test_a_view_one_hears_is_reported():
    s = "You often hear that BERT only reads the left context; that is not true."
    spans = unasserted_spans(s)
    assert spans and spans[0][1] >= s.index("left context")
    assert rules(s)["C1"] != "contradicted"


def test_hearing_without_that_is_no_report():
    # "hear" without a reported clause names no view: nothing is set aside
    s = "I hear the fan of my laptop while BERT fills in the masked word from both sides."
    assert unasserted_spans(s) == []


# -- word senses: "right" as correct, "familiar" as well known ---------------------------------
@pytest.mark.parametrize(
    "sentence",
    [
        "GPT simply has the right shape of training for producing text, so it writes fluently.",
        "The decoder got the right kind of objective for writing, one word after another.",
    ],
)
def test_the_right_as_correct_is_no_later_context(sentence):
    assert rules(sentence)["C3"] != "contradicted"


def test_the_right_as_the_later_side_is_still_read():
    assert rules("GPT looks at the right as well when it predicts a word.")["C3"] == "contradicted"


def test_a_familiar_example_is_no_sameness():
    text = (
        CLM_SIDE + " When it writes, the later words are not there. The masked model, RoBERTa "
        "being a familiar example, learns by filling in hidden words."
    )
    assert rules(text)["C4"] != "contradicted"


def test_familiar_conditions_for_the_masked_model_are_still_wrong():
    text = CLM_SIDE + " When BERT generates, it works in a familiar setting it was trained in."
    assert rules(text)["C4"] == "contradicted"


# -- "unlike X, whose ...": the relative clause is said of X ----------------------------------
def test_a_relative_clause_on_the_compared_model_keeps_its_model():
    text = (
        "GPT predicts each token from only the earlier ones. It has the same restriction while "
        "generating, so its practice and its use agree, unlike BERT, whose training offered "
        "context that generation can never provide."
    )
    assert rules(text)["C4"] != "contradicted"


def test_unlike_with_the_relation_on_the_pronoun_still_flips():
    # the relation is the pronoun subject's, and the compared model gets the opposite
    text = (
        "GPT predicts each token from only the earlier ones. Unlike BERT, it is trained in a "
        "condition that generation can never provide."
    )
    assert rules(text)["C4"] == "contradicted"


# -- "for" completing a noun of cause or difficulty is no use ---------------------------------
@pytest.mark.parametrize(
    "sentence",
    [
        "The trouble for generation is that the masked model only ever filled gaps.",
        "That is not the real reason for its weak writing, which lies in its training.",
    ],
)
def test_a_noun_complement_for_is_no_use_of_the_masked_model(sentence):
    assert rules("BERT fills in hidden words from both sides. " + sentence)["C5"] != "contradicted"


def test_the_masked_model_used_for_generation_is_still_wrong():
    text = "BERT fills in hidden words from both sides. BERT is mostly used for generation."
    assert rules(text)["C5"] == "contradicted"


# -- which model, asked: an indirect question names no model's relation ----------------------
WRITING = (
    "GPT only ever sees the earlier tokens. BERT sees both sides of each blank. When BERT "
    "writes, the right side is empty."
)


def test_an_indirect_question_carries_no_model():
    text = WRITING + " So the point is not size. It's whose training matched the use."
    assert rules(text)["C4"] != "contradicted"


def test_a_carried_subject_outside_a_question_is_still_read():
    text = WRITING + " Even so, its training matched the use exactly."
    assert rules(text)["C4"] == "contradicted"


# -- an intervention on the input, in the passive ---------------------------------------------
def test_later_tokens_removed_in_an_experiment_are_no_claim_of_vision():
    text = (
        "BERT predicts a blank from both sides. In my test, its guess for a slot shifted as "
        "soon as later tokens were removed, while GPT's stayed put."
    )
    assert rules(text)["C1"] != "contradicted"


def test_the_masked_model_ignoring_later_tokens_is_still_wrong():
    text = "BERT predicts a blank. When it does so, the later tokens are hidden from BERT."
    assert rules(text)["C1"] == "contradicted"


# -- the masked region as a thing lost ---------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "Once sampling starts, the encoder ends up missing the upper triangle its pretraining "
        "always supplied.",
        "A decoder keeps its triangular mask throughout. BERT, by contrast, is missing the upper "
        "triangle that pretraining gave it.",
    ],
)
def test_the_hidden_region_lost_at_generation_is_no_causal_mask_for_the_masked_model(text):
    assert rules(text)["C1"] != "contradicted"


def test_a_masked_model_with_a_triangular_mask_is_still_wrong():
    assert rules("BERT is trained with the upper triangle masked out.")["C1"] == "contradicted"


# -- an imagined model ----------------------------------------------------------------------
def test_what_an_imagined_masked_model_trained_for_is_no_claim_about_bert():
    text = (
        CLM_SIDE + " Writing removes the later words, which leaves the real BERT in the same "
        "condition a hypothetical BERT trained on prefixes would have been trained for."
    )
    assert rules(text)["C4"] != "contradicted"


def test_the_real_masked_model_in_the_same_condition_is_still_wrong():
    text = CLM_SIDE + " Writing leaves the real BERT in the same condition it was trained for."
    assert rules(text)["C4"] == "contradicted"


# -- an architecture illustrated by the other family's model (a true wrong claim) -------------
@pytest.mark.parametrize(
    "sentence",
    [
        "Chat assistants are built on encoder models like GPT, which write one token at a time.",
        "Search engines rank pages with decoders (for example BERT) that read the whole query.",
    ],
)
def test_an_encoder_exemplified_by_gpt_swaps_the_architectures(sentence):
    assert rules(sentence)["C5"] == "contradicted"


def test_the_right_examples_are_no_swap():
    s = "Chat assistants use decoders like GPT, and search engines use encoders such as BERT."
    assert rules(s)["C5"] != "contradicted"
