"""Round 7, wrong-claims track: false contradictions from withdrawn claims, from a principle
named without a model, and from a participle read as a model's name; plus wrong claims the
catalogue missed. Every sentence here is written for the test."""

from __future__ import annotations

import pytest

from grader.rubric.model import load_rubric
from grader.rubric.retraction import withdrawn_spans, withdraws_previous
from grader.rubric.scorer import score_explanation

RUBRIC = load_rubric()


def verdicts(text: str) -> dict[str, str]:
    return {c.id: c.verdict for c in score_explanation(text, RUBRIC).criteria}


def evidence(text: str, cid: str) -> str:
    return next(c.evidence for c in score_explanation(text, RUBRIC).criteria if c.id == cid)


# -- self-corrections and retractions -------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "The masked model sees only the earlier words - no sorry, that's backwards. The "
        "masked model uses the words on both sides of every blank.",
        "The masked model sees only the earlier words, scratch that, it uses the words on both "
        "sides of every blank.",
        "The masked model sees only the earlier words. Wait, no. It uses the words on both "
        "sides of every blank.",
        "The masked model sees only the earlier words. EDIT: actually it uses the words on both "
        "sides of every blank.",
        "The masked model sees only the earlier words. Oops, I had it backwards: it uses the "
        "words on both sides of every blank.",
    ],
)
def test_a_withdrawn_claim_is_not_contradicted_and_the_correction_counts(text: str) -> None:
    got = verdicts(text)
    assert got["C1"] == "met"


def test_the_correction_is_the_quoted_evidence() -> None:
    text = (
        "The masked model sees only the earlier words. Wait, no. It uses the words on both "
        "sides of every blank."
    )
    assert "both sides" in evidence(text, "C1")


def test_a_withdrawn_correct_claim_earns_nothing() -> None:
    text = "The masked model uses the words on both sides of a blank. Scratch that, I'm unsure."
    assert verdicts(text)["C1"] != "met"


def test_a_wait_that_confirms_withdraws_nothing() -> None:
    text = "During training GPT reads the entire sentence, wait - yes, it reads all of it."
    assert verdicts(text)["C3"] == "contradicted"
    assert not withdraws_previous("Wait - yes, it reads all of it.")


def test_only_the_clause_before_the_marker_is_withdrawn() -> None:
    s = (
        "The masked model fills blanks from both sides and GPT reads everything - wait, no, "
        "GPT reads only the past."
    )
    (span,) = withdrawn_spans(s)
    assert "both sides" not in s[span[0] : span[1]]
    assert "GPT reads everything" in s[span[0] : span[1]]
    assert "only the past" not in s[span[0] : span[1]]


def test_struck_through_text_is_withdrawn() -> None:
    text = "Encoders are for tagging and decoders write text ~~and BERT writes stories well~~."
    assert verdicts(text)["C5"] != "contradicted"


# -- a principle named in a sentence without its own model -------------------------------
MLM_LAST = (
    "GPT guesses each next word from the earlier ones only. The masked model trained with "
    "both sides present and never without the right side. "
)
CLM_LAST = (
    "BERT fills each blank from both sides. GPT guesses each next token from only the "
    "earlier ones. "
)


@pytest.mark.parametrize(
    "text",
    [
        MLM_LAST + "So it is all about train/inference consistency.",
        MLM_LAST + "Training/decoding consistency is what settles it.",
        CLM_LAST + "What matters is that training differs from how the model is used.",
    ],
)
def test_a_named_principle_charges_no_model(text: str) -> None:
    assert verdicts(text)["C4"] != "contradicted"


def test_the_comparison_object_is_not_the_inherited_subject() -> None:
    text = (
        "BERT fills each blank from both sides. The causal model guesses the next token from "
        "the earlier ones. It can also fill gaps the same way BERT does. Its training setup "
        "matches generation, unlike the masked model's."
    )
    assert verdicts(text)["C4"] != "contradicted"


