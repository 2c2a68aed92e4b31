"""C4's elided second halves: "GPT trains the way it is used. BERT doesn't." A sentence that is
only the other model and an auxiliary inherits the relation of the sentence before, denied or
repeated ("So does BERT.", "BERT too."), for that model."""

from __future__ import annotations

import re

from grader.rubric.facts import CLM, MLM, MODEL_KEYS, Analysis, Claim, SentenceFacts, Subject

_OPEN = re.compile(r"^\W*(?:(?:but|and|while|whereas|yet|not)\W+)?(?:for\W+)?(?:the\W+)?$", re.I)
_NEG_ELLIPSIS = re.compile(
    r"^(?:'s)?\W*(?:(?:it|they|this|that|those|these)\s+)?"
    r"(?:(?:does|do|did|is|are|was|were|has|have|can|could|would)(?:n't|\s+not)|not|no|"
    r"nope)\b(?:\W+(?:though|really|either|anymore|at all|here|there))?\W*$",
    re.IGNORECASE,
)
# an elided half that agrees: "So does BERT('s).", "BERT too.", "..., and BERT's does too"
_AUX = r"(?:does|do|did|is|are|was|were|has|have|can)"
_SO_AUX = re.compile(rf"\bso\s+{_AUX}\s+(?:the\s+)?$", re.IGNORECASE)
_AUX_TOO = re.compile(rf"^(?:'s)?\s+(?:{_AUX}\s+)?(?:too|as well)\b", re.IGNORECASE)
_SO_OPEN = re.compile(rf"^\W*(?:and\W+)?so\W+{_AUX}\W+(?:the\W+)?$", re.IGNORECASE)
_TOO_TAIL = re.compile(rf"^(?:'s)?\s+(?:{_AUX}\s+)?(?:too|as well)\W*$", re.IGNORECASE)
_BARE_TAIL = re.compile(r"^(?:'s)?\W*$")


def _elided(f: SentenceFacts) -> tuple[Subject, bool] | None:
    """The model of a sentence that is only a model and an auxiliary, and whether it denies
    (True: "BERT doesn't.", "But BERT's is not.", "For masked LM: No.", "For BERT they
    don't.") or repeats (False: "So does BERT.", "BERT too.") of that model what the sentence
    before said of the other one."""
    if len(f.mentions) != 1 or f.claims and any(c.kind.startswith("relation_") for c in f.claims):
        return None
    (code,) = f.mentions
    hits = f.hits.get(MODEL_KEYS.get(code, ""), [])
    if len(hits) != 1:
        return None
    h, norm = hits[0], f.sentence.norm
    before, after = norm[: h.start], norm[h.end :]
    if _OPEN.match(before) and _NEG_ELLIPSIS.match(after):
        return code, True
    if (_SO_OPEN.match(before) and _BARE_TAIL.match(after)) or (
        _OPEN.match(before) and _TOO_TAIL.match(after)
    ):
        return code, False
    return None


def _agrees_in_sentence(an: Analysis, c: Claim, other: Subject) -> bool:
    """ "GPT's training lines up with generation, and so does BERT's": the other model named
    with an elided half that repeats the relation, in the relation's own sentence."""
    f = an.fact(c.sentence)
    norm = f.sentence.norm
    return any(
        _SO_AUX.search(norm[: h.start]) or _AUX_TOO.match(norm[h.end :])
        for h in f.hits.get(MODEL_KEYS[other], [])
    )


def elided_second_half(
    an: Analysis, same: list[Claim], diff: list[Claim]
) -> tuple[list[Claim], list[Claim]]:
    """ "GPT trains the way it is used. BERT doesn't.": an elided second half inherits the
    relation of the sentence before, denied, for the other model (the causal LM the same, so
    the masked LM different; or the wrong way round, a false claim). One that agrees ("So
    does BERT.", "..., and so does BERT's") repeats the relation for the other model."""
    pos = {s.sentence.index: k for k, s in enumerate(an.sentences)}
    more_same: list[Claim] = []
    more_diff: list[Claim] = []
    for c in same + diff:
        if c.subject not in (CLM, MLM):
            continue
        other = MLM if c.subject == CLM else CLM
        k = pos[c.sentence] + 1
        nxt = an.sentences[k] if k < len(an.sentences) else None
        half = _elided(nxt) if nxt is not None else None
        if half is not None and half[0] == other and nxt is not None:
            i, text, denied = nxt.sentence.index, nxt.sentence.norm, half[1]
        elif _agrees_in_sentence(an, c, other):
            i, text, denied = c.sentence, c.text, False
        else:
            continue
        same_kind = (c.kind == "relation_same") != denied
        target = more_same if same_kind else more_diff
        target.append(
            Claim("relation_same" if same_kind else "relation_diff", other, i, True, True, text)
        )
    return more_same, more_diff
