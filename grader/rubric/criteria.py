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

from grader.rubric.analysis import BOTH, CLM, MLM, Analysis, Claim
from grader.rubric.c2_conditions import (
    BARE_LABEL,
    available_elsewhere,
    link_denied,
    reliance_claims,
)
from grader.rubric.c2_inability import not_built_for, reason_about_context
from grader.rubric.c2_trained_causal import swapped_training
from grader.rubric.c4 import _clm_trains_as_generates, judge_c4
from grader.rubric.contradictions import (
    apply_false_claims,
    apply_list_mentions,
    apply_wrong_mechanisms,
)
from grader.rubric.facts import SentenceFacts
from grader.rubric.judgement import (
    CONF_MET_LINKED,
    CONF_MET_SAME,
    CONF_PARTIAL,
    LINK_WINDOW,
    SHORT_LINK_WORDS,
    Judgement,
    _contradicted,
    _first,
    _missing,
    _of,
)
from grader.rubric.model import Rubric
from grader.rubric.sentence_cues import NON_CAUSAL
from grader.rubric.text import word_count

__all__ = ["KNOWN_CRITERIA", "Judgement", "judge_all"]

KNOWN_CRITERIA: tuple[str, ...] = ("C1", "C2", "C3", "C4", "C5")


def judge_all(an: Analysis, rubric: Rubric) -> dict[str, Judgement]:
    """Judgements for every criterion id that has a judge (C1-C5)."""
    out: dict[str, Judgement] = {}
    out["C1"] = _c1(an)
    out["C2"] = _c2(an)
    out["C3"] = _c3(an, implied=_clm_trains_as_generates(an) is not None)
    out["C4"] = judge_c4(an, out["C2"], out["C3"])
    out["C5"] = _c5(an)
    for cid, j in list(out.items()):
        out[cid] = apply_wrong_mechanisms(cid, j, an)
        out[cid] = apply_false_claims(cid, out[cid], an, rubric)
        out[cid] = apply_list_mentions(cid, out[cid], an)
    out["C2"] = swapped_training(out["C2"], an)  # `c2_trained_causal`
    return out


# -- C1: masked LM sees both sides ------------------------------------------------------------
def _c1(an: Analysis) -> Judgement:
    # what the masked LM is wrongly said to have at generation time is no C1 evidence
    wrong_at_gen = {c.sentence for c in an.claims("future_available") if c.gen_ctx}
    both = [c for c in _of(an.claims("see_both"), MLM, BOTH) if c.sentence not in wrong_at_gen]
    strong = [c for c in both if c.strong or _whole_context(an, c)]
    contra = [c for c in _of(an.claims("see_left"), MLM, BOTH) if not c.gen_ctx and c.attributed]
    if contra:
        return _contradicted(contra, "mlm_left_only", bool(strong))
    if strong:
        return Judgement("met", _first(strong), CONF_MET_SAME)
    split = _split_sides(an)
    if split:
        return Judgement("met", split, CONF_MET_LINKED)
    weak = (
        both
        + _of(an.claims("predicts_masked"), MLM, BOTH, None)
        + an.claims("no_causal_mask")
        + [c for c in _of(an.claims("see_both"), None) if c.strong and not c.gen_ctx]
    )
    if weak:
        return Judgement("partial", _first(weak), CONF_PARTIAL)
    return _missing(an, ("masked_model", "both_sides"))


_BARE_LABEL = BARE_LABEL
_PER_POSITION = re.compile(
    r"\b(?:each|every) (?:masked |hidden )?(?:token|position|word|blank)", re.I
)


def _whole_context(an: Analysis, c: Claim) -> bool:
    """ "During training each token attends to the whole sequence": the whole sequence
    *perceived* as the context of a prediction (a training or masked-prediction word, or a
    per-position subject, in the sentence) is both sides, as it is in the causal LM's false
    claim; "needs the whole sentence" or "sees the whole sentence at once" is not."""
    if not c.direct or _BARE_LABEL.match(c.text):
        return False
    f = next((s for s in an.sentences if s.sentence.index == c.sentence), None)
    if f is None:
        return False
    scene = any(f.has(k) for k in ("training", "never_trained", "predict_masked"))
    return scene or bool(_PER_POSITION.search(f.sentence.norm))


