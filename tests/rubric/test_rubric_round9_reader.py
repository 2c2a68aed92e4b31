"""Issue 19, round 9 (the second reader and the review routing): nine new authors' sets teach
the review model, not yet the reader's heads, and the review flag is set where nested
leave-one-set-out put it. Sentences written for these tests, not taken from any labelled set.
No test depends on the exact fitted coefficients."""

from __future__ import annotations

import math

from grader.rubric.reader import REVIEW_AT, load_weights, review_at
from grader.rubric.scorer import score_explanation
from tools.rubric import fit_reader

ANSWER = (
    "A masked model guesses hidden words from the words around them on both sides. "
    "A causal model only ever looks back at the words already written, which is all there "
    "is while it writes, so it is trained the way it is used."
)


def _review_model(p: float) -> dict:
    """Weights with no reader heads and a review model whose risk is `p` for every answer;
    `review_at` is left to the default."""
    return {"criteria": {}, "review": {"bias": math.log(p / (1 - p)), "coef": {}}}


def _flagged_by_review_model(weights: dict) -> bool:
    res = score_explanation(ANSWER, reader_weights=weights)
    return any("review model" in r for r in res.review_reasons)


# -- the review model learns from sets the heads are not fitted on --------------------------------
def test_review_only_sets_are_new_authors_read_by_the_fit_but_not_by_the_heads():
    review_only = set(fit_reader.REVIEW_ONLY)
    assert {"dev15", "dev19", "dev23"} <= review_only
    assert review_only.isdisjoint(fit_reader.TRAIN_SPLITS)
    assert review_only <= set(fit_reader.NEW_AUTHORS)
    assert review_only <= set(fit_reader.available())  # the fingerprint covers them
    assert set(fit_reader.NEVER).isdisjoint(fit_reader.FIT_SPLITS)


def test_the_installed_weights_say_which_sets_taught_which_part():
    about = load_weights()["about"]
    heads, review = about.split("review model on")
    assert "dev14" in heads and "dev15" not in heads and "dev23" not in heads
    assert "dev15" in review and "dev23" in review


# -- the review flag -------------------------------------------------------------------------------
def test_the_review_flag_is_set_lower_than_round_6s():
    assert REVIEW_AT == 0.6
    assert fit_reader.default_settings()["review_at"] == 0.6
    assert review_at() == 0.6  # the installed weights carry it


def test_a_two_in_three_chance_of_a_change_now_sends_the_answer_to_a_person():
    assert _flagged_by_review_model(_review_model(0.67))
    assert not _flagged_by_review_model(_review_model(0.55))
    # a weights file that names its own threshold keeps it
    assert not _flagged_by_review_model({**_review_model(0.67), "review_at": 0.8})
