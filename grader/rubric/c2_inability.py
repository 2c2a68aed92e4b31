"""C2's one half: the masked LM's inability to generate, in the words people use for it.

The guide gives C2 partial to "BERT needs the whole sentence, so it can't generate": the
reliance with its consequence, no generation condition. `criteria._c2` links an inability
(`mlm_cannot_generate`) to a reliance stated in the same or the two sentences before. Two more
shapes of that half:

- `not_built_for`: the inability said as a purpose the model lacks ("writing new text isn't
  what they're built for", "BERT isn't built for that" after a sentence part about generating,
  "the masked model just isn't meant to generate");
- `reason_about_context`: the reason given for an inability names the context itself ("because
  it always expects to have the full sentence"), so it is the reliance, not a reason of its
  own ("because it has no decoder head").
"""

from __future__ import annotations

import re

from grader.rubric.facts import CLM, MLM, Analysis, Claim, SentenceFacts

# a purpose denied: "isn't built for", "is not meant to", "aren't really designed for", and
# the relative form "(is) not what they're built for"
_PURPOSE_DENIED = re.compile(
    r"\b(?:(?:is|are|was|were)(?:n't|\s+not)|not)\s+(?:really\s+|just\s+|actually\s+|even\s+)?"
    r"(?:(?:what|something)\s+(?:it|they|bert|the model)(?:'re|'s|\s+is|\s+are|\s+was|\s+were)\s+)?"
    r"(?:built|made|meant|designed|intended|cut out)\s+(?:for|to)\b",
    re.IGNORECASE,
)
# context words a reason names when it is the reliance ("expects the full sentence")
_CONTEXT_KEYS = ("whole_seq", "future_ref", "both_sides", "earlier_ref")


def not_built_for(an: Analysis) -> list[Claim]:
    """The masked LM said not to be built / meant / designed for generating, in a sentence
    about it alone that names generation: the inability as a purpose it lacks (strong, as
    "so it can't generate" is; `criteria._c2` links it to a reliance)."""
    out = []
    for f in an.sentences:
        if f.primary != MLM or CLM in f.mentions or not f.has("generation"):
            continue
        m = _PURPOSE_DENIED.search(f.sentence.norm)
        if m is not None:
            out.append(Claim("mlm_cannot_generate", MLM, f.sentence.index, True, True, m.group(0)))
    return out


def reason_about_context(f: SentenceFacts, start: int) -> bool:
    """The reason that begins at offset `start` of sentence `f` names context: the whole
    sentence, the later or earlier tokens, both sides."""
    return any(h.start >= start for k in _CONTEXT_KEYS for h in f.hits.get(k, []))
