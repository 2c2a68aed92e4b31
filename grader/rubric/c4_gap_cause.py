"""C4's contrast denied by a cause that is no condition of what the models see: the generation
gap put down to size, data or speed ("the reason it's worse than GPT is mainly that it is
smaller", "The real reason BERT fails is size", "GPT is just much bigger, so it wins").

    gap_put_elsewhere(an) -> list[Claim]
    CONDITION_WORDS: a condition of what the models see (the contrast itself, not elsewhere)
"""

from __future__ import annotations

import re

from grader.rubric.facts import BOTH, Analysis, Claim

__all__ = ["CONDITION_WORDS", "gap_put_elsewhere"]

# words about what a model sees or predicts: with them the "difference" named is the rubric's
# condition ("the difference is what they see: BERT has both sides"), not something else
CONDITION_WORDS = re.compile(
    r"\b(?:context|tokens?|words?|positions?|left|right|future|later|earlier|previous|"
    r"preceding|following|prefix|sides?|blanks?|gaps?|see|sees|saw|seen|visible|attend\w*|"
    r"bidirectional|causal|mask\w*|hidden|direction\w*)\b",
    re.IGNORECASE,
)


# round 11: a cause that is no condition of what the models see or are trained on: size,
# data, speed ("smaller and trained on less data", "mostly speed"); not fine-tuning (a stage
# of training) nor popularity (why a model is chosen, not how well it writes)
_OTHER_CAUSE = re.compile(
    r"\b(?:bigger|larger|smaller|big enough|(?:more|less) (?:training )?(?:data|money|compute|"
    r"parameters|params)|(?:model )?size|scale|speed|faster|quicker|slower)\b",
    re.IGNORECASE,
)
# a reason named with an exclusive "mainly / mostly / just": "the reason it's worse than GPT
# is mainly that", "the reason people use GPT instead is mostly" (what it explains: `_GAP_WORD`)
_GAP_REASON = re.compile(
    r"\b(?:the\s+)?(?:main\s+|real\s+|actual\s+)?reason\b[^.;:]{0,60}?\b(?:is|was)\s+"
    r"(?:mainly|mostly|just|simply|only|really|largely|purely)\s+(?:that\s+|because\s+)?|"
    # round 12: "the real / actual / true reason" is exclusive by itself ("The real reason
    # BERT fails is size", "The actual reason BERT cannot generate is that it saw less data")
    r"\b(?:the\s+)?(?:real|actual|true)\s+reason\b[^.;:]{0,60}?\b(?:is|was)\s+"
    r"(?:that\s+|because\s+)?",
    re.IGNORECASE,
)
# the gap drawn from the other cause alone: "GPT is just much bigger, so it wins", "does the
# same, but it is much bigger ..., so its generations are coherent"
_SO_WINS = re.compile(
    r"\b(?:just|simply|mainly|mostly|only)\s+(?:\w+\s+){0,2}?(?=(?:bigger|larger|more)\b)"
    r"|\bthe same\b[^.;:]{0,20}?\bbut\b",
    re.IGNORECASE,
)
# the masked LM's failure, or the causal LM used in its place: "the reason it's worse than
# GPT", "the reason people use GPT instead", "the reason BERT struggles"; not the causal LM's
# strength alone ("the reason GPT is better is mainly that it's bigger" leaves the masked LM's
# mismatch standing)
_GAP_WORD = re.compile(
    r"\b(?:worse|instead|fails?|failing|struggl\w*|incoherent\w*)\b", re.IGNORECASE
)
_DENIED = re.compile(r"\b(?:not|no|never|rather than|instead of)\b|n't\b", re.IGNORECASE)
_OUTCOME = re.compile(
    r",?\s+so\s+(?:it|its|they|their|gpt\w*)\b[^.;:]{0,30}?\b(?:wins?|better|coherent|"
    r"generat\w*|writes?)\b",
    re.IGNORECASE,
)


def gap_put_elsewhere(an: Analysis) -> list[Claim]:
    """The generation gap put down, as its reason, to a cause that is no condition of what
    the models see: "the reason it's worse than GPT is mainly that it is smaller" (a reason
    named with an exclusive "mainly / mostly / just" and the cause within its clause), or
    "GPT is just much bigger, so it wins" (the cause alone, an outcome drawn from it). That
    says training does not tell the two models apart for generation: the C4 contrast denied."""
    prev = ""
    for f in an.sentences:
        text = f.asserted or f.sentence.norm
        m = _GAP_REASON.search(text)
        # the failure named in the reason, or in the sentence just before a bare "The real
        # reason is size" ("... they are not why BERT fails at writing. The real reason is")
        if m is not None and not _GAP_WORD.search(m.group(0)):
            bare = re.fullmatch(
                r"\W*(?:the\s+)?(?:real|actual|true)\s+reason\s+(?:is|was)\s+", m.group(0), re.I
            )
            if not (bare and _GAP_WORD.search(prev)):
                m = None  # "the reason BERT is used for tagging is mainly speed": no failure
        prev = text
        if m is not None:
            clause = re.split(r"[;:.,]", text[m.end() :], maxsplit=1)[0]
            c = _OTHER_CAUSE.search(clause)
            if c is not None and not CONDITION_WORDS.search(clause) and not _DENIED.search(clause):
                return [Claim("relation_same", BOTH, f.sentence.index, True, True, m.group(0))]
        for m in _SO_WINS.finditer(text):
            rest = re.split(r"[;:.]", text[m.end() :], maxsplit=1)[0]
            c = _OTHER_CAUSE.search(rest)
            if c is None or c.start() > 40 or CONDITION_WORDS.search(rest[: c.start()]):
                continue
            if _OUTCOME.search(rest, c.end()):
                return [Claim("relation_same", BOTH, f.sentence.index, True, True, c.group(0))]
    return []
