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
    answer with a contradicted verdict its expectation of more points is no evidence."""
    text = "BERT only looks at the words to the left of the blank, like GPT. " + ARGUMENT
    res = score_explanation(text)
    assert any(c.verdict == "contradicted" for c in res.criteria)
    assert not _reader_reasons(text)
    assert not res.needs_review
