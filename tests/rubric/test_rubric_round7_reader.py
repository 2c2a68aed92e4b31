"""Issue 19, round 7 (the second reader): one register rewrite for both layers, the weights
proven to be what `fit_reader --write` writes, settings chosen on the round-7 newest authors,
and a fit that survives rule changes. Sentences written for these tests, not taken from any
labelled set. No test depends on the exact fitted coefficients."""

from __future__ import annotations

import pytest

from grader.rubric import reader_cues
from grader.rubric.criteria import Judgement
from grader.rubric.model import load_rubric
from grader.rubric.reader import NO_RAISE, Opinion, load_weights, second_read
from grader.rubric.reader_cues import plain, style
from grader.rubric.reader_features import families
from grader.rubric.register import informal_marks, register
from grader.rubric.scorer import read_answer
from tools.rubric import fit_reader


# -- one register rewrite ------------------------------------------------------------------------
def test_the_reader_has_no_abbreviation_table_of_its_own():
    # the cue words are read through register.py's rewrite: reader_cues keeps cue words only
    assert not hasattr(reader_cues, "_REGISTER") and not hasattr(reader_cues, "contractions")
    typed = "gpt cant peek l8r, it nvr sees the nxt wrds"
    assert plain(typed) == register(typed, signs=True).text
    assert plain(typed) == "gpt can't peek later, it never sees the next words"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("objective != sampling", "objective differs from sampling"),
        ("mask => no peeking", "mask so no peeking"),
        ("train == use", "train = use"),
        ("reads L->R", "reads left to right"),
        ("sees x_{<j}", "sees x_{ earlier }"),
    ],
)
def test_relation_signs_are_put_in_words_only_for_the_reader(text, words):
    assert plain(text) == words
    # the rule layer reads the signs itself (the lexicon reads "!=", "->" breaks clauses)
    assert register(text).text == text


def test_the_sign_rewrite_keeps_the_map_back_to_the_students_words():
    text = "enc reads both ways, dec reads L->R only"
    reg = register(text, signs=True)
    start = reg.text.index("left to right")
    a, b = reg.original(start, start + len("left to right"))
    assert text[a:b] == "L->R"
    assert len(reg.source) == len(reg.text) + 1


def test_words_the_reader_had_alone_are_now_read_by_the_rules_too():
    # moved from the reader's copy into register.py's one table
    assert register("it nvr saw the l8r tkns").text == "it never saw the later tokens"
    assert register("the diff between them").text == "the difference between them"
    assert register("they are diff").text == "they are different"


def test_a_rewrite_of_a_rewrite_changes_nothing():
    typed = "bc u cant see l8r toks, train != gen"
    once = plain(typed)
    assert plain(once) == once
    assert plain(register(typed).text) == once  # the rule layer's rewrite, then the reader's


def test_the_register_is_measured_from_the_same_tables():
    texting, signs = informal_marks("u cant see l8r toks -> gen != train")
    assert (texting, signs) == (5, 2)
    assert informal_marks("The model cannot see later tokens.") == (0, 0)
    s = style("u cant see l8r toks -> gen != train")
    assert s["texting per 100 words"] > 0 and s["symbols per 100 words"] > 0


def test_a_spelled_out_twin_has_the_same_families():
    rubric = load_rubric()

    def fams(text: str) -> set[str]:
        _, _, an = read_answer(text, rubric)
        return set().union(*(f.on for f in families(an)))

    assert fams("gpt nvr sees l8r tkns") == fams("gpt never sees later tokens")


# -- the weights are what fit_reader writes -------------------------------------------------------
def test_the_installed_weights_are_what_fit_reader_write_writes():
    """The fit is deterministic in its inputs; the weights record the digest of those inputs
    (the scorer's code and data, the tool, the labelled sets, the settings) and of themselves.
    A rule change, a new labelled answer or a hand edit without a refit fails here: run
    `python -m tools.rubric.fit_reader --write` (`--check` refits and compares in full)."""
    w = load_weights()
    train = fit_reader.available()
    settings = fit_reader.default_settings()
    assert {k: w[k] for k in settings} == settings
    assert w["fingerprint"] == fit_reader.fingerprint(train, settings, fit_reader.L2), (
        "reader_weights.json was fitted on other inputs: refit with "
        "python -m tools.rubric.fit_reader --write"
    )
    assert w["digest"] == fit_reader.digest(w), "reader_weights.json was edited by hand"


