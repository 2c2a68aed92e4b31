"""C4: the training condition compared with the generation condition, for both models.

The causal LM trains under the condition it generates under; the masked LM trains under one
generation never gives. `judge_c4` reads the relation words ("the same conditions",
"mismatch"), the conditions themselves (the causal restriction said for training and for
generation) and the C2 link (the masked side), and finds the contradicted forms.
"""

from __future__ import annotations

import re
from dataclasses import replace

from grader.rubric.c4_additive import additive_mismatch
from grader.rubric.c4_contrast import (
    VAGUE,
    model_differences,
    same_condition_for_both,
    vague_relations,
)
from grader.rubric.c4_counterpart import counterpart_halves
from grader.rubric.c4_ellipsis import elided_second_half
from grader.rubric.c4_fragments import fragment_subjects, restriction_in_training_too
from grader.rubric.c4_scope import (
    cut_off_model,
    denied_mismatch,
    handed_out,
    imagined_model,
    never_met,
    scoped,
)
from grader.rubric.c4_sides import (
    gone_at_use,
    lesser_mismatch,
    masked_training_before,
    practice_analogy,
    restriction_tied,
    same_range_twice,
    task_match,
    training_dismissed,
    training_said,
    unlike_the_masked_training,
)
from grader.rubric.facts import BOTH, CLM, MLM, MODEL_KEYS, Analysis, Claim, SentenceFacts
from grader.rubric.implied_restriction import premises_together
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
from grader.rubric.relation_claims import _POINTS_BACK
from grader.rubric.relation_senses import is_sign, use_paired


def _clm_trains_as_generates(an: Analysis) -> Claim | None:
    """Implication rule: the answer says generation lacks the later tokens AND that the causal
    LM trains under the same conditions it generates under. Together they state that the causal
    LM trains without the later tokens: the C3 restriction, said in other words."""
    if not an.claims("future_absent"):
        return None
    # a relation that only points back ("no such shift") borrows its framing from the
    # sentence before; it states no condition of its own to imply the restriction from; nor
    # does a bare sign between two terms ("GPT: practice = match")
    same = [
        c
        for c in _of(an.claims("relation_same"), CLM)
        if _framed(an, c) and not _POINTS_BACK.search(c.text) and re.search(r"\w", c.text)
        and not _TASK.search(c.text) and not VAGUE.fullmatch(c.text.strip())
    ]  # fmt: skip
    same = [c for c in same if premises_together(an, c)]  # round 9: implied_restriction.py
    return same[0] if same else None


# "GPT trains on the same task it does at generation": a task match names no information
# condition, so it implies no restriction on what the causal LM sees
_TASK = re.compile(r"\b(?:task|job)s?\b", re.IGNORECASE)


def _framed(an: Analysis, c: Claim) -> bool:
    """The relation compares training with generation: a training word (or stated condition)
    in its sentence and a generation word there or in one of the two sentences before. A
    sameness said of both models ("both are trained the same way") compares the models, not
    the conditions, unless generation is named in the same sentence."""
    pos = {s.sentence.index: i for i, s in enumerate(an.sentences)}
    i = pos[c.sentence]
    paired = use_paired(an.sentences[i].sentence.norm)  # "train vs use", "trained and used"
    if c.kind == "relation_same" and c.subject == BOTH:
        return c.strong and (_names_generation(an.sentences[i]) or paired)
    if is_sign(c.text):
        return True  # "training equals use": the sign is read between the two conditions
    if _TRAINS_AS_USED.match(c.text) or _USED_AS_TRAINED.search(c.text):
        return True  # "GPT trains like it races": the phrase names both conditions itself
    if _TRAIN_TEST.match(c.text) or (c.strong and paired):
        return True  # "a train-test discrepancy", "a training/inference mismatch"
    return c.strong and any(_at_generation(s) for s in an.sentences[max(0, i - 2) : i + 1])


# a sameness phrase that names training and the use itself: "trains the way it is used", "is
# tested on what it studied"
_TRAINS_AS_USED = re.compile(
    r"(?:trains?|trained|learns?|learned|practi[cs]\w*|optimi[sz]\w*|prepar\w*)\W+(?:\w+\W+)?"
    r"(?:like|as|the way|how|for what|for the (?:job|task|thing|way))\b",
    re.IGNORECASE,
)
_TRAIN_TEST = re.compile(r"train\w*\W+(?:test|inference|generation|use)\b", re.I)
_USED_AS_TRAINED = re.compile(
    r"\bwhat (?:it|they) (?:\w+ )?(?:practi[cs]ed|rehearsed|studied|trained|prepared)\b", re.I
)


