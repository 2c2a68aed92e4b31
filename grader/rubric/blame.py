"""Whether a phrase is a claim the sentence makes about a model (`mechanisms.py` and the
architecture families share it).

    blamed(ss, hit, subject) -> bool
    framed(ss, hit) -> bool

A wrong-mechanism phrase counts against a model only when it is said of that model (the
grammatical subject at the phrase), asserted (not negated, not under a modal, purpose or
conditional frame, not in an attempt conceded as poor, not in a scene-setting opener) and not
the object of a comparison ("harder than filling a blank").
"""

from __future__ import annotations

import re

from grader.rubric.facts import Hit
from grader.rubric.generation_ability import COMPARED
from grader.rubric.polarity import inside
from grader.rubric.sentence import ParsedSentence

__all__ = ["blamed", "framed"]

# "would have to predict", "is asked to fill", "trying to read left to right": not a claim
# about what the model does.
_MODAL = frozenset(
    "would could might should must ought asked forced made try tries trying tried attempt "
    "attempts need needs needed if unless when whenever".split()
)
_USE_VERB = frozenset("use using want wanting".split())
_HAVE_TO = re.compile(r"\b(?:has|have|had|needs?|got) to\s*$", re.IGNORECASE)


def framed(ss: ParsedSentence, h: Hit) -> bool:
    """Under a modal, purpose or conditional frame within the four words before `h`."""
    before = [t.lower() for _, _, t in ss.toks[max(0, h.tok - 4) : h.tok]]
    if any(t in _MODAL or t.endswith(("'d", "\u2019d")) for t in before):
        return True  # "how you'd use it for writing": "'d" is "would"
    if before[-1:] == ["to"] and any(t in _USE_VERB for t in before[:-1]):
        return True  # "using BERT to predict the next word": a use supposed, not its objective
    return bool(_HAVE_TO.search(ss.sent.norm[max(0, h.start - 20) : h.start]))


def blamed(ss: ParsedSentence, h: Hit, subject: str) -> bool:
    """`h` is said of `subject`, asserted, outside the generation scenario."""
    return (
        ss.subject_at(h.start, h.end) == subject
        and ss.anchored
        and not ss.negated(h)
        and not framed(ss, h)
        and not inside(h.start, ss.conceded)  # an attempt judged poor: its scene, no claim
        and not ss.in_scene_opener(h)  # "At inference time for generation, ..."
        and not COMPARED.search(ss.sent.norm[max(0, h.start - 30) : h.start])
    )
