"""C4 (training vs generation) read from the argument, not only from relation words."""

from __future__ import annotations

from rule_verdicts import rules  # the rules alone (a helper beside this file)


def test_restriction_answering_the_generation_condition_compares_both_models() -> None:
    text = (
        "While it is trained, BERT gets the words on both sides of every mask. When it has to "
        "write, the words to the right do not exist yet, so it lacks what it relied on. GPT has "
        "no such problem: it only ever used the earlier tokens."
    )
    v = rules(text)
    assert v["C2"] == "met" and v["C3"] == "met"
    assert v["C4"] == "met"


def test_socratic_questions_answer_same_and_different() -> None:
    text = (
        "Ask what BERT has when it learns: every masked word comes with neighbours on the left "
        "and on the right. Ask what it has when it writes: only the left, because the right has "
        "not been produced. Different answers, so BERT is out of its depth. Ask the same two "
        "questions about GPT: in both cases, only the left. Same answers, so GPT is fine."
    )
    assert rules(text)["C4"] == "met"


def test_restriction_stated_before_generation_only_describes_the_model() -> None:
    text = (
        "GPT predicts each token from only the earlier tokens. BERT is trained to use the words "
        "on both sides of a mask. When generating, the later words do not exist yet, so BERT "
        "lacks what it relied on."
    )
    assert rules(text)["C4"] in ("missing", "partial")


def test_without_a_training_word_the_passage_compares_models_not_conditions() -> None:
    text = (
        "BERT reads the words on both sides of a blank. A sentence you are writing is not "
        "finished, so the words after it do not exist yet and BERT lacks what it relies on. GPT "
        "only ever reads the earlier words."
    )
    assert rules(text)["C4"] != "met"


def test_a_blank_called_a_gap_is_not_a_gap_between_conditions() -> None:
    text = (
        "GPT only uses the words before. BERT's practice was filling gaps with the whole text "
        "around them, but writing gives it no text after the gap."
    )
    assert rules(text)["C4"] != "contradicted"


def test_that_is_how_it_was_trained_is_the_causal_side() -> None:
    text = (
        "BERT predicts each masked word from the words on both sides. During generation nothing "
        "after the current position exists yet, which is fine for GPT, because that is how it "
        "was trained, and fatal for BERT, which always relied on the right side."
    )
    assert rules(text)["C4"] == "met"
    gap = (
        "BERT uses both sides of the mask. That gap between how it was trained and how it is "
        "used is why BERT writes badly."
    )
    assert rules(gap)["C4"] != "contradicted"


def test_gen_time_abbreviation_is_the_generation_condition() -> None:
    text = (
        "MLM: P(x_i | x_{-i}), both sides. CLM: P(x_t | x_<t). At gen time x_>t unknown -> MLM "
        "input differs from training; CLM identical."
    )
    assert rules(text)["C4"] == "met"


def test_a_data_word_in_another_clause_does_not_excuse_a_false_sameness() -> None:
    text = (
        "BERT is trained exactly the way it generates, so it has no mismatch at all; the real "
        "problem is that its vocabulary is too small."
    )
    assert rules(text)["C4"] == "contradicted"
    data = "BERT was trained on Wikipedia but is asked about anything, so there is a mismatch."
    assert rules(data)["C4"] in ("partial", "missing")
    reason_after = (
        "For BERT there is a mismatch, because it was trained on Wikipedia and people ask it "
        "about anything."
    )
    assert rules(reason_after)["C4"] in ("partial", "missing")
