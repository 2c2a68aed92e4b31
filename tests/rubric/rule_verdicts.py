"""The rule verdicts alone (no second reader), for the rubric tests that pin what a rule reads.

from rule_verdicts import NO_READER, rules   # a helper beside the tests (on pytest's path)
"""

from __future__ import annotations

from grader.rubric.scorer import score_explanation

NO_READER = {"criteria": {}}  # reader weights with no criterion: the rules alone


def rules(text: str) -> dict[str, str]:
    """Criterion id -> the rules' verdict on `text`."""
    return {c.id: c.verdict for c in score_explanation(text, reader_weights=NO_READER).criteria}
