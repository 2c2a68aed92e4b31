"""C2: where an availability of the later tokens is said to hold, when it is not generation.

A sentence can name generation and still put the whole text somewhere else: in training, set
against decoding ("right context was always available in training and never is at decoding"),
or in the understanding tasks the masked LM is used for ("encoders are used where the full
text is already available, such as classification"). Neither says the later tokens are
available at generation time, so neither is the C2 false claim.
"""

from __future__ import annotations

import re

from grader.rubric.facts import BOTH, CLM, MLM, Analysis, Claim, SentenceFacts

# "BERT is bidirectional": the family's label, not what it relies on
BARE_LABEL = re.compile(r"^\s*(?:bi ?directional|non[\s-]*causal)(?:ly|ity)?\s*$", re.IGNORECASE)
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


def reliance_claims(an: Analysis) -> list[Claim]:
    """What the masked LM is said to rely on: its two-sided view (not the bare label
    "bidirectional"), "relies on / needs", "never trained without them"."""
    return (
        [
            c
            for c in an.claims("see_both")
            if c.subject in (MLM, BOTH) and (c.strong or not BARE_LABEL.match(c.text))
        ]
        + an.claims("mlm_relies")
        + [c for c in an.claims("never_trained") if c.subject in (MLM, BOTH)]
    )


def one_half_only(an: Analysis) -> bool:
    """The answer says at most one half of the C2 link anywhere: no absence of the later tokens
    at generation, or nothing at all about what the masked LM does with its context (no view,
    reliance or training gap of its; the blank-filling task alone, "BERT fills in the blank",
    names the objective, not the later tokens it draws on). Then no reading of the answer, however
    well its words co-occur, can find the whole link ("BERT needs the whole sentence, so it
    cannot generate" has no generation condition; "when writing, the future does not exist
    yet" said beside the causal LM alone has no masked side)."""
    kinds = ("mlm_relies", "never_trained")
    # the family's label "BERT is bidirectional" says no view (as in `reliance_claims`)
    views = [c for c in an.claims("see_both") if c.strong or not BARE_LABEL.match(c.text)]
    masked_side = (
        bool(views)
        or any(an.claims(k) for k in kinds)
        or any(
            MLM in f.mentions and any(not BARE_LABEL.match(h.text) for h in f.hits.get(k, []))
            for f in an.sentences
            for k in ("both_sides", "whole_seq")
        )
    )  # a note's "BERT: both sides" says the view without a claim's grammar
    return not an.claims("future_absent") or not masked_side


# the train / generation gap named as such ("mismatch", "train/test gap", "exposure bias")
_GAP = re.compile(
    r"\b(?:mis-?match\w*|gap|exposure bias|train(?:ing)?\s*/\s*(?:test|gen\w*|inference))\b",
    re.IGNORECASE,
)

_EXPLICIT = ("mlm_relies", "never_trained")
# the causal LM singled out as the one the gap belongs to
_CLEFT = re.compile(
    r"\b(?:(?:it'?s|it\s+is|it\s+was)\s+(?:actually\s+|really\s+)?(?:the\s+)?[\w-]+(?:\s+[\w-]+)?"
    r"\s+(?:that|which|who)|(?:is|are|was|were)\s+(?:actually\s+|really\s+)?the\s+ones?)\b",
    re.IGNORECASE,
)


def link_denied(an: Analysis) -> list[int]:
    """Sentences that give the train / generation gap to the causal LM, singled out as the
    one that has it ("so actually it's GPT that has the mismatch", "ProtGPT2 is the one with
    the train/test gap"): the later tokens' absence and the masked LM's two-sided view may
    both be stated, but the answer draws from them no condition the masked LM never trained
    for; it puts the gap on the other model, so the C2 link is at most partial. An answer that
    states the masked LM's dependence itself (`mlm_relies`, `never_trained`: "it always had
    the right side and never learned without it") has drawn the link, and is not read so."""
    if any(c.kind in _EXPLICIT for c in reliance_claims(an)):
        return []
    out: set[int] = set()
    for f in an.sentences:
        for c in f.kinds("relation_diff"):
            if c.subject != CLM or not c.strong or not _GAP.search(c.text):
                continue
            at = f.sentence.norm.find(c.text)
            # given as a correction, a cleft before the gap ("it's GPT that has the mismatch",
            # "GPT is the one with the gap"), not negated before it ("GPT has no mismatch")
            head = f.sentence.norm[:at]
            if _CLEFT.search(head) and not any(h.start < at for h in f.hits.get("negation", [])):
                out.add(f.sentence.index)
    return sorted(out)
