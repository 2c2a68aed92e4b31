"""C4: whether the two sides of an implied comparison are set against each other.

The C2 link (the masked LM trained with the later tokens, which generation lacks) and the
causal LM's only-earlier restriction stated next to it are each one side of the comparison.
Said one after the other as two descriptions ("BERT was never trained without the right side.
GPT predicts from only the earlier tokens.") they leave the comparison to the reader: one side
(guide: "one side only" is partial). An explicit contrast between them ("GPT, by contrast,
...", "unlike BERT", "GPT has no such problem", both models in the causal sentence) makes the
comparison the student's own (guide: "one side plus an explicit contrast with the other model
counts").
"""

from __future__ import annotations

import re

from grader.rubric.facts import CLM, MLM, Analysis, Claim

# contrast markers between the two models ("while" only as a conjunction, not "while
# generating")
CONTRAST = re.compile(
    r"\b(?:unlike|whereas|by contrast|in contrast|contrary to|instead|on the other hand|"
    r"however|conversely|as opposed to|no such|the opposite|(?:is|are) different|"
    r"differs?|different(?:ly)?|rather)\b|(?:^|[,;:]\s*)but\b|"
    r"\bwhile\b(?!\s+(?:\w+ing|it|they|we|you|the model|generat\w*|writ\w*|train\w*)\b)|"
    r"\b(?:no|not|n't|never)\W+(?:\w+\W+){0,3}?(?:problem|issue|trouble|mismatch|gap)\b",
    re.IGNORECASE,
)


def sides_contrasted(an: Analysis, link: tuple[int, ...], near: int) -> bool:
    """The causal sentence `near` sets itself against the masked side of the link: a contrast
    marker in it (or at the head of the link's last sentence when that is the causal one), or
    both models named in it."""
    f = next((s for s in an.sentences if s.sentence.index == near), None)
    if f is None:
        return False
    if {MLM, CLM} <= f.mentions:
        return True
    return bool(CONTRAST.search(f.sentence.norm))


# a likeness without its condition: "training is more similar to generation", "looks like its
# use" (and "closer to", "resembles" if an instructor adds them to the lexicon)
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
