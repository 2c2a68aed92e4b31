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
from collections.abc import Callable

_GENERIC = re.compile(
    r"\b(?:(?:the|these|those|such|all|all the|all these|most|many|some)\s+)?"
    r"(?:(?:language|neural|transformer|pretrained|pre-trained)\s+)?"
    r"(?:models|networks|architectures|lms|llms)\b|"
    # "one model ... and the other does not": one of two, unnamed
    r"\bone (?:model|network|of them|of the (?:two|models))\b|"
    # "that is why one writes coherently and the other does not": a bare "one" as the subject
    # of a verb, answered by "the other" (not the generic "one writes left to right")
    r"\bone(?=\s+(?:\w+s|is|was|can|cannot|does|has)\b[^.;]*\bthe other\b)|"
    r"\bthe other(?: one| model| network)?(?=\s*(?:[,.;:)]|$)|\s+(?:one|model|network|"
    r"does|doesn't|did|didn't|is|isn't|has|hasn't|can|cannot|can't|only|never|not)\b)",
    re.IGNORECASE,
)
# "a model does well on the conditions it was optimised for": a singular stating a principle
# of any model (not a predicate, "BERT is a model that ...", nor an example, "a model like
# BERT"). In a sentence naming no family, what it says may earn credit for the model carried
# over, but it is no false claim about that model (`analysis`: `Claim.attributed`).
GENERIC_SINGULAR = re.compile(
    r"(?<!\bis )(?<!\bas )(?<!\bwas )(?<!\bbe )(?<!\bare )"
    r"\b(?:a|any|every|each)\s+(?:(?:language|neural|single|given|trained)\s+)?"
    r"(?:model|network|system|lm)\b(?!\s+(?:like|such as|called|named|of)\b)",
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


# a plural after a copula is the predicate, not a new subject: "decoders have become the
# models of choice for generation" says what the decoders are (round 10)
_PREDICATE_BEFORE = re.compile(
    r"\b(?:is|are|was|were|be|been|become|becomes|became|remain|remains|remained)\s+"
    r"(?:(?:now|also|still|today|\w+ly)\s+)?$",
    re.IGNORECASE,
)


def generic_spans(norm: str, names: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans of generic subjects in `norm` that are not part of a model's name (`names`):
    "BERT-style models" and "GPT models" name their family, "the models" does not."""
    out = []
    for m in _GENERIC.finditer(norm):
        a, b = m.start(), m.end()
        inside = any(x < b and a < y for x, y in names)
        named = any(_MODIFIER.match(norm[y:a]) for _, y in names if y <= a)
        if not inside and not named and not _PREDICATE_BEFORE.search(norm[:a]):
            out.append((a, b))
    return out


# -- the answer's own structure: Markdown headings and code names ---------------------------
# "**Causal LM (GPT)**", "## BERT", "Masked LM:": a short line that names its topic
_HEADING = re.compile(r"^\s*(?:#{1,6}\s|\*\*|__)|:\s*$|\*\*\s*$")
HEADING_WORDS = 6
# a bullet that opens with an architecture label as its predicate: "- encoder, predicts ...",
# "- decoder-only model - used for ..." (not "Decoders: NLG", which names its subject)
_LABEL_OPEN = re.compile(
    r"^\W*(?:an?\s+)?(?:encoder|decoder)s?(?:[\s-]+only)?(?:[\s-]+models?)?(?=\s*(?:,|\(|\s-\s))",
    re.IGNORECASE,
)
# "causal = torch.triu(...)  # GPT": a code name assigned with a comment naming its model
_CODE_NAME = re.compile(r"^\s*(?P<name>[A-Za-z_]\w*)\s*=[^#=][^#]*#\s*(?P<comment>.+)$")


def is_heading(text: str) -> bool:
    """A heading line: Markdown-marked or ending with ":", at most `HEADING_WORDS` words."""
    return bool(_HEADING.search(text)) and len(re.findall(r"\w+", text)) <= HEADING_WORDS


def opens_with_label(norm: str, start: int, end: int) -> bool:
    """The model name at `start:end` is an architecture label opening the line as its
    predicate ("encoder, predicts the next token ..."), not the subject of a clause."""
    m = _LABEL_OPEN.match(norm)
    return m is not None and m.end() == end and not norm[:start].strip(" -*\u2022")


def code_names(
    lines: list[str], family_of: Callable[[str], set[str]]
) -> dict[str, list[re.Pattern[str]]]:
    """Per model key, patterns for the code names a code line assigns with a comment naming
    exactly one family (`family_of(comment)` gives the keys it names): the prose names them
    in backticks ("With `causal`, row t ..."). A name given to both families decides nothing."""
    found: dict[str, set[str]] = {}
    for line in lines:
        m = _CODE_NAME.match(line)
        if m is None:
            continue
        keys = family_of(m.group("comment"))
        if len(keys) == 1:
            found.setdefault(m.group("name"), set()).update(keys)
    out: dict[str, list[re.Pattern[str]]] = {}
    for name, keys in sorted(found.items()):
        if len(keys) == 1:
            out.setdefault(next(iter(keys)), []).append(re.compile(rf"`{re.escape(name)}`"))
    return out
