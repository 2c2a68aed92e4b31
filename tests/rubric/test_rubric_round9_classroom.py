"""C2 and C3 in the teachers' classroom voice (round 9, track t): pupils, stories and
worksheets standing for the two models.

- "so far" is an adverb inside its clause, not the conjunction "so": "the pupil only knows
  what was said so far" keeps the "only" with its context phrase (C3 met);
- "just" / "merely" restrict the context phrase they stand before ("using just the earlier
  words"), never a verb ("it just guesses the next word": no restriction, C3 partial);
- a context phrase taken away by a verb of removal is not seen: "writing removes the
  right-hand context the masked LM leaned on" is the generation condition (C2), and never a
  claim that the causal model sees the right side (no false C3 contradiction).

Sentences written for these tests."""

from __future__ import annotations

from rule_verdicts import rules  # the rules alone (a helper beside this file)

from grader.rubric import load_rubric
from grader.rubric.scorer import read_answer
from grader.rubric.text import clause_bounds


# -- "so far" is no clause boundary ----------------------------------------------------------
def test_so_far_does_not_open_a_clause_but_so_still_does() -> None:
    s = "GPT only knows what was said so far."
    assert clause_bounds(s)[0] == [0]
    t = "GPT reads the prefix, so it can write."
    assert len(clause_bounds(t)[0]) == 3


def test_a_storyteller_who_only_knows_what_was_said_so_far_is_the_restriction() -> None:
    text = (
        "In class I say a causal LM is like a pupil continuing a tale round the room: each "
        "pupil only knows what has been told so far and adds one more word."
    )
    assert rules(text)["C3"] == "met"


# -- "just" before a context phrase restricts it ---------------------------------------------
def test_just_before_the_earlier_words_restricts_the_context_but_not_a_verb() -> None:
    text = "GPT guesses every new word using just the previous words on the page."
    assert rules(text)["C3"] == "met"
    verb = "GPT just guesses the next word from the words before it, again and again."
    assert rules(verb)["C3"] == "partial"


# -- what is removed is not seen -------------------------------------------------------------
def test_generation_removing_the_right_side_is_the_generation_condition() -> None:
    text = (
        "BERT fills each gap from the words on both sides. Generating a story removes the "
        "right-hand context that BERT relied on."
    )
    assert rules(text)["C2"] == "met"


def test_a_removed_right_side_is_no_view_of_either_model() -> None:
    text = (
        "Generation removes the right-hand context, which BERT relied on, while GPT never had it."
    )
    _, _, an = read_answer(text, load_rubric())
    assert not an.claims("see_both")
    assert an.claims("future_absent")