# a clause labelled by the model it is about, in brackets after it: "the second is doing what
# she practised (that's GPT)", "(= BERT)", "(i.e. the causal LM)"
_LABEL_AFTER = re.compile(
    r"^[^;()]{0,80}?\(\s*(?:that'?s|that is|this is|i\.?\s?e\.?,?|=)?\s*", re.IGNORECASE
)


def _labelled_after(an: Analysis, c: Claim) -> Claim:
    """The relation with the model its clause is labelled with in brackets right after it
    ("the first has lost what she leaned on (that's BERT), the second is doing exactly what
    she practised (that's GPT)"): the label, not the model named last before the relation,
    says what the clause is about."""
    f = an.fact(c.sentence)
    norm = f.sentence.norm
    at = norm.find(c.text) if c.text else -1
    m = _LABEL_AFTER.match(norm[at + len(c.text) :]) if at >= 0 else None
    if m is None:
        return c
    pos = at + len(c.text) + m.end()
    for code, key in MODEL_KEYS.items():
        if any(h.start == pos for h in f.hits.get(key, [])):
            return c if code == c.subject else replace(c, subject=code)
    return c


# the standard a difference is measured against: "different from the way it is used"
_DIFFERENT_FROM = re.compile(
    r"\b(?:different|differs?|differing|distinct|apart)\s+(?:from|to|than)\s+$", re.IGNORECASE
)


def _comparand(an: Analysis, c: Claim) -> bool:
    """ "The way they are trained is different from the way they are used": a sameness phrase
    that is the comparand of a difference word ("the way they are used" after "different
    from") states the difference, not a sameness."""
    f = an.fact(c.sentence)
    at = f.sentence.norm.find(c.text) if c.text else -1
    return at > 0 and bool(_DIFFERENT_FROM.search(f.sentence.norm[:at]))


def _names_generation(f: SentenceFacts) -> bool:
    return f.has("generation") or f.has("generation_time")


# absent-words that say by themselves that something is not there (not "yet", "missing": "the
# missing word" is the masked LM's blank)
_STATED_ABSENCE = re.compile(r".*\s.*|non ?existent", re.IGNORECASE)


def _at_generation(f: SentenceFacts) -> bool:
    """The sentence is set at generation: it names generation, or it states the generation
    condition in other words, the later words not being there ("you add words one by one and
    the words that would come after just aren't there")."""
    if _names_generation(f) or f.kinds("future_absent"):
        return True
    return any(_STATED_ABSENCE.fullmatch(a.text.strip()) for a in f.hits.get("absent", []))


def _not_consistency(an: Analysis, i: int) -> bool:
    """Sentence `i` itself states the masked LM's mismatch: a difference said of it, a
    condition it was never trained for, or the context it relies on set beside an absence
    ("the continuation is gone, which removes exactly the context it depended on"): a
    sameness word read there as the masked LM's emphasises or belongs to the other side."""
    f = an.fact(i)
    if imagined_model(an, i) or any(
        c.subject in (MLM, BOTH) for c in f.kinds("relation_diff") + f.kinds("never_trained")
    ):
        return True  # or it is said of an imagined model ("only a hypothetical BERT ...")
    return bool(f.kinds("mlm_relies")) and (bool(f.kinds("future_absent")) or f.has("absent"))


