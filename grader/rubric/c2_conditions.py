"""C2: where an availability of the later tokens is said to hold, when it is not generation.

A sentence can name generation and still put the whole text somewhere else: in training, set
against decoding ("right context was always available in training and never is at decoding"),
or in the understanding tasks the masked LM is used for ("encoders are used where the full
text is already available, such as classification"). Neither says the later tokens are
available at generation time, so neither is the C2 false claim.
"""

from __future__ import annotations

import re

from grader.rubric.facts import Claim, SentenceFacts

_AFTER = 80  # characters after the availability phrase in which its condition is named
_TIME = re.compile(r"\b(?:during|while|in|at)\s+\w+", re.IGNORECASE)


def available_elsewhere(f: SentenceFacts, c: Claim) -> bool:
    """The availability claim `c` of sentence `f` is bound to training and then denied for
    generation ("... was available during optimisation and never is during decoding": a
    training word after the phrase, then a negation, then the generation word), or it is the
    condition of an understanding use of the same model (a `used_understanding` claim in the
    sentence)."""
    norm = f.sentence.norm
    at = norm.find(c.text) if c.text else -1
    if at < 0:
        return False
    if any(u.kind == "used_understanding" and u.subject == c.subject for u in f.claims):
        return True
    end = at + len(c.text)
    train = [h.start for h in f.hits.get("training", []) if end <= h.start <= end + _AFTER]
    # "... available during optimisation and never is during decoding": a time of its own
    # before the denial, whatever word names it
    gen_at = [h.start for k in ("generation", "generation_time") for h in f.hits.get(k, [])]
    timed = [
        end + m.start()
        for m in _TIME.finditer(norm[end : end + _AFTER])
        if not any(end + m.start() <= g <= end + m.end() for g in gen_at)
    ]
    first = min(train + timed, default=None)
    if first is None:
        return False
    negs = [h.start for h in f.hits.get("negation", []) if h.start > first]
    gens = [
        h.start
        for k in ("generation", "generation_time")
        for h in f.hits.get(k, [])
        if negs and h.start > negs[0]
    ]
    return bool(negs and gens)
