"""The Exercise 2 scorer's work is bounded by the answer's length, whatever its shape.

On 8dbc064 a 60,000-character answer written as one comma-joined sentence cost the scorer
~100 s of CPU, and the same text as one table cell ~86 s: the claim readers are more than
linear in a sentence's length. A sentence (or a table cell's statement) is now read in pieces
of at most `text.MAX_SENTENCE_CHARS` (above the longest labelled sentence), cut at a clause
mark: ~1.5 s. The CPU caps below are ~10x the linear cost and far below the old one; the
timings themselves are printed by benchmarks/rubric_long_answers.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from grader.rubric import load_rubric, score_explanation
from grader.rubric.discourse import expand_tables
from grader.rubric.text import MAX_SENTENCE_CHARS, split_sentences

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from cpu_budget import within_cpu  # noqa: E402

OWN = (
    "BERT is trained to fill in hidden words using the words on both sides of each blank, so "
    "it relies on the right-hand context, when text is generated left to right the later "
    "words do not exist yet, and BERT was never trained without them, GPT only ever sees the "
    "earlier tokens, which is exactly the condition it faces when it generates, "
)
SHAPES = {
    "one comma-joined sentence": (OWN * 250)[:60_000],
    "one table cell": "| a | b |\n| --- | --- |\n| " + (OWN * 250)[:55_000] + " | x |\n",
    "no punctuation at all": (OWN.replace(",", "") * 250)[:60_000],
    "a table cell left open": ("| a | b |\n| --- | --- |\n| " + OWN * 250)[:60_000],
    "one code line": "```\n# " + (OWN * 250)[:59_000] + "\n```\n",
}


@pytest.mark.parametrize("text", list(SHAPES.values()), ids=list(SHAPES))
def test_no_sentence_the_scorer_reads_is_longer_than_the_bound(text):
    sentences = expand_tables(split_sentences(text), load_rubric())
    assert len(sentences) > 40
    assert max(len(s.norm) for s in sentences) <= MAX_SENTENCE_CHARS


def test_a_long_sentence_is_cut_at_a_clause_mark():
    pieces = split_sentences((OWN * 10)[:3_000])
    assert all(p.norm.endswith(",") for p in pieces[:-1])
    assert "".join(p.text + " " for p in pieces).split() == (OWN * 10)[:3_000].split()


@pytest.mark.parametrize("text", list(SHAPES.values()), ids=list(SHAPES))
def test_a_60k_answer_of_any_shape_is_scored_in_bounded_cpu(text):
    score_explanation("warm the rubric")
    assert within_cpu(lambda: score_explanation(text), 20) is None
