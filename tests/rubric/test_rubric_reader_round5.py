"""Issue 19, round 5 (the second reader): a C5 head, stuffed sentences, per-criterion raise
thresholds and the leave-one-set-out fitting tool. Sentences written for the tests, not taken
from the labelled sets. No test depends on the exact fitted weights."""

from __future__ import annotations

import pytest

from grader.rubric import score_explanation
from grader.rubric.model import load_rubric
from grader.rubric.reader import CRITERIA, Opinion, load_weights, opinions, second_read
from grader.rubric.reader_features import families, features, stuffed
from grader.rubric.scorer import read_answer
from tools.rubric import fit_reader

NO_READER = {"criteria": {}}


def by_id(res):
    return {c.id: c for c in res.criteria}


@pytest.mark.parametrize(
    "text",
    [
        "Both models have masks and tokens and training and the future and sameness and "
        "a mismatch and chatbots.",
        "Keywords here: encoder, decoder, previous words, the next word, practice, identical, "
        "summaries, not yet.",
        "It is all about BERT, blanks, the right side, generation, training and differences.",
    ],
)
def test_a_sentence_that_strings_concept_words_together_is_stuffed(text):
    assert stuffed(text)


@pytest.mark.parametrize(
    "text",
    [
        # examples of one family: the items add no new family
        "Encoders are used for classification, sentiment, NER, QA and retrieval.",
        # a relation with a short list inside it
        "BERT sees the words before, the words after, and the blank itself.",
        # terse claims are one item each
        "GPT: earlier tokens only.",
        "When it writes, nothing to the right exists yet, so the masked model has no clue there.",
        "GPT is trained the same way it generates: from the left side only, and never the right.",
    ],
)
def test_near_misses_are_not_stuffed(text):
    assert not stuffed(text)


def test_a_stuffed_sentence_counts_for_no_feature():
    rubric = load_rubric()
    _, _, an = read_answer(
        "BERT and GPT differ in masks and the future and training and generation and the "
        "same and a mismatch and the past.",
        rubric,
    )
    assert all(f.list_like for f in families(an))


# An answer stuffed with the reader's cue words, in prose with verbs around the lists: the
# rules give it little, and the reader must not lift it.
STUFFED = (
    "I think this question is about BERT and GPT. They are about masks, the future, training "
    "and the same, and also generation, the past, differences and chatbots. There are "
    "encoders, decoders, blanks, the previous words, not yet, identical and classification."
)


def test_cue_stuffing_earns_no_raise():
    rules = by_id(score_explanation(STUFFED, reader_weights=NO_READER))
    both = score_explanation(STUFFED)
    for cid, c in by_id(both).items():
        assert c.verdict == rules[cid].verdict, cid


def test_cue_stuffing_earns_no_raise_even_from_a_reader_sure_of_everything():
    # a reader that would raise anything it has evidence for: the stuffed sentences give it none
    _, _, an = read_answer(STUFFED, load_rubric())
    names = {k for fs in features(an, {}).values() for k in fs}
    sure = {"bias": 9.0, "coef": dict.fromkeys(names, 1.0)}
    w = {"raise_at": 0.7, "criteria": dict.fromkeys(CRITERIA, {"partial": sure, "met": sure})}
    rules = by_id(score_explanation(STUFFED, reader_weights=NO_READER))
    both = by_id(score_explanation(STUFFED, reader_weights=w))
    assert {c: v.verdict for c, v in both.items()} == {c: v.verdict for c, v in rules.items()}


C5_TEXT = (
    "BERT reads the whole sentence at once. GPT writes one word after another. "
    "That is why BERT-style encoders are used for classification, and GPT-style decoders "
    "are the choice for chatbots."
)


def test_the_reader_reads_c5():
    rubric = load_rubric()
    _, _, an = read_answer(C5_TEXT, rubric)
    feats = features(an, {})
    assert "C5" in feats
    assert feats["C5"]["W mlm+und+clm+guse+use"][0] == 1.0
    assert "C5" in load_weights()["criteria"]
    ops = opinions(an, {}, None)
    assert "C5" in ops


def test_per_criterion_raise_thresholds():
    from grader.rubric.criteria import Judgement

    j = Judgement("partial", (0,), 0.7)
    op = Opinion(0.9, 0.65, 2, (1,))
    w = {"raise_at": 0.7, "raise_at_by": {"C2": 0.6}, "no_raise": []}
    assert second_read("C2", j, op, w).verdict == "met"
    assert second_read("C4", j, op, w).verdict == "partial"


def test_the_fitting_tool_refuses_frozen_sets_and_skips_absent_ones():
    with pytest.raises(ValueError):
        fit_reader.available(("dev", "heldout6"))
    assert fit_reader.available(("dev", "no-such-set")) == ("dev",)
    assert set(fit_reader.NEVER).isdisjoint(fit_reader.TRAIN_SPLITS)


def test_fitting_is_deterministic():
    rows = fit_reader.build_rows(("heldout2",))
    assert fit_reader.fit_all(rows) == fit_reader.fit_all(rows)


def test_the_c2_window_reads_absence_said_in_the_next_sentence():
    rubric = load_rubric()
    _, _, an = read_answer(
        "A masked model fills each blank from the words on both sides. "
        "When it writes text, the words after the current one are not there yet.",
        rubric,
    )
    assert features(an, {})["C2"]["W gen+absent+fut"][0] == 1.0
