"""Conditions of an experiment the student ran or a drill a person did: not claims about what
a model sees.

"In the drill I had to predict a hidden word once with the whole sentence and once with only
the words before it" says what a person was given; "with only the prefix the accuracy dropped
to 0.19" names the input of a measurement. What a model is said to see in such a phrase may
earn credit, but it is no false claim about the model: `unattributed_conditions` marks those
vision claims as not attributed (`Claim.attributed`), which is what keeps a claim from making
a criterion contradicted.
"""

from __future__ import annotations

import re
from dataclasses import replace

from grader.rubric.facts import Claim
from grader.rubric.sentence import ParsedSentence

_VISION = frozenset({"see_left", "see_both"})
# a measured result: a decimal number or a percentage ("0.71", "19%", "3.87")
_MEASURED = re.compile(r"(?<![\w.])\d*\.\d+(?![\w.])|\b\d+(?:\.\d+)?\s?%")
# the input of a trial: "with only the prefix", "given the whole sentence", "on only the left"
_INPUT_OF = re.compile(r"\b(?:with|given|on|fed)\s+(?:only\s+|just\s+)?(?:the\s+)?$", re.I)
# a person doing the task: "I had to predict", "we gave it", not "I think" (a view stated)
_PERSON = re.compile(
    r"\b(?:i|we)\s+(?!think\b|believe\b|guess\b|feel\b|suppose\b|would\b|reckon\b|mean\b|"
    r"understand\b|know\b|say\b|see\b|argue\b|claim\b)\w+",
    re.I,
)
# a model pointed to between the person and the phrase: then the phrase is said of it
_MODEL_REF = re.compile(r"\b(?:it|its|they|their|the model|the network)\b", re.I)
# ... unless the person gives the model the input: "I gave BERT only a prefix", "we fed it
# the whole sentence" (the model is the recipient, the phrase what it was given)
_GIVING = re.compile(r"\s(?:gave|give|fed|feed|showed|show|handed|passed)$", re.I)
_RECIPIENT_WORDS = 3


def unattributed_conditions(ss: ParsedSentence, claims: list[Claim]) -> list[Claim]:
    """`claims` with the vision claims that describe an experiment's or a drill's input
    marked as not attributed to a model."""
    if not any(c.kind in _VISION and c.attributed for c in claims):
        return claims
    s = ss.sent.norm
    measured = bool(_MEASURED.search(s))
    person = [m for m in _PERSON.finditer(s)]
    if not measured and not person:
        return claims
    names = [h for h, _, _ in ss.subj]
    out = []
    for c in claims:
        if c.kind in _VISION and c.attributed and c.text:
            pos = _positions(s, c.text)
            if any(_condition(ss, p, measured, person, names) for p in pos):
                c = replace(c, attributed=False)
        out.append(c)
    return out


def _positions(s: str, text: str) -> list[int]:
    out, i = [], s.find(text)
    while i >= 0:
        out.append(i)
        i = s.find(text, i + 1)
    return out


def _condition(ss: ParsedSentence, pos: int, measured: bool, person: list, names: list) -> bool:
    s = ss.sent.norm
    before = s[max(0, pos - 30) : pos]
    if measured and _INPUT_OF.search(before):
        return True
    for m in person:
        if m.end() > pos:
            continue
        between = s[m.end() : pos]
        said_of = any(m.end() <= h.start < pos for h in names) or _MODEL_REF.search(between)
        given = _GIVING.search(m.group(0)) and len(between.split()) <= _RECIPIENT_WORDS
        if said_of and not given:
            continue
        return True
    return False
