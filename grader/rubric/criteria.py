"""Judge each rubric criterion from the claims `analysis.py` extracted.

The rule behind every judge is the same: **met** needs the right concepts *linked* - attributed
to the right model in one sentence, or joined across adjacent sentences by the relation the
criterion is about; a concept mentioned without that link is at most **partial**; an explicit
false statement is **contradicted** (and if the answer also states the right thing, the
judgement is marked `conflicted` so an instructor looks). Terms that only occur in list-like
sentences ("BERT, bidirectional, causal mask, ...") count as mentions, never as links.

Judges are keyed by criterion id (C1-C5). A criterion the rubric defines but no judge knows is
reported as missing and flagged for review by the scorer.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from grader.report import Verdict
from grader.rubric.analysis import BOTH, CLM, MLM, Analysis, Claim
from grader.rubric.model import Rubric

CONF_MET_SAME = 0.9  # concepts linked inside one sentence
CONF_MET_LINKED = 0.8  # linked across adjacent sentences
CONF_PARTIAL = 0.7
CONF_MISSING = 0.85
CONF_MISSING_NEAR = 0.7  # related words present, but nothing that counts
CONF_CONTRADICTED = 0.75
CONF_CONFLICTED = 0.45  # the answer both states and contradicts the point
LINK_WINDOW = 2  # sentences apart that a "what generation lacks" / "what MLM relied on" pair may be


@dataclass(frozen=True)
class Judgement:
    """A verdict with the sentences (indices) that earned it and how sure the judge is."""

    verdict: Verdict
    evidence: tuple[int, ...] = ()
    confidence: float = CONF_MISSING
    claim: str | None = None  # key of rubric.claims for a contradicted verdict
    conflicted: bool = False


KNOWN_CRITERIA: tuple[str, ...] = ("C1", "C2", "C3", "C4", "C5")


def judge_all(an: Analysis, rubric: Rubric) -> dict[str, Judgement]:
    """Judgements for every criterion id that has a judge (C1-C5)."""
    out: dict[str, Judgement] = {}
    out["C1"] = _c1(an)
    out["C2"] = _c2(an)
    out["C3"] = _c3(an, implied=_clm_trains_as_generates(an) is not None)
    out["C4"] = _c4(an, out["C2"], out["C3"])
    out["C5"] = _c5(an)
    for cid, j in list(out.items()):
        out[cid] = _apply_wrong_mechanisms(cid, j, an)
        out[cid] = _apply_false_claims(cid, out[cid], an, rubric)
        out[cid] = _apply_list_mentions(cid, out[cid], an)
    return out


# -- helpers --------------------------------------------------------------------------------
def _of(claims: Iterable[Claim], *subjects: object) -> list[Claim]:
    return [c for c in claims if c.subject in subjects]


def _idx(claims: Iterable[Claim]) -> tuple[int, ...]:
    return tuple(sorted({c.sentence for c in claims}))


def _first(claims: list[Claim]) -> tuple[int, ...]:
    return (min(c.sentence for c in claims),) if claims else ()


def _missing(an: Analysis, near_keys: tuple[str, ...]) -> Judgement:
    near = any(s.has(k) for s in an.sentences for k in near_keys)
    return Judgement("missing", (), CONF_MISSING_NEAR if near else CONF_MISSING)


def _contradicted(claims: list[Claim], key: str, supported: bool) -> Judgement:
    return Judgement(
        "contradicted",
        _first(claims),
        CONF_CONFLICTED if supported else CONF_CONTRADICTED,
        claim=key,
        conflicted=supported,
    )


# -- C1: masked LM sees both sides ------------------------------------------------------------
def _c1(an: Analysis) -> Judgement:
    # what the masked LM is wrongly said to have at generation time is no C1 evidence
    wrong_at_gen = {c.sentence for c in an.claims("future_available") if c.gen_ctx}
    both = [c for c in _of(an.claims("see_both"), MLM, BOTH) if c.sentence not in wrong_at_gen]
    strong = [c for c in both if c.strong]
    contra = [c for c in _of(an.claims("see_left"), MLM, BOTH) if not c.gen_ctx and c.attributed]
    if contra:
        return _contradicted(contra, "mlm_left_only", bool(strong))
    if strong:
        return Judgement("met", _first(strong), CONF_MET_SAME)
    weak = (
        both
        + _of(an.claims("predicts_masked"), MLM, None)
        + [c for c in _of(an.claims("see_both"), None) if c.strong and not c.gen_ctx]
    )
    if weak:
        return Judgement("partial", _first(weak), CONF_PARTIAL)
    return _missing(an, ("masked_model", "both_sides"))


# -- C2: generation lacks the later tokens the masked LM relied on ----------------------------
def _c2(an: Analysis) -> Judgement:
    contra = [c for c in an.claims("future_available") if c.gen_ctx]
    absent = an.claims("future_absent")
    reliance = (
        _of(an.claims("see_both"), MLM, BOTH)
        + an.claims("mlm_relies")
        + _of(an.claims("never_trained"), MLM, BOTH)
    )
    rel_idx = {c.sentence for c in reliance}
    explicit = {c.sentence for c in reliance if c.kind in ("mlm_relies", "never_trained")}
    link: tuple[int, ...] = ()
    for a in absent:
        # closest first; at equal distance prefer "relied on" / "never trained" sentences,
        # which state the dependence, over a plain "sees both sides" (the better quote)
        near = sorted(rel_idx, key=lambda i: (abs(i - a.sentence), i not in explicit, i))
        near = [i for i in near if abs(i - a.sentence) <= LINK_WINDOW]
        if near:
            link = tuple(sorted({a.sentence, near[0]}))
            break
    if not link and rel_idx:
        mentions = {s.sentence.index for s in an.sentences if MLM in s.mentions}
        named = [a for a in absent if a.sentence in mentions]
        if named:
            link = (named[0].sentence,)
    if contra:
        return _contradicted(contra, "future_at_generation", bool(link))
    if link:
        gap = link[-1] - link[0]
        conf = (
            CONF_MET_SAME if gap == 0 else CONF_MET_LINKED if gap == 1 else CONF_MET_LINKED - 0.05
        )
        return Judgement("met", link, conf)
    cannot = [c for c in an.claims("mlm_cannot_generate") if c.strong]
    cannot_linked = [c for c in cannot if any(0 <= c.sentence - i <= 2 for i in rel_idx)]
    partial = absent + an.claims("generation_left_to_right") + cannot_linked
    if partial:
        return Judgement("partial", _first(partial), CONF_PARTIAL - 0.05)
    return _missing(an, ("generation", "left_to_right"))


# -- C3: causal LM sees only earlier tokens ---------------------------------------------------
def _clm_trains_as_generates(an: Analysis) -> Claim | None:
    """Implication rule: the answer says generation lacks the later tokens AND that the causal
    LM trains under the same conditions it generates under. Together they state that the causal
    LM trains without the later tokens: the C3 restriction, said in other words."""
    if not an.claims("future_absent"):
        return None
    same = [c for c in _of(an.claims("relation_same"), CLM) if _framed(an, c)]
    return same[0] if same else None


def _framed(an: Analysis, c: Claim) -> bool:
    """The relation compares training with generation: a training word (or stated condition)
    in its sentence and a generation word there or in one of the two sentences before. A
    sameness said of both models ("both are trained the same way") compares the models, not
    the conditions, unless generation is named in the same sentence."""
    pos = {s.sentence.index: i for i, s in enumerate(an.sentences)}
    gen_in = [bool(s.hits.get("generation") or s.hits.get("generation_time")) for s in an.sentences]
    i = pos[c.sentence]
    if c.kind == "relation_same" and c.subject == BOTH:
        return c.strong and gen_in[i]
    return c.strong and any(gen_in[max(0, i - 2) : i + 1])


def _c3(an: Analysis, implied: bool = False) -> Judgement:
    left = _of(an.claims("see_left"), CLM, BOTH)
    support = [c for c in left if c.strong]
    # "GPT sees the whole sentence" contradicts; "trained with the full sentence" does not
    contra = [
        c for c in _of(an.claims("see_both"), CLM, BOTH) if (c.strong or c.direct) and c.attributed
    ]
    if contra:
        return _contradicted(contra, "clm_sees_future", bool(support))
    if support:
        return Judgement("met", _first(support), CONF_MET_SAME)
    if implied:
        via = _clm_trains_as_generates(an)
        assert via is not None
        return Judgement("met", (via.sentence,), CONF_MET_LINKED - 0.05)
    weak = (
        left
        + [
            c
            for k in ("predicts_next", "causal_mask", "uses_earlier", "left_to_right")
            for c in _of(an.claims(k), CLM)
        ]
        + [c for c in _of(an.claims("see_left"), None) if not c.gen_ctx]
    )
    if weak:
        return Judgement("partial", _first(weak), CONF_PARTIAL)
    return _missing(an, ("causal_model", "causal_mask"))


# -- C4: training condition vs generation condition -------------------------------------------
def _c4(an: Analysis, c2: Judgement, c3: Judgement) -> Judgement:
    same = [c for c in an.claims("relation_same") if _framed(an, c)]
    diff = [c for c in an.claims("relation_diff") if _framed(an, c)]
    causal_side = _of(same, CLM) + _conditions_together(an, {c.sentence for c in diff})
    mlm_side = _of(diff, MLM)
    general = _of(same + diff, None)
    contra_mlm = _of(same, MLM, BOTH)
    contra_clm = _of(diff, CLM)
    supported = bool(causal_side or mlm_side)
    if contra_mlm:
        return _contradicted(contra_mlm, "mlm_consistent", supported)
    if contra_clm:
        return _contradicted(contra_clm, "clm_mismatch", supported)

    mentions = {s.sentence.index: s.mentions for s in an.sentences}
    for c in causal_side:
        if MLM in mentions[c.sentence]:
            return Judgement("met", (c.sentence,), CONF_MET_SAME)
    for c in mlm_side:
        if CLM in mentions[c.sentence]:
            return Judgement("met", (c.sentence,), CONF_MET_SAME)
    c2_linked = c2.verdict == "met"
    if causal_side and (mlm_side or c2_linked):
        ev = _first(causal_side) + _first(mlm_side)
        return Judgement("met", tuple(sorted(set(ev))), CONF_MET_LINKED)
    # The C2 link is the masked side of the comparison (generation lacks what its training
    # gave it); the causal restriction stated in the same passage is the causal side, "the
    # same restriction generation has". Together, with no relation word, they compare the
    # two models' training and generation conditions ("BERT was trained with words on both
    # sides and here the right side is empty. GPT only ever used the left side.").
    if c2_linked and c3.verdict == "met" and not mlm_side and not causal_side:
        near = _restriction_near(an, c2.evidence)
        trained = {
            s.sentence.index for s in an.sentences if s.has("training") or s.has("never_trained")
        }
        # without a word about training the passage compares the models, not the conditions
        if near is not None and trained & {*c2.evidence, near}:
            ev = tuple(sorted({*c2.evidence, near}))
            return Judgement("met", ev, CONF_MET_LINKED - 0.05)
    partial = causal_side + mlm_side + general
    if partial:
        return Judgement("partial", _first(partial), CONF_PARTIAL)
    return _missing(an, ("same_relation", "diff_relation"))


def _conditions_together(an: Analysis, skip: set[int]) -> list[Claim]:
    """The causal side without a relation word: one sentence about the causal LM puts its
    only-earlier restriction in training next to the generation condition ("GPT was always
    trained looking only backwards, so writing forward is just what it always did"; "... since
    from the first training step it was restricted to the tokens on its left, which is all that
    generation offers"). The generation condition is named there, or stated in the sentence
    just before ("... the next words are not written yet. GPT was trained on the left only.").
    Sentences with a difference relation (`skip`) are read by the relation instead."""
    absent_at = {c.sentence for c in an.claims("future_absent")}
    # the same restriction said of the causal LM at generation, in a sentence of its own
    # ("What does it look at when it generates? Also only the tokens to its left.")
    at_gen = {
        c.sentence
        for c in _of(an.claims("see_left"), CLM)
        if c.strong and c.attributed and c.gen_ctx
    }
    out: list[Claim] = []
    for f in an.sentences:
        i = f.sentence.index
        trained = f.has("training") or f.has("never_trained")
        if i in skip or not trained:
            continue
        gen = f.has("generation") or f.has("generation_time") or (i - 1) in absent_at
        near = any(0 < abs(j - i) <= LINK_WINDOW for j in at_gen)
        for c in _of(f.kinds("see_left"), CLM):
            if c.strong and c.attributed and (gen or c.gen_ctx or (near and not c.gen_ctx)):
                out.append(Claim("relation_same", CLM, i, True, True, c.text))
                break
    return out


def _restriction_near(an: Analysis, link: tuple[int, ...]) -> int | None:
    """A sentence stating the causal LM's only-earlier restriction in answer to the generation
    condition of the C2 link: in that sentence or up to `LINK_WINDOW` after it ("... the right
    side is empty. GPT has no such problem since it only ever used the left side."), with its
    model named in its own sentence. The same restriction stated before the generation
    condition describes the causal LM; it does not compare it with generation."""
    gen = [c.sentence for c in an.claims("future_absent") if c.sentence in link]
    if not gen:
        return None
    lo, hi = min(gen), min(gen) + LINK_WINDOW
    for c in _of(an.claims("see_left"), CLM, BOTH):
        if c.strong and c.attributed and not c.gen_ctx and lo <= c.sentence <= hi:
            return c.sentence
    return None


# -- C5: encoders for understanding, decoders for generation ----------------------------------
def _c5(an: Analysis) -> Judgement:
    contra = an.claims("mlm_good_at_generation")
    a = _of(an.claims("used_understanding"), MLM)
    b = _of(an.claims("used_generation"), CLM)
    if contra:
        return _contradicted(contra, "mlm_generation", bool(a and b))
    if a and b:
        ev = tuple(sorted({a[0].sentence, b[0].sentence}))
        return Judgement("met", ev, CONF_MET_SAME if len(ev) == 1 else CONF_MET_LINKED)
    if a or b:
        return Judgement("partial", _first(a or b), CONF_PARTIAL)
    return _missing(an, ("understanding", "generation_use"))


# -- answer-wide adjustments ------------------------------------------------------------------
# Wrong-mechanism families (`mechanisms.py`) -> (criterion, rubric.claims key).
_WRONG: dict[str, tuple[str, str]] = {
    "wrong_mlm_causal": ("C1", "mlm_causal"),
    "wrong_mlm_trailing_mask": ("C2", "mlm_trailing_mask"),
    "wrong_mlm_no_problem": ("C2", "mlm_no_problem"),
    "wrong_clm_fills_blanks": ("C3", "clm_fills_blanks"),
    "wrong_mlm_generates_well": ("C5", "mlm_generation"),
}
_RETRACT = re.compile(r"^\W*(?:but|however|yet|except|unfortunately|sadly|in practice)\b", re.I)


def _apply_wrong_mechanisms(cid: str, j: Judgement, an: Analysis) -> Judgement:
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
            if c.kind == "wrong_mlm_trailing_mask" and _RETRACT.match(
                opens.get(c.sentence + 1, "")
            ):
                continue
            supported = j.verdict in ("met", "partial")
            conf = CONF_CONFLICTED if supported else CONF_CONTRADICTED
            return Judgement("contradicted", (c.sentence,), conf, _WRONG[c.kind][1], supported)
    return j


def _apply_false_claims(cid: str, j: Judgement, an: Analysis, rubric: Rubric) -> Judgement:
    """Instructor-supplied false-claim patterns override the judge (they are explicit)."""
    for fc in rubric.false_claims:
        if fc.criterion != cid:
            continue
        for s in an.sentences:
            if fc.pattern.search(s.sentence.norm):
                supported = j.verdict in ("met", "partial")
                conf = CONF_CONFLICTED if supported else CONF_CONTRADICTED
                return Judgement("contradicted", (s.sentence.index,), conf, fc.claim, supported)
    return j


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


def _apply_list_mentions(cid: str, j: Judgement, an: Analysis) -> Judgement:
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