def test_a_pronoun_subject_still_carries_the_false_relation() -> None:
    text = "BERT fills blanks from both sides. It is trained in the same way as it is used."
    assert verdicts(text)["C4"] == "contradicted"


# -- "the future is masked": a participle, not the masked model ----------------------------
def test_a_participle_masked_is_no_masked_model() -> None:
    text = "GPT learns to guess each word from only the preceding ones (the later part is masked)."
    assert verdicts(text)["C1"] != "contradicted"
    assert verdicts("Model A (masked) fills blanks from both sides.")["C1"] == "met"


# -- a generation noun heading its own clause is no use of the masked LM --------------------
def test_what_generation_cannot_supply_is_no_use_of_the_masked_model() -> None:
    text = (
        "Encoders like BERT serve classification, decoders like GPT serve text generation. "
        "The masked model is trained for inputs that generation will never provide."
    )
    assert verdicts(text)["C5"] == "met"


# -- the masked LM reading left to right, with a use named in another clause ----------------
def test_reading_left_to_right_is_a_c1_wrong_mechanism_beside_a_use() -> None:
    text = "BERT processes text left to right, so GPT ends up better at writing stories."
    assert verdicts(text)["C1"] == "contradicted"


def test_left_to_right_in_the_generation_scene_stays_no_claim() -> None:
    text = "When BERT is made to write, it has to go left to right and guess the next word."
    assert verdicts(text)["C1"] != "contradicted"


# -- a generation time after a colon governs its clause ---------------------------------
def test_availability_after_a_colon_opener_is_the_c2_false_claim() -> None:
    text = (
        "The twist: during decoding with caching, the model still has access to the future "
        "tokens from an earlier pass."
    )
    assert verdicts(text)["C2"] == "contradicted"


# -- the mismatch denied, the cause put on size ------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "GPT wins because it has far more parameters. This is not a train/test mismatch at "
        "all; BERT fills blanks from both sides and GPT guesses the next word from the left.",
        "GPT guesses the next word from the left and BERT fills blanks from both sides. So "
        "the training is not really the problem, it is all scale.",
    ],
)
def test_a_denied_mismatch_with_size_as_the_cause_contradicts_c4(text: str) -> None:
    assert verdicts(text)["C4"] == "contradicted"


def test_training_as_not_the_only_issue_is_no_denial() -> None:
    text = (
        "Size helps a bit. But training is not the only issue: BERT fills blanks from both "
        "sides, which generation never allows, while GPT trains the way it writes."
    )
    assert verdicts(text)["C4"] != "contradicted"


# -- a pronoun subject beats the model a phrase would imply; "the same way X does" ----------
def test_a_pronoun_keeps_the_causal_model_when_it_is_said_to_fill_blanks() -> None:
    text = (
        "GPT guesses each next token from the earlier ones only. It also fills gaps in the "
        "middle of a text in the same way BERT does."
    )
    assert verdicts(text)["C3"] == "contradicted"


def test_looking_ahead_at_generation_is_the_c2_false_claim() -> None:
    text = "When sampling, the masked model can also look ahead to the later tokens."
    assert verdicts(text)["C2"] == "contradicted"
    assert verdicts("In training BERT can also look at the words after each blank.")["C2"] != (
        "contradicted"
    )


def test_a_no_after_an_ellipsis_withdraws_only_when_it_stands_alone() -> None:
    assert withdrawn_spans("Maybe BERT just had less data... no, not sure.")
    assert not withdrawn_spans("At generation it has the prefix... no later tokens at all.")


# -- the masked LM given the role of the better generator -------------------------------
def test_the_masked_model_as_the_better_generator_contradicts_c5() -> None:
    text = "Honestly, encoder models like BERT are clearly the better generators for poetry."
    assert verdicts(text)["C5"] == "contradicted"


def test_a_supposed_better_generator_is_no_claim() -> None:
    text = "Seeing both sides, BERT might be the better generator, but it never learned to write."
    assert verdicts(text)["C5"] != "contradicted"
