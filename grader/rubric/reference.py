"""Words that refer without naming a model family, for `sentence.ParsedSentence`.

- generic subjects: "the models", "these networks", "language models", "one model ... the
  other": a plural or one-of-two that names neither family (`generic_spans`);
- plural back-references ("they", "their") that, after two families, point at neither;
- kind nouns: "models like BERT" gives an example of a kind, "a causal mask like GPT" compares;
- scene openers: "At inference time, ...", "When generating, ..." set when, not who.

Pure data and functions, no state.
"""

from __future__ import annotations

import re

_GENERIC = re.compile(
    r"\b(?:(?:the|these|those|such|all|all the|all these|most|many|some)\s+)?"
    r"(?:(?:language|neural|transformer|pretrained|pre-trained)\s+)?"
    r"(?:models|networks|architectures|lms|llms)\b|"
    # "one model ... and the other does not": one of two, unnamed
    r"\bone (?:model|network|of them|of the (?:two|models))\b|"
    r"\bthe other(?: one| model| network)?(?=\s*(?:[,.;:)]|$)|\s+(?:one|model|network|"
    r"does|doesn't|did|didn't|is|isn't|has|hasn't|can|cannot|can't|only|never|not)\b)",
    re.IGNORECASE,
)
_MODIFIER = re.compile(r"^(?:'s)?[\s-]*(?:type|style|like|based|family|class)?[\s-]*$", re.I)
PLURAL_REFS = frozenset({"they", "their", "them", "theirs"})
# nouns a "like X" gives an example of ("models like BERT", "decoders like GPT")
KIND_NOUNS = frozenset(
    "model models lm lms llm llms encoder encoders decoder decoders transformer transformers "
    "architecture architectures network networks system systems one ones something things "
    "thing family families approach approaches objective objectives".split()
)
SCENE_OPENER = re.compile(
    r"^\W*(?:at|in|during|when|whenever|while|once|after|before|on|for|by the time)\b", re.I
)


def generic_spans(norm: str, names: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans of generic subjects in `norm` that are not part of a model's name (`names`):
    "BERT-style models" and "GPT models" name their family, "the models" does not."""
    out = []
    for m in _GENERIC.finditer(norm):
        a, b = m.start(), m.end()
        inside = any(x < b and a < y for x, y in names)
        named = any(_MODIFIER.match(norm[y:a]) for _, y in names if y <= a)
        if not inside and not named:
            out.append((a, b))
    return out
