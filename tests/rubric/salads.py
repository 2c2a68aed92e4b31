"""A seeded generator of grammatical keyword salads (test helper, not a test module).

Each salad is built from sentence templates ("X uses Y, therefore Z has W", "A relies on B,
so C", ...) filled at random with the course's keywords: grammatical English whose clauses
are each about the models, joined by links that say nothing. Several template grammars mix
true and false predicates at random; one ("linked truths") joins only TRUE clauses by
nonsense links. Fully deterministic: `salads(n, seed)` always returns the same texts.
"""

from __future__ import annotations

import random

MASKED = ("BERT", "the masked LM", "a masked language model", "the encoder", "BERT-style models")
CAUSAL = ("GPT", "the causal LM", "a causal language model", "the decoder", "GPT-style models")
# predicates: (text, true of the masked LM, true of the causal LM)
PREDICATES = (
    ("sees both sides of the mask", True, False),
    ("uses the context on both sides", True, False),
    ("sees only the left context", False, True),
    ("only sees the earlier tokens", False, True),
    ("uses the right context", True, False),
    ("predicts the next token", False, True),
    ("predicts the masked tokens", True, False),
    ("uses a causal mask", False, True),
    ("relies on the later tokens", True, False),
    ("is trained with masking", True, False),
    ("was never trained without the right context", True, False),
    ("generates text well", False, True),
    ("is used for classification", True, False),
    ("reads left to right", False, True),
    ("attends to the future tokens", True, False),
    ("cannot see the future", False, True),
    ("is trained the same way it generates", False, True),
    ("has a mismatch between training and generation", True, False),
    ("is used for generation", False, True),
)
CONDITIONS = (
    "the future tokens do not exist yet",
    "generation goes left to right",
    "training matches generation",
    "the right side is missing at generation",
    "training and generation differ",
    "the later words are not there when it writes",
    "the mask hides the future",
    "generation does not exist yet",
    "both sides are available during training",
)
OBJECTS = (
    "the later tokens",
    "the right context",
    "both sides",
    "the earlier tokens",
    "the causal mask",
    "the masked tokens",
    "the future",
    "the left context",
    "training",
    "generation",
)
LINKS = ("therefore", "so", "because", "which is why", "hence", "and that is why")


def _model(rng: random.Random) -> tuple[str, bool]:
    masked = rng.random() < 0.5
    return rng.choice(MASKED if masked else CAUSAL), masked


def _clause(rng: random.Random, truth: bool | None = None) -> str:
    """A model and a predicate; `truth` None: any predicate, else one that is true/false."""
    name, masked = _model(rng)
    options = [p for p, m, c in PREDICATES if truth is None or (m if masked else c) == truth]
    return f"{name} {rng.choice(options)}"


def _cap(s: str) -> str:
    return s[0].upper() + s[1:]


def _random_links(rng: random.Random) -> str:
    """'X uses Y, therefore Z has W', '... because ...': any predicate, any model."""
    return f"{_cap(_clause(rng))}, {rng.choice(LINKS)} {_clause(rng)}."


def _relies(rng: random.Random) -> str:
    """'A relies on B, so C.'"""
    name, _ = _model(rng)
    verb = rng.choice(("relies on", "uses", "needs", "depends on", "sees"))
    return f"{_cap(name)} {verb} {rng.choice(OBJECTS)}, so {rng.choice(CONDITIONS)}."


def _because(rng: random.Random) -> str:
    """'Because C, X does Y.'"""
    return f"Because {rng.choice(CONDITIONS)}, {_clause(rng)}."


def _phases(rng: random.Random) -> str:
    """'In training X ...; at generation Y ...'"""
    return f"In training {_clause(rng)}; at generation {_clause(rng)}."


def _linked_truths(rng: random.Random) -> str:
    """Two true clauses joined by a link that says nothing ('BERT relies on the later tokens,
    so generation does not exist yet')."""
    first = _clause(rng, truth=True)
    second = rng.choice((_clause(rng, truth=True), rng.choice(CONDITIONS)))
    return f"{_cap(first)}, {rng.choice(LINKS)} {second}."


GRAMMARS = {
    "random_links": (_random_links, _relies, _because),
    "relies": (_relies, _because, _random_links),
    "phases": (_phases, _random_links, _relies),
    "linked_truths": (_linked_truths,),
    "mixed": (_random_links, _relies, _because, _phases, _linked_truths),
}


def salad(rng: random.Random, grammar: str) -> str:
    """One salad of 4 to 8 sentences drawn from `grammar`'s templates."""
    templates = GRAMMARS[grammar]
    return " ".join(rng.choice(templates)(rng) for _ in range(rng.randint(4, 8)))


def salads(n: int, seed: int = 19) -> list[tuple[str, str]]:
    """`n` (grammar, text) salads, cycling through the grammars; the same for the same seed."""
    rng = random.Random(seed)
    names = sorted(GRAMMARS)
    return [(names[k % len(names)], salad(rng, names[k % len(names)])) for k in range(n)]