_EARLIER_SIDE = re.compile(r"\b(?:left|before|previous|preceding|earlier)\b", re.I)
_LATER_SIDE = re.compile(r"\b(?:right|after|following|later|next)\b", re.I)
SPLIT_WORDS = 10  # a side stated in a sentence of its own ("It looks left. It looks right.")


def _split_sides(an: Analysis) -> tuple[int, ...]:
    """The two sides stated for the masked LM in two short parallel sentences, one side each
    ("It looks left. It looks right.", "It uses the words before. It also uses the words
    after."): both sides. The sentences are next to each other, about the masked LM, open
    with the same words (up to an "also"), and neither restricts ("only") or denies."""
    # short lines read as list-like by their share of function words; the parallel opening
    # is what makes them statements here
    facts = an.sentences
    for a, b in zip(facts, facts[1:], strict=False):
        if b.sentence.index != a.sentence.index + 1 or a.primary != MLM or b.primary != MLM:
            continue
        if any(f.has("negation") or f.has("only") or f.subjects - {MLM} for f in (a, b)):
            continue
        ta, tb = a.sentence.norm, b.sentence.norm
        if max(word_count(ta), word_count(tb)) > SPLIT_WORDS or _opening(ta) != _opening(tb):
            continue
        sides = (_EARLIER_SIDE.search(ta), _LATER_SIDE.search(tb))
        flipped = (_LATER_SIDE.search(ta), _EARLIER_SIDE.search(tb))
        if all(sides) or all(flipped):
            return (a.sentence.index, b.sentence.index)
    return ()


def _opening(norm: str) -> tuple[str, ...]:
    """The first two words of a sentence, without an "also" / "too"."""
    ws = [w for w in re.findall(r"[a-z']+", norm.lower()) if w not in ("also", "too")]
    return tuple(ws[:2])


# -- C2: generation lacks the later tokens the masked LM relied on ----------------------------
def _c2(an: Analysis) -> Judgement:
    contra = [
        c
        for c in an.claims("future_available")
        if c.gen_ctx and not available_elsewhere(an.fact(c.sentence), c)
    ]
    absent = an.claims("future_absent")
    # "BERT is bidirectional" names the family: what it relied on is not stated (guide: a
    # label without its mechanism), so it links no generation condition to the masked LM
    reliance = reliance_claims(an)
    rel_idx = {c.sentence for c in reliance}
    explicit = {c.sentence for c in reliance if c.kind in ("mlm_relies", "never_trained")}
    link: tuple[int, ...] = ()
    for a in absent:
        # closest first; at equal distance prefer "relied on" / "never trained" sentences,
        # which state the dependence, over a plain "sees both sides" (the better quote)
        near = sorted(rel_idx, key=lambda i: (abs(i - a.sentence), i not in explicit, i))
        near = [i for i in near if _close(an, i, a.sentence) and not _topic_moved(an, a, i)]
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
    able = _generates_left_to_right(an)
    if able:
        return _contradicted(able, "mlm_no_problem", bool(link))
    if link and link_denied(an):
        # the answer gives the train / generation gap to the causal LM instead
        # (`c2_conditions.link_denied`)
        return Judgement("partial", link, CONF_PARTIAL - 0.05)
    if link:
        gap = link[-1] - link[0]
        conf = (
            CONF_MET_SAME if gap == 0 else CONF_MET_LINKED if gap == 1 else CONF_MET_LINKED - 0.05
        )
        return Judgement("met", link, conf)
    cannot = [c for c in an.claims("mlm_cannot_generate") if c.strong] + _fails_when_writing(an)
    cannot += not_built_for(an)
    # "they both see the whole sentence ... so bert can't generate": a view said of both
    # models is no dependence of the masked LM's; "bert can't generate because it has no
    # decoder head": an inability with a reason of its own is not drawn from the reliance
    own = {c.sentence for c in reliance if c.subject == MLM}
    cannot_linked = [
        c
        for c in cannot
        if any(0 <= c.sentence - i <= 2 for i in own) and not _own_reason(an.fact(c.sentence), c)
    ]
    partial = absent + _generation_of_masked(an) + cannot_linked
    if partial:
        return Judgement("partial", _first(partial), CONF_PARTIAL - 0.05)
    return _missing(an, ("generation", "left_to_right"))


