"""C2 readings of issue-19 round 6: where an availability of the later tokens holds.

An availability bound to training and denied for generation ("available in training and never
during decoding"), or the condition of an understanding use ("used where the full text is
already there"), is not the C2 false claim that the later tokens are available at generation.
Sentences written for these tests."""

from __future__ import annotations

import pytest
from rule_verdicts import rules  # the rules alone (a helper beside this file)


@pytest.mark.parametrize(
    "text",
    [
        "For BERT the right context was always available in training and never is during "
        "generation, so it is lost.",
        "The later words were there during pretraining but not when it generates, and BERT "
        "depended on them.",
        "BERT-style encoders are used where the full text is already available, like "
        "sentiment classification, and GPT-style decoders for generation.",
    ],
)
def test_an_availability_elsewhere_is_no_false_claim(text: str) -> None:
    assert rules(text)["C2"] != "contradicted"


@pytest.mark.parametrize(
    "text",
    [
        "At generation BERT still has the right context available.",
        "BERT has the later words available during generation, not only in training.",
    ],
)
def test_an_availability_at_generation_is_still_the_false_claim(text: str) -> None:
    assert rules(text)["C2"] == "contradicted"
