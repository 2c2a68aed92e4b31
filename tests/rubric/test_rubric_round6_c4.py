"""C4 readings of issue-19 round 6: the structure of a comparison, not its phrases.

- "never" covers a model's whole past, training included: the causal LM that "never looked
  there" after the generation condition is the causal side without a training word;
- a difference measured as nothing ("a zero gap", "the gap was exactly 0") states none;
- staccato fragments finish the sentence before them ("So training equals use. For GPT. Not
  for BERT."; "It only looks left. Always. Even in training.");
- training and the use named side by side ("train vs use", "how it is trained ... how it is
  used") are the two conditions a relation there compares;
- "in the match with nobody calling" is the event, not a correspondence.

Each with near misses. Sentences written for these tests."""

from __future__ import annotations

import pytest
from rule_verdicts import rules  # the rules alone (a helper beside this file)

GEN = "When you write, the words after the cursor do not exist yet, and BERT relied on them. "


@pytest.mark.parametrize(
    "text",
    [
        GEN + "GPT never looked there.",
        "While sampling, the later tokens are not there yet, which hurts BERT because it always "
        "used them. GPT was never shown them to begin with.",
        GEN + "The causal model never had them in the first place.",
    ],
)
def test_never_after_the_generation_condition_is_the_causal_side(text: str) -> None:
    assert rules(text)["C4"] == "met"


@pytest.mark.parametrize(
    "text",
    [
        # said of the masked LM: its reliance, not the causal side
        "When you write, the words after the cursor do not exist yet. BERT never looked there.",
        # no generation condition before it: nothing that "there" is missing at generation
        "GPT was never shown them. BERT relied on the words on both sides.",
    ],
)
def test_never_without_the_causal_model_or_the_condition_is_not(text: str) -> None:
    assert rules(text)["C4"] != "met"


@pytest.mark.parametrize(
    "text",
    [
        "In my run the causal model showed a zero gap between training and generation.",
        "For GPT the train/test gap was exactly 0.",
        "GPT's gap between training and generation came out at 0.00.",
    ],
)
def test_a_difference_measured_as_nothing_is_no_mismatch(text: str) -> None:
    assert rules(text)["C4"] != "contradicted"


@pytest.mark.parametrize(
    "text",
    [
        "GPT has a gap of 0.3 between its training and generation.",
        "GPT has a big gap between training and generation.",
    ],
)
def test_a_measured_or_big_gap_is_still_the_causal_mismatch(text: str) -> None:
    assert rules(text)["C4"] == "contradicted"


@pytest.mark.parametrize(
    "text",
    [
        GEN + "So training equals use. For GPT. Not for BERT.",
        GEN + "Training is the same as generation. For the causal LM. Not for the masked LM.",
        GEN + "GPT only looks left. Always. Even in training.",
        GEN + "The causal model only sees the prefix. In training too.",
    ],
)
def test_fragments_finish_the_comparison(text: str) -> None:
    assert rules(text)["C4"] == "met"


@pytest.mark.parametrize(
    "text",
    [
        # no model named by a fragment: which model is left to the reader
        GEN + "So training equals use. Always.",
        # a fragment that adds training without "too" / "even" / "also" adds nothing to it
        GEN + "GPT only looks left. In training.",
        # the masked LM's context in training too: no causal side
        GEN + "BERT uses both sides. Even in training.",
    ],
)
def test_fragments_without_a_model_or_an_additive_are_not(text: str) -> None:
    assert rules(text)["C4"] != "met"


def test_a_fragment_naming_the_masked_model_makes_the_sameness_its_claim() -> None:
    assert rules("So training equals use. For BERT.")["C4"] == "contradicted"


@pytest.mark.parametrize(
    "text",
    [
        "* train vs use differ for BERT",
        "The way BERT is trained differs from how it is used.",
    ],
)
def test_training_and_use_side_by_side_are_the_conditions(text: str) -> None:
    assert rules(text)["C4"] == "partial"


def test_both_with_no_difference_between_how_they_are_trained_and_used_is_a_false_claim() -> None:
    text = (
        "Both models are trained to fill gaps, the gap for GPT is just always at the end, so "
        "there is no real difference between how they're trained and how they're used."
    )
    assert rules(text)["C4"] == "contradicted"


@pytest.mark.parametrize(
    "text",
    [
        "BERT is trained on web text and used for classification.",
        "A causal LM is trained to do something else and may use other context.",
    ],
)
def test_training_and_a_use_in_one_sentence_compare_nothing(text: str) -> None:
    assert rules(text)["C4"] == "missing"


