"""C2 (and one staccato C3) readings of issue-19 round 5.

- a bare family label ("BERT is bidirectional") says nothing about what the masked LM relied
  on, so next to the generation condition it is one half of the argument (partial), while the
  context it uses ("the words on both sides") still links it (met);
- an absence of context stated right after a sentence describing generation ("Generation is
  one word at a time. The next words are not there.") is the generation condition.

Each with near misses. Sentences written for these tests."""

from __future__ import annotations

import pytest
from rule_verdicts import rules  # the rules alone (a helper beside this file)


@pytest.mark.parametrize(
    "text",
    [
        "- BERT: a masked LM.\n- It is bidirectional.\n- When you generate, you go left to right, "
        "so the words after the current one are not there yet.",
        "BERT is bidirectional. At generation time the later tokens do not exist yet.",
    ],
)
def test_a_bare_label_next_to_the_generation_condition_is_one_half(text: str) -> None:
    assert rules(text)["C2"] == "partial"


def test_the_context_it_uses_next_to_the_generation_condition_links_it() -> None:
    text = (
        "BERT uses the words on both sides of each gap. At generation time the later tokens "
        "do not exist yet."
    )
    assert rules(text)["C2"] == "met"


@pytest.mark.parametrize(
    "text",
    [
        "Generation happens one word at a time. The following words are not there. BERT "
        "depends on them.",
        "Text is produced left to right. The context to the right is simply missing. And BERT "
        "always relied on it.",
    ],
)
def test_an_absence_after_the_generation_scene_is_the_generation_condition(text: str) -> None:
    assert rules(text)["C2"] == "met"


@pytest.mark.parametrize(
    "text",
    [
        # an absence with a training word of its own is about training
        "Generation happens one word at a time. In training some words are missing. BERT "
        "depends on them.",
        # what is gone is no context
        "Generation happens one word at a time. The magic is gone. BERT depends on it.",
    ],
)
def test_an_absence_about_training_or_not_about_context_is_not(text: str) -> None:
    assert rules(text)["C2"] != "met"


@pytest.mark.parametrize(
    "text",
    [
        "At generation time BERT just copies the upcoming tokens rather than predicting them.",
        "When generating, BERT peeks at the later words and repeats them.",
    ],
)
def test_acting_on_later_tokens_while_generating_contradicts_c2(text: str) -> None:
    assert rules(text)["C2"] == "contradicted"


@pytest.mark.parametrize(
    "text",
    [
        "At generation time there are no future tokens that BERT could copy.",
        "In training BERT copies the words after the gap into its prediction.",
    ],
)
def test_no_later_tokens_to_copy_or_copying_in_training_does_not(text: str) -> None:
    assert rules(text)["C2"] != "contradicted"


# -- staccato answers: short sentences between the two halves still link them -------------------
STACCATO = (
    "BERT covers a word. It reads the words before. It also reads the words after. "
    "Now we write. One word. Then another. Then one more. Nothing to the right yet. So BERT "
    "is lost."
)


def test_short_sentences_between_the_halves_still_link_them() -> None:
    assert rules(STACCATO)["C2"] == "met"


def test_the_same_halves_far_apart_in_long_sentences_do_not_link() -> None:
    filler = (
        " Many people have spent a long time discussing this question in seminars and blogs"
        " without reaching any real agreement about the details of the matter at all."
    )
    text = (
        "BERT reads the words before and after each gap." + filler * 2 + " When generating, "
        "the later tokens do not exist yet."
    )
    assert rules(text)["C2"] == "partial"


@pytest.mark.parametrize(
    "text",
    [
        "BERT is bidirectional while GPT is autoregressive, so only GPT can generate text.",
        "The causal model is autoregressive and therefore it can generate.",
    ],
)
def test_the_autoregressive_label_is_not_how_generation_goes(text: str) -> None:
    assert rules(text)["C2"] == "missing"


def test_generation_said_to_be_autoregressive_is_the_generation_condition() -> None:
    assert rules("Generation is autoregressive: one token at a time.")["C2"] == "partial"


# -- C3: a fragment that restricts the sentence before ------------------------------------------
def test_an_only_fragment_restricts_the_causal_models_context() -> None:
    assert rules("GPT works another way. It reads the left part. Only left.")["C3"] == "met"


@pytest.mark.parametrize(
    "text",
    [
        "GPT works another way. It reads the left part. Not only left.",
        "BERT works another way. It reads the left part. Only left.",
    ],
)
def test_a_denied_fragment_or_another_models_does_not(text: str) -> None:
    assert rules(text)["C3"] != "met"
