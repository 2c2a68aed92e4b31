"""Credit levels of C1 and C3 in round 9 (track c13): the voices of teachers in training,
signal-processing engineers and a community-college class, and the near misses that must stay
where they are.

- "non-causal" is the masked side, never a mention of the causal model: "a masked LM is
  non-causal: it uses ..." is said of the masked LM; "BERT is non-causal" alone is its label
  (C1 partial), and a "GPT is causal" after it repeats no word;
- the engineers' and teachers' words for the two sides: past samples, "x[0..n-1]",
  (earlier), "in front and behind",
  "on every side" (both sides), and "predicts what's next";
- C1 false contradictions: "the whole passage with a few words hidden" (the hiding is of other
  words: the passage is the context), "has never once had to ..." (an emphatic never: the
  condition it was never trained under), "I had to predict a hidden word ... with only the
  words before it" (the student's own exercise, no model);
- C1 false claims that were missed: "Then again, BERT only reads left to right" after a
  sentence set at generation turns to another point (no "then" of the scenario going on);
  "if you think about it, BERT only looks at the left" reports no one's view;
- C3: "GPT trains the way it is used" implies the causal restriction only when the answer's
  absence of the later tokens at generation is stated close by, or the sameness names the
  condition itself ("the same conditions"); "different from the way it is used" is no
  sameness at all.

Sentences written for these tests."""

from __future__ import annotations

import pytest
from rule_verdicts import rules  # the rules alone (a helper beside this file)

# -- C3: the implied restriction needs its premises together ---------------------------------
NEAR = (
    "At generation time the later words do not exist yet. GPT is trained the way it is "
    "used, so this costs it nothing."
)


def test_a_manner_sameness_implies_the_restriction_only_next_to_the_absence() -> None:
    far = (
        "While you write a paragraph, the sentences after the one you are on are not there "
        "yet. BERT was always trained with those sentences present. That is what breaks it. "
        "Its masked objective is fine for classification. GPT is trained the way it is used."
    )
    assert rules(far)["C3"] != "met"
    assert rules(NEAR)["C3"] == "met"


def test_different_from_the_way_they_are_used_is_no_sameness() -> None:
    text = (
        "GPT is a causal model that guesses the next word. The way they are trained is "
        "different from the way they are used. When you generate, the words ahead of you do "
        "not exist yet."
    )
    assert rules(text)["C3"] == "partial"


# -- "non-causal" names the masked side ------------------------------------------------------
def test_a_non_causal_masked_lm_is_the_subject_of_its_two_sided_view() -> None:
    text = (
        "A masked LM is non-causal: for each blank it draws on the samples before the blank "
        "and the samples after it, the way an offline smoother does."
    )
    v = rules(text)
    assert v["C1"] == "met" and v["C3"] != "contradicted"


def test_a_non_causal_label_alone_is_partial_and_causal_after_it_no_false_claim() -> None:
    # "GPT is causal" only names the question's family (no restriction stated): it earns
    # nothing for C3, and the masked side's label beside it is no causal-model mention
    v = rules("Think of filters here. BERT is non-causal while GPT is causal.")
    assert v["C1"] == "partial" and v["C3"] == "missing"


# -- the two sides in engineers' and teachers' words -----------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "GPT behaves like a causal predictor: it only takes in past samples.",
        "For GPT, the estimate of x[n] is built only from x[0..n-1].",
    ],
)
def test_the_causal_restriction_in_other_notations_is_met(text: str) -> None:
    assert rules(text)["C3"] == "met"


@pytest.mark.parametrize(
    "text",
    [
        "BERT works out a covered word from the words in front and behind.",
        "BERT fills the hole by looking at the pieces around it on every side.",
    ],
)
def test_both_sides_in_everyday_words_is_met(text: str) -> None:
    assert rules(text)["C1"] == "met"


def test_predicting_whats_next_is_the_causal_objective() -> None:
    assert rules("Causal models such as GPT predict what's next in a sentence.")["C3"] == "partial"


# -- C1: what reads as a false claim and is not -----------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "BERT is handed the whole paragraph with a few words covered, and it uses the words "
        "on both sides of each blank.",
        "For every blank, BERT reads the full text apart from the hidden words, which means "
        "the words before and after the blank.",
    ],
)
def test_the_whole_text_with_some_words_hidden_is_no_left_only_claim(text: str) -> None:
    assert rules(text)["C1"] == "met"


def test_never_once_trained_without_the_later_words_is_the_generation_condition() -> None:
    text = (
        "BERT fills each blank from the words on either side of it. It has never once had "
        "to guess without the words after the blank, so writing trips it up."
    )
    assert rules(text)["C1"] == "met"


def test_the_students_own_guessing_exercise_is_no_claim_about_the_model() -> None:
    text = (
        "In class I had to predict a hidden word twice: first with the full sentence, then "
        "with only the words before it. BERT learns with the words on both sides."
    )
    assert rules(text)["C1"] == "met"


# -- C1: false claims after a discourse marker ----------------------------------------------
def test_then_again_opens_a_new_point_not_the_generation_scene() -> None:
    text = (
        "When generating, the words that come later are not there yet. Then again, BERT "
        "only reads from left to right and never uses the later words."
    )
    assert rules(text)["C1"] == "contradicted"


def test_if_you_think_about_it_reports_no_view() -> None:
    text = (
        "Honestly, if you think about it in circuit terms, BERT only looks at the words to "
        "the left of the blank."
    )
    assert rules(text)["C1"] == "contradicted"
