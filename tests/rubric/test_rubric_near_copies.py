"""Red team on Exercise 2: copies with words inserted or cut into short pieces.

On 8dbc064 the model answer with "really" after every third word scored 10/10 and was not
flagged at all (no word 4-gram survives it), with "(um)" after every other word 9/10, cut
into bullets of seven words 7.5/10. The controls show an own sentence holding a stock phrase
of the course keeps its credit.
"""

from __future__ import annotations

import pytest

from grader.loading.model import extract_answer
from grader.resources import data_path
from grader.rubric import load_rubric, score_explanation
from grader.rubric.evasion import feedback_texts
from grader.rubric.feedback import IMPROVE

MODEL_ANSWER = extract_answer(data_path("solutions", "explanation.md").read_text())
WORDS = MODEL_ANSWER.split()
_REALLY = [w + (" really" if i % 3 == 2 else "") for i, w in enumerate(WORDS)]
ATTACKS = {
    "really-every-third-word": " ".join(
        w + (" really" if i % 3 == 2 else "") for i, w in enumerate(WORDS)
    ),
    "um-every-other-word": " ".join(w + (" (um)" if i % 2 else "") for i, w in enumerate(WORDS)),
    "so-every-fifth-word": " ".join(w + (" so" if i % 5 == 4 else "") for i, w in enumerate(WORDS)),
    "bullets-of-seven-words": "- "
    + "\n- ".join(" ".join(WORDS[i : i + 7]) for i in range(0, len(WORDS), 7)),
    "bullets-of-four-words": "- "
    + "\n- ".join(" ".join(WORDS[i : i + 4]) for i in range(0, len(WORDS), 4)),
    # both: words inserted and pieces too short for the insertion check alone (4.5-8/10)
    "really-in-bullets-of-seven": "- "
    + "\n- ".join(" ".join(_REALLY[i : i + 7]) for i in range(0, len(_REALLY), 7)),
    "really-in-sentences-of-nine": " ".join(
        " ".join(_REALLY[i : i + 9]).rstrip(".") + "." for i in range(0, len(_REALLY), 9)
    ),
}


@pytest.mark.parametrize("text", list(ATTACKS.values()), ids=list(ATTACKS))
def test_a_copy_with_inserted_words_or_in_short_pieces_earns_nothing(text):
    res = score_explanation(text)
    assert res.score == 0 and res.needs_review
    assert any("copies course material" in r for r in res.review_reasons)


def test_a_stock_phrase_in_an_own_bulleted_answer_keeps_its_credit():
    own = (
        "* BERT = masked LM. It predicts the masked tokens and can attend to tokens on both "
        "sides.\n* GPT = causal LM. Each position only attends to earlier positions (causal "
        "mask).\n* Generating = one token at a time, left to right, so future tokens don't "
        "exist yet.\n* BERT was trained with the future tokens available, so generation is a "
        "condition it never saw in training -> incoherent text.\n* GPT: training condition == "
        "generation condition.\n* => encoders (BERT) for understanding tasks, decoders (GPT) "
        "for generation."
    )
    res = score_explanation(own)
    assert res.score == 10
    assert not any("copies course material" in r for r in res.review_reasons)


_SWAPS = {"the": "a", "a": "the", "is": "was", "of": "for", "to": "towards", "and": "plus",
          "its": "their", "it": "this", "in": "within", "on": "upon", "that": "which",
          "as": "like", "by": "through", "with": "using"}  # fmt: skip


def test_a_copy_with_its_small_words_changed_loses_most_of_its_points():
    """The model answer with its small words swapped for others ("a" for "the", "within"
    for "in") kept 10/10 (flagged only as a near-copy of the whole answer): its content words
    are still the model answer's, in order. Its long sentences earn nothing now; sentences of
    fewer than `CONTENT_MIN_WORDS` content words are not judged so (a stock phrase)."""
    text = " ".join(_SWAPS.get(w.lower(), w) for w in MODEL_ANSWER.split(" "))
    res = score_explanation(text)
    assert res.score <= 3.0 and res.needs_review
    assert any("copies course material" in r for r in res.review_reasons)


def test_the_models_named_the_courses_way_is_no_copy():
    own = "Anna is a masked LM like BERT and Ben is a causal LM like GPT."
    assert not any("copies" in r for r in score_explanation(own).review_reasons)


def test_the_graders_feedback_with_words_inserted_earns_nothing():
    """The "How to improve" lines an empty answer gets, with "really" after every third word,
    scored 8/10 (the feedback check compares exact 4-grams)."""
    rubric = load_rubric()
    lines = [t.split(": ", 1)[1] for t in feedback_texts(rubric) if t.startswith(IMPROVE)]
    ws = " ".join(lines).split()
    res = score_explanation(
        " ".join(w + (" really" if i % 3 == 2 else "") for i, w in enumerate(ws))
    )
    assert res.score == 0 and res.needs_review


def test_an_own_short_sentence_before_a_copy_is_not_the_copy():
    first = MODEL_ANSWER.split(". ")[0]
    copy = " ".join(w + (" really" if i % 3 == 2 else "") for i, w in enumerate(first.split()))
    res = score_explanation("BERT sees both sides always. " + copy)
    assert any("copies course material (sentence 2)" in r for r in res.review_reasons)
