"""Issue 19, round 6 (the second reader): the register it reads cue words in, the answer's
register and length as review-model inputs, C1 raised, the wider training data. Sentences
written for the tests, not taken from the labelled sets. No test depends on the exact
fitted weights."""

from __future__ import annotations

import pytest

from grader.rubric import score_explanation
from grader.rubric.criteria import Judgement
from grader.rubric.model import load_rubric
from grader.rubric.reader import NO_RAISE, Opinion, load_weights, review_features, second_read
from grader.rubric.reader_cues import plain, style
from grader.rubric.reader_features import CONTENT, Fam, families, features, names_models, readings
from grader.rubric.scorer import read_answer
from tools.rubric import fit_reader

# what the answer says about the models (the kinds of use come from the rubric's lexicon,
# which reads the words as typed: "generation" is also a kind of use there)
SAYS = CONTENT - {"und", "guse"}


def content(text: str) -> set[str]:
    """The content families the reader finds in an answer's sentences, pooled."""
    _, _, an = read_answer(text, load_rubric())
    return set().union(*(f.on for f in families(an))) & SAYS


@pytest.mark.parametrize(
    ("typed", "plain"),
    [
        # phone-typed and spelled-out versions of the same claims: the same families
        (
            "when u gen the l8r toks dont exist yet",
            "when you generate, the later tokens don't exist yet",
        ),
        (
            "gpt only looks at the prev wrds b4 the current one",
            "gpt only looks at the previous words before the current one",
        ),
        (
            "bert was never trained w/o the right side bc it always had it",
            "bert was never trained without the right side because it always had it",
        ),
    ],
)
def test_a_phone_typed_sentence_has_the_families_of_its_spelled_out_twin(typed, plain):
    assert content(typed) == content(plain)
    assert content(typed)  # and they are not empty


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("train != gen", "differs from"),
        ("p(x_t | x_{<t})", "earlier"),
        ("uses x_{>i} too", "later"),
        ("read L->R", "left to right"),
        ("causal mask => only the past", " so "),
        ("bc u cant see it b4", "because you can't see it before"),
    ],
)
def test_register_puts_texting_and_relation_symbols_into_words(text, words):
    assert words.strip() in " ".join(plain(text).split())


@pytest.mark.parametrize(
    "text",
    [
        # near misses: words that only contain an abbreviation, and plain prose
        "The abc of cos(x) on ubuntu, a bcd code and the user's ur-text.",
        "GPT predicts the next word from the previous ones.",
    ],
)
def test_register_leaves_plain_words_alone(text):
    assert plain(text) == text
    assert plain(plain(text)) == plain(text)


def test_an_arrow_is_not_sameness_and_not_equal_is_a_difference():
    # "=" is a sameness cue; the arrow and "!=" contain one but say something else
    assert "same" not in content("causal mask => only earlier tokens visible")
    fams = content("for bert, training != generation")
    assert "diff" in fams and "same" not in fams
    assert "same" in content("for gpt, training == generation")


def test_style_measures_the_register_per_100_words():
    phone = "ok so bert sees both sides. gen = 1 tok at a time L->R. u cant see b4"
    formal = "BERT sees both sides. GPT generates one token at a time from the earlier ones."
    s, f = style(phone), style(formal)
    assert s["texting per 100 words"] > 0 and s["symbols per 100 words"] > 0
    assert s["lowercase starts"] == 1.0
    assert f["texting per 100 words"] == f["symbols per 100 words"] == f["lowercase starts"] == 0
    # length-normalised: the same register written twice as long reads the same
    twice = style(phone + " " + phone)
    assert twice["texting per 100 words"] == pytest.approx(s["texting per 100 words"])
    assert twice["log words"] > s["log words"]


def test_the_review_model_reads_the_answers_register():
    x = review_features({"C1": "met"}, {"C1": "met"}, {}, 0.0, "u cant see b4 bc its masked")
    assert x["texting per 100 words"] > 0
    assert "log words" not in review_features({"C1": "met"}, {"C1": "met"}, {}, 0.0)
    # and the scorer hands the answer to it: a review model that only reads texting flags the
    # phone-typed answer, not its spelled-out twin
    model = {
        "criteria": {},
        "review": {"bias": -4.0, "coef": {"texting per 100 words": 1.0}},
        "review_at": 0.8,
    }
    typed = "bert fills gaps w words on both sides bc it sees l8r toks. gpt only sees b4."
    plain = (
        "BERT fills gaps with words on both sides because it sees later tokens. "
        "GPT only sees before."
    )
    flag = [
        any("review model" in r for r in score_explanation(t, reader_weights=model).review_reasons)
        for t in (typed, plain)
    ]
    assert flag == [True, False]


def test_c1_is_raised_now_but_met_needs_the_masked_model_named():
    assert "C1" not in NO_RAISE and "C1" not in load_weights().get("no_raise", [])
    j = Judgement("partial", (0,), 0.7)
    op = Opinion(0.95, 0.9, 2, (1,))
    w = {"raise_at": 0.7, "raise_at_by": {"C1": 0.8}, "no_raise": []}
    assert second_read("C1", j, op, w).verdict == "met"
    assert second_read("C1", j, Opinion(0.95, 0.75, 1, (1,)), w).verdict == "partial"
    assert not names_models([Fam(0, frozenset({"fut", "clm"}), False)], "C1")
    assert names_models([Fam(0, frozenset({"fut", "mlm"}), False)], "C1")


def test_the_reader_trains_on_the_round_6_sets_and_never_on_frozen_ones():
    for s in ("heldout11", "dev9", "dev10"):
        assert s in fit_reader.TRAIN_SPLITS and s in fit_reader.NEW_AUTHORS
    for s in ("heldout14", "heldout15", "heldout16"):  # round 7 froze these (12, 13 released)
        assert s in fit_reader.NEVER
    assert set(fit_reader.NEVER).isdisjoint(fit_reader.TRAIN_SPLITS + fit_reader.NEW_AUTHORS)
    assert "dev9" in load_weights()["about"] and "heldout11" in load_weights()["about"]


def test_the_rule_layers_readings_are_coverage_features_of_c4_and_c5_only():
    text = (
        "BERT fills each gap from the words on both sides. GPT is trained exactly the way it "
        "is used, one word after another from the earlier ones."
    )
    _, _, an = read_answer(text, load_rubric())
    feats = features(an, {})
    c4 = {k: v for k, v in feats["C4"].items() if k.startswith("R ")}
    assert c4 and all(v == (1.0, ()) for v in c4.values())  # no evidence: never quoted
    assert any(k.startswith("R ") for k in feats["C5"])
    assert not any(k.startswith("R ") for c in ("C1", "C2", "C3") for k in feats[c])
    # only prose sentences are read: a list-like one contributes nothing
    fams = [Fam(f.index, f.on, True) for f in families(an)]
    assert readings(an, fams) == {}
    assert readings(an, families(an))


def test_the_fitted_vocabulary_follows_the_data_and_needs_support():
    def row(feats):
        return fit_reader.Row("s", "i", "", {}, {}, {"C4": feats}, [])

    rows = [row({"R common -": (1.0, ()), "S x": (0.0, ())}) for _ in range(fit_reader.MIN_SUPPORT)]
    rows.append(row({"R rare -": (1.0, ())}))
    assert fit_reader.names_for(rows, "C4") == ["R common -"]
    # an answer without a feature reads it as 0
    assert fit_reader.matrix(rows[-1:], "C4", ["R common -"]).tolist() == [[0.0]]
