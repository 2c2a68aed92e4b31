"""Readings of issue-19 round 12 (track b: C2, why generation breaks the masked LM).

- Swapped roles (`c2_trained_causal.py`): the masked LM said to be *trained* as a causal LM
  ("BERT is trained left to right to predict the next word", "pretrained with a causal mask")
  in an answer that also says its training matches generation or that it writes well is the
  guide's C2 false claim (the masked LM trained for left-to-right generation): C2 contradicted.
  The causal training alone stays a C1 claim; the causal mechanism without a training word
  ("BERT reads left to right when filling the gap") too.
- "the later words are therefore available at generation time": a connective adverb after an
  auxiliary stays inside its clause (`text.clause_bounds`), so the availability is one claim.
- A trailing [MASK] said to work "with no real mismatch": a failure word denied by "no" does
  not withdraw the experiment (`mechanisms.mlm_trailing_mask`).
- "only GPT can generate text from left to right": the order as the manner of the causal LM's
  ability is no C2 half (`claims.generation_left_to_right`).
- "So both are trained with the whole text available" after a generation scene: a training verb
  governing the availability sets it in training (`vision._available`), no C2 false claim.
- '"and walked in" hasn't happened yet' in a generation scene: a quoted piece of the example
  as what is absent is the generation condition (`analysis._absence_goes_on`).
- "BERT was not actually trained for that": the denied training takes an adverb
  (`never_trained` lexicon), the never-trained half of the link.

Sentences written for these tests."""

from __future__ import annotations

import pytest
from rule_verdicts import rules  # the rules alone (a helper beside this file)

from grader.rubric.scorer import score_explanation


def _verdicts(text: str) -> dict[str, str]:
    return {c.id: c.verdict for c in score_explanation(text).criteria}


# -- swapped roles: the masked LM trained as a generator ----------------------------------------
_SWAPPED = [
    "The decoder model GPT learns by hiding random words and guessing them from the words on "
    "both sides. BERT is pretrained left to right to guess the next token, so its training is "
    "exactly the same as generation and it writes fluent stories.",
    "GPT fills in gaps using the text before and after each gap. BERT, by contrast, was trained "
    "with a causal mask so that it only sees the earlier words, which means BERT's training "
    "lines up with how text is generated.",
    "In short, BERT is optimised to predict the next word from the words before it, and "
    "that is why BERT generates text well, whereas GPT guesses masked words in the "
    "middle of the text.",
]


@pytest.mark.parametrize("text", _SWAPPED)
def test_masked_lm_trained_as_a_generator_contradicts_c2(text: str) -> None:
    assert rules(text)["C2"] == "contradicted"


@pytest.mark.parametrize("text", _SWAPPED)
def test_masked_lm_trained_as_a_generator_contradicts_c2_with_the_reader(text: str) -> None:
    assert _verdicts(text)["C2"] == "contradicted"


# guards (already so at the start commit): the causal slip alone is a C1 claim, no C2 one
_C1_ONLY = [
    # causal training, but no generation consequence drawn for the masked LM
    "BERT is trained left to right to predict the next word. GPT does the same but it is much "
    "larger, so it is the one people use for chatbots.",
    # the mechanism without training, beside a fit for generation that is the causal LM's
    "BERT reads a sentence left to right when it fills a blank. GPT's training matches "
    "generation, so GPT is used to write text.",
]


@pytest.mark.parametrize("text", _C1_ONLY)
def test_causal_slip_alone_does_not_contradict_c2(text: str) -> None:
    v = rules(text)
    assert v["C1"] == "contradicted"
    assert v["C2"] != "contradicted"


# the training word not asserted: negated, supposed, or fine-tuning
_NOT_ASSERTED = [
    "BERT was never trained left to right, and yet some people claim BERT writes fluently.",
    "BERT could be trained to predict the next word, and then it would write well.",
]


@pytest.mark.parametrize("text", _NOT_ASSERTED)
def test_unasserted_training_does_not_contradict_c2(text: str) -> None:
    assert rules(text)["C2"] != "contradicted"


