"""C2 and C4 credit levels of issue-19 round 9 (track C2/C4).

- C2 partial: the masked LM's inability said as a purpose it lacks ("isn't built for that",
  "not what it's made for", "isn't meant to generate") next to its reliance, and an inability
  whose reason names the context ("because it expects the entire sentence");

Sentences written for these tests."""

from __future__ import annotations

import pytest
from rule_verdicts import rules  # the rules alone (a helper beside this file)


# -- C2: the inability as a purpose the masked LM lacks ------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "A masked model really depends on the entire passage, so producing a story is not "
        "what it was made for.",
        "BERT needs every word of the sentence. Writing a paragraph means putting down one "
        "word and then the next, and BERT is not designed for that.",
        "BERT relies on the whole sequence; it just isn't meant to generate.",
        "The masked model cannot write stories because it always expects the entire sentence.",
    ],
)
def test_inability_with_its_reliance_is_one_half(text: str) -> None:
    assert rules(text)["C2"] == "partial"


# -- C2: "there is no" + the later context; "never once had to" -----------------------------
@pytest.mark.parametrize(
    "text",
    [
        "BERT leans on the context to the right of the blank. When we sample a reply word by "
        "word, at position k there just are no tokens k+1 and beyond.",
        "A masked model has always relied on the words after the gap. When it writes, there "
        "is no text after the word it is writing yet.",
        "BERT uses the words on both sides of a hidden word. While generating, there are no "
        "words to the right, and BERT has never once had to predict without them.",
    ],
)
def test_there_is_no_later_context_at_generation_links(text: str) -> None:
    assert rules(text)["C2"] == "met"


# -- C4: "gap" as the blank is no difference between training and use ----------------------
@pytest.mark.parametrize(
    "text",
    [
        # the causal LM is not charged with a mismatch for the words before the gap
        "In class the pupils fill the gap in a worksheet. GPT is trained on predicting the "
        "next word and it only reads the words in front of the gap, so it is trained as it "
        "writes.",
        "GPT, trained to predict the next word, only reads the words before the gap; it is "
        "trained exactly as it generates, while BERT trained with words generation never gives.",
    ],
)
def test_the_blank_called_gap_is_no_mismatch(text: str) -> None:
    assert rules(text)["C4"] != "contradicted"


def test_words_before_the_gap_are_no_masked_side_of_c4() -> None:
    text = (
        "BERT fills in a word from the words before the gap when it is trained, and it cannot "
        "write well."
    )
    assert rules(text)["C4"] == "missing"


# -- C4: a difference between the two models is no training/use difference -----------------
@pytest.mark.parametrize(
    "text",
    [
        "BERT fills blanks from both sides. GPT is different: in training it is shown the "
        "whole text at once, and it is trained to write the words in order, which is why it "
        "can generate.",
        "The causal model's loss was higher. I think this difference in difficulty is why "
        "the causal model generates better, since it was trained on the harder task.",
    ],
)
def test_models_compared_is_no_causal_mismatch(text: str) -> None:
    assert rules(text)["C4"] != "contradicted"


def test_different_from_the_other_is_no_one_and_the_other() -> None:
    text = (
        "BERT fills blanks and GPT predicts the next word. The way each one is trained is "
        "different from the other, and that matters when they are used to generate."
    )
    assert rules(text)["C4"] != "met"


# -- negation: a predicate clause after "is that" is not under the negation -------------------
def test_the_reason_it_cannot_generate_is_that_it_needs_the_whole_sentence() -> None:
    text = (
        "BERT is trained to recover hidden words from the words on both sides. The reason BERT "
        "cannot write is that it needs the entire sentence."
    )
    assert rules(text)["C2"] == "partial"


