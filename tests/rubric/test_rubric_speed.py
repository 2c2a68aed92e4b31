"""The lexicon gate (`model.lexicon_gate`) only skips work: it never changes a hit."""

from __future__ import annotations

import random
import re

from grader.rubric.model import compile_entry, lexicon_gate, load_rubric


def _samples() -> list[str]:
    """Sentences made of lexicon-ish words and filler, with hyphens and punctuation, seeded."""
    rng = random.Random(19)
    vocab = (
        "bert gpt masked causal left right both sides later tokens previous words only "
        "generation generate trained training same mismatch never exposed not the a of to "
        "it sees future prefix suffix left-to-right one-directional x_<t <= i [mask] "
        "classification chatbots encoder decoder bidirectional autoregressive exist yet"
    ).split()
    out = []
    for _ in range(400):
        words = [rng.choice(vocab) for _ in range(rng.randint(1, 18))]
        out.append(rng.choice(["", "So, "]) + " ".join(words) + rng.choice([".", "?", "!", ""]))
    return out


def test_gate_matches_exactly_where_some_entry_matches() -> None:
    rubric = load_rubric()
    for text in _samples():
        for key, pats in rubric.lexicon.items():
            any_entry = any(p.search(text) for p in pats)
            assert (rubric.lexicon_gate[key].search(text) is not None) == any_entry, (key, text)


def test_gate_covers_every_entry_syntax() -> None:
    pats = tuple(
        compile_entry(e) for e in ["left to right", "x_<t", "tokens? (?:1|one) to t", "j > i"]
    )
    gate = lexicon_gate(pats)
    for s in ["reads left-to-right", "p(x_t | x_<t)", "tokens 1 to t-1", "for j > i"]:
        assert gate.search(s) and any(p.search(s) for p in pats)
    assert gate.search("leftist to rightward") is None


def test_pattern_not_from_compile_entry_is_never_gated() -> None:
    """A hand-made pattern (no word-boundary wrapper) must be scanned entry by entry."""
    gate = lexicon_gate((re.compile(r"foo"),))
    assert gate.search("anything at all") is not None
