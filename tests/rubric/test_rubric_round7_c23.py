"""C2 and C3 readings of issue-19 round 7 (track R3): the "not there yet" condition and the
causal LM's restriction said in other words, and the links that stay partial.

- C2: the later tokens absent in notation, in second-language word order, in an analogy's own
  nouns, "before token i+1 exists"; an absence after a generation scene whose training words
  describe what is missing; and, for precision, an absence said in the causal LM's turn, an
  inability with its own reason, a view said of both models, "the missing word" (the blank);
- C3: prevention verbs ("stops it from seeing", "forbids looking ahead", "is prevented from
  attending"), a restriction said right after the causal LM's mask is described, the mask
  hiding the upper triangle, "and nothing more"; a task match implies no restriction;
- polarity: "one writes left to right" is generating, not a report; a supposition about a
  condition is unasserted with its consequence.

Sentences written for these tests."""

from __future__ import annotations

import pytest
from rule_verdicts import rules  # the rules alone (a helper beside this file)


# -- C2: the generation condition in other words ------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        # notation: the later positions "undefined" / "unobserved" at sampling time
        "The masked model conditions on x_<t and x_>t at once. When sampling step t, x_>t is "
        "undefined, so that conditional has nothing to condition on.",
        # second-language order: "never is there"
        "Bert learn with the context of the two sides. In the generation the right context "
        "never is there, and bert depend of it.",
        # a time before the availability
        "BERT relies on the words after each gap. When we decode, word k is chosen before "
        "word k+1 exists.",
        # an existential denial
        "BERT fills gaps from both sides and depends on the right side. While decoding we "
        "emit one token at a time, so there is never any future.",
    ],
)
def test_the_not_there_yet_condition_in_other_words_links(text: str) -> None:
    assert rules(text)["C2"] == "met"


def test_an_absence_whose_training_words_describe_what_is_missing_continues_the_scene() -> None:
    text = (
        "BERT guesses each hidden word from the words on both sides. Decoding writes one "
        "token after another. The right-hand words it learned to lean on are simply not "
        "there."
    )
    assert rules(text)["C2"] == "met"


def test_one_writes_left_to_right_is_generating_not_a_report() -> None:
    text = (
        "BERT predicts a hidden word from both sides. At generation one writes left to "
        "right, and the words to the right do not exist yet; BERT always had them."
    )
    assert rules(text)["C2"] == "met"


# -- C2: links that stay partial (or nothing) ----------------------------------------------
def test_an_absence_in_the_causal_lms_turn_links_no_masked_reliance() -> None:
    text = (
        "BERT reads the words before and after the gap. GPT guesses the next word from the "
        "words before it only. When it generates, the words after are not there yet."
    )
    assert rules(text)["C2"] == "partial"


@pytest.mark.parametrize(
    "text",
    [
        "BERT uses the context on both sides of a gap. BERT can't generate because it has "
        "no language-model head, only an encoder that outputs vectors.",
        "BERT reads both sides of a gap. The true reason BERT can't generate well is its "
        "small parameter count, so the far bigger GPT writes better.",
    ],
)
def test_an_inability_with_its_own_reason_is_not_drawn_from_the_reliance(text: str) -> None:
    assert rules(text)["C2"] == "missing"


def test_a_view_said_of_both_models_is_no_masked_reliance() -> None:
    text = (
        "Both models see the entire sentence while training, only the heads differ. So BERT "
        "can't generate."
    )
    assert rules(text)["C2"] == "missing"


def test_the_missing_word_is_the_blank_not_an_absence() -> None:
    text = (
        "GPT is trained in the same way it is used when generating. BERT looks at both sides "
        "of the missing token."
    )
    verdicts = rules(text)
    assert verdicts["C2"] == "missing"
    assert verdicts["C3"] != "met"


def test_a_supposed_availability_is_no_false_claim() -> None:
    text = (
        "BERT guesses blanks from both sides. Suppose, just to see it, that the later words "
        "were available when generating: then BERT would be fine. But decoding goes left to "
        "right, so the later words do not exist yet."
    )
    assert rules(text)["C2"] != "contradicted"


# -- C3: the restriction carried by a mask description -------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "GPT uses a causal mask that stops it from seeing future tokens.",
        "In gpt the causal mask stops it to look at the later tokens.",
        "GPT's triangular mask forbids looking ahead.",
        "The causal LM is prevented from attending to subsequent positions.",
        "GPT is conditioned on the prefix and nothing more.",
        "GPT guesses x_t from x_1..x_{t-1}, no peeking.",
        "GPT is trained on a left-only context.",
    ],
)
def test_a_mask_description_states_the_restriction(text: str) -> None:
    assert rules(text)["C3"] == "met"


def test_a_restriction_of_no_model_after_the_causal_mask_is_the_causal_lms() -> None:
    text = (
        "the mask, in code:\n```\nm = torch.tril(torch.ones(n, n))\n```\nhence row k only "
        "attends to j <= k. an encoder has no such thing."
    )
    assert rules(text)["C3"] == "met"


def test_a_task_match_implies_no_restriction() -> None:
    text = (
        "BERT fills blanks from both sides. At generation the words to the right do not exist "
        "yet. GPT is autoregressive and trains on the same task it does at generation."
    )
    assert rules(text)["C3"] == "partial"


@pytest.mark.parametrize(
    "text",
    [
        "GPT is unidirectional.",
        "GPT uses a causal mask.",
        "GPT predicts the next word from the previous words.",
        "bert sees the two sides, gpt not",
    ],
)
def test_labels_and_bare_mentions_stay_partial(text: str) -> None:
    assert rules(text)["C3"] == "partial"


def test_a_bare_not_elides_only_the_clause_before_it() -> None:
    text = "gpt sees only the earlier words, so gpt learns how it writes and bert not."
    assert rules(text)["C1"] != "met"
