"""Round 11, engine health: faster literal candidates that are exactly the naive ones, and
module boundaries that moved without changing what the scorer reads."""

from __future__ import annotations

import random
import re

from grader.rubric.model import load_rubric
from grader.rubric.prefilter import LiteralIndex, fold, may_match, needs


def _naive(index: LiteralIndex, text: str) -> list[int]:
    """One `may_match` per pattern: the definition `candidates` must equal."""
    folded = fold(text)
    return [i for i, p in enumerate(index.patterns) if may_match(needs(p), folded)]


def _literals(index: LiteralIndex) -> set[str]:
    return {n for p in index.patterns for alts in needs(p) for n in alts}


def _random_texts(index: LiteralIndex, n: int, seed: int) -> list[str]:
    """Texts glued from the index's own literals, pieces of them (so a gram is present
    without its literal), case changes and odd separators, seeded."""
    rng = random.Random(seed)
    lits = sorted(_literals(index))
    pieces = lits + [x[: rng.randint(1, len(x))] for x in lits] + ["İ", "ſ", "K", "≤", "\n"]
    out = []
    for _ in range(n):
        ws = [rng.choice(pieces) for _ in range(rng.randint(0, 18))]
        ws = [w.upper() if rng.random() < 0.15 else w for w in ws]
        out.append(rng.choice(["", " ", "-", "  "]).join(ws))
    return out


def test_present_is_exactly_the_literals_a_text_contains() -> None:
    rubric = load_rubric()
    for index in (rubric.lexicon_index, rubric.injection_index):
        lits = _literals(index)
        for text in _random_texts(index, 600, seed=111):
            folded = fold(text)
            assert sorted(index.present(folded)) == sorted(n for n in lits if n in folded), text


def test_fast_candidates_equal_the_naive_ones_on_many_texts() -> None:
    rubric = load_rubric()
    for index in (rubric.lexicon_index, rubric.injection_index):
        texts = _random_texts(index, 600, seed=112) + [
            "The masked model fills a blank; the causal one writes left to right.",
            "",
            "ab",
        ]
        for text in texts:
            assert index.candidates(text) == _naive(index, text), text


def test_present_finds_literals_shorter_than_a_gram_and_overlapping_ones() -> None:
    index = LiteralIndex((re.compile("x"), re.compile("ab"), re.compile("abc"), re.compile("bcd")))
    assert sorted(index.present("abcd")) == ["ab", "abc", "bcd"]
    assert sorted(index.present("x")) == ["x"]
    assert index.candidates("ABCD x") == [0, 1, 2, 3]
    assert index.candidates("abd") == [1]


def test_word_order_check_lives_in_its_own_module() -> None:
    import grader.rubric.guards as guards
    import grader.rubric.scorer as scorer
    import grader.rubric.word_order as word_order

    assert not hasattr(guards, "order_breaks") and not hasattr(guards, "scrambled_sentences")
    assert scorer.scrambled_sentences is word_order.scrambled_sentences
    # a determiner before a verb, twice: two breaks in one sentence of my own
    assert word_order.order_breaks("the is model a can reads left words") == 2


def test_one_embedded_question_guard_serves_both_generation_readings() -> None:
    import grader.rubric.generation_ability as generation_ability
    import grader.rubric.mechanisms as mechanisms

    assert mechanisms.ASKED_CAN is generation_ability.ASKED_CAN
    assert not hasattr(mechanisms, "_ASKED_CAN")
    assert not hasattr(generation_ability, "_WHICH_CAN")


def test_a_long_embedded_question_before_can_asserts_no_ability() -> None:
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from rule_verdicts import rules

    # the question word is more than four words before "can": still a question, no claim
    for text in (
        "Both models differ a lot, and nobody has shown which of the two families really "
        "can generate.",
        "Both BERT and GPT were trained on text, and it is open which one of these two "
        "really can generate.",
    ):
        assert rules(text)["C5"] != "contradicted", text


def test_needs_is_remembered_by_the_patterns_identity() -> None:
    from grader.rubric import prefilter

    plain = re.compile("left context only")
    folded = re.compile("left context only", re.IGNORECASE)
    for p in (plain, folded):
        assert needs(p) == prefilter._read_needs(p)
        assert prefilter._NEEDS_BY_ID[id(p)][0] is p  # the entry keeps its own pattern
    assert needs(plain) is needs(plain)
