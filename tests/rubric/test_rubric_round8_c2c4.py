"""C2 and C4 credit levels of issue-19 round 8 (track C2/C4).

- C2: the generation condition said in other shapes: the text as unfinished, a token chosen
  before its successors, the later context lost, the remainder unavailable, the later part not
  yet composed; for precision, "unfinished" without generation, losing something that is no
  context, a remainder that is no later part;
- C2 (second reader): a partial C2 is not raised to met when the answer says only one half of
  the link anywhere (no absence at generation, or nothing of the masked LM's use of context);
  with both halves said, the reader may still bridge them;
- C4: the causal LM's use named as its training condition in relative and demonstrative
  shapes ("the very conditioning on which it was fitted", "the very position it occupies when
  generating", "trained in just that situation", "trains as it now writes", "works under its
  training conditions", "reproduces its training condition"); for precision, the same shapes
  said of training alone or of a condition that is no training.

Sentences written for these tests."""

from __future__ import annotations

import pytest
from rule_verdicts import rules  # the rules alone (a helper beside this file)

from grader.rubric.analysis import analyse
from grader.rubric.c2_conditions import one_half_only
from grader.rubric.judgement import Judgement
from grader.rubric.model import load_rubric
from grader.rubric.reader import Opinion, second_read
from grader.rubric.text import split_sentences


# -- C2: the generation condition in other shapes -----------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "BERT guesses every blanked word from the words on its left and on its right. A model "
        "that writes works on an unfinished sentence, and BERT depends on the right side it "
        "does not get there.",
        "The masked model relies on the words after each blank. In decoding, each word is "
        "picked before its successors.",
        "BERT relies on what follows the gap. When it has to generate, it loses the right "
        "context it was trained with.",
        "BERT is trained to use the words after the gap. While generating, the remainder of "
        "the sentence is still missing.",
        "BERT depends on the tokens that follow the gap. When we generate, the later part of "
        "the text has not been composed, and BERT was never trained without it.",
    ],
)
def test_the_generation_condition_in_other_shapes_links(text: str) -> None:
    assert rules(text)["C2"] == "met"


@pytest.mark.parametrize(
    "text",
    [
        # "unfinished" about a project, no generation
        "BERT fills each gap from both sides. The research on it is unfinished.",
        # losing accuracy is no lost context
        "BERT fills each gap from both sides. With fewer layers it loses accuracy.",
        # a remainder that is a dataset, not the later part of a text
        "BERT fills each gap from both sides. The remainder of the corpus was used for tests.",
    ],
)
def test_the_same_words_without_the_generation_condition_do_not_link(text: str) -> None:
    assert rules(text)["C2"] != "met"


# -- C2: the reader does not raise one half to the whole link ------------------------------
def _an(text: str):
    return analyse(split_sentences(text), load_rubric())


def test_one_half_only_is_read_from_the_whole_answer() -> None:
    # the reliance and its consequence, no generation condition
    assert one_half_only(_an("BERT needs the entire sentence, so it cannot write text."))
    # the generation condition beside the causal LM alone, no masked side
    assert one_half_only(
        _an(
            "GPT predicts from the earlier words only. When it writes, the future words do "
            "not exist yet."
        )
    )
    # both halves said, in sentences the rules did not join
    assert not one_half_only(
        _an(
            "BERT looks at the words on both sides of each blank. GPT predicts the next word. "
            "When text is written, the later words do not exist yet."
        )
    )


def test_a_note_naming_the_masked_view_is_its_half() -> None:
    # "BERT: both sides" in note form says the view without a claim's grammar
    assert not one_half_only(
        _an("BERT: words on both sides. Writing: the later words are not there yet.")
    )
    # the bare label names the family, not its view
    assert one_half_only(_an("BERT: bidirectional. Writing: the later words are not there yet."))


def test_the_reader_raises_a_partial_c2_only_when_both_halves_are_said() -> None:
    op = Opinion(0.99, 0.99, 2, (0,))
    j = Judgement("partial", (0,), 0.7)
    w = {"raise_at": 0.7}
    assert second_read("C2", j, op, w, one_half=True).verdict == "partial"
    assert second_read("C2", j, op, w, one_half=False).verdict == "met"
    # the cap is C2's: a C4 partial is raised as before
    assert second_read("C4", j, op, w, one_half=True).verdict == "met"
    # and a missing C2 the reader is sure of may still be raised
    assert second_read("C2", Judgement("missing"), op, w, one_half=True).verdict == "met"


# -- C4: the causal side in relative and demonstrative shapes ------------------------------
_MASKED = (
    "BERT learned with the words after each gap present, and at generation those words are "
    "missing, a condition it never met in training. "
)


@pytest.mark.parametrize(
    "causal",
    [
        "GPT, in contrast, is evaluated under the very conditioning on which it was fitted.",
        "GPT only ever sees the earlier words, which is the very situation it faces when "
        "generating.",
        "GPT, by contrast, was trained in just that situation.",
        "GPT, on the other hand, trained as it now writes.",
        "GPT, by contrast, works under its training conditions when it generates.",
        "For GPT, generation reproduces its training condition exactly.",
        "GPT was trained in just that way, one word after another from the left.",
    ],
)
def test_the_causal_side_in_relative_and_demonstrative_shapes_is_met(causal: str) -> None:
    assert rules(_MASKED + causal)["C4"] == "met"


@pytest.mark.parametrize(
    "text",
    [
        # training described in its own setting: no use is compared with it
        "GPT is trained on web text. In its training setting it reads books and articles.",
        # "the very situation" with no training: a description of use alone
        "GPT writes a story. This is the very situation it was built for, people say.",
    ],
)
def test_the_same_shapes_without_a_comparison_are_not_met(text: str) -> None:
    assert rules(text)["C4"] != "met"
