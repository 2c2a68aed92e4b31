"""Round 11, track d: the review routing.

A criterion the answer both states and contradicts ("conflicted") used to be flagged on every
answer. Its contradicted verdict is the grader's label in most such answers, so the review
model now counts the conflicts among its inputs, and a conflict is flagged when that model
puts the answer at risk (`conflict_at` in the weights); without that setting every conflict is
still flagged.
"""

from __future__ import annotations

from grader.rubric import reader
from grader.rubric.scorer import score_explanation
from tools.rubric import reader_cv

# the masked model is given both sides, then only the left: C1 is conflicted
TORN = (
    "A masked model fills each gap from the words on both sides of it. Still, the masked "
    "model only reads the words to the left of a gap. A causal model predicts the next word "
    "from the earlier words only."
)
CALM = {"criteria": {}, "review": {"bias": -5.0, "coef": {}}}
WARY = {"criteria": {}, "review": {"bias": -5.0, "coef": {"conflicted": 5.0}}}  # risk 0.5


def _c1(res):
    return next(c for c in res.criteria if c.id == "C1")


def test_a_conflict_is_flagged_only_where_the_review_model_puts_the_answer_at_risk():
    res = score_explanation(TORN, reader_weights={**CALM, "conflict_at": 0.4})
    c1 = _c1(res)
    assert c1.verdict == "contradicted"
    assert not c1.needs_review and c1.confidence >= 0.6
    assert not res.needs_review and not res.review_reasons
    # at risk 0.5: above the conflict threshold, below the answer-wide review_at 0.6, so the
    # reason shown is the conflict, not the review model's estimate
    res = score_explanation(TORN, reader_weights={**WARY, "conflict_at": 0.4, "review_at": 0.6})
    assert _c1(res).needs_review and res.needs_review
    assert any(r.startswith("C1:") and "contradicts it" in r for r in res.review_reasons)
    assert not any("review model" in r for r in res.review_reasons)


def test_without_the_setting_every_conflict_is_still_flagged():
    res = score_explanation(TORN, reader_weights=CALM)
    assert _c1(res).verdict == "contradicted" and _c1(res).needs_review
    assert reader.conflict_at(CALM) == 0.0
    assert any(r.startswith("C1:") and "contradicts it" in r for r in res.review_reasons)


def test_the_review_model_counts_the_conflicted_criteria():
    final = {"C1": "contradicted", "C3": "met"}
    x = reader.review_features({"C1": "met", "C3": "met"}, final, {}, 0.0, conflicted=["C1"])
    assert x["conflicted"] == 1.0
    assert reader.review_features(final, final, {}, 0.0)["conflicted"] == 0.0


def test_cross_validation_flags_a_conflict_at_the_same_threshold():
    s = reader_cv.Scored("x", {}, {}, 0.0, 0.0, False, {}, {}, {}, risk=0.45, conflicted=True)
    assert reader_cv.flagged(s, 2.0, 0.6, conflict_at=0.4)
    assert not reader_cv.flagged(s, 2.0, 0.6, conflict_at=0.5)
    assert reader_cv.flagged(s, 2.0, 0.6)  # default: every conflict, as the scorer's default


def test_the_installed_weights_flag_conflicts_below_the_review_confidence():
    w = reader.load_weights()
    assert 0.0 < w["conflict_at"] <= w["review_at"]
