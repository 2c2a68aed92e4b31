"""C4's two sides said in other words: the training condition of the C2 link stated just
before it and what training had that is gone when the model is used (the masked side); the
causal LM's training restriction repeated word for word for generation (the causal side).

Each reads `Analysis` only and returns sentence indices or claims for `c4.judge_c4`.
"""

from __future__ import annotations

import re

from grader.rubric.facts import CLM, MLM, Analysis, Claim, SentenceFacts
from grader.rubric.judgement import LINK_WINDOW, Judgement


def masked_training_before(an: Analysis, c2: Judgement) -> list[int]:
    """The training condition of the C2 link said just before it, about the masked LM ("BERT
    is trained with blanks and reads both sides. ... At generation, since BERT needs the words
    that are not there yet, it fails."): a sentence about the masked LM with a training word,
    up to `LINK_WINDOW` before the link (the first one, as the quote)."""
    if not c2.evidence:
        return []
    lo = min(c2.evidence)
    return [
        f.sentence.index
        for f in an.sentences
        if lo - LINK_WINDOW <= f.sentence.index < lo
        and f.primary == MLM
        and CLM not in f.mentions
        and (f.has("training") or f.has("never_trained"))
    ][:1]


# something present in training that is gone on a later occasion: "help that is gone on
# opening night", "a crutch that disappears at test time" (not "words gone from the input":
# that is the masking itself)
_GONE_LATER = re.compile(
    r"\b(?:gone|disappears?|disappeared|vanish(?:es|ed)?|taken away|no longer there)\W+"
    r"(?:\w+\W+)?(?:on|at|when|once|during)\b",
    re.IGNORECASE,
)


def gone_at_use(an: Analysis) -> list[Claim]:
    """The masked side as what its training had and the use takes away: a sentence about the
    masked LM (named or pointed to, the causal LM not named) with a training word and
    something gone on a later occasion ("BERT's training is rehearsing with a prompter whose
    help is gone on opening night"). A difference, so never a false claim about BERT."""
    out = []
    for f in an.sentences:
        if f.primary != MLM or CLM in f.mentions or not f.has("training"):
            continue
        m = _GONE_LATER.search(f.asserted or f.sentence.norm)
        if m is not None:
            out.append(Claim("relation_diff", MLM, f.sentence.index, True, True, m.group(0)))
    return out


def _trains(f: SentenceFacts) -> bool:
    return f.has("training") or f.has("never_trained")


def same_range_twice(an: Analysis) -> list[Claim]:
    """The causal side as one restriction said twice in the same words: the causal LM's
    earlier context in a training sentence ("GPT learns to predict token i+1 from tokens <= i
    only") and the same phrase as all there is at generation, restricted ("When you sample
    you only have tokens <= i anyway"). The generation sentence must not be about the masked
    LM."""
    trained = {
        c.text.lower()
        for f in an.sentences
        if _trains(f) and not f.has("generation_time")
        for c in f.claims
        if c.kind == "uses_earlier" and c.subject == CLM and c.strong and len(c.text) > 4
    }
    out = []
    for f in an.sentences:
        if _trains(f) or not f.has("only") or MLM in f.subjects:
            continue
        for c in f.claims:
            if c.kind == "uses_earlier" and c.gen_ctx and c.subject in (None, CLM):
                if c.text.lower() in trained:
                    out.append(Claim("relation_same", CLM, f.sentence.index, True, True, c.text))
                    break
    return out
