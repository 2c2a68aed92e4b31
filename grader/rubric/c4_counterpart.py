"""C4: the second half of a contrast said of the other model.

"So its practice and its job are the same thing, while the detective's practice always had the
complete scene, which the job never gives": one sentence gives a model a sameness of training
and use, then, after a contrast word, a difference. The pronoun before the first half is the
model just named; the second half, set against it and not naming that model again, is about
its counterpart (an analogy's other figure, "the other one"). One model cannot both train as it
is used and not; read so, the sentence compares the two models and makes no false claim.
"""

from __future__ import annotations

import re
from dataclasses import replace

from grader.rubric.facts import CLM, MLM, MODEL_KEYS, Analysis, Claim

_CONTRAST = re.compile(r"\b(?:while|whereas|but|unlike|by contrast|in contrast)\b", re.IGNORECASE)
_OTHER = {CLM: MLM, MLM: CLM}


def counterpart_halves(
    an: Analysis, same: list[Claim], diff: list[Claim]
) -> tuple[list[Claim], list[Claim]]:
    """`same` and `diff` with the later half of each "A is the same, while B ... differs"
    sentence (or the reverse) given to the other model, carried (`attributed=False`): the
    later relation follows a contrast word that follows the earlier one, and the clause after
    the contrast word names no model of its own."""
    facts = {f.sentence.index: f for f in an.sentences}
    moved: dict[int, Claim] = {}
    for a in same + diff:
        for b in same + diff:
            if a.kind == b.kind or a.sentence != b.sentence or a.subject != b.subject:
                continue
            if a.subject not in _OTHER or id(b) in moved:
                continue
            f = facts[a.sentence]
            norm = f.sentence.norm
            ia, ib = norm.find(a.text), norm.find(b.text)
            if not a.text or not b.text or ia < 0 or ib <= ia:
                continue
            m = _CONTRAST.search(norm, ia + len(a.text), ib)
            if m is None:
                continue
            if any(m.start() <= h.start for k in MODEL_KEYS.values() for h in f.hits.get(k, [])):
                continue  # the second clause names a model itself: its own subject stands
            moved[id(b)] = replace(b, subject=_OTHER[a.subject], attributed=False)
    return [moved.get(id(c), c) for c in same], [moved.get(id(c), c) for c in diff]
