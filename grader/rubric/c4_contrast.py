"""C4: vague comparisons between training and use.

A likeness between the training and the use ("the causal model's training looks like its
use", "is more similar to generation") names no condition: the guide's vague "training
differs from use", partial at most, and never a false claim whichever model it is said of.
"""

from __future__ import annotations

import re
from dataclasses import replace

from grader.rubric.facts import BOTH, CLM, MLM, MODEL_KEYS, Analysis, Claim

# a likeness without its condition: "training looks like its use" (and "more similar to",
# "closer to", "resembles" if an instructor adds them to the lexicon)
VAGUE = re.compile(
    r"(?:more |very |quite )?similar to|closer to|resembl\w*|looks? (?:just )?like .*",
    re.IGNORECASE,
)


def vague_relations(rels: list[Claim]) -> tuple[list[Claim], list[Claim]]:
    """The relations split into those that state a sameness or difference and the vague
    likenesses (guide: a vague "training differs from use" is partial): a likeness earns a
    partial on its own and never makes a false claim, whichever model it is said of."""
    vague = [c for c in rels if VAGUE.fullmatch(c.text.strip())]
    return [c for c in rels if c not in vague], vague


# "the difference is only that GPT is bigger", "the main difference is that BERT has more
# parameters": what the difference consists in, said as a property of one model
_DIFFERENCE_IS = re.compile(
    r"\b(?P<head>differences?)\s+(?:\w+\s+){0,3}?(?:is|are|lies|was)\s+(?:\w+\s+){0,2}?"
    r"(?:that|in)\s+(?P<rest>[^.;]*)",
    re.IGNORECASE,
)
# a property by which two models differ that is no condition of training or use
_PROPERTY = re.compile(
    r"\b(?:bigger|larger|smaller|faster|slower|newer|older|deeper|more (?:data|parameters|"
    r"params|layers|compute|money)|(?:model )?size|scale)\b",
    re.IGNORECASE,
)
# words naming what a model sees or is given, or the train/use relation itself
_CONDITION = re.compile(
    r"\b(?:context|tokens?|words?|positions?|left|right|future|later|earlier|previous|"
    r"prefix|sides?|blanks?|see|sees|saw|seen|visible|attend\w*|bidirectional|causal|mask\w*|"
    r"hidden|direction\w*|mismatch|same|match\w*|used|use|generation time|inference)\b",
    re.IGNORECASE,
)


def model_differences(an: Analysis, diff: list[Claim]) -> list[Claim]:
    """ "The difference is that the causal LM ..., while the masked LM ...": a difference
    whose complement sets the two models side by side is what sets them apart, not a gap
    between the causal LM's training and its use, so the difference word is no mismatch of
    the causal LM (what the complement says of each model is read by its own words). One
    that names a property and no condition ("The difference is only that the causal LM is
    bigger and trained on more data, so it generates better") compares no training with any
    use at all, so it is dropped."""
    out = []
    for c in diff:
        f = an.fact(c.sentence)
        m = _DIFFERENCE_IS.search(f.sentence.norm)
        if m is None or c.text.lower() != m.group("head").lower():
            out.append(c)
            continue
        a, b = m.start("rest"), m.end("rest")
        rest = list(m.group("rest"))
        named = set()
        for code, key in MODEL_KEYS.items():  # the models' names are no condition
            for h in f.hits.get(key, []):
                if a <= h.start < b:
                    named.add(code)
                for i in range(max(h.start, a), min(h.end, b)):
                    rest[i - a] = " "
        text = "".join(rest)
        if _PROPERTY.search(text) and not _CONDITION.search(text):
            continue
        between = c.subject == CLM and named >= {MLM, CLM}
        out.append(replace(c, subject=None, attributed=False) if between else c)
    return out


# the two models said to share one training condition: "the two models have the same training
# condition", "both are trained under the same conditions", "BERT and GPT share the same
# training context" (a condition: what is seen, not the data or the objective's name)
_SAME_CONDITION = re.compile(
    r"\b(?:both(?:\s+(?:models|families|of them))?|the two(?:\s+(?:models|families|lms))?|"
    r"bert and gpt|gpt and bert)\s+(?:\w+\s+){0,2}?"
    r"(?:have|has|share|get|got|see|use|are trained (?:under|with|in|on)|train (?:under|with|in))"
    r"\s+(?:exactly\s+|basically\s+|essentially\s+)?the\s+(?:very\s+)?same\s+"
    r"(?:training\s+|pre-?training\s+)?(?:conditions?|setups?|settings?|contexts?|restrictions?|"
    r"visibility|view|regime)\b",
    re.IGNORECASE,
)
_NEGATED = re.compile(r"\b(?:not|never|no|n't|neither|nor)\b|n't\b", re.IGNORECASE)


def same_condition_for_both(an: Analysis) -> list[Claim]:
    """The two models said to train under one condition ("..., which is why the two models
    have the same training condition"): the masked LM trains under the causal LM's condition,
    the one it generates under, so it has no mismatch (`mlm_consistent`). Only when the
    student asserts it (not denied, reported or asked) and the sameness is of a condition,
    not of the data or the recipe ("both are trained on the same text")."""
    out = []
    for f in an.sentences:
        text = f.asserted or f.sentence.norm
        m = _SAME_CONDITION.search(text)
        if m is None or _NEGATED.search(text, max(0, m.start() - 20), m.end()):
            continue
        out.append(Claim("relation_same", BOTH, f.sentence.index, True, True, m.group(0)))
    return out
