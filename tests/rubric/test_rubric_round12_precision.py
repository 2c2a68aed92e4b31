"""Issue 19, round 12: a denial frame keeps its scope when adverbs stand before its rejection
word ("It is also false that ...", "It would be equally wrong to say that ..."); a negated
frame ("it is not false that") stays the student's own claim.

Every case is written for these tests (none is taken from a labelled set).
"""

from __future__ import annotations

import pytest

from grader.rubric import score_explanation


def verdicts(text: str) -> dict[str, str]:
    return {c.id: c.verdict for c in score_explanation(text).criteria}


@pytest.mark.parametrize(
    ("cid", "text"),
    [
        ("C3", "It is also false that GPT can attend to later positions while it trains."),
        ("C3", "It is certainly false that the causal model reads the tokens after position t."),
        ("C1", "It is equally untrue that BERT fills a blank from both sides of it."),
        ("C3", "It's also simply wrong that GPT gets to look at the words still to come."),
    ],
)
def test_an_adverb_inside_a_denial_frame_keeps_the_claim_denied(cid, text):
    assert verdicts(text)[cid] == "missing"


def test_a_negated_frame_is_the_students_own_claim():
    assert verdicts("It is not false that GPT sees only the earlier tokens.")["C3"] == "met"
