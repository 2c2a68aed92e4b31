"""Readings of issue-19 round 11 (track h: wrong-claim recall).

- C4: the masked LM's failure (or the causal LM used in its place) put down, as its reason,
  to a cause that is no condition of what the models see: size, data, speed ("the reason it
  does worse is mostly that it is smaller"), or that cause alone with an outcome drawn from
  it ("GPT is just far bigger, so it wins"). Training is then said not to tell the two
  models apart for generation: the C4 contrast denied.

Sentences written for these tests."""

from __future__ import annotations

import pytest
from rule_verdicts import rules  # the rules alone (a helper beside this file)

_SETUP = (
    "BERT fills in hidden words using the words on both sides of each gap. "
    "GPT guesses each next word from only the words before it. "
)


@pytest.mark.parametrize(
    "claim",
    [
        "The reason BERT does worse than GPT at writing is mostly that it has fewer layers and "
        "is smaller.",
        "The reason people pick GPT instead is mainly speed.",
        "The reason the masked model struggles is largely that it was fed less data.",
        "GPT is simply a lot bigger, so it writes better text.",
        "Both do the same job, but GPT has more parameters, so its output is coherent.",
    ],
)
def test_failure_put_down_to_size_or_speed_contradicts_c4(claim: str) -> None:
    assert rules(_SETUP + claim)["C4"] == "contradicted"


# -- C5: both families said fit to generate ------------------------------------------------------
_USES = "BERT handles sentiment tagging and GPT writes stories. "


@pytest.mark.parametrize(
    "claim",
    [
        "Honestly both could in theory be used for a chatbot.",
        "In practice both families of models work equally well for text generation.",
        "So both of them can be used for story generation, the choice hardly matters.",
    ],
)
def test_both_families_said_fit_to_generate_contradicts_c5(claim: str) -> None:
    assert rules(_SETUP + _USES + claim)["C5"] == "contradicted"


# -- C3: the causal LM's prediction made using the whole input ----------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "A decoder like GPT guesses the next token using every token in the sentence.",
        "The autoregressive model predicts each next word using the whole text it is given.",
    ],
)
def test_causal_prediction_using_the_whole_input_contradicts_c3(text: str) -> None:
    assert rules(text)["C3"] == "contradicted"


def test_masked_prediction_using_the_whole_input_meets_c1() -> None:
    assert rules("BERT recovers each hidden word using the whole sentence.")["C1"] == "met"


# -- polarity: a supposition about the context, not a claim --------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "If the following words were available during generation, BERT would be fine.",
        "And if the future tokens were available when it generates, then the masked model "
        "would write well.",
        "If the right-hand context were available at inference time, the masked LM would be fine.",
    ],
)
def test_counterfactual_about_the_later_context_is_no_c2_claim(text: str) -> None:
    assert rules(text)["C2"] != "contradicted"


# -- C3: the later side cut by the mask is hidden, not seen ----------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "In GPT the arrows from the right are cut by the causal mask.",
        "The causal LM predicts the next word from the earlier cells only, the lines from the "
        "right are cut by the mask.",
    ],
)
def test_later_side_cut_by_the_mask_is_no_c3_contradiction(text: str) -> None:
    assert rules(text)["C3"] != "contradicted"


# -- C2: the later tokens pointed to and said available at generation ------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "BERT gets the words after the gap during training, and they're still available at "
        "generation time because it reads its whole input at once.",
        "In training BERT sees the tokens after the mask, and they're also available during "
        "generation.",
    ],
)
def test_later_tokens_said_available_at_generation_contradicts_c2(text: str) -> None:
    assert rules(text)["C2"] == "contradicted"
