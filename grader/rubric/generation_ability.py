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
    r"^\W*(?:\w+\s+){0,4}?(?:just\s+)?(?:fine|(?<!\bas\s)well|coherently|perfectly|"
    r"nicely|easily|without (?:any )?(?:problems?|issues?|trouble)|no problem|as well as|"
    # a quality of the text itself ("coherent text"), not "text that is not coherent"
    r"(?<!\bless\s)(?<!\bnot\s)(?<!\bmore\s)(?<!\bno\s)"
    r"(?:good|coherent|fluent|sensible|meaningful) (?:text|sentences|output|prose|stories)|"
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


# round 11: the two families said equally fit to generate: "both could in principle be used
# for chatbots", "both kinds of models work well for generation" (bare "both" or the pair
# named, then an ability or a use, then the generation use right after it)
_BOTH_FIT = re.compile(
    r"(?:^\W*(?:\w+ly,?\s+)?|[,;:]\s*|\b(?:think|so|and|then|principle|theory|fact|practice)\W+)"
    r"both(?:\s+of\s+them|\s+(?:kinds?|types?|families|sorts?)(?:\s+of\s+(?:models?|lms?))?|"
    r"\s+models?)?\s+"
    r"(?:(?:can|could|may|might)\s+(?:(?:in principle|in theory|also|equally|actually|really|"
    r"still|just|easily)\s+)*(?:be\s+used\s+(?:for|to|in)|be\s+applied\s+to|do|handle|power)|"
    r"(?:work|do|perform)\s+(?:equally\s+|just\s+as\s+|really\s+)?well\s+(?:for|at|in|on))"
    r"\s+(?:\w+\s+)?$",
    re.IGNORECASE,
)

_FAILS_AFTER = re.compile(
    r"\b(?:but|however|though|although|yet|only|badly|poorly|worse|incoherent\w*|drift\w*|"
    r"nonsense|garbage)\b",
    re.IGNORECASE,
)


def both_fit_to_generate(ss: ParsedSentence) -> Hit | None:
    """The generation use said of both families alike, asserted, with no failure after it in
    the clause ("both could be used for chatbots, but BERT's text would drift": no claim)."""
    norm = ss.sent.norm
    for g in ss.hits.get("generation_use", []):
        if not _BOTH_FIT.search(norm[max(0, g.start - 80) : g.start]):
            continue
        clause = re.split(r"[;.]", norm[g.end :], maxsplit=1)[0]
        if BOTH_CAN_BUT.search(clause.split(",")[0]) or _FAILS_AFTER.search(clause):
            continue  # (a negation after a comma is another clause's: "..., size doesn't matter")
        if ss.negated(g) or inside(g.start, ss.unasserted) or inside(g.start, ss.conceded):
            continue
        if _SUPPOSED.search(norm[: g.start]):
            continue  # "if both could be used for chatbots, ...": supposed
        return g
    return None
