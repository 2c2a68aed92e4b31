"""Paraphrases of the rubric's concepts and the implication / linking rules that read them.

Each case is a sentence or two written for these tests (not taken from a labelled set). They pin
the general mechanisms: concept families in other words than the rubric's, implied restrictions,
sentence-pair linking, and the guards that keep near-misses and wrong reasons from scoring.
"""

from __future__ import annotations

import pytest

from grader.rubric import score_explanation


def verdict(text: str, cid: str) -> str:
    return next(c.verdict for c in score_explanation(text).criteria if c.id == cid)


@pytest.mark.parametrize(
    ("cid", "expected", "text"),
    [
        # directional context in other words
        ("C3", "met", "GPT predicts each word using nothing but what comes before it."),
        ("C3", "met", "A decoder-only model conditions on earlier positions only."),
        ("C3", "met", "The causal model never attends to later positions."),
        ("C3", "met", "GPT is only allowed to look at the past, never the future."),
        ("C3", "met", "GPT cannot attend to anything on its right."),
        ("C3", "met", "The causal LM's mask removes every future position from view."),
        ("C1", "met", "BERT uses what comes before and after the blank."),
        (
            "C1",
            "met",
            "An encoder-only model sees the preceding and the following words of each masked slot.",
        ),
        (
            "C1",
            "met",
            "The masked model draws on tokens to the left and to the right of every gap.",
        ),
        # ranges and shapes state the restriction without "only"
        (
            "C3",
            "met",
            "In a causal LM the attention of position i is restricted to positions up to i.",
        ),
        ("C3", "met", "GPT: each token attends to tokens \u2264 its own position."),
        ("C3", "met", "Decoder-only: lower-triangular attention."),
        ("C3", "met", "In GPT, token t never sees token t+1 or anything after it."),
        (
            "C3",
            "met",
            "For the decoder, scores above the diagonal are set to -inf, so a token never attends "
            "to later ones.",
        ),
        # naming the mechanism is not stating the restriction (labelling guide)
        ("C3", "partial", "GPT uses a causal mask."),
        ("C3", "partial", "GPT predicts the next word from the preceding words."),
        # the generation condition: sampling, inference, autoregressive decoding
        (
            "C2",
            "met",
            "At inference, the words after the current one have not been sampled yet, and BERT "
            "always had them in training.",
        ),
        (
            "C2",
            "met",
            "Autoregressive decoding never provides a right-hand context, which is exactly what "
            "the masked LM was trained to rely on.",
        ),
        ("C2", "partial", "Sampling produces one token at a time, so the future is unknown."),
        # train/generation consistency in other words
        ("C4", "met", "GPT is trained the way it is used, BERT is not."),
        (
            "C4",
            "met",
            "There is no mismatch for the causal LM between training and sampling, but the masked "
            "LM faces a distribution shift at inference.",
        ),
        (
            "C4",
            "met",
            "BERT never practised generating without the right context, while GPT practises "
            "exactly that in training.",
        ),
        (
            "C4",
            "met",
            "The causal LM's training is consistent with decoding; the masked LM's training is "
            "inconsistent with it.",
        ),
        (
            "C4",
            "met",
            "Unlike BERT, GPT is trained under the same conditions it faces when generating.",
        ),
        (
            "C4",
            "met",
            "The causal model practises the exact task it will perform, the masked model "
            "practises an easier one.",
        ),
        (
            "C4",
            "met",
            "CLM: train condition == generation condition. MLM: train condition != generation "
            "condition.",
        ),
        ("C4", "partial", "GPT is trained the way it is used."),
        ("C4", "missing", "BERT and GPT use the same tokenizer and are trained on the same data."),
        # architecture names only
        (
            "C5",
            "met",
            "That is why encoder-only models ended up in classifiers and decoder-only models in "
            "chatbots.",
        ),
        ("C5", "met", "Consequence: encoders for NLU, decoders for NLG."),
        ("C5", "missing", "Only GPT can generate."),
    ],
)
def test_paraphrase(cid, expected, text):
    assert verdict(text, cid) == expected


@pytest.mark.parametrize(
    ("cid", "text"),
    [
        ("C1", "BERT's attention only runs in one direction, from left to right."),
        ("C1", "The masked LM has no access to the tokens after the mask."),
        (
            "C3",
            "GPT attends to the whole sequence in training; the causal mask is only applied "
            "when sampling.",
        ),
        ("C4", "Both BERT and GPT are trained under generation-like conditions."),
        ("C2", "At generation time BERT can still attend to the full sequence."),
        ("C2", "When BERT generates, the future tokens are available to it."),
        (
            "C2",
            "People think generation removes the right side, but actually during generation you "
            "can feed BERT the whole draft, so it still has both sides.",
        ),
    ],
)
def test_near_miss_false_claims_are_contradicted(cid, text):
    assert verdict(text, cid) == "contradicted"


def test_decoder_only_does_not_supply_the_word_only():
    # "only" inside the model name is not the restriction
    assert verdict("Decoder-only models predict the next token.", "C3") == "partial"


def test_a_reported_view_is_not_the_students_claim():
    text = "Some people say BERT only sees the left context, but in fact it sees both sides."
    assert verdict(text, "C1") == "met"


def test_a_mismatch_of_data_is_not_the_information_condition():
    text = (
        "BERT was pretrained on Wikipedia and books, but at inference people ask it about "
        "anything, so there is a mismatch. GPT saw the whole web in training, so for GPT there "
        "is no mismatch."
    )
    assert verdict(text, "C4") == "partial"


def test_implication_absence_plus_consistency_states_the_c3_restriction():
    text = (
        "During decoding, a model emits token after token; whatever follows the current token "
        "has not been decided. A causal model was fit on exactly this kind of input."
    )
    res = score_explanation(text)
    c3 = next(c for c in res.criteria if c.id == "C3")
    assert c3.verdict == "met"
    assert "exactly this kind of input" in c3.evidence
    # without the generation condition there is nothing to imply
    assert verdict("A causal model was fit on exactly this kind of input.", "C3") == "missing"


def test_relation_at_generation_links_to_the_training_sentence_before():
    text = (
        "GPT is trained with the causal mask, so each position sees only its own prefix. "
        "At generation it sees its own prefix, the same kind of input."
    )
    assert verdict(text, "C4") == "partial"  # the causal side; nothing about the masked LM
    assert (
        verdict(text + " BERT is trained with both sides, which generation never gives it.", "C4")
        == "met"
    )


def test_a_false_claim_needs_a_subject_in_its_own_sentence():
    # "training ... had the later tokens" names no model: it is not GPT seeing the future
    text = (
        "GPT predicts token t from the tokens before t; attention to later tokens is blocked. "
        "Sampling produces tokens in order. In the other setup, training always had the later "
        "tokens."
    )
    assert verdict(text, "C3") == "met"


@pytest.mark.parametrize(
    "text",
    [
        "tril, causal mask, prefix, suffix, exposure, mismatch, encoder-only, decoder-only, "
        "sampling, distribution shift, left+right, x_<t, NLU, NLG",
        "Transformers generate text with sampling and beam search. Temperature controls "
        "randomness. Top-k and top-p limit the candidates.",
    ],
)
def test_new_vocabulary_does_not_make_a_list_or_an_off_topic_answer_score(text):
    res = score_explanation(text)
    assert all(c.verdict in ("partial", "missing") for c in res.criteria)
    assert res.score <= 3
    assert res.needs_review