def _generation_of_masked(an: Analysis) -> list[Claim]:
    """ "During generation we go left to right, which is a problem for the MLM": the
    generation condition, one half of C2. Given as the reason the causal LM is used for
    generation ("GPT reads left to right, that is why it is used for chatbots", "a good setup
    for generation because generating is sequential"), with the masked LM not named there, it
    says why the causal LM suits the use, not what generation takes from the masked LM; given
    as why the masked LM suits generating, it is a false claim, no half of C2."""
    out = []
    for c in an.claims("generation_left_to_right"):
        f = an.fact(c.sentence)
        uses = f.kinds("used_generation") + f.kinds("compared_generation")
        # "BERT is better for generation since it goes left to right": the order given as why
        # the masked LM suits generating is a false claim of its, not what generation takes
        if any(g.subject == MLM for g in f.kinds("mlm_good_at_generation")):
            continue
        if MLM in f.mentions or not any(u.subject == CLM for u in uses):
            out.append(c)
    return out


# an inability stated after the generation word: "when we want it to write, it cannot do it"
_FAILS_AFTER = re.compile(
    r"\b(?:cannot|can't|cant|can not|could not|couldn't|won't|fails?|doesn't work|does not work)\b",
    re.IGNORECASE,
)


def _fails_when_writing(an: Analysis) -> list[Claim]:
    """ "BERT needs all the sentence, so when we want it to write new text it cannot do it
    good": the masked LM's inability stated in the main clause of a generation clause (an
    inability cue after the generation word, the sentence about the masked LM), the same
    consequence as "so it can't generate" (strong; `_c2` links it to a reliance)."""
    out = []
    for f in an.sentences:
        if f.primary != MLM or CLM in f.mentions:
            continue
        gens = f.hits.get("generation", [])
        norm = f.sentence.norm
        if gens and _FAILS_AFTER.search(norm[gens[0].end :]):
            out.append(
                Claim("mlm_cannot_generate", MLM, f.sentence.index, True, True, gens[0].text)
            )
    return out


_MANNER_GAP = 12  # characters between the generation verb and its left-to-right manner


def _generates_left_to_right(an: Analysis) -> list[Claim]:
    """ "So BERT can generate left to right fine": the masked LM said to generate well in the
    very condition the question names (a left-to-right generation in the claim's sentence) says
    that condition is no problem for it, the C2 false claim as well as the C5 one."""
    out = []
    for c in an.claims("wrong_mlm_generates_well"):
        f = an.fact(c.sentence)
        at = f.sentence.norm.find(c.text) if c.text else -1
        # the manner right after the generation verb ("generate left to right fine"), not a
        # left-to-right order named elsewhere in the sentence ("... includes the left-to-right
        # order as one factorisation")
        if at >= 0 and any(
            0 <= h.start - (at + len(c.text)) <= _MANNER_GAP
            for h in f.hits.get("left_to_right", [])
        ):
            out.append(c)
    return out


def _topic_moved(an: Analysis, a: Claim, i: int) -> bool:
    """ "BERT looks at both sides. GPT predicts from the previous words. When generating there
    is only left context.": the absence `a` is said in the causal LM's turn (its subject is
    the causal LM, and a sentence about the causal LM alone lies between the masked LM's
    reliance in the earlier sentence `i` and it), so it describes the causal LM's generation
    and links nothing to what the masked LM relied on. A reliance stated after the absence
    ("... is now given left only, a conditional it was never fitted to") returns to the
    masked LM and links."""
    if a.subject != CLM or i >= a.sentence:
        return False
    return any(
        i < f.sentence.index < a.sentence and f.subjects & {MLM, CLM} == {CLM} for f in an.sentences
    )


