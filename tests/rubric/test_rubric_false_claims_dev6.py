"""False contradictions found on dev6 outside C4: a reported view ("my flatmate told me"),
the trailing-[MASK] experiment's "next word", and "at inference time for generation". Each a
general reading, with a near miss that must stay a false claim. Sentences written for these
tests."""

from __future__ import annotations

from rule_verdicts import rules  # the rules alone (a helper beside this file)


# -- a view someone told the student is reported, not asserted ---------------------------------
def test_what_a_flatmate_told_me_is_a_reported_view() -> None:
    text = (
        'My flatmate told me "BERT is great at writing essays." I disagree: BERT is used for '
        "classification, GPT for chatbots."
    )
    assert rules(text)["C5"] != "contradicted"


def test_the_students_own_claim_after_the_report_still_counts() -> None:
    text = "My tutor told me BERT is weak at writing, but actually BERT is great at writing essays."
    assert rules(text)["C5"] == "contradicted"


# -- the trailing-[MASK] experiment owns its "next word" -----------------------------------------
def test_trailing_mask_next_word_is_a_c2_claim_not_the_objective() -> None:
    text = (
        "Put a [MASK] at the end of the text and BERT will predict the next word, exactly like "
        "GPT. BERT uses the words on both sides of each blank."
    )
    v = rules(text)
    assert v["C2"] == "contradicted"
    assert v["C1"] == "met"


def test_next_word_objective_said_of_bert_stays_a_c1_claim() -> None:
    text = "BERT predicts the next word, like GPT. BERT uses the words on both sides of a blank."
    assert rules(text)["C1"] == "contradicted"


# -- "for generation" after a time phrase is the time, not a use ----------------------------------
def test_inference_time_for_generation_is_no_use_of_the_masked_lm() -> None:
    text = (
        "Masked LMs learn to fill blanks from both sides. At inference time for generation, the "
        "input is a prefix with nothing after it."
    )
    assert rules(text)["C5"] != "contradicted"


def test_used_for_generation_said_of_encoders_stays_a_false_claim() -> None:
    assert rules("Encoders such as BERT are used for text generation.")["C5"] == "contradicted"