def test_in_the_match_is_the_event_not_a_correspondence() -> None:
    text = "BERT plays in a real match with nobody helping, which it never trained for."
    assert rules(text)["C4"] != "contradicted"


def test_a_match_with_the_use_still_reads_as_a_relation() -> None:
    text = "GPT's training is a close match with how it is used at generation time."
    assert rules(text)["C4"] in ("partial", "met")


@pytest.mark.parametrize(
    "text",
    [
        "Both models are trained the same way, on raw text. GPT is just way bigger, that's all.",
        "Both are trained alike to guess hidden words; BERT just isn't big enough to generate.",
    ],
)
def test_training_alike_with_size_as_the_difference_is_a_false_claim(text: str) -> None:
    assert rules(text)["C4"] == "contradicted"


def test_the_difference_put_in_training_itself_is_no_dismissal() -> None:
    text = (
        "Both models are basically the same thing, trained on the same data. But the "
        "difference is in the game they play during training."
    )
    assert rules(text)["C4"] != "contradicted"


def test_size_said_of_what_they_see_is_no_dismissal() -> None:
    text = (
        "Both models are trained the same way on text. The difference is the size of the "
        "context they see: BERT sees both sides."
    )
    assert rules(text)["C4"] != "contradicted"


def test_an_all_fine_after_a_sameness_affirms_it() -> None:
    text = "So for both of them training and generation line up no problem."
    assert rules(text)["C4"] == "contradicted"


def test_a_sameness_denied_after_it_is_still_denied() -> None:
    text = "For BERT, training and generation line up? No, they do not."
    assert rules(text)["C4"] != "contradicted"


@pytest.mark.parametrize(
    "text",
    [
        "GPT guesses the next word from what came before, thats literally how it writes too.",
        "The causal LM predicts each next token, which is exactly how it generates.",
    ],
)
def test_the_objective_called_how_the_model_writes_is_one_side(text: str) -> None:
    assert rules(text)["C4"] == "partial"


def test_how_it_writes_said_of_the_story_is_no_side() -> None:
    assert rules("GPT writes stories, that is how it is.")["C4"] == "missing"


GPT_SIDE = (
    "BERT learns each blank from both sides, and at generation the later tokens are not there "
    "yet. GPT is trained to use only the earlier tokens, exactly what it has when generating. "
)


@pytest.mark.parametrize(
    "text",
    [
        GPT_SIDE
        + "There is a smaller mismatch for GPT, exposure bias: its own outputs on the left.",
        GPT_SIDE + "GPT only has a minor shift: its left context becomes its own samples.",
    ],
)
def test_a_lesser_mismatch_beside_the_causal_side_is_no_false_claim(text: str) -> None:
    assert rules(text)["C4"] == "met"


@pytest.mark.parametrize(
    "text",
    [
        # no causal side beside it: the causal LM has the mismatch
        "There is a smaller mismatch for GPT between training and generation.",
        GPT_SIDE + "GPT also has a big mismatch between training and generation.",
    ],
)
def test_a_mismatch_of_the_causal_lm_otherwise_is_still_the_false_claim(text: str) -> None:
    assert rules(text)["C4"] == "contradicted"


def test_an_analogy_with_a_second_figure_on_exam_day_is_a_vague_mismatch() -> None:
    text = (
        "Two pupils prepare for a test. The first one practises with the answers printed below "
        "each question. The second one practises without them. On exam day there are no answers "
        "printed. Masked LMs fill gaps; causal LMs predict the next word."
    )
    assert rules(text)["C4"] == "partial"


def test_the_generation_passage_without_a_training_word_is_one_side() -> None:
    text = (
        "BERT uses the words on both sides of a gap. When you generate, the words to the right "
        "do not exist yet, so BERT lacks what it relied on. GPT has no such problem, it only "
        "uses the earlier words."
    )
    assert rules(text)["C4"] == "partial"


def test_a_gap_described_by_its_context_is_the_blank() -> None:
    text = (
        "BERT always had the end of the sentence when it was learning, so it just does not "
        "know what to do with a gap that has nothing after it."
    )
    assert rules(text)["C4"] != "contradicted"


def test_a_gap_between_training_and_use_is_still_a_relation() -> None:
    text = "For GPT there is no gap between training and generation."
    assert rules(text)["C4"] in ("partial", "met")
