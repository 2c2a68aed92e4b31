"""Precision of wrong-claim detection in round 9 (track p): text that is not a claim about a
model, or not the student's claim, must not make a criterion contradicted, and the true false
claims near it must still be found.

- a family word negated by its prefix ("non-causal") names no causal model: what the sentence
  says of the masked LM is not said of the causal LM;

Sentences written for these tests."""

from __future__ import annotations

from rule_verdicts import rules  # the rules alone (a helper beside this file)


# -- a negated family word names no model ---------------------------------------------------
def test_non_causal_said_of_the_masked_model_is_no_claim_about_the_causal_model() -> None:
    text = (
        "Seen as a filter, BERT is non-causal: each estimate draws on the samples before and "
        "the samples after the blank. GPT only uses the earlier tokens, because of its causal "
        "mask."
    )
    v = rules(text)
    assert v["C3"] != "contradicted"
    assert v["C1"] in ("met", "partial")
    # the causal family said to see both sides stays a false claim
    assert (
        rules("A causal LM uses the tokens before and the tokens after each position.")["C3"]
        == "contradicted"
    )
