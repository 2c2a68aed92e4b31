"""C4 readings of issue-19 round 7: which model each half of the comparison is about.

A generic referent ("the model", an "it's about ...") carried from a sentence about one model
makes no false claim; elided halves hand a relation out to both models; a model named after
"unlike" is the comparison object; a denied mismatch about the masked LM is the false claim;
"not train = generation" denies the equation; a passive "(... is masked)" names no model; the
software analogy's staging / CI and prod are the two conditions. Sentences written for these
tests."""

from __future__ import annotations

import pytest
from rule_verdicts import rules  # the rules alone (a helper beside this file)

_MLM = "BERT hides a few words and recovers each from the words on both sides of it. "
_CLM = "GPT guesses every word from only the words before it. "


@pytest.mark.parametrize(
    "text",
    [
        _MLM + _CLM + "The trouble is simply that training is different from how the model "
        "is used later on.",
        _MLM + _CLM + "What goes wrong is that the model gets trained differently from how "
        "it is used.",
    ],
)
def test_a_generic_referent_makes_no_false_claim(text: str) -> None:
    assert rules(text)["C4"] == "partial"


def test_an_expletive_it_refers_to_no_model() -> None:
    text = (
        _CLM + "So GPT trains exactly the way it generates. BERT never learned to predict without "
        "the right-hand words, which writing never has. In the end it is all about "
        "train/generation consistency, not the number of parameters."
    )
    assert rules(text)["C4"] == "met"


_BRIEF = "BERT fills blanks from both sides. GPT predicts from the words before. "


@pytest.mark.parametrize(
    "text",
    [
        _BRIEF + "A model ought to be trained the way it will be used. GPT is; BERT isn't.",
        _BRIEF + "When you write, the next words do not exist yet. If the staging env doesn't "
        "mirror prod you get incidents; GPT's mirrors it, BERT's doesn't.",
    ],
)
def test_elided_halves_hand_the_relation_out(text: str) -> None:
    assert rules(text)["C4"] == "met"


@pytest.mark.xfail(
    strict=True,
    reason="known limit since the round-7 merge: after 'It ... the way BERT does', the next "
    "sentence's 'Its' is resolved to BERT, the comparison standard, not to the subject",
)
def test_a_model_after_unlike_is_the_comparison_object() -> None:
    text = (
        "GPT predicts each word from the earlier words only. It can even fill a blank the way "
        "BERT does. Its training condition matches generation, unlike the masked LM's."
    )
    assert rules(text)["C4"] == "met"


@pytest.mark.parametrize(
    "text",
    [
        "The real cause is model size. It's not really a train/inference mismatch thing; BERT "
        "fills blanks from both sides, GPT predicts from the left, but both objectives are "
        "fine for generating at scale.",
        "BERT predicts a hidden word from all the others. Put a [MASK] at the end and repeat: "
        "there's no real mismatch with training, since that last mask is one more masked slot.",
    ],
)
def test_a_denied_mismatch_about_bert_is_the_false_claim(text: str) -> None:
    assert rules(text)["C4"] == "contradicted"


def test_a_denial_in_front_of_an_equation_denies_it() -> None:
    text = (
        "BERT conditioning at generation: only x_<t, the future is not there. "
        "BERT: not train = generation, the right context existed in training only. "
        "GPT: train = generation, both see x_<t."
    )
    assert rules(text)["C4"] == "met"


def test_a_passive_masked_names_no_model() -> None:
    text = (
        "When it writes, the next words have not been produced. A causal LM learns as it is "
        "used. It predicts every word from the earlier ones only (the future is masked), "
        "which is exactly what it has when generating. BERT was never trained without the "
        "right context."
    )
    assert rules(text)["C4"] == "met"


def test_the_software_analogy_names_both_conditions() -> None:
    text = (
        "BERT's staging always has the words after the blank; in prod those words don't "
        "exist yet and BERT never ran without them. GPT predicts token t from only tokens "
        "before t, the same interface prod gives it when generating."
    )
    assert rules(text)["C4"] == "met"


def test_what_generation_can_never_supply_is_the_masked_side() -> None:
    text = (
        "GPT's objective is to predict the next token from the earlier ones, while BERT's "
        "objective relies on information that generation can never supply."
    )
    assert rules(text)["C4"] == "met"


def test_a_task_match_with_the_masked_mismatch_compares_both() -> None:
    text = (
        "BERT learns to fill blanks with words on both sides. A final [MASK] leaves a blank "
        "with nothing to its right, a situation it never met in pretraining. GPT is trained "
        "to continue text, which is what generation is."
    )
    assert rules(text)["C4"] == "met"


def test_a_task_match_with_a_bare_task_gap_stays_partial() -> None:
    text = (
        "BERT was never trained to predict the next word, so it cannot continue a sentence. "
        "GPT is trained to continue text, which is what generation is."
    )
    assert rules(text)["C4"] == "partial"


@pytest.mark.parametrize(
    "text",
    [
        "GPT has no mismatch between training and generation, it sees the left side in both.",
        "BERT has a mismatch: it trains with both sides and generates with one. GPT doesn't.",
    ],
)
def test_the_named_model_still_decides(text: str) -> None:
    assert rules(text)["C4"] != "contradicted"


def test_the_objective_named_is_no_training_condition() -> None:
    text = (
        "BERT's objective is predicting hidden tokens from the words on both sides. During "
        "generation the later words do not exist yet, so BERT lacks what it relies on."
    )
    assert rules(text)["C4"] == "missing"


def test_a_training_condition_with_the_link_is_still_one_side() -> None:
    text = (
        "BERT is trained to fill each blank from the words on both sides. During generation "
        "the later words do not exist yet, so BERT lacks what it relies on."
    )
    assert rules(text)["C4"] == "partial"


def test_a_trailing_off_ellipsis_goes_on_with_the_sentence() -> None:
    from grader.rubric.text import split_sentences

    parts = split_sentences("When it writes, it has... the earlier words only. Then it stops.")
    assert [p.text for p in parts] == [
        "When it writes, it has... the earlier words only.",
        "Then it stops.",
    ]
    assert len(split_sentences("It trails off... Then a new sentence starts.")) == 2


def test_a_question_in_the_last_clause_is_asked_not_claimed() -> None:
    text = (
        "BERT reads the words on both sides of a blank. GPT reads the earlier ones. Not sure "
        "about the rest, is the issue that training and generation differ for BERT?"
    )
    assert rules(text)["C4"] == "missing"
