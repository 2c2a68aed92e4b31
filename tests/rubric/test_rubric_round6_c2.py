"""C2 readings of issue-19 round 6: where an availability of the later tokens holds.

An availability bound to training and denied for generation ("available in training and never
during decoding"), or the condition of an understanding use ("used where the full text is
already there"), is not the C2 false claim that the later tokens are available at generation.
Sentences written for these tests."""

from __future__ import annotations

import pytest
from rule_verdicts import rules  # the rules alone (a helper beside this file)

from grader.rubric.model import load_rubric
from grader.rubric.scorer import read_answer


@pytest.mark.parametrize(
    "text",
    [
        "For BERT the right context was always available in training and never is during "
        "generation, so it is lost.",
        "The later words were there during pretraining but not when it generates, and BERT "
        "depended on them.",
        "BERT-style encoders are used where the full text is already available, like "
        "sentiment classification, and GPT-style decoders for generation.",
    ],
)
def test_an_availability_elsewhere_is_no_false_claim(text: str) -> None:
    assert rules(text)["C2"] != "contradicted"


@pytest.mark.parametrize(
    "text",
    [
        "At generation BERT still has the right context available.",
        "BERT has the later words available during generation, not only in training.",
    ],
)
def test_an_availability_at_generation_is_still_the_false_claim(text: str) -> None:
    assert rules(text)["C2"] == "contradicted"


@pytest.mark.parametrize(
    "text",
    [
        "So BERT can generate left to right fine, it is just less famous.",
        "A masked model like BERT generates text left to right without any problem.",
    ],
)
def test_the_masked_lm_generating_well_left_to_right_is_a_c2_false_claim(text: str) -> None:
    assert rules(text)["C2"] == "contradicted"


@pytest.mark.parametrize(
    "text",
    [
        # a left-to-right order named elsewhere in the sentence is not the manner of generating
        "XLNet generates perfectly well, because its objective includes the left-to-right "
        "order as one factorisation.",
        # the left-to-right generation said to fail
        "BERT cannot generate left to right well, because the right side is not there yet.",
    ],
)
def test_generation_well_without_the_left_to_right_manner_is_not(text: str) -> None:
    assert rules(text)["C2"] != "contradicted"


@pytest.mark.parametrize(
    "text",
    [
        "When it writes, nobody tells it what comes after the current word, and BERT always "
        "relied on that.",
        "While generating, no one shows the model the words to the right, and BERT needs them.",
    ],
)
def test_the_later_words_as_what_nobody_provides_at_generation(text: str) -> None:
    assert rules(text)["C2"] == "met"


@pytest.mark.parametrize(
    "text",
    [
        # no later context named and no generation: a remark, not the generation condition
        "Nobody tells you this in the lecture, but BERT uses the words on both sides.",
        "In training nobody tells it the answer, and BERT uses the words on both sides.",
    ],
)
def test_nobody_providing_something_else_is_not_the_condition(text: str) -> None:
    assert rules(text)["C2"] != "met"


@pytest.mark.parametrize(
    "text",
    [
        "BERT need the whole sentence for to work, so when we ask it to write a story it cannot "
        "do it good.",
        "The masked model relies on both sides, so if you make it generate, it fails badly.",
    ],
)
def test_an_inability_after_the_generation_word_is_one_half(text: str) -> None:
    assert rules(text)["C2"] == "partial"


@pytest.mark.parametrize(
    "text",
    [
        # the inability is the causal LM's: not the masked LM's consequence
        "GPT relies on the previous words, so when it writes long code it fails sometimes.",
        # no reliance anywhere near: a bare claim, nothing linked
        "When we ask BERT to write a story, it cannot do it well.",
    ],
)
def test_an_inability_of_the_other_model_or_without_a_reliance_is_not(text: str) -> None:
    assert rules(text)["C2"] != "partial"


@pytest.mark.parametrize(
    "text",
    [
        "at gen time the words to the right are not there, and BERT relied on them.",
        "When sampling you only have x_1..x_t, and BERT relied on the words on both sides.",
        "During generation positions t+1 onwards do not exist yet, and BERT uses both sides of "
        "every blank.",
    ],
)
def test_the_generation_condition_in_notation_and_abbreviation(text: str) -> None:
    assert rules(text)["C2"] == "met"


def test_a_generation_of_people_is_not_the_generation_time() -> None:
    text = "Students in gen z only have short texts, and BERT relied on the words on both sides."
    assert rules(text)["C2"] != "met"


def test_the_next_index_is_a_target_not_the_later_context() -> None:
    assert rules("GPT predicts token t+1 from the earlier tokens only.")["C3"] == "met"


@pytest.mark.parametrize(
    ("text", "timed"),
    [
        ("at gen time u only have the prefix.", True),
        ("during gen the rest is empty.", True),
        ("Students in gen z read a lot.", False),
        ("The gen of text is slow.", False),
    ],
)
def test_the_abbreviated_generation_time(text: str, timed: bool) -> None:
    _, _, an = read_answer(text, load_rubric())
    assert an.sentences[0].has("generation_time") is timed