def test_the_fingerprint_covers_the_rules_the_tool_and_the_data_but_not_the_wording():
    names = [n for n, _ in fit_reader.fit_inputs(("dev",))]
    assert "grader/rubric/claims.py" in names and "grader/rubric/rubric.toml" in names
    assert "tools/rubric/fit_reader.py" in names and "tools/rubric/devset/dev.jsonl" in names
    assert "grader/rubric/reader_weights.json" not in names
    assert "grader/rubric/feedback.py" not in names  # what the scorer says, not decides
    settings = fit_reader.default_settings()
    one = fit_reader.fingerprint(("dev",), settings, 1.0)
    assert one == fit_reader.fingerprint(("dev",), settings, 1.0)
    assert one != fit_reader.fingerprint(("dev", "dev2"), settings, 1.0)
    assert one != fit_reader.fingerprint(("dev",), settings, 2.0)
    assert one != fit_reader.fingerprint(("dev",), {**settings, "review_at": 0.5}, 1.0)


# -- settings chosen on the round-7 newest authors ------------------------------------------------
def test_the_newest_authors_are_the_round_7_sets_and_never_frozen_ones():
    for s in ("heldout12", "heldout13", "dev11", "dev12", "dev13", "dev14"):
        assert s in fit_reader.TRAIN_SPLITS and s in fit_reader.NEW_AUTHORS
    assert not set(fit_reader.NEW_AUTHORS) & {"dev6", "dev7", "dev8", "heldout8", "heldout9"}
    assert set(fit_reader.NEVER).isdisjoint(fit_reader.TRAIN_SPLITS + fit_reader.NEW_AUTHORS)
    assert "dev14" in load_weights()["about"]


def test_raises_need_more_certainty_and_c5_is_never_raised():
    j = Judgement("missing", (), 0.9)
    sure = Opinion(0.9, 0.9, 2, (0,))
    assert "C5" in NO_RAISE and "C5" in load_weights()["no_raise"]
    assert second_read("C5", j, Opinion(0.99, 0.99, 2, (0,)), load_weights()) is j
    w = fit_reader.default_settings()
    assert second_read("C2", j, sure, w).verdict == "met"  # 0.9 >= 0.85
    assert second_read("C2", j, Opinion(0.8, 0.8, 2, (0,)), w) is j
    assert second_read("C4", j, Opinion(0.8, 0.8, 2, (0,)), w).verdict == "met"  # C4 at 0.8
    assert second_read("C4", j, Opinion(0.75, 0.75, 2, (0,)), w) is j
    assert second_read("C1", j, sure, w) is j  # C1 raises at 0.95 only
    assert second_read("C1", j, Opinion(0.97, 0.96, 2, (0,)), w).verdict == "met"


# -- robust to rule changes -----------------------------------------------------------------------
def row(feats: dict) -> fit_reader.Row:
    labels = dict.fromkeys(("C1", "C2", "C3", "C4", "C5"), "met")
    return fit_reader.Row("s", "i", "", labels, {}, dict.fromkeys(labels, feats), [])


def test_a_rule_kind_that_disappears_or_is_rare_drops_its_feature_and_the_fit_still_runs():
    rare = [row({"R new_kind mlm": (1.0, ())}) for _ in range(fit_reader.MIN_SUPPORT - 1)]
    rows = rare + [row({}) for _ in range(4)]
    rows[-1].labels["C1"] = "missing"
    assert fit_reader.names_for(rows, "C1") == []
    fitted = fit_reader.fit_all(rows)  # no feature has support: a bias-only model
    assert fitted["C1"]["met"]["coef"] == {} and fitted["C1"]["met"]["bias"] > 0