# the reason an inability is given ("because it has no decoder head", "the real reason it
# can't generate is size")
_REASON_AFTER = re.compile(r"\b(?:because|since|bc|cause|due to)\b", re.IGNORECASE)
_REASON_IS = re.compile(r"\breason\b[^.;]*?\b(?:is|was)\b", re.IGNORECASE)
# a reason about context: what the model sees, relies on, or what generation lacks
_CONTEXT_REASON = re.compile(
    r"\b(?:context|left|right|future|later|earlier|previous|prefix|sides?|bi ?directional\w*|"
    r"both|ahead|after|before|next|exists?|there|yet|mask\w*|blanks?|trained|training|"
    r"learn\w*|never|relie[sd]|rely\w*|depend\w*|needs?|sees?|saw|seen|looks?|attends?)\b",
    re.IGNORECASE,
)


def _own_reason(f: SentenceFacts, c: Claim) -> bool:
    """The inability `c` is given a reason of its own that says nothing about context ("bert
    can't generate because it has no decoder head", "the real reason bert can't generate well
    is size"): the sentence argues from something else, so it is not the consequence of the
    reliance stated before it."""
    norm = f.sentence.norm
    at = norm.find(c.text) if c.text else -1
    if at < 0:
        return False
    m = _REASON_AFTER.search(norm, at + len(c.text))
    reason, start = (norm[m.end() :], m.end()) if m else ("", len(norm))
    if not reason:
        r = _REASON_IS.search(norm)
        reason, start = (norm[r.end() :], r.end()) if r and r.start() < at else ("", len(norm))
    if reason_about_context(f, start):
        return False  # "because it always expects to have the full sentence"
    return bool(reason.strip()) and not _CONTEXT_REASON.search(reason)


def _close(an: Analysis, i: int, j: int) -> bool:
    """Sentences `i` and `j` are within `LINK_WINDOW` of each other, or only short sentences
    lie between them ("There is no right side yet." four staccato lines after "It also uses
    the words on the right."): at most `SHORT_LINK_WORDS` words in between."""
    lo, hi = sorted((i, j))
    if hi - lo <= LINK_WINDOW:
        return True
    between = [f for f in an.sentences if lo < f.sentence.index < hi]
    return sum(word_count(f.sentence.norm) for f in between) <= SHORT_LINK_WORDS


# -- C3: causal LM sees only earlier tokens ---------------------------------------------------
def _c3(an: Analysis, implied: bool = False) -> Judgement:
    left = _of(an.claims("see_left"), CLM, BOTH)
    # "GPT predicts the next word. When you write, you only have what is written.": a subject
    # carried into a sentence about generation describes the generation condition, not the
    # causal LM's restriction (named or pointed to, "when generating, it only sees", it is)
    support = [c for c in left if c.strong and (c.attributed or not c.gen_ctx)]
    # "GPT sees the whole sentence" contradicts; "trained with the full sentence" does not
    # "conditioned only on the preceding tokens; the mask rules out any look-ahead": a later-
    # token phrase in the sentence that states the causal restriction is what the restriction
    # excludes, not a second claim that the causal LM sees it
    restricts = {c.sentence for c in left if c.strong and c.subject == CLM and not c.gen_ctx}
    contra = [
        c
        for c in _of(an.claims("see_both"), CLM, BOTH)
        if (c.strong or c.direct)
        and c.attributed
        and c.sentence not in restricts
        # "non-causal" is the masked side's label, credit only: it turns up in contrasts
        # ("causal rather than non-causal") that no negation cue marks (round 9)
        and not NON_CAUSAL.match(c.text)
    ]
    if contra:
        return _contradicted(contra, "clm_sees_future", bool(support))
    if support:
        return Judgement("met", _first(support), CONF_MET_SAME)
    restricted = _fragment_restricts(an) or _mask_restricts(an)
    if restricted:
        return Judgement("met", restricted, CONF_MET_LINKED)
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


