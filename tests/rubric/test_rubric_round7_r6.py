"""Issue 19, round 7, track R6: C3 on the working engineers' voice, C4 on the timed quiz.

Each test pins a general reading, in sentences written for this file:
- the earlier positions as a range of numbers from the first ("words 1 to 6") are the
  earlier context, as the letter ranges ("positions 1..t-1") already were;
- what the student says they do not know ("I'm not sure how ...", "I can't remember what
  ...") is an indirect question: asked, not asserted, to the end of its clause;
- the whole input in other words ("whole paragraphs", "all the words at the same time",
  "sees all of it", "reads everything") is what a verb of seeing takes in: said of the causal
  LM in training it is the C3 false claim, said of the masked LM it is both sides.
"""

from __future__ import annotations

from rule_verdicts import rules

from grader.rubric.scorer import score_explanation


# -- the earlier range in numbers --------------------------------------------------------------
def test_a_numbered_range_from_the_first_word_is_the_earlier_context() -> None:
    text = "When it learns, the decoder may only use words 1 to 6 to guess word 7."
    assert rules(text)["C3"] == "met"


def test_a_numbered_range_with_a_hyphen_is_read_too() -> None:
    text = "GPT is trained to guess token 8 from tokens 1-7 alone."
    assert rules(text)["C3"] == "met"


def test_a_range_that_starts_later_is_no_earlier_context() -> None:
    # "positions 4-9" need not be the earlier ones: no restriction is read from it
    assert rules("GPT only weighs positions 4-9 here.")["C3"] != "met"


# -- what the student says they do not know ----------------------------------------------------
def test_an_indirect_question_under_not_sure_earns_nothing() -> None:
    # asked, not answered: neither the C3 met it was read as nor a false claim
    assert rules("I'm not sure how GPT sees the later words.")["C3"] == "missing"


def test_an_indirect_question_under_no_idea_earns_nothing() -> None:
    assert rules("No idea how exactly BERT only sees the left side.")["C1"] == "missing"


def test_an_indirect_question_under_do_not_remember_earns_nothing() -> None:
    assert rules("I don't remember why GPT reads the whole sentence.")["C3"] == "missing"


def test_the_clause_after_the_comma_is_asserted_again() -> None:
    text = "I'm not sure what else to add, but GPT only attends to the earlier tokens."
    assert rules(text)["C3"] == "met"


def test_the_model_noun_subject_knowing_nothing_is_still_the_generation_condition() -> None:
    # not the student's ignorance: the model "doesn't know what comes next" stays asserted
    text = (
        "BERT fills each gap from the words on both sides of it. When it writes left to right, "
        "the model doesn't know what comes next, and BERT never trained without those words."
    )
    assert rules(text)["C2"] == "met"


def test_an_admitted_gap_about_the_causal_model_earns_no_c4_met() -> None:
    text = (
        "A masked model learns by hiding words and guessing each from both sides of its gap. "
        "When you generate from left to right there is nothing on the right yet, and it never "
        "practised guessing without a right side, so its text drifts. "
        "I'm not sure how exactly causal models are trained, I think they just"
    )
    c4 = {c.id: c for c in score_explanation(text).criteria}["C4"]
    assert c4.verdict != "met"
    assert "not sure" not in c4.evidence


# -- the whole input in other words ------------------------------------------------------------
def test_whole_paragraphs_read_by_gpt_in_training_is_the_c3_false_claim() -> None:
    assert rules("While training, GPT reads whole paragraphs at once.")["C3"] == "contradicted"


def test_all_the_words_at_the_same_time_is_the_whole_input() -> None:
    text = "In training GPT looks at all the tokens at the same time."
    assert rules(text)["C3"] == "contradicted"


def test_sees_all_of_it_after_the_whole_input_goes_in_is_the_false_claim() -> None:
    text = "GPT: in training the full text is fed in and the model sees all of it."
    assert rules(text)["C3"] == "contradicted"


def test_sees_everything_before_the_current_word_is_no_whole_input() -> None:
    text = "GPT sees everything before the current word and nothing after it."
    assert rules(text)["C3"] != "contradicted"


def test_sees_all_of_it_said_of_bert_is_both_sides() -> None:
    text = "BERT sees all of it: the words to the left and to the right of the gap."
    out = rules(text)
    assert out["C1"] == "met"
    assert out["C3"] != "contradicted"


def test_the_whole_input_with_the_mask_after_it_is_still_met() -> None:
    text = (
        "In training GPT takes in the whole paragraph at once, but the causal mask hides every "
        "later word from each position."
    )
    assert rules(text)["C3"] == "met"
