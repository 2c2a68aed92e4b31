"""Rubric TOML loading and validation (grader.rubric.load_rubric)."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.rubric import RubricError, load_rubric, score_explanation
from grader.rubric.model import DEFAULT_RUBRIC_PATH, compile_entry

BASE = DEFAULT_RUBRIC_PATH.read_text(encoding="utf-8")


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "rubric.toml"
    p.write_text(text, encoding="utf-8")
    return p


def test_default_rubric_loads_with_the_designed_weights():
    r = load_rubric()
    assert [c.id for c in r.criteria] == ["C1", "C2", "C3", "C4", "C5"]
    assert [c.weight for c in r.criteria] == [2, 3, 2, 2, 1]
    assert r.max_score == 10
    assert r.points("C2", "partial") == 1.5
    assert r.points("C4", "contradicted") == 0
    for c in r.criteria:
        assert set(c.levels) == {"met", "partial", "missing", "contradicted"}
        assert c.levels["missing"].improve and c.levels["contradicted"].gap


def test_a_copy_of_the_default_file_loads_identically(tmp_path):
    r = load_rubric(write(tmp_path, BASE))
    assert [c.title for c in r.criteria] == [c.title for c in load_rubric().criteria]


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (
            lambda s: s.replace("max_score = 10", "max_score = 12"),
            "sum to 10 but rubric.max_score is 12",
        ),
        (lambda s: s.replace("weight = 3", "weight = 0"), "weight must be positive"),
        (
            lambda s: s.replace("[criteria.levels.contradicted]", "[criteria.levels.wrong]", 1),
            "missing level 'contradicted'",
        ),
        (lambda s: s.replace('id = "C2"', 'id = "C1"'), "unique"),
        (lambda s: s.replace('"sequentially"', '"sequential(ly"', 1), "lexicon.left_to_right"),
        (
            lambda s: s.replace("\n[lexicon]\n", '\n[lexicon]\nsynonyms_for_bert = ["bert"]\n'),
            "unknown key(s) ['synonyms_for_bert']",
        ),
        (lambda s: s.replace('claim = "arch_swap"', 'claim = "no_such_claim"', 1), "no_such_claim"),
        (
            lambda s: s.replace("partial = 0.5", "partial = 1.5"),
            "scoring.partial must be between 0 and 1",
        ),
        (
            lambda s: s.replace("short_words = 15", 'short_words = "many"'),
            "thresholds.short_words must be a number",
        ),
        (lambda s: s + "\n[rubric\n", "not valid TOML"),
    ],
)
def test_malformed_rubric_gives_a_clear_error(tmp_path, mutate, message):
    changed = mutate(BASE)
    assert changed != BASE
    with pytest.raises(RubricError) as exc:
        load_rubric(write(tmp_path, changed))
    assert message in str(exc.value)
    assert "rubric.toml" in str(exc.value)


def test_missing_file_is_a_rubric_error(tmp_path):
    with pytest.raises(RubricError, match="cannot read rubric file"):
        load_rubric(tmp_path / "nope.toml")


def test_instructor_can_add_a_synonym_without_code(tmp_path):
    text = "Masked LM uses the context on both wings of the blank."
    assert score_explanation(text).criteria[0].verdict != "met"
    extended = BASE.replace(
        '  "bi ?directional(?:ly)?",', '  "both wings", "bi ?directional(?:ly)?",'
    )
    rubric = load_rubric(write(tmp_path, extended))
    assert score_explanation(text, rubric).criteria[0].verdict == "met"


def test_a_criterion_without_a_judge_is_missing_and_flagged(tmp_path):
    extra = (
        BASE.replace("max_score = 10", "max_score = 11")
        + """
[[criteria]]
id = "C6"
weight = 1
title = "Mentions a reference"
requires = "Cites the chapter."
[criteria.levels.met]
good = "Cited."
gap = ""
improve = ""
[criteria.levels.partial]
good = "Half cited."
gap = "x"
improve = "y"
[criteria.levels.missing]
good = ""
gap = "Not cited."
improve = "Cite it."
[criteria.levels.contradicted]
good = ""
gap = "Wrong citation."
improve = "Fix it."
"""
    )
    rubric = load_rubric(write(tmp_path, extra))
    res = score_explanation("BERT sees both sides of the mask.", rubric)
    c6 = res.criteria[-1]
    assert (c6.id, c6.verdict, c6.needs_review) == ("C6", "missing", True)
    assert any(r.startswith("C6:") for r in res.review_reasons)
    assert res.max_score == 11


def test_space_in_a_lexicon_entry_matches_hyphens_too():
    p = compile_entry("left to right")
    assert p.search("it reads Left-to-right") and p.search("left  to right")
    assert not p.search("leftto right")