# -- C4: training condition vs generation condition -------------------------------------------
def judge_c4(an: Analysis, c2: Judgement, c3: Judgement) -> Judgement:
    """C4's verdict; `c2` and `c3` are the verdicts already given (the C2 link is the masked
    side of the comparison)."""
    same = [
        _labelled_after(an, c)
        for c in an.claims("relation_same")
        if _framed(an, c) and not _comparand(an, c)
    ]
    diff = [_labelled_after(an, c) for c in an.claims("relation_diff") if _framed(an, c)]
    diff = model_differences(an, diff)  # "the difference is only that GPT is bigger"
    carried = additive_mismatch(an)
    same += [c for c in carried if c.kind == "relation_same"]
    diff += [c for c in carried if c.kind == "relation_diff"]
    same, vague_same = vague_relations(same)
    diff, vague_diff = vague_relations(diff)
    same, diff = _one_and_the_other(an, same, diff)
    same, diff = counterpart_halves(an, same, diff)  # "..., while the other's ... never gives"
    same, diff = scoped(an, same, diff)
    more_same, more_diff = elided_second_half(an, same, diff)
    frag_same, frag_diff = fragment_subjects(an, same, diff)
    handed = handed_out(an, same + diff)
    same = same + more_same + frag_same + [c for c in handed if c.kind == "relation_same"]
    same = same + denied_mismatch(an)
    diff = diff + more_diff + frag_diff + [c for c in handed if c.kind == "relation_diff"]
    causal_side = (
        _of(same, CLM)
        + _conditions_together(an, {c.sentence for c in diff})
        + _never_had(an)
        + same_range_twice(an)
        + restriction_in_training_too(an)
    )
    mlm_side = _of(diff, MLM) + gone_at_use(an) + unlike_the_masked_training(an)
    general = _of(same + diff, None)
    asserted = [c for c in _of(same, MLM, BOTH) if c.attributed]  # not "a model does ..."
    contra_mlm = [c for c in asserted if not _not_consistency(an, c.sentence)]
    dismissed = training_dismissed(an) + same_condition_for_both(an)
    contra_clm = [
        c
        for c in _of(diff, CLM)
        if not (lesser_mismatch(an, c) and any(x.sentence != c.sentence for x in causal_side))
    ] + _clm_sees_more_in_training(an)
    supported = bool(causal_side or mlm_side)
    if contra_mlm:
        return _contradicted(contra_mlm, "mlm_consistent", supported)
    if contra_clm:
        return _contradicted(contra_clm, "clm_mismatch", supported)
    if dismissed:
        return _contradicted(dismissed, "training_alike", supported)

    # a model named only where the line is cut off ("..., and BERT") is not compared
    mentions = {s.sentence.index: s.mentions - {cut_off_model(s)} for s in an.sentences}
    # "only GPT's training matches what it has at generation": the other model is excluded
    for c in causal_side:
        if _only_this_model(an, c):
            return Judgement("met", (c.sentence,), CONF_MET_SAME)
    for c in causal_side:
        if MLM in mentions[c.sentence]:
            return Judgement("met", (c.sentence,), CONF_MET_SAME)
    # "This is the setting GPT was trained in; BERT meets a right side it never met in
    # pretraining": never trained for what generation gives is the masked side, next to the
    # causal LM in its sentence. Alone it is the C2 reliance, not a comparison.
    never = [c for c in _of(an.claims("never_trained"), MLM) if _framed(an, c)]
    for c in mlm_side + never:
        if CLM in mentions[c.sentence]:
            return Judgement("met", (c.sentence,), CONF_MET_SAME)
    c2_linked = c2.verdict == "met"
    if causal_side and (mlm_side or never or c2_linked):
        ev = _first(causal_side) + _first(mlm_side or never)
        return Judgement("met", tuple(sorted(set(ev))), CONF_MET_LINKED)
    # "GPT is trained to predict the next token, which is what generation is" with the masked
    # LM's own mismatch stated ("... a situation it never saw in pretraining"): the task match
    # is one side, the masked mismatch the other, so the two models are compared
    tasks = task_match(an)
    # (a bare "never trained to predict the next word" is a task mismatch: tasks only)
    masked_gap = mlm_side or never_met(an)
    if tasks and masked_gap:
        ev = _first(tasks) + _first(masked_gap)
        return Judgement("met", tuple(sorted(set(ev))), CONF_MET_LINKED - 0.05)
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
        if (
            near is not None
            and trained & {*c2.evidence, near}
            and restriction_tied(an, near, c2.evidence)
            # "in short, how these models are trained differs from how they are used": a
            # difference said of no one model takes the causal side back
            and not [c for c in _of(diff, None, BOTH) if c.sentence not in c2.evidence]
        ):
            ev = tuple(sorted({*c2.evidence, near}))
            return Judgement("met", ev, CONF_MET_LINKED - 0.05)
        if near is not None:
            # the same passage with no training word, or the causal LM only described ("GPT
            # predicts from the earlier tokens"): what each model has, set side by side; one
            # side made of the use alone, so partial
            return Judgement("partial", tuple(sorted({*c2.evidence, near})), CONF_PARTIAL - 0.05)
    partial = causal_side + mlm_side + general + tasks + practice_analogy(an)
    partial += vague_same + vague_diff
    if partial:
        return Judgement("partial", _first(partial), CONF_PARTIAL)
    # The C2 link said with its training condition ("at generation the words on the right do
    # not exist, and BERT was never trained without them") is the masked side on its own
    trained_in_link = [
        f.sentence.index for f in _at(an, c2) if training_said(f)
    ] or masked_training_before(an, c2)
    if c2_linked and trained_in_link:
        # quote the sentence that says the training condition
        return Judgement("partial", tuple(trained_in_link[:1]), CONF_PARTIAL - 0.05)
    return _missing(an, ("same_relation", "diff_relation"))


