"""Review flags: the second reader's doubt is evidence only where it can read the answer."""

from __future__ import annotations

from grader.rubric.scorer import score_explanation

ARGUMENT = (
    "When you write a story you start with nothing after the cursor, so BERT is missing what "
    "it is used to having. GPT was always trained looking back, so writing forward is what it "
    "always did."
)


def _reader_reasons(text: str) -> list[str]:
    return [r for r in score_explanation(text).review_reasons if "second reader" in r]


def test_the_reader_doubts_an_argument_in_words_the_rules_do_not_know() -> None:
    """The control: without a false claim the same argument is flagged by the reader."""
    assert _reader_reasons("BERT fills in blanks. " + ARGUMENT)


def test_no_reader_doubt_on_an_answer_with_a_false_claim() -> None:
    """The reader counts co-occurring words and cannot tell a false claim from a true one: on an
    answer with a contradicted verdict its expectation of more points is no evidence, neither
    for the answer nor for a criterion. (The review model's learned chance that a grader would
    change a verdict is a separate signal and may still route such an answer to a person.)"""
    text = "BERT only looks at the words to the left of the blank, like GPT. " + ARGUMENT
    res = score_explanation(text)
    assert any(c.verdict == "contradicted" for c in res.criteria)
    assert not [r for r in res.review_reasons if "more point" in r and "second reader" in r]
    assert not any(c.needs_review and "second reader" in c.feedback for c in res.criteria)


def test_the_shortfall_is_zero_wherever_a_verdict_is_contradicted() -> None:
    """The mechanism behind the test above: a reader confident of met on every criterion doubts
    points on missing verdicts, and none once any one verdict is contradicted."""
    from grader.rubric.reader import Opinion, doubt_points

    weights = {"C1": 2.0, "C2": 3.0, "C3": 2.0}
    sure = Opinion(p_partial=0.95, p_met=0.9, level=2, evidence=(0,))
    ops = dict.fromkeys(weights, sure)
    missing = dict.fromkeys(weights, "missing")
    assert sum(doubt_points(missing, ops, weights).values()) > 3
    assert set(doubt_points({**missing, "C1": "contradicted"}, ops, weights).values()) == {0.0}
