"""Grammatical keyword salads: sentences built from templates ("X uses Y, therefore Z has W",
"A relies on B, so C") filled with the course's keywords. Each clause reads as English and
names the right concepts, so the claim extractors credit them; what gives them away is what
a real argument never does:

- an **incoherent link**: a "so" / "because" / "therefore" whose cause clause is only about
  one family (the masked LM and what it does: both sides, blanks, understanding tasks) and
  whose effect clause is only about the other (the causal LM: earlier tokens, the causal mask,
  next-word prediction, generation as a use), with no negation to make it a contrast
  ("BERT predicts the masked tokens, therefore GPT uses a causal mask");
- an **inverted link**: a model's property given as the cause of the generation condition
  ("BERT relies on the later tokens, so generation does not exist yet"): the later tokens are
  missing because generation goes left to right, whatever the model (an effect that points
  back at the model, "so they are unknown to it", is what the model lacks: an argument);
- a **crossed claim**: a property of one family asserted of the other model ("GPT relies on
  the later tokens", "BERT uses a causal mask"), or a wrong mechanism from the catalogue;
- **every sentence a link**: a template repeated, each sentence joined by a causal word.

`salad_signal` counts them from the claims `analysis.py` already extracted. On the 542
labelled answers one answer has two such signs (it scores under 5 and is already flagged); a
seeded generator of template salads (`tests/rubric/salads.py`) has them in most salads. The
answer is flagged for review with its confidence capped; no verdict changes, so a real answer
that trips it loses no points and a person decides.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from grader.rubric.facts import CLM, MLM, Analysis, SentenceFacts

# lexicon keys that belong to one family's side of the argument (shared conditions such as
# generation time, absence, training or "later tokens" belong to neither)
_MASKED_SIDE = ("masked_model", "both_sides", "whole_seq", "predict_masked", "understanding")
_CAUSAL_SIDE = (
    "causal_model", "earlier_ref", "causal_mask", "one_direction", "predict_next",
    "left_to_right",
)  # fmt: skip
# ("generation" as a use is left out: the same word names the condition, "the mismatch between
# training and generation")
_CONDITION_KEYS = ("absent", "generation", "generation_time", "training")
# claim kinds that state one family's property
_MASKED_KINDS = frozenset(
    "see_both predicts_masked mlm_relies never_trained used_understanding relation_diff".split()
)
_CAUSAL_KINDS = frozenset(
    "see_left predicts_next causal_mask used_generation relation_same left_to_right".split()
)
_WRONG_KINDS = frozenset("wrong_clm_fills_blanks wrong_mlm_causal wrong_mlm_generates_well".split())
_FORWARD = re.compile(r"so|therefore|hence|thus|which is why|that is why|that's why", re.I)
# an effect clause that points back at the model ("so the future is unknown to it", "so it
# relies on tokens that do not exist yet") says what the model lacks: an argument
_BACK_TO_MODEL = re.compile(r"\b(?:it|its|itself|they|them|their)\b", re.IGNORECASE)
_LINK = re.compile(
    r"\b(?:so|therefore|because|hence|thus|since|which is why|that is why|that's why)\b",
    re.IGNORECASE,
)
# thresholds (measured on the labelled sets and the seeded salads; see docs/rubric.md)
INCOHERENT_LINKS = 2  # this many incoherent links alone
CROSSED_WITH_LINK = 2  # one incoherent link plus this many crossed claims
LINKED_SENTENCES = 4  # one incoherent link plus a causal word in this many sentences ...
LINKED_SHARE = 0.8  # ... and in this share of all sentences
CROSSED_TEMPLATED = 3  # or no incoherent link, this many crossed claims and every-sentence links


@dataclass(frozen=True)
class SaladSignal:
    incoherent_links: int
    crossed_claims: int
    linked_sentences: int
    sentences: int

    @property
    def high(self) -> bool:
        """True when the answer reads as a template salad (the thresholds above)."""
        if self.incoherent_links >= INCOHERENT_LINKS:
            return True
        templated = (
            self.linked_sentences >= LINKED_SENTENCES
            and self.linked_sentences >= LINKED_SHARE * self.sentences
        )
        if self.incoherent_links < 1:
            return templated and self.crossed_claims >= CROSSED_TEMPLATED
        return templated or self.crossed_claims >= CROSSED_WITH_LINK


def _incoherent_links(f: SentenceFacts) -> int:
    """Links in `f` whose cause and effect clauses lie on opposite families' sides, or whose
    effect is the absence at generation and whose cause only a model's property."""
    if f.list_like or f.has("other_model") or not _LINK.search(f.sentence.norm):
        return 0  # a sentence about another architecture (XLNet, T5) is about neither family
    sides = [
        (h.start, side)
        for side, keys in ((MLM, _MASKED_SIDE), (CLM, _CAUSAL_SIDE))
        for k in keys
        for h in f.hits.get(k, [])
        if not any(a <= h.start < b for a, b in f.compared)
    ]
    negations = [h.start for h in f.hits.get("negation", [])]
    links = list(_LINK.finditer(f.sentence.norm))
    bounds = [0, *(m.start() for m in links), len(f.sentence.norm)]
    conditions = [h.start for k in _CONDITION_KEYS for h in f.hits.get(k, [])]
    absences = [h.start for h in f.hits.get("absent", [])]
    n = 0
    for k, m in enumerate(links):
        lo, hi = bounds[k], bounds[k + 2]
        if (
            _FORWARD.fullmatch(m.group(0))
            and any(lo <= p < m.start() for p, _ in sides)
            and not any(lo <= p < m.start() for p in conditions)
            and any(m.end() <= p < hi for p in absences)
            and not any(m.end() <= p < hi for p, _ in sides)
            and not _BACK_TO_MODEL.search(f.sentence.norm, m.end(), hi)
        ):
            n += 1
            continue
        if any(lo <= p < hi for p in negations):  # "so it cannot ...": a contrast, not a salad
            continue
        cause = {s for p, s in sides if lo <= p < m.start()}
        effect = {s for p, s in sides if m.end() <= p < hi}
        n += len(cause) == 1 and len(effect) == 1 and cause != effect
    return n


def _crossed(f: SentenceFacts) -> int:
    return sum(
        c.attributed
        and (
            c.kind in _WRONG_KINDS
            or (c.subject == CLM and c.kind in _MASKED_KINDS)
            or (c.subject == MLM and c.kind in _CAUSAL_KINDS)
        )
        for c in f.claims
    )


def salad_signal(an: Analysis) -> SaladSignal:
    """Count the signs of a template salad in the analysed sentences (skipped ones excluded)."""
    return SaladSignal(
        incoherent_links=sum(_incoherent_links(f) for f in an.sentences),
        crossed_claims=sum(_crossed(f) for f in an.sentences),
        linked_sentences=sum(bool(_LINK.search(f.sentence.norm)) for f in an.sentences),
        sentences=len(an.sentences),
    )
