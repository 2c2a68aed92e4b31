"""Whose mechanism a phrase describes, when no model is named."""

from __future__ import annotations

from grader.rubric.scorer import score_explanation


def _verdicts(text: str) -> dict[str, str]:
    return {c.id: c.verdict for c in score_explanation(text).criteria}


def test_attention_without_a_causal_mask_is_the_masked_lm() -> None:
    text = (
        "The masked language model fills in blanks. Without a causal mask, every position can "
        "attend to every other position, so it uses what comes before and after the blank. The "
        "causal language model predicts each token from only the tokens before it."
    )
    v = _verdicts(text)
    assert v["C3"] == "met"  # not "contradicted": no claim that GPT sees later tokens
    assert v["C1"] == "met"


def test_a_causal_mask_still_implies_the_causal_lm() -> None:
    v = _verdicts("A causal mask hides every later token, so each position sees only the past.")
    assert v["C3"] == "met"