def _conditions_together(an: Analysis, skip: set[int]) -> list[Claim]:
    """The causal side without a relation word: one sentence about the causal LM puts its
    only-earlier restriction in training next to the generation condition ("GPT was always
    trained looking only backwards, so writing forward is just what it always did"; "... since
    from the first training step it was restricted to the tokens on its left, which is all that
    generation offers"). The generation condition is named there, or stated in the sentence
    just before ("... the next words are not written yet. GPT was trained on the left only.").
    Sentences with a difference relation (`skip`) are read by the relation instead."""
    # (round 12: not a sentence that argues the masked LM's failure: "..., and BERT was never
    # trained without them, so it can't write. GPT is trained on the left only." describes
    # the causal LM after the masked side; it does not set it against generation)
    absent_at = {
        c.sentence for c in an.claims("future_absent") if MLM not in an.fact(c.sentence).subjects
    }
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


# "one ... and the other does not", neither named (not the comparand "different from the other")
_ONE_OTHER = re.compile(
    r"\bone(?:\s+(?:model|family|network|approach|kind|type|of them|of the two))?\b.*"
    r"(?<!\bfrom )(?<!\bthan )\bthe other\b",
    re.IGNORECASE,
)


def _one_and_the_other(
    an: Analysis, same: list[Claim], diff: list[Claim]
) -> tuple[list[Claim], list[Claim]]:
    """ "So one model meets at test time the conditions it was trained under and the other does
    not": a relation said of "one" of the two models and denied of "the other" compares both
    models, whichever is which. It is read as the comparison the rubric asks for (the causal
    LM the same, the masked LM different), carried: it never makes a false claim."""
    paired = {
        f.sentence.index
        for f in an.sentences
        if not f.subjects and _ONE_OTHER.search(f.sentence.norm)
    }
    if not paired:
        return same, diff
    rel = [c for c in same + diff if c.sentence in paired]
    keep_same = [c for c in same if c.sentence not in paired]
    keep_diff = [c for c in diff if c.sentence not in paired]
    # "one" and "the other" can be told apart only when the answer names both models: with
    # one of them named, which is which is left to the reader (a vague comparison)
    named = set().union(*(f.mentions for f in an.sentences)) if an.sentences else set()
    both = MLM in named and CLM in named
    for i in sorted({c.sentence for c in rel}):
        text = next(c.text for c in rel if c.sentence == i)
        if both:
            keep_same.append(Claim("relation_same", CLM, i, True, True, text, attributed=False))
            keep_diff.append(Claim("relation_diff", MLM, i, True, True, text, attributed=False))
        else:
            keep_diff.append(Claim("relation_diff", None, i, True, True, text, attributed=False))
    return keep_same, keep_diff


def _clm_sees_more_in_training(an: Analysis) -> list[Claim]:
    """ "Because of teacher forcing GPT sees the whole target sentence during training, and
    only at inference does it have to do without it": the causal LM said to see the later
    tokens in training, in a sentence that sets generation against it, is the causal LM with
    the mismatch. The use side must be stated as less than training ("has to do without",
    "is limited"); not when the sentence calls the two the same. The claim needs its model
    named or pointed to (`attributed`)."""
    out = []
    for f in an.sentences:
        # a negated difference word ("so it doesn't cheat") states no sameness of conditions
        diff_words = {h.text.lower() for h in f.hits.get("diff_relation", [])}
        same = [c for c in f.kinds("relation_same") if c.text.lower() not in diff_words]
        if not (f.has("training") and f.has("generation_time")) or same:
            continue  # "... and predicting the next word is exactly what it does at generation"
        norm = f.sentence.norm
        at = min(h.start for h in f.hits["generation_time"])
        if not (_LESS_AT_USE.search(norm[max(0, at - 25) :]) or _HIDDEN_FOR_USE.search(norm[:at])):
            continue  # "... only at generation time does it go left to right": no loss stated
        for c in _of(f.kinds("see_both"), CLM, BOTH):
            if (c.strong or c.direct) and c.attributed:
                out.append(c)
                break
    return out


