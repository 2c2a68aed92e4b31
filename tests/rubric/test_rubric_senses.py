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


def test_a_use_attached_to_its_model_is_a_claim_about_its_use() -> None:
    text = (
        "BERT fills blanks from both sides; GPT predicts from the left only. "
        "Encoders: classification. Decoders: NLG."
    )
    assert _verdicts(text)["C5"] == "met"


def test_used_to_write_is_a_generation_use() -> None:
    text = (
        "BERT-style encoders are kept for sentiment analysis, and GPT-style decoders are used to "
        "write."
    )
    assert _verdicts(text)["C5"] == "met"


def test_built_to_understand_and_built_to_write_are_the_two_uses() -> None:
    text = "Honestly BERT is built to understand documents. GPT is made to write, word by word."
    assert _verdicts(text)["C5"] == "met"
