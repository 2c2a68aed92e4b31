"""C4: vague comparisons between training and use.

A likeness between the training and the use ("the causal model's training looks like its
use", "is more similar to generation") names no condition: the guide's vague "training
differs from use", partial at most, and never a false claim whichever model it is said of.
"""

from __future__ import annotations

import re

from grader.rubric.facts import Claim

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
