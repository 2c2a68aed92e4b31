"""C4 in staccato answers: verbless fragments that finish the sentence before them.

Phone-typed and terse answers cut one statement into pieces ("So training equals use. For
GPT. Not for BERT."; "It only looks left. Always. Even in training."). A fragment names no
verb of its own; it adds a model, a denial or a condition to the sentence it follows. Each
function reads `Analysis` only and returns claims for `c4.judge_c4`.
"""

from __future__ import annotations

import re

from grader.rubric.facts import CLM, MLM, Analysis, Claim, SentenceFacts
from grader.rubric.text import word_count

FRAGMENT_WORDS = 5  # "Not for BERT.", "Even in training.", "Not for the masked LM."
_ADDITIVE = re.compile(r"\b(?:too|also|even|as well|either)\b", re.IGNORECASE)


# a fragment that names whom the statement before is for: "For GPT.", "Not for the masked LM.",
# "But not for BERT."
_FOR_MODEL = re.compile(
    r"^\W*(?:(?:but|and|yet)\s+)?(?:(?:not|only|also|even|just)\s+)?for\s+\S+(?:\s+\S+){0,2}"
    r"\W*$",
    re.IGNORECASE,
)


def _fragment(f: SentenceFacts) -> bool:
    """A verbless piece of at most `FRAGMENT_WORDS` words that states nothing by itself: read
    as list-like, or naming whom the statement before is for ("For the causal LM.")."""
    if word_count(f.sentence.norm) > FRAGMENT_WORDS or f.claims:
        return False
    return f.list_like or bool(_FOR_MODEL.match(f.sentence.norm))


def fragment_subjects(
    an: Analysis, same: list[Claim], diff: list[Claim]
) -> tuple[list[Claim], list[Claim]]:
    """ "So training equals use. For GPT. Not for BERT.": a relation between training and use
    said with no model, followed by fragments that each name one model, is said of the model
    a fragment names, and its opposite of the model a fragment names with a denial ("Not for
    BERT.", "BERT not."). Up to two fragments right after the relation are read; the claims
    are placed on the relation's sentence, the statement they finish."""
    pos = {f.sentence.index: k for k, f in enumerate(an.sentences)}
    more_same: list[Claim] = []
    more_diff: list[Claim] = []
    for c in same + diff:
        if c.subject is not None:
            continue
        k = pos[c.sentence]
        if an.sentences[k].mentions:
            continue  # the relation's own sentence names its models
        prev = an.sentences[k]
        for g in an.sentences[k + 1 : k + 3]:
            if g.sentence.index != prev.sentence.index + 1 or not _fragment(g):
                break
            prev = g
            if len(g.mentions) != 1 or not g.mentions <= {MLM, CLM}:
                continue  # "Always.", "For both."
            (code,) = g.mentions
            same_kind = (c.kind == "relation_same") != g.has("negation")
            kind = "relation_same" if same_kind else "relation_diff"
            (more_same if same_kind else more_diff).append(
                Claim(kind, code, c.sentence, True, True, c.text)
            )
    return more_same, more_diff


def restriction_in_training_too(an: Analysis) -> list[Claim]:
    """ "It only looks left. Always. Even in training.": the causal LM's only-earlier
    restriction, then a fragment that adds training to it with "too" / "also" / "even", says
    the restriction holds in training as it does in the use being described: the causal side
    (the same restriction in both conditions). At most one other fragment ("Always.") may lie
    between; the fragment names no model and denies nothing."""
    out: list[Claim] = []
    facts = an.sentences
    for k, f in enumerate(facts):
        left = [
            c
            for c in f.kinds("see_left")
            if c.subject == CLM and c.strong and c.attributed and not c.gen_ctx
        ]
        if not left or f.has("training") or f.has("never_trained"):
            continue
        prev = f
        for g in facts[k + 1 : k + 3]:
            if g.sentence.index != prev.sentence.index + 1 or not _fragment(g):
                break
            if g.mentions or g.has("negation"):
                break
            prev = g
            if g.has("training") and _ADDITIVE.search(g.sentence.norm):
                out.append(Claim("relation_same", CLM, f.sentence.index, True, True, left[0].text))
                break
    return out
