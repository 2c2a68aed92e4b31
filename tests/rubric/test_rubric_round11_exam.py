"""Readings of handwritten timed-exam notation (round 11, track B).

- C5: a use attached to a family by an arrow or a colon also when the family carries a kind
  suffix ("GPT-like -> generation", "BERT-style: tagging").
- C2: an arrow between two clauses is their cause-and-effect link: "needs the words on both
  sides => it can't generate" is the masked LM's inability drawn from its reliance.
- A struck-through passage ("~~word~~") is out of the sentence the scorer reads: the words
  around it join as the student left them.
- C1: what a person gives a model in a trial ("I gave BERT only a prefix") is the trial's
  input, not what the model is said to see.
- C1/C3: position ranges written tight ("tok 1..t-1", "i+1..n") are the earlier and the later
  side; a view denied past a range ("can't look past tokens 1 to t-1") is the restriction.
- C4: a line that stops after a conjunction and a model name ("..., and BERT") was cut off:
  it says nothing of that model and compares nothing.
- C3: "bidirectional vs unidirectional" with no model named names the two families; the
  one-way label does not make the sentence about the causal LM alone.
- C2: "beam search" is a decoding method, not the search task encoders are used for, so the
  later tokens said to be available during beam-search generation are the false claim.

Sentences written for these tests."""

from __future__ import annotations

import pytest
from rule_verdicts import rules  # the rules alone (a helper beside this file)

MLM_VIEW = "The masked model guesses each hidden word from the words on its left and its right."
CLM_ONLY = "The causal model predicts every word from only the words before it, due to its mask."


# -- C5: a kind suffix before the arrow ---------------------------------------------------------
@pytest.mark.parametrize(
    "line",
    ["GPT-like -> chatbots.", "GPT-style => story writing.", "GPT-type models: text generation."],
)
def test_suffixed_family_with_arrow_names_its_use(line: str) -> None:
    text = MLM_VIEW + " " + CLM_ONLY + " Conclusion. " + line
    assert rules(text)["C5"] == "partial"


def test_both_suffixed_families_with_arrows_make_the_split() -> None:
    text = MLM_VIEW + " " + CLM_ONLY + " BERT-like -> tagging and NER. GPT-like -> chatbots."
    assert rules(text)["C5"] == "met"


# -- C2: an arrow as the consequence link -------------------------------------------------------
def test_arrow_joins_reliance_and_inability() -> None:
    text = (
        "The masked model has to have the full sentence around a gap to fill it in => "
        "it cannot generate. " + CLM_ONLY
    )
    assert rules(text)["C2"] == "partial"


# -- C2: beam search is decoding ---------------------------------------------------------------
def test_later_tokens_available_during_beam_search_is_the_false_claim() -> None:
    text = (
        MLM_VIEW + " " + CLM_ONLY + " When decoding with beam search the model keeps whole "
        "candidate sentences, so the later tokens are there during generation and BERT can "
        "use them."
    )
    assert rules(text)["C2"] == "contradicted"


# -- struck-through words are out of the sentence ----------------------------------------------
def test_struck_word_does_not_split_the_phrase_after_it() -> None:
    text = "The masked model fills in a blank using the words ~~before~~ before and after it."
    assert rules(text)["C1"] == "met"


def test_struck_verb_does_not_break_the_comparison() -> None:
    text = (
        MLM_VIEW + " " + CLM_ONLY + " The causal model is trained the way it ~~is~~ generates, "
        "the masked model is not."
    )
    assert rules(text)["C4"] == "met"


# -- the input a person gives a model in a trial -------------------------------------------------
def test_input_given_to_the_masked_model_in_a_trial_is_no_false_claim() -> None:
    text = (
        MLM_VIEW + " In the lab I gave BERT only a prefix with a blank at the end, and its "
        "guesses got much worse."
    )
    assert rules(text)["C1"] == "met"


# -- ranges written as notes ---------------------------------------------------------------------
def test_tight_range_up_to_the_previous_index_is_the_causal_restriction() -> None:
    text = MLM_VIEW + " The causal model: predict tok t from tok 1..t-1, nothing after."
    assert rules(text)["C3"] == "met"


def test_tight_later_range_is_the_later_side() -> None:
    text = (
        "The masked model fills in token i from tokens 1..i-1 and i+1..n. "
        "The causal model predicts token t from tokens before it only."
    )
    assert rules(text)["C1"] == "met"


def test_denied_view_past_a_range_is_the_restriction() -> None:
    text = MLM_VIEW + " The causal model can't look past tokens 1 to t-1 when it predicts token t."
    assert rules(text)["C3"] == "met"


# -- a line cut off when time ran out ------------------------------------------------------------
@pytest.mark.parametrize("joint", ["and", "but"])
def test_model_named_where_the_line_stops_is_not_compared(joint: str) -> None:
    text = (
        MLM_VIEW + " " + CLM_ONLY + f" So the causal model trains the same way it generates, "
        f"{joint} BERT"
    )
    assert rules(text)["C4"] == "partial"


# -- the two labels named together ---------------------------------------------------------------
def test_one_way_label_beside_the_two_way_one_is_no_causal_claim() -> None:
    text = "This exam answer is about bidirectional vs unidirectional. " + MLM_VIEW + " " + CLM_ONLY
    assert rules(text)["C3"] == "met"
