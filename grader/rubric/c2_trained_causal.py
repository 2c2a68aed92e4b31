"""The masked LM trained as a causal LM, and fit for generation by it: a C2 false claim.

`mechanisms.mlm_causal` finds the masked LM described as a causal LM ("predicts the next word",
"a causal mask", "reads left to right"): a false claim about what it sees (C1). When that
mechanism is what the masked LM is said to be *trained* with ("BERT is trained left to right to
predict the next word", "BERT is pretrained with a causal mask") and the answer also says the
masked LM's training matches generation or that it writes well ("so BERT's training matches
generation", "the model trained that way - BERT - can write coherently"), the two together are
the guide's C2 false claim: the masked LM is trained for left-to-right generation. The
swapped-roles answer ("GPT fills the blanks using both sides; BERT is trained to predict the
next word, so it matches generation") states it. The causal training alone ("BERT is trained
left to right") is measured to be the C1 slip only, and so is the mechanism without training
("BERT reads left to right, so it only uses the earlier words when filling the gap").

The training word must be in the mechanism's clause, said of the masked LM (or of both models),
asserted: not negated, not fine-tuning, not under a modal or possibility ("could be trained to
predict the next word"), and before the mechanism or right after it ("... with a causal mask
during pre-training").
"""

from __future__ import annotations

import re

from grader.rubric.facts import BOTH, MLM, Analysis, Claim, Hit
from grader.rubric.judgement import CONF_CONFLICTED, CONF_CONTRADICTED, Judgement
from grader.rubric.polarity import inside
from grader.rubric.sentence import ParsedSentence

# the mechanism's hits, as `mechanisms.mlm_causal` reads them
_CAUSAL_KEYS = ("predict_next", "causal_mask", "left_to_right")
# a possibility or a supposition before the training word: no claim of how it was trained
_POSSIBLE = frozenset(
    "can could would might may should must if unless when whenever suppose imagine".split()
)
# fine-tuning is a later use, not the training the guide means
_FINE_TUNED = re.compile(r"^fine", re.IGNORECASE)
# a training phrase after the mechanism, in its clause: "... masked during pre-training"
_DURING = re.compile(
    r"^\W*(?:\w+\W+){0,2}?(?:during|in|for|at)\W+(?:its\W+|the\W+)?(?:pre\W?)?training\b", re.I
)
_WINDOW = 6  # tokens from the training word to the mechanism


def _mechanism_hit(ss: ParsedSentence, text: str) -> Hit | None:
    for key in _CAUSAL_KEYS:
        for h in ss.hits.get(key, []):
            if h.text == text:
                return h
    return None


def _trained(ss: ParsedSentence, t: Hit) -> bool:
    """`t` is a training word asserted of the masked LM (or of both models)."""
    if _FINE_TUNED.match(t.text) or inside(t.start, ss.unasserted):
        return False
    before = [w.lower() for _, _, w in ss.toks[max(0, t.tok - 3) : t.tok]]
    if any(w in _POSSIBLE for w in before) or ss.negated(t):
        return False
    return ss.subject_at(t.start, t.end) in (MLM, BOTH)


def trained_causal(ss: ParsedSentence, found: list[Claim]) -> list[Claim]:
    """A `wrong_mlm_trained_causal` claim when the sentence's `wrong_mlm_causal` mechanism is
    what the masked LM is said to be trained with (`swapped_training` judges it)."""
    causal = next((c for c in found if c.kind == "wrong_mlm_causal"), None)
    h = _mechanism_hit(ss, causal.text) if causal is not None else None
    if h is None:
        return []
    for t in ss.hits.get("training", []):
        if not ss.same_clause(t, h) or not _trained(ss, t):
            continue
        ahead = t.end <= h.start and h.tok - t.tok_end <= _WINDOW
        after = h.end <= t.start and _DURING.match(ss.sent.norm[h.end : t.end + 1]) is not None
        if ahead or after:
            return [Claim("wrong_mlm_trained_causal", MLM, ss.sent.index, True, True, h.text)]
    return []


def _fit_for_generation(an: Analysis) -> bool:
    """The answer says the masked LM's training matches generation, or that it generates well
    / is used to generate."""
    return any(c.subject == MLM and c.gen_ctx for c in an.claims("relation_same")) or any(
        c.subject == MLM for c in an.claims("wrong_mlm_generates_well")
    )


def swapped_training(c2: Judgement, an: Analysis) -> Judgement:
    """C2 contradicted when the masked LM is said to be trained as a causal LM and the answer
    draws the generation consequence of that training (its training matches generation, it
    writes well): together they say the masked LM is trained for left-to-right generation.
    The causal training alone ("BERT is trained left to right") is the C1 slip only."""
    wrong = an.claims("wrong_mlm_trained_causal")
    if not wrong or c2.verdict == "contradicted" or not _fit_for_generation(an):
        return c2
    supported = c2.verdict in ("met", "partial")
    conf = CONF_CONFLICTED if supported else CONF_CONTRADICTED
    return Judgement("contradicted", (wrong[0].sentence,), conf, "mlm_consistent", supported)
