"""Names that are no subject: appositives and training objectives (round 12).

"BERT, the decoder, fills the masks using both sides", "GPT (an encoder) for generation": the
second name describes the first (rightly or not). `ParsedSentence` keeps the first name as the
subject of what the clause says and records the pair (`ParsedSentence.appositives`);
`appositive_swap` reads an appositive that gives a model the other family's architecture as
the swap "BERT is the decoder" states with a copula (C5). An objective named after a training
verb ("GPT is trained with masked language modelling: it fills the blanks") is what the model
named before it trains with, not a new subject (`trained_objective`).
"""

from __future__ import annotations

import re

from grader.rubric.facts import CLM, MLM, Hit, Subject

__all__ = ["appositive", "appositive_swap", "trained_objective"]

# "BERT, the decoder, ...", "GPT (a decoder) ...", "BERT - i.e. the encoder - ...": the gap
# between the two names holds an article
_APPOSED = re.compile(
    r"\s*(?:,|\(|\s-)\s*(?:i\.e\.,?\s+|which is\s+|or\s+)?(?:the|a|an)\s+", re.IGNORECASE
)
# and the appositive is closed right after its name (a comma, a bracket, a dash)
_CLOSED = re.compile(r"\s*(?:\w+\s*)?(?:,|\)|-\s|\u2014)")
_ARCH_WORD = re.compile(r"encoder|decoder", re.IGNORECASE)


def appositive(norm: str, head: Hit, h: Hit) -> bool:
    """`h` is an appositive of the name `head` just before it."""
    return bool(_APPOSED.fullmatch(norm, head.end, h.start)) and bool(_CLOSED.match(norm, h.end))


def appositive_swap(pairs: list[tuple[Subject, Hit, Subject]]) -> tuple[Subject, Hit] | None:
    """The first (family, appositive) of `pairs` that calls a causal model the encoder or a
    masked model the decoder; `pairs` are (family named, its appositive, the appositive's
    family)."""
    for code, h, other in pairs:
        arch = _ARCH_WORD.match(h.text)
        if arch is None or code not in (MLM, CLM) or other == code:
            continue
        if (code == CLM) == (arch.group(0).lower() == "encoder"):
            return code, h
    return None


# an objective's name ("masked language modelling", "the causal objective") after a training verb
_OBJECTIVE_NAME = re.compile(r"(?:ing|objective)$", re.IGNORECASE)
_TRAINED_WITH = re.compile(
    r"\b(?:trained|pre-?trained|learns?|learned|optimi[sz]ed)\s+(?:\w+\s+)?"
    r"(?:with|on|using|by|via|through)\s+(?:an?\s+|the\s+)?$",
    re.IGNORECASE,
)


def trained_objective(norm: str, h: Hit) -> bool:
    """The model name `h` is an objective the subject before it is trained with."""
    return bool(_OBJECTIVE_NAME.search(h.text)) and bool(
        _TRAINED_WITH.search(norm, max(0, h.start - 40), h.start)
    )
