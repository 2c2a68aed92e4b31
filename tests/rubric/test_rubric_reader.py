"""The second reader (grader.rubric.reader), its fitting, and the general mechanisms added with
it: spelling slips, and four sources of false 'contradicted' verdicts. Sentences written for the
tests, not taken from the labelled sets."""

from __future__ import annotations

import numpy as np
import pytest

from grader.rubric import score_explanation
from grader.rubric.reader import CRITERIA, load_weights
from grader.rubric.text import correct_spelling, split_sentences
from tools.rubric.fit_reader import fit_logistic

NO_READER = {"criteria": {}}

# The C4 comparison made as two questions asked of each model, with no same/mismatch word next
# to a training word: the rules miss it, the reader sees training, generation and the relation
# in neighbouring sentences.
QUESTIONS = (
    "Ask what BERT has when it learns: every masked word comes with neighbours on the left and "
    "on the right. Ask what it has when it writes: only the left, because the right has not been "
    "produced. Different answers, so BERT is out of its depth. Ask the same two questions about "
    "GPT: in both cases, the left side. Same answers, so GPT is fine."
)


def by_id(res):
    return {c.id: c for c in res.criteria}


def test_the_weights_file_is_installed_and_complete():
    w = load_weights()
    assert 0.5 <= w["raise_at"] <= 1.0 and w["shortfall_at"] > 0
    for cid in CRITERIA:
        for head in ("partial", "met"):
            assert isinstance(w["criteria"][cid][head]["bias"], float)
            assert w["criteria"][cid][head]["coef"]


def test_the_reader_raises_a_missed_link_and_quotes_the_students_sentence():
    # the installed weights at a lower threshold (round 7 chose 0.85 for C4, where this
    # answer's P(met) sits below it): the mechanism, not the fitted certainty, is tested here
    w = {**load_weights(), "raise_at": 0.6, "raise_at_by": {}}
    rules = by_id(score_explanation(QUESTIONS, reader_weights=NO_READER))
    both = by_id(score_explanation(QUESTIONS, reader_weights=w))
    # the rules read the masked side only (the C2 link said with its training condition)
    assert rules["C4"].verdict in ("missing", "partial")
    assert both["C4"].verdict == "met"
    assert both["C4"].evidence and both["C4"].evidence[:40] in QUESTIONS
    assert "You wrote:" in both["C4"].feedback
    assert both["C4"].confidence >= w["raise_at"]


def test_the_reader_never_touches_a_contradiction():
    text = (
        "BERT only looks at the words to the left of the mask. When generating, the later words "
        "do not exist yet, and GPT is trained exactly the way it generates, unlike BERT."
    )
    rules = by_id(score_explanation(text, reader_weights=NO_READER))
    both = by_id(score_explanation(text))
    assert rules["C1"].verdict == both["C1"].verdict == "contradicted"
    # and an argument built on that false premise is not raised
    assert both["C2"].verdict == rules["C2"].verdict
    assert both["C4"].verdict == rules["C4"].verdict


def test_without_weights_the_scorer_is_the_rules_alone():
    res = score_explanation(QUESTIONS, reader_weights=NO_READER)
    assert not any("second reader" in r for r in res.review_reasons)


def test_a_large_expected_shortfall_is_flagged_with_a_reason():
    # a reader certain of "met" wherever it has evidence of its own, but never allowed to raise:
    # C1 (partial by the rules: "from the whole sentence", no side named) is doubted, and the
    # answer goes to a person with the reason
    sure = {"bias": 9.0, "coef": {"S mlm+fut": 1.0}}
    w = {
        "raise_at": 1.01,
        "raise_at_by": {},  # no per-criterion threshold either (C1 has one since round 6)
        "shortfall_at": 0.75,
        "criteria": dict.fromkeys(CRITERIA, {"partial": sure, "met": sure}),
    }
    text = (
        "BERT predicts masked words from the whole sentence. GPT predicts the next word. "
        "That is the whole difference between the two models that matters for writing text."
    )
    res = score_explanation(text, reader_weights=w)
    assert res.needs_review
    assert any(r.startswith("The second reader expects") for r in res.review_reasons)
    c1 = by_id(res)["C1"]
    assert c1.verdict == "partial" and c1.needs_review and c1.confidence < 0.6
    assert any(r.startswith("C1: partial, but the second reader") for r in res.review_reasons)


def test_no_doubt_flag_on_off_topic_or_list_answers():
    sure = {"bias": 9.0, "coef": {"A mlm": 0.0}}
    w = {
        "raise_at": 1.01,
        "shortfall_at": 0.75,
        "criteria": dict.fromkeys(CRITERIA, {"partial": sure, "met": sure}),
    }
    res = score_explanation(
        "Tokenizers split words into subword units, and vocabulary size affects memory use.",
        reader_weights=w,
    )
    assert not any(r.startswith("The second reader") for r in res.review_reasons)


def test_the_reader_is_deterministic():
    a = score_explanation(QUESTIONS)
    b = score_explanation(QUESTIONS)
    assert a == b


def test_fit_logistic_separates_a_toy_problem_deterministically():
    x = np.array([[0.0], [0.0], [1.0], [1.0], [1.0], [0.0]])
    y = np.array([0.0, 0.0, 1.0, 1.0, 0.0, 1.0])
    w1 = fit_logistic(x, y)
    w2 = fit_logistic(x, y)
    assert np.array_equal(w1, w2)
    assert w1[1] > 0  # the feature raises the probability


@pytest.mark.parametrize(
    ("slip", "word"),
    [("previus", "previous"), ("rigth", "right"), ("bidirectinal", "bidirectional"),
     ("becuase", "because"), ("classificaton", "classification"), ("befor", "before")],
)  # fmt: skip
def test_common_slips_in_domain_words_are_undone(slip, word):
    assert correct_spelling(f"it sees the {slip} tokens") == f"it sees the {word} tokens"


@pytest.mark.parametrize(
    "real", ["layer", "marked", "asked", "latter", "tasks", "deciding", "train", "token"]
)
def test_real_words_are_never_corrected(real):
    assert correct_spelling(real) == real


def test_a_typo_no_longer_hides_the_restriction():
    text = "gpt only attends to the previus tokens becuase of the causal mask."
    assert by_id(score_explanation(text, reader_weights=NO_READER))["C3"].verdict == "met"


def test_a_lower_case_variable_ends_its_sentence_but_an_initial_does_not():
    assert len(split_sentences("Position i can't attend to j > i. An encoder like BERT can.")) == 2
    assert len(split_sentences("As J. Devlin wrote, BERT is bidirectional.")) == 1


@pytest.mark.parametrize(
    ("text", "cid"),
    [
        ("That's the decoder (GPT) attention: position i can't attend to j > i. An encoder like "
         "BERT skips the mask, so each token attends to the full sequence.", "C1"),
        ("GPT is trained with a causal mask. When it generates, it has the tokens before and "
         "nothing after.", "C3"),
        ("GPT is trained exactly how it is used. At generation time the next tokens are not "
         "generated yet, so BERT would be missing the right context it was trained with.", "C4"),
        ("A masked LM is trained with full attention, including the tokens after the blank, "
         "which deployment as a generator can never provide. Its pretraining rewards reading "
         "the future.", "C3"),
        ("If you used BERT to write, you'd ask it to guess a word with no words after it, which "
         "it never had to do in training.", "C1"),
    ],
)  # fmt: skip
def test_former_sources_of_false_contradictions(text, cid):
    assert by_id(score_explanation(text, reader_weights=NO_READER))[cid].verdict != "contradicted"