def _mask_restricts(an: Analysis) -> tuple[int, ...]:
    """ "mask = torch.tril(ones(T, T))" ... "so pos i only attends to j <= i.": a restriction
    said of no model, in a sentence naming no model, right after (up to `LINK_WINDOW`
    sentences) the causal LM's mask is described, states what that mask does: the causal
    LM's restriction. Not at generation time ("when writing you only have the words
    before" is the generation condition)."""
    masks = {c.sentence for c in _of(an.claims("causal_mask"), CLM)}
    for c in _of(an.claims("see_left"), None):
        f = an.fact(c.sentence)
        if not c.strong or c.gen_ctx or f.mentions:
            continue
        src = [i for i in masks if 0 <= c.sentence - i <= LINK_WINDOW]
        if src:
            return (max(src), c.sentence)
    return ()


FRAGMENT_WORDS = 4


def _fragment_restricts(an: Analysis) -> tuple[int, ...]:
    """ "It sees the left. Only the left.": a verbless fragment with "only" and an earlier-side
    phrase restricts the context the sentence before gave the causal LM (its claim of the
    earlier tokens is carried into the fragment, which names no model and denies nothing)."""
    by_index = {f.sentence.index: f for f in an.sentences}
    for f in an.sentences:
        prev = by_index.get(f.sentence.index - 1)
        if prev is None or not f.list_like or word_count(f.sentence.norm) > FRAGMENT_WORDS:
            continue
        if not (f.has("only") and f.has("earlier_ref")) or f.has("negation") or f.mentions:
            continue
        if any(c.kind in ("uses_earlier", "see_left") and c.subject == CLM for c in prev.claims):
            return (prev.sentence.index, f.sentence.index)
    return ()


# -- C5: encoders for understanding, decoders for generation ----------------------------------
_DOES_JOB = re.compile(
    r"\b(?:do|does|did|doing|handle[sd]?|handling|run|runs|ran)\s+(?:the\s+)?(?:text\s+)?$", re.I
)


def _does_job(an: Analysis, p: Claim) -> bool:
    """The elided generation half `p` names the family's job ("decoders do generation")."""
    norm = next((f.sentence.norm for f in an.sentences if f.sentence.index == p.sentence), "")
    return any(_DOES_JOB.search(norm[: m.start()]) for m in re.finditer(re.escape(p.text), norm))


def _c5(an: Analysis) -> Judgement:
    contra = an.claims("mlm_good_at_generation")
    a = _of(an.claims("used_understanding"), MLM)
    b = _of(an.claims("used_generation"), CLM)
    if a and not b:
        # "encoders are used for tagging, and decoders for sampling": the use verb of the
        # understanding half (this sentence or the one before) carries to the generation half;
        # the elided half may also come first when its family does the job ("decoders do
        # generation. Encoders are still useful for classification.")
        halves = {u.sentence + d for u in a for d in (0, 1)}
        b = [
            p for p in an.claims("parallel_generation")
            if p.sentence in halves
            or (p.sentence + 1 in {u.sentence for u in a} and _does_job(an, p))
        ]  # fmt: skip
        # "BERT is used for tagging; GPT is better at writing": beside an understanding use
        # a comparison names the other half of the split (alone it restates the question)
        b = b or _of(an.claims("compared_generation"), CLM)
    if contra:
        return _contradicted(contra, "mlm_generation", bool(a and b))
    # both halves given to the wrong family ("encoders are the ones that write text, decoders
    # do classification"): a swap, unless a right half is stated too
    gen_mlm = [c for c in _of(an.claims("used_generation"), MLM) if c.attributed]
    und_clm = [c for c in _of(an.claims("used_understanding"), CLM) if c.attributed]
    if gen_mlm and und_clm and not (a or b):
        return _contradicted(gen_mlm + und_clm, "arch_swap", False)
    if a and b:
        ev = tuple(sorted({a[0].sentence, b[0].sentence}))
        return Judgement("met", ev, CONF_MET_SAME if len(ev) == 1 else CONF_MET_LINKED)
    if a or b:
        return Judgement("partial", _first(a or b), CONF_PARTIAL)
    return _missing(an, ("understanding", "generation_use"))
