"""The masked LM said able to generate (C5): the cues of quality and of failure the
generation families of `mechanisms.py` share, and the bare ability said with a reason.

"BERT can generate fine", "BERT could generate coherently, it is just slow", "bert can
generate because it has the whole prompt": an ability claimed for the masked LM, asserted.
Not an ability with its failure in the same clause ("can generate, but badly"), supposed ("if
you sample long enough it would"), asked ("which of them can generate"), carried from another
sentence, or bare ("BERT can generate a few tokens": no claim of quality or reason).
"""

from __future__ import annotations

import re

from grader.rubric.facts import MLM, Hit
from grader.rubric.polarity import inside
from grader.rubric.sentence import ParsedSentence

__all__ = ["ASKED_CAN", "BOTH_CAN_BUT", "COMPARED", "GOOD", "able_alone"]

GOOD = re.compile(
    r"^\W*(?:\w+\s+){0,4}?(?:just\s+)?(?:fine|(?<!\bas\s)well|coherently|perfectly|nicely|"
    r"easily|without (?:any )?(?:problems?|issues?|trouble)|no problem|as well as|good text|"
    r"great)\b",
    re.IGNORECASE,
)
# "harder than filling a blank", "instead of predicting the next word": the comparison object
COMPARED = re.compile(
    r"\b(?:than|instead of|as opposed to|compared (?:to|with))\s+(?:\w+\s+){0,2}$",
    re.IGNORECASE,
)
# a failure said after an ability: "can generate, but badly", "both can, only worse"
BOTH_CAN_BUT = re.compile(r"\b(?:but|only|badly|poorly|not|n't|worse|incoherent\w*)\b", re.I)


# round 10: "bert can generate because it has the whole prompt": the masked LM said able to
# generate, asserted (no "if", no failure after it in the clause: "can generate, but badly")
_CAN_RIGHT_BEFORE = re.compile(r"\b(?:can|could)\s+(?:actually\s+|still\s+|really\s+)?$", re.I)
_SUPPOSED = re.compile(r"\b(?:if|unless|would|only when|provided)\b", re.I)
_ARGUED = re.compile(r"\s+(?:\w+\s+)?(?:because|since|as long as)\b", re.I)
# "what decides which of them can generate", "whether bert could generate": an embedded
# question whose verb is the "can" / "could" right before the claim asserts no ability (read
# in the 40 characters before it; a clause break ends the question)
ASKED_CAN = re.compile(
    r"\b(?:which|whether|who|what|why|how)\b[^.;,]*\b(?:can|could)\s+(?:\w+\s+)?$", re.I
)


def able_alone(ss: ParsedSentence, g: Hit) -> bool:
    """ "can / could" right before the generation word `g`, said of the masked LM named in the
    sentence, with a quality ("fine", "coherently") or a reason ("because ...") after it."""
    norm = ss.sent.norm
    if not _CAN_RIGHT_BEFORE.search(norm[max(0, g.start - 20) : g.start]):
        return False
    if _SUPPOSED.search(norm) or BOTH_CAN_BUT.search(norm[g.end :].split(";")[0]):
        return False
    if not (GOOD.match(norm[g.end : g.end + 60]) or _ARGUED.match(norm, g.end)):
        return False  # "BERT can generate a few tokens": an ability with no claim of quality
    if ASKED_CAN.search(norm[max(0, g.start - 40) : g.start]):
        return False  # "what decides which of them can generate": a question, no ability
    if not any(code == MLM and not contrast for _, code, contrast in ss.subj):
        return False  # the masked LM named in the sentence itself, not carried over
    return (
        ss.subject_at(g.start) == MLM
        and not ss.negated(g)
        and not inside(g.start, ss.unasserted)
        and not inside(g.start, ss.conceded)
        and ss.anchored
        and not COMPARED.search(norm[max(0, g.start - 30) : g.start])
    )