# -- a connective adverb after an auxiliary stays inside its clause -----------------------------
_ADVERB_INSIDE = [
    "Sampling can keep several drafts of the continuation, and the later words are therefore "
    "available at generation time.",
    "With a big enough beam, the future tokens are thus available at inference time.",
]


@pytest.mark.parametrize("text", _ADVERB_INSIDE)
def test_availability_with_an_adverb_after_the_copula_contradicts_c2(text: str) -> None:
    assert rules(text)["C2"] == "contradicted"


def test_a_connective_between_clauses_still_ends_the_negation() -> None:
    # guard: "therefore" opening a clause still bounds the negation before it
    text = (
        "BERT does not see only the left context, therefore it relies on the words after the "
        "mask, and when generating those words do not exist yet."
    )
    assert rules(text)["C2"] == "met"


# -- a trailing [MASK] said to work, with its failure denied ------------------------------------
_TRAILING_NO_MISMATCH = [
    "Just append a [MASK] to the end of the prompt and BERT gives the next word like GPT; there "
    "is no mismatch at all with its pretraining.",
    "Put a [MASK] at the end of the text and BERT turns into a next token generator, with no "
    "real mismatch between its training and its use.",
]


@pytest.mark.parametrize("text", _TRAILING_NO_MISMATCH)
def test_trailing_mask_with_no_mismatch_contradicts_c2(text: str) -> None:
    assert rules(text)["C2"] == "contradicted"


def test_trailing_mask_that_fails_is_no_claim() -> None:
    # guard: the failure stated after it withdraws the experiment
    text = (
        "Append a [MASK] at the end and BERT predicts a next word, but the words it picks are "
        "poor because it never trained with an empty right side."
    )
    assert rules(text)["C2"] != "contradicted"


# -- "GPT can generate from left to right": the causal LM's ability, no generation condition ----
_ABILITY = [
    "BERT guesses a hidden word from both sides of it. GPT uses only the earlier words, and so "
    "GPT can write fluent text from left to right.",
    "The encoder fills in blanks with help from both directions, while only the decoder is able "
    "to generate word by word.",
]


@pytest.mark.parametrize("text", _ABILITY)
def test_causal_lm_able_to_generate_in_order_is_no_c2_half(text: str) -> None:
    assert rules(text)["C2"] == "missing"


def test_generation_going_left_to_right_is_still_the_condition() -> None:
    # guard: the order said of generation itself stays one half of C2
    text = (
        "BERT guesses a hidden word from both sides of it. Generation goes from left to right, "
        "one word at a time."
    )
    assert rules(text)["C2"] in ("partial", "met")


# -- availability governed by a training verb, after a generation scene -------------------------
def test_availability_in_training_after_a_generation_scene_is_no_c2_false_claim() -> None:
    text = (
        "BERT guesses each hidden word from the words on its left and on its right. When it "
        "generates, the words on the right have not been written yet, and it never learned to "
        "guess without them. So both kinds of model are trained with the whole text available."
    )
    assert rules(text)["C2"] == "met"


def test_availability_at_generation_after_the_scene_still_contradicts() -> None:
    # guard: the scene carried into "So ... the later words are available" stays a false claim
    text = (
        "BERT guesses each hidden word from the words on its left and on its right. When it "
        "generates, it works one word at a time. So the later words are available to it anyway."
    )
    assert rules(text)["C2"] == "contradicted"


# -- a quoted piece of a worked example as what does not exist yet ------------------------------
def test_quoted_continuation_absent_in_a_generation_scene_is_the_condition() -> None:
    text = (
        'Worked example: "She opened the ___ and walked in". BERT, the masked model, uses "She '
        'opened the" and "and walked in" on both sides of the gap to predict "door". Now imagine '
        'writing it: we have "She opened the" and need the next word. "and walked in" hasn\'t '
        "happened yet. BERT was never trained like that - in training some word always followed "
        "the gap - so it is facing a question it never practised."
    )
    assert rules(text)["C2"] == "met"


# -- "wasn't really trained for that": an adverb inside the denied training ---------------------
def test_not_really_trained_for_the_condition_links_c2() -> None:
    text = (
        "The masked model learns by guessing blanked words. It struggles to write because while "
        "writing there are no later words yet, and BERT was not actually trained for that."
    )
    assert rules(text)["C2"] == "met"