# -- "non-causal" names the two-sided system, never the causal LM ---------------------------
def test_non_causal_with_a_colon_is_no_causal_lm() -> None:
    text = (
        "The masked LM is non-causal: it estimates each hidden token from the samples before it "
        "and the samples after it. When we generate left to right the later samples don't "
        "exist yet, and it was never trained without them."
    )
    v = rules(text)
    assert v["C3"] != "contradicted"
    assert v["C2"] == "met"


# -- "a model" states a principle, not a claim about the model named before -----------------
def test_a_model_in_a_principle_is_no_masked_consistency() -> None:
    text = (
        "BERT sees the words on both sides of every mask while it is trained. When generating, "
        "the words to the right do not exist yet. In general a model works well when it is "
        "used under the conditions it was trained under."
    )
    assert rules(text)["C4"] != "contradicted"


# -- a trailing [MASK] reported as a try is an experiment, not a generator claimed -----------
def test_a_trailing_mask_tried_is_no_generator_claim() -> None:
    text = (
        "Our experiment was to generate with BERT by adding a [MASK] at the end of the prompt. "
        "Mostly it predicted a full stop."
    )
    assert rules(text)["C2"] != "contradicted"


# -- "the end of what exists" is a position in the text, no availability of the later part ---
def test_the_end_of_what_exists_is_no_availability() -> None:
    text = (
        "BERT fills each mask from the tokens before and after it. At generation time the "
        "model sits at the end of what exists, and nothing comes after it yet."
    )
    assert rules(text)["C2"] != "contradicted"


# -- the masked LM said to be trained for generation is the C2 false claim ------------------
def test_masked_lm_trained_for_generation_contradicts_c2() -> None:
    text = (
        "BERT reads the words to the left and right of a mask. In fact the masked model is "
        "pretrained for left-to-right generation, so the masking hardly matters."
    )
    v = rules(text)
    assert v["C2"] == "contradicted"
    assert v["C5"] != "contradicted"  # how it was trained, not what it is used for


# -- the generation condition in the classroom's and the lab's words -------------------------
@pytest.mark.parametrize(
    "text",
    [
        "BERT reads the words before and after each blank. A child writing a story does not "
        "know the next page yet, and BERT never practised without it.",
        "The masked LM depends on future samples, like a smoother. When we generate, the "
        "later samples have not arrived, so what it depended on is missing.",
        "BERT depends on the words to the right of the blank. During generation the rest of "
        "the text is unwritten, and it was never trained without it.",
        "BERT predicts each masked token from both sides. In training it saw the right side, "
        "which generation lacks.",
    ],
)
def test_generation_condition_in_classroom_and_lab_words_links(text: str) -> None:
    assert rules(text)["C2"] == "met"


@pytest.mark.parametrize(
    "text",
    [
        "GPT trains the way it generates. BERT trains with a right side which decoding lacks.",
        "The causal LM trains exactly as it samples. The masked LM trained with later words "
        "that generation does not have.",
    ],
)
def test_what_generation_lacks_is_the_masked_side(text: str) -> None:
    v = rules(text)
    assert v["C4"] == "met"
    assert v["C2"] == "met"


# -- C4: one side plus "only"; "training differs from use" alone is partial ------------------
def test_only_the_causal_model_sees_in_training_what_it_sees_when_generating() -> None:
    text = "Only the causal model gets during training what it will get at generation time."
    assert rules(text)["C4"] == "met"


def test_training_differs_from_use_alone_is_partial() -> None:
    assert rules("For the masked model, training differs from use.")["C4"] == "partial"


# -- second reader: the label "bidirectional" is no masked half of the C2 link ---------------
def test_bare_bidirectional_label_leaves_c2_one_half() -> None:
    from grader.rubric.analysis import analyse
    from grader.rubric.c2_conditions import one_half_only
    from grader.rubric.model import load_rubric
    from grader.rubric.text import split_sentences

    text = (
        "BERT is bidirectional while GPT is unidirectional. When we write an essay we put one "
        "word after another, and the words that come later have not been written yet."
    )
    assert one_half_only(analyse(split_sentences(text), load_rubric()))
