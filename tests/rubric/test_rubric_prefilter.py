"""The literal prefilter (`prefilter.py`) only skips scans: it never hides a match."""

from __future__ import annotations

import random
import re

from grader.rubric.model import compile_entry, load_rubric
from grader.rubric.prefilter import ASCII_CASE_TWINS, LiteralIndex, fold, may_match, needs

# every code point but the surrogates, as one string to scan
_ALL = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)


def _case_partners(ch: str) -> set[str]:
    return {m.group() for m in re.finditer(re.escape(ch), _ALL, re.IGNORECASE)}


def test_ascii_case_twins_are_every_non_ascii_partner_of_an_ascii_character() -> None:
    found = {}
    for code in range(128):
        for other in _case_partners(chr(code)) - {chr(code), chr(code).swapcase()}:
            found[other] = chr(code).lower()
    assert found == ASCII_CASE_TWINS


def test_uncased_literals_of_the_rubric_match_only_themselves() -> None:
    rubric = load_rubric()
    text = " ".join(p.pattern for _, p in rubric.lexicon_entries) + "".join(
        p.pattern for p in rubric.injection
    )
    uncased = {c for c in text if ord(c) > 127 and c.lower() == c == c.upper()}
    assert uncased  # "≤", "→", ...: the rubric has some
    for c in uncased:
        assert _case_partners(c) == {c}, c


def _texts() -> list[str]:
    """Sentences of lexicon words, their pieces, case changes, hyphens, symbols and look-alike
    letters, seeded."""
    rng = random.Random(18)
    rubric = load_rubric()
    pieces = [w for _, p in rubric.lexicon_entries for w in re.findall(r"[a-z0-9']+", p.pattern)]
    pieces += ["BERT", "GPT-2", "x_<t", "<=", "≤", "≥", "≠", "≈", "->", "İNPUT", "ſee", "K", "-"]
    out = []
    for _ in range(1500):
        ws = [rng.choice(pieces) for _ in range(rng.randint(1, 14))]
        ws = [
            w.upper() if rng.random() < 0.1 else w.title() if rng.random() < 0.2 else w for w in ws
        ]
        out.append(rng.choice([" ", "-", "  ", " - "]).join(ws) + rng.choice(["", ".", "?"]))
    return out


def test_no_pattern_of_the_rubric_is_skipped_where_it_matches() -> None:
    rubric = load_rubric()
    patterns = [p for _, p in rubric.lexicon_entries] + list(rubric.injection)
    lexicon = rubric.lexicon_index
    for text in _texts():
        folded = fold(text)
        cands = set(lexicon.candidates(text))
        for p in patterns:
            if p.search(text):
                assert may_match(needs(p), folded), (p.pattern, text)
        for i, (_, p) in enumerate(rubric.lexicon_entries):
            if p.search(text):
                assert i in cands, (p.pattern, text)
        injected = set(rubric.injection_index.candidates(text))
        assert {i for i, p in enumerate(rubric.injection) if p.search(text)} <= injected


def test_needs_reads_sequences_branches_repeats_and_case() -> None:
    assert needs(compile_entry("gpt and bert")) == (("bert",), ("gpt",), ("and",))
    assert needs(compile_entry("(?:t5|bart)")) == (("bart", "t5"),)
    assert needs(compile_entry("masked(?:s)? lms?")) == (("masked",), ("lm",))
    assert needs(re.compile("Ab(?:c)+")) == (("ab",), ("c",))
    # nothing every match must hold: always scanned
    assert needs(re.compile(r"(?:foo)?\w+")) == ()
    assert needs(re.compile("foo|")) == ()
    assert LiteralIndex((re.compile(r"\d+"), re.compile("abc"))).candidates("no digits") == [0]


def test_case_insensitive_matches_through_twins_still_pass() -> None:
    p = compile_entry("inputs?")
    for text in ("İNPUT", "ınput", "INPUTS"):
        assert p.search(text)
        assert may_match(needs(p), fold(text))
    index = LiteralIndex((compile_entry("see"), compile_entry("kit")))
    assert index.candidates("ſee Kit") == [0, 1]
