"""Answer-wide adjustments applied after each criterion's judge (`criteria.judge_all`).

A wrong mechanism (`mechanisms.py`) or an instructor's `[[false_claims]]` pattern stated for a
criterion makes it contradicted (conflicted when the answer also earned credit on it); a
criterion found only in list-like sentences earns partial at most.
"""

from __future__ import annotations

import re

from grader.rubric.analysis import CLM, MLM, Analysis
from grader.rubric.judgement import CONF_CONFLICTED, CONF_CONTRADICTED, CONF_PARTIAL, Judgement
from grader.rubric.model import Rubric

__all__ = ["apply_false_claims", "apply_list_mentions", "apply_wrong_mechanisms"]

# -- answer-wide adjustments ------------------------------------------------------------------
# Wrong-mechanism families (`mechanisms.py`) -> (criterion, rubric.claims key).
_WRONG: dict[str, tuple[str, str]] = {
    "wrong_mlm_causal": ("C1", "mlm_causal"),
    "wrong_mlm_trailing_mask": ("C2", "mlm_trailing_mask"),
    "wrong_mlm_no_problem": ("C2", "mlm_no_problem"),
    "wrong_mlm_trained_generation": ("C2", "mlm_consistent"),  # its message says it for C2 too
    "wrong_clm_fills_blanks": ("C3", "clm_fills_blanks"),
    "wrong_mlm_generates_well": ("C5", "mlm_generation"),
    "wrong_arch_swap": ("C5", "arch_swap"),
    "wrong_clm_cannot_generate": ("C5", "clm_cannot_generate"),
}
_RETRACT = re.compile(r"^\W*(?:but|however|yet|except|unfortunately|sadly|in practice)\b", re.I)
# round 9: after a pasted output ("the . . , , the"), the sentence that names the experiment's
# failure ("The problem is that ...") retracts the loop as well
_FAILURE_NAMED = re.compile(
    r"^\W*(?:the|one|my|our)\s+(?:\w+\s+)?(?:problem|trouble|issue|catch)\s+(?:is|was)\b", re.I
)
_WORD3 = re.compile(r"[A-Za-z]{3,}")


def apply_wrong_mechanisms(cid: str, j: Judgement, an: Analysis) -> Judgement:
    """A wrong mechanism stated for this criterion makes it contradicted (conflicted when the
    answer also earned credit on it). A trailing-[MASK] claim the next sentence retracts ("But
    the words it picks are poor ...") is an experiment described, not a claim."""
    if j.verdict == "contradicted":
        return j
    opens = {s.sentence.index: s.sentence.norm for s in an.sentences}
    for s in an.sentences:
        for c in s.claims:
            if _WRONG.get(c.kind, ("", ""))[0] != cid:
                continue
            if c.kind == "wrong_mlm_trailing_mask" and _retracted(c.sentence, opens):
                continue
            supported = j.verdict in ("met", "partial")
            conf = CONF_CONFLICTED if supported else CONF_CONTRADICTED
            return Judgement("contradicted", (c.sentence,), conf, _WRONG[c.kind][1], supported)
    return j


def _retracted(k: int, opens: dict[int, str]) -> bool:
    """The sentence after `k` retracts it, or, past a pasted output of a few words, the one
    after that retracts it or names the failure."""
    if _RETRACT.match(opens.get(k + 1, "")):
        return True
    if k + 1 not in opens or len(_WORD3.findall(opens[k + 1])) >= 3:
        return False
    after = opens.get(k + 2, "")
    return bool(_RETRACT.match(after) or _FAILURE_NAMED.match(after))


def apply_false_claims(cid: str, j: Judgement, an: Analysis, rubric: Rubric) -> Judgement:
    """Instructor-supplied false-claim patterns override the judge (they are explicit)."""
    for fc in rubric.false_claims:
        if fc.criterion != cid:
            continue
        for s in an.sentences:
            # what the student reports, quotes, asks or takes back is no claim of theirs
            m = fc.pattern.search(s.asserted or s.sentence.norm)
            if m and not (_DENIED.search(m.group(0)) and not _DENIED.search(fc.pattern.pattern)):
                # ("BERT cannot be used as a decoder" denies what the pattern claims, unless
                # the pattern is itself a denial)
                supported = j.verdict in ("met", "partial")
                conf = CONF_CONFLICTED if supported else CONF_CONTRADICTED
                return Judgement("contradicted", (s.sentence.index,), conf, fc.claim, supported)
    return j


_DENIED = re.compile(r"\b(?:not|never|cannot|no longer)\b|n't\b", re.IGNORECASE)


# Terms that, found in list-like sentences, show the student knows the vocabulary of a
# criterion: worth partial credit at most.
_LIST_TERMS: dict[str, tuple[tuple[str, ...], ...]] = {
    "C1": (("masked_model", "both_sides"), ("predict_masked",), ("both_sides",)),
    "C2": (("left_to_right", "generation"), ("absent", "future_ref")),
    "C3": (("causal_mask",), ("predict_next",), ("one_direction",), ("only", "earlier_ref")),
    "C4": (
        ("training", "diff_relation", "generation"),
        ("training", "same_relation", "generation"),
    ),
    "C5": (("understanding",),),
}


def apply_list_mentions(cid: str, j: Judgement, an: Analysis) -> Judgement:
    if j.verdict != "missing":
        return j
    # a term attached to one model ("MLM: fill blanks") is a telegraphic claim; a list that
    # runs through both families (or names none) is a keyword salad and earns nothing
    listy = [s for s in an.sentences if s.list_like and len(s.mentions & {MLM, CLM}) == 1]
    if not listy:
        return j
    present = {k for s in listy for k, v in s.hits.items() if v}
    for combo in _LIST_TERMS.get(cid, ()):
        if all(k in present for k in combo):
            ev = next(s.sentence.index for s in listy if any(s.has(k) for k in combo))
            return Judgement("partial", (ev,), CONF_PARTIAL - 0.1)
    return j
