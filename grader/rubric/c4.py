"""C4: the training condition compared with the generation condition, for both models.

The causal LM trains under the condition it generates under; the masked LM trains under one
generation never gives. `judge_c4` reads the relation words ("the same conditions",
"mismatch"), the conditions themselves (the causal restriction said for training and for
generation) and the C2 link (the masked side), and finds the contradicted forms.
"""

from __future__ import annotations

from grader.rubric.facts import BOTH, CLM, MLM, Analysis, Claim
from grader.rubric.judgement import (
    CONF_MET_LINKED,
    CONF_MET_SAME,
    CONF_PARTIAL,
    LINK_WINDOW,
    Judgement,
    _contradicted,
    _first,
    _missing,
    _of,
)


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


# -- C4: training condition vs generation condition -------------------------------------------
def judge_c4(an: Analysis, c2: Judgement, c3: Judgement) -> Judgement:
    """C4's verdict; `c2` and `c3` are the verdicts already given (the C2 link is the masked
    side of the comparison)."""
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
