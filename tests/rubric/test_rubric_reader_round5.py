"""Issue 19, round 5 (the second reader): a C5 head, stuffed sentences, bare contractions,
met only with the models named, per-criterion raise thresholds, the review model and the
leave-one-set-out fitting tool. Sentences written for the tests, not taken
from the labelled sets. No test depends on the exact fitted weights."""

from __future__ import annotations

import pytest

from grader.rubric import score_explanation
from grader.rubric.model import load_rubric
from grader.rubric.reader import (
    CRITERIA,
    Opinion,
    load_weights,
    opinions,
    review_features,
    review_risk,
    second_read,
)
from grader.rubric.reader_features import (
    Fam,
    families,
    features,
    names_models,
    stuffed,
)
from grader.rubric.register import register
from grader.rubric.scorer import read_answer
from tools.rubric import fit_reader


def contractions(text: str) -> str:
    """The one rewrite of informal registers (round 7: the reader's own copy was merged into
    `register.register`)."""
    return register(text).text


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


@pytest.mark.parametrize(
    ("bare", "fixed"),
    [
        ("the later words dont exist", "the later words don't exist"),
        ("GPT cant see ahead", "GPT can't see ahead"),
        ("the right side isnt there", "the right side isn't there"),
        ("it doesnt have them", "it doesn't have them"),
        ("that wont work", "that won't work"),
    ],
)
def test_apostrophe_less_negations_are_read_as_contractions(bare, fixed):
    assert contractions(bare) == fixed


@pytest.mark.parametrize("word", ["want", "front", "don", "cant.", "isn't", "can", "meant"])
def test_words_that_only_look_like_bare_contractions_stay(word):
    assert contractions(word) in (word, "can't.")
    assert contractions("I want the front row") == "I want the front row"


def test_a_bare_contraction_states_absence():
    rubric = load_rubric()
    _, _, an = read_answer("When it writes, the words after the current one dont exist.", rubric)
    assert "absent" in families(an)[0].on


def sure_reader() -> dict:
    """A reader certain of met wherever any of its features fires."""
    rubric = load_rubric()
    _, _, an = read_answer(C5_TEXT + " " + STUFFED, rubric)
    names = {k for fs in features(an, {}).values() for k in fs}
    sure = {"bias": 9.0, "coef": dict.fromkeys(names, 1.0)}
    return {
        "raise_at": 0.7,
        "no_raise": [],
        "criteria": dict.fromkeys(CRITERIA, {"partial": sure, "met": sure}),
    }


def test_met_needs_the_model_the_guide_names():
    # the generation condition without the masked LM: one half of C2 (partial), never met,
    # however sure the reader is
    text = "Writing goes one word after another, so the words further on do not exist yet."
    res = by_id(score_explanation(text, reader_weights=sure_reader()))
    assert res["C2"].verdict == "partial"


def test_met_is_possible_once_the_masked_model_is_named():
    text = (
        "BERT fills each blank from both sides. Writing goes one word after another, so the "
        "words further on do not exist yet."
    )
    rules = by_id(score_explanation(text, reader_weights=NO_READER))
    res = by_id(score_explanation(text, reader_weights=sure_reader()))
    assert rules["C2"].verdict != "met" or res["C2"].verdict == "met"
    assert res["C2"].verdict == "met"


def test_names_models_reads_the_prose_only():
    fams = [
        Fam(0, frozenset({"mlm"}), False),
        Fam(1, frozenset({"gen", "absent"}), False),
        Fam(2, frozenset({"clm"}), True),  # a list-like sentence names nothing
    ]
    assert names_models(fams, "C2")
    assert not names_models(fams, "C3")
    assert not names_models(fams, "C5")  # C5 needs both models
    assert names_models(fams, "C1")  # C1 is never raised: nothing required


def test_the_review_model_flags_a_risky_answer_with_a_reason():
    text = "BERT predicts masked words from both sides. GPT predicts the next word."
    quiet = score_explanation(text, reader_weights={"criteria": {}})
    risky = {"criteria": {}, "review": {"bias": 5.0, "coef": {}}, "review_at": 0.8}
    res = score_explanation(text, reader_weights=risky)
    assert not any("review model" in r for r in quiet.review_reasons)
    assert res.needs_review
    assert any("review model" in r for r in res.review_reasons)
    calm = {"criteria": {}, "review": {"bias": -5.0, "coef": {}}, "review_at": 0.8}
    assert not any(
        "review model" in r for r in score_explanation(text, reader_weights=calm).review_reasons
    )


def test_review_features_describe_the_verdicts_and_the_readers_gap():
    x = review_features(
        {"C2": "missing", "C3": "met"},
        {"C2": "partial", "C3": "met"},
        {"C2": Opinion(0.9, 0.2, 1, (0,))},
        0.4,
    )
    assert x["C2 partial"] == 1.0 and x["C2 raised"] == 1.0 and x["C3 raised"] == 0.0
    assert x["C2 gap"] == pytest.approx(0.1) and x["doubt"] == 0.4
    assert review_risk(x, {"review": {"bias": 0.0, "coef": {"C2 raised": 2.0}}}) > 0.8
    assert review_risk(x, {}) == 0.0


def test_the_installed_weights_carry_a_review_model():
    w = load_weights()
    assert w["review"]["coef"] and 0.5 <= w["review_at"] <= 1.0
