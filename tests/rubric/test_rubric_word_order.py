"""Word order: a shuffled answer keeps every term of a good one and says nothing.

Claims are read from the concepts a sentence names, and shuffling a sentence keeps them all
(it also breaks the 4-grams the copy check compares): the published solution with the words
of each sentence shuffled scored 8.5/10 without a flag. `word_order.order_breaks` counts the
places English never produces; such sentences earn nothing and the answer is flagged.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from grader.batch.sampleclass import GOOD_EXPLANATION
from grader.loading.model import extract_answer
from grader.resources import data_path
from grader.rubric.guards import PUBLISHED_SOLUTION_PATH
from grader.rubric.scorer import score_explanation
from grader.rubric.text import split_sentences
from grader.rubric.word_order import order_breaks, scrambled_sentences

DEVSET = Path(__file__).resolve().parents[2] / "tools" / "rubric" / "devset"
SOURCES = {
    "published solution": PUBLISHED_SOLUTION_PATH.read_text(encoding="utf-8"),
    "model answer": extract_answer(data_path("solutions", "explanation.md").read_text()),
    "sample good answer": extract_answer(GOOD_EXPLANATION),
}


def _shuffled(text: str, seed: int, reverse: bool = False) -> str:
    rng = random.Random(seed)
    out = []
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        ws = sentence.rstrip(".").split()
        if reverse:
            ws.reverse()
        else:
            rng.shuffle(ws)
        out.append(" ".join(ws) + ".")
    return " ".join(out)


@pytest.mark.parametrize("source", sorted(SOURCES))
@pytest.mark.parametrize("seed", [2, 3, 4])
def test_a_good_answer_with_its_words_shuffled_earns_nothing_and_is_flagged(source, seed):
    if source != "model answer":  # (not quotable: pasted as it is, it earns nothing)
        assert score_explanation(SOURCES[source]).score >= 6  # the words' worth in order
    res = score_explanation(_shuffled(SOURCES[source], seed))
    assert res.score <= 1.0, res.review_reasons
    assert res.needs_review
    assert any("not in an English order" in r for r in res.review_reasons)


def test_words_in_reverse_order_earn_nothing():
    res = score_explanation(_shuffled(SOURCES["published solution"], 0, reverse=True))
    assert res.score <= 1.0 and res.needs_review


def test_one_scrambled_sentence_earns_nothing_and_the_rest_keeps_its_credit():
    own = score_explanation(extract_answer(GOOD_EXPLANATION))
    salad = "the of masked is the model a to LM the and generation."
    assert order_breaks(salad) >= 2
    res = score_explanation(extract_answer(GOOD_EXPLANATION) + "\n\n" + salad)
    assert res.score == own.score
    assert any("not in an English order" in r for r in res.review_reasons)


@pytest.mark.parametrize(
    ("text", "breaks"),
    [
        ("The model sees the the words after the blank.", 0),  # a repeated word is a slip
        ("A: The masked objective uses both sides.", 0),  # "A:" labels an answer
        ("GPT predicts the next token from the earlier ones.", 0),
        ("the of tokens model", 1),
        ("masked model The tokens", 1),
        ("BERT is trained to fill in the.", 1),
        ("a is the to tokens", 2),
    ],
)
def test_order_breaks(text, breaks):
    assert order_breaks(text) == breaks


def test_no_labelled_answer_has_a_scrambled_sentence():
    """Honest answers, however informal, keep every sentence (the labelled sets' verdicts do
    not move)."""
    texts = [
        json.loads(line)["text"]
        for f in sorted(DEVSET.glob("*.jsonl"))
        for line in f.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    assert len(texts) > 400
    flagged = [t[:80] for t in texts if scrambled_sentences(split_sentences(t))]
    assert flagged == []
