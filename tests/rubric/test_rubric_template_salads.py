"""Issue 19: grammatical keyword salads (templates such as "X uses Y, therefore Z has W"
filled with the course's keywords) score at most 3/10 or are flagged for review
(`grader/rubric/coherence.py`), while real answers with "so"/"because" links keep their
scores. The salads come from a seeded generator (`salads.py`): the same texts every run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from salads import GRAMMARS, salads  # a helper beside this file (pytest puts its dir on the path)

from grader.rubric import score_explanation
from grader.rubric.coherence import salad_signal
from grader.rubric.model import load_rubric
from grader.rubric.scorer import read_answer

DEVSET = Path(__file__).parents[2] / "tools" / "rubric" / "devset"
# the labelled sets this defence was measured on (never the sealed held-out sets)
MEASURED = (
    "dev dev2 dev3 dev4 dev5 dev6 dev7 dev8 heldout heldout2 heldout3 heldout4 heldout8 heldout9"
).split()
TEMPLATE_REASON = "keyword template"


def _caught(text: str) -> bool:
    r = score_explanation(text)
    return r.score <= 3 or r.needs_review


def test_the_generator_is_deterministic_and_uses_every_grammar() -> None:
    a, b = salads(40, seed=7), salads(40, seed=7)
    assert a == b
    assert {g for g, _ in a} == set(GRAMMARS)
    assert salads(10, seed=8) != salads(10, seed=7)


def test_seeded_template_salads_score_at_most_3_or_are_flagged() -> None:
    # before the defence 78% (156/200) were caught and 22% scored above 3/10 unflagged
    texts = salads(200, seed=19)
    caught = sum(_caught(t) for _, t in texts)
    assert caught >= 0.95 * len(texts), f"{caught}/{len(texts)}"


def test_salads_from_another_seed_are_caught_as_often() -> None:
    texts = salads(100, seed=2026)
    caught = sum(_caught(t) for _, t in texts)
    assert caught >= 0.9 * len(texts), f"{caught}/{len(texts)}"


@pytest.mark.parametrize(
    "text",
    [
        # cause about the masked LM, effect about the causal LM, sentence after sentence
        "The decoder reads left to right, because a causal language model predicts the next "
        "token. A masked language model uses the context on both sides, so a causal language "
        "model sees only the left context. The decoder only sees the earlier tokens, which is "
        "why generation goes left to right. A causal language model is used for generation, "
        "so the decoder uses a causal mask.",
        # each family given the other's properties, every sentence a link
        "The encoder sees the right context, so the later words are not there when it writes. "
        "BERT sees both sides of the mask, which is why the decoder predicts the masked tokens. "
        "Because training matches generation, the encoder is trained the same way it generates. "
        "The decoder sees the masked tokens, so both sides are available during training. "
        "The decoder uses both sides, so the right side is missing at generation. "
        "BERT needs training, so training matches generation.",
        "BERT predicts the masked tokens, therefore GPT uses a causal mask. GPT reads left to "
        "right, so BERT is used for classification. BERT sees both sides of the mask, hence "
        "GPT predicts the next token. The masked LM relies on the later tokens, so the causal "
        "LM is used for generation.",
        # true facts joined by links that argue nothing (10/10 unflagged before)
        "BERT relies on the later tokens, so generation does not exist yet. GPT only sees the "
        "earlier tokens, so the later tokens are missing at generation. BERT sees both sides of "
        "the mask, therefore GPT is used for generation. GPT uses a causal mask, hence BERT is "
        "used for classification. GPT's training matches its generation, because BERT was "
        "never trained without the right context.",
    ],
    ids=["truths-crossed-links", "crossed-properties", "hand-written", "linked-truths"],
)
def test_a_template_salad_is_flagged_as_one(text: str) -> None:
    r = score_explanation(text)
    assert r.needs_review
    assert any(TEMPLATE_REASON in x for x in r.review_reasons)
    assert all(c.confidence <= 0.5 for c in r.criteria)


@pytest.mark.parametrize(
    ("text", "score"),
    [
        (
            "BERT sees both sides of the mask, so it cannot generate well: at generation the "
            "later tokens do not exist yet. GPT only sees the earlier tokens, so its training "
            "matches generation. That is why BERT is used for classification and GPT for "
            "generation.",
            10.0,
        ),
        (
            "BERT is trained to fill in masked words using the words on both sides. GPT "
            "predicts the next word from only the previous words, because a causal mask hides "
            "the future. When generating, the future words don't exist yet, so BERT loses the "
            "right context it relied on, while GPT works exactly as in training. Therefore "
            "BERT suits understanding tasks and GPT suits generation.",
            10.0,
        ),
        (
            "BERT: both sides. GPT: only left, so it generates. Because the future isn't "
            "there yet, BERT can't generate.",
            6.0,
        ),
        (
            "Unlike GPT, BERT sees both sides, so it is good at classification. GPT only sees "
            "the left, so it cannot use the right context, which is why it suits generation.",
            None,
        ),
        (
            "GPT only looks at the past, so the future is unknown to it, exactly as when it "
            "generates. BERT sees both sides of the blank, so it relies on tokens that do not "
            "exist yet at generation time, which is why it is used for classification.",
            None,
        ),
    ],
    ids=["so-links", "because-therefore", "terse", "contrast-object", "absence-as-effect"],
)
def test_real_answers_with_links_are_not_read_as_salads(text: str, score: float | None) -> None:
    r = score_explanation(text)
    assert not any(TEMPLATE_REASON in x for x in r.review_reasons)
    if score is not None:
        assert r.score == score


def test_labelled_answers_rarely_look_like_salads() -> None:
    # measured: 3 of 542 labelled answers look like salads: dev6 t40 (9/10, which swaps the
    # two families' uses), dev8 d8-06 and heldout9 n50 (both 0/10, n50 already flagged); two
    # review flags are new, no answer loses a point (the check changes no verdict)
    rubric = load_rubric()
    hits = []
    for name in MEASURED:
        with (DEVSET / f"{name}.jsonl").open(encoding="utf-8") as f:
            for row in map(json.loads, filter(str.strip, f)):
                _, _, an = read_answer(row["text"], rubric)
                if salad_signal(an).high:
                    hits.append(f"{name}:{row['id']}")
    assert len(hits) <= 3, hits