# the use condition stated as less than training: "has to work without them", "is it limited",
# "it loses that", "the mask only matters at inference", "it only applies the mask when it
# generates" (the restriction switched on for use alone)
_LESS_AT_USE = re.compile(
    # (not a reliance that carries on: "in generation it continues to rely on that habit")
    r"\b(?:without|limit\w*|restrict\w*|los(?:e|es|t|ing)|"
    r"(?<!\bcontinues to )(?<!\bcontinue to )(?<!\bstill )rel(?:y|ies|ying) on|no longer|"
    r"deprived|matters?|(?:has|have|had) to (?:do|work|rely|cope|manage|guess))\b|"
    r"\bonly\W+(?:\w+\W+)?(?:uses?|used|appl(?:y|ies|ied)|adds?|added|turns? on)\W+"
    r"(?:\w+\W+)?mask|\b(?:used|applied|added|turned on)\W+only\b|"
    # round 10: "when it generates it has access only to the earlier tokens"
    r"\bonly\W+(?:to\W+)?(?:the\W+)?(?:earlier|previous|preceding|past|prior|left)\b|"
    # round 12: the use said to switch away from training ("at generation time it switches
    # to predicting the next token", "it switches modes")
    r"\bswitch(?:es|ed|ing)?\W+(?:over\W+)?to\b|\bswitch(?:es|ed|ing)?\W+modes?\b",
    re.IGNORECASE,
)
# round 11: the later tokens hidden for use alone, "it only hides the later words at generation
# time" (read over the clause before the use: the hidden words may take a few words to name)
_HIDDEN_FOR_USE = re.compile(
    r"\bonly\W+(?:hides?|hid|blocks?|masks?|cuts?\W+off)\W+(?:the\W+)?(?:\w+\W+)?"
    r"(?:future|later|next|right|following|upcoming)\b[^,;.]*$",
    re.IGNORECASE,
)


_ONLY_BEFORE = re.compile(r"(?<!\bnot )\bonly\W+(?:the\W+|a\W+)?$", re.IGNORECASE)


def _only_this_model(an: Analysis, c: Claim) -> bool:
    """ "Only GPT's training matches generation", "only the causal LM is tested on what it
    studied": "only" on the model itself says the other model does not, an explicit contrast.
    (Not "GPT only sees the prefix": there "only" restricts what it sees.)"""
    f = an.fact(c.sentence)
    norm = f.sentence.norm
    return any(_ONLY_BEFORE.search(norm[: h.start]) for h in f.hits.get("causal_model", []))


def _at(an: Analysis, j: Judgement) -> list[SentenceFacts]:
    return [f for f in an.sentences if f.sentence.index in j.evidence]


# "GPT never used them in training", "it was never allowed to look right during training": the
# causal LM did without, in training, what the generation condition just said is missing
_NEVER_HAD = re.compile(
    r"\b(?P<neg>never|not|n't|no)\b(?:\W+\w+){0,3}?\W+(?:use[sd]?|had|have|has|saw|seen|see|"
    r"sees|needs?|needed|relied|rely|look|looked|given|shown|got|gotten)\b(?:\W+\w+){0,2}?\W+"
    r"(?:them|those|these|it|right|ahead|the future|later ones|there)\b",
    re.IGNORECASE,
)


def _never_had(an: Analysis) -> list[Claim]:
    """The causal side said as the causal LM never having had, in training, what generation
    lacks ("For GPT this is no problem, because it never used them in training."): a sentence
    about the causal LM (named or pointed to), with a training word (or "never", which covers
    training: "it never looked there") and a negated use of what the sentence just before or
    the one before that says is not there at generation."""
    out = []
    for k, f in enumerate(an.sentences):
        m = _NEVER_HAD.search(f.asserted or f.sentence.norm)
        # "never" covers the whole of its past, training included ("GPT was never given them
        # in the first place"); "not" / "no" needs the training word
        if m is None or not (f.has("training") or m.group("neg").lower() == "never"):
            continue
        if f.subjects != {CLM} and not (not f.subjects and f.primary == CLM):
            continue
        if any(_at_generation(g) for g in an.sentences[max(0, k - 2) : k]):
            out.append(Claim("relation_same", CLM, f.sentence.index, True, True, ""))
    return out
