"""The relation between training and generation that a sentence claims (extractor `relations`
of `claims.EXTRACTORS`): "the same conditions", "a mismatch", a relation sign between the two
conditions ("train context = decode context"), each given to the model it is about.
"""

from __future__ import annotations

import re

from grader.rubric.extractor import ClaimContext
from grader.rubric.facts import BOTH, CLM, MLM, Claim, Hit
from grader.rubric.relation_senses import (
    inherited_wrong_side,
    not_a_relation,
    plural_pair,
    said_gone,
    sign_relations,
    use_paired,
)
from grader.rubric.sentence import ParsedSentence

_DATA = re.compile(
    r"\b(?:data(?:sets?)?|corpus|corpora|wikipedia|books|web|internet|domains?|topics?|"
    r"genres?|news|vocabulary|languages)\b",
    re.IGNORECASE,
)
_REASON = re.compile(r"\W*(?:because|since|as|given that)\b", re.IGNORECASE)
_CONTEXT = re.compile(
    r"\b(?:context|tokens?|words?|positions?|left|right|future|later|earlier|previous|"
    r"preceding|following|prefix|suffix|mask\w*|sides?|blanks?|gaps?|sees?|saw|seen|"
    r"visible|attends?|bidirectional|causal)\b",
    re.IGNORECASE,
)
# "the two models", "a model": both families, in general (and the principle's "a model does
# well on the conditions it was optimized for", round 9)
_PLURAL_MODELS = re.compile(
    r"\b(?:(?:the|these|those|such|both|all) (?:two )?models|(?:a|any|every) model)\b", re.I
)
# round 12: a bare plural opening the sentence states the principle of all models ("Models
# work best when used the way they're trained"); it carries no model from the sentence before
_MODELS_OPEN = re.compile(
    r"^\W*(?:\d+\W+)?(?:so,? |basically,? |in general,? )?(?:language )?models\b", re.I
)

# round 12: a relation in an embedded question ("what settles it is whether the training
# situation matches the generation situation", "it depends on whether ..."): the question the
# student sets, asked of no model; a model named only before it is not its subject
_ASKED_BEFORE = re.compile(r"\bwhether\b[^,;:]*$", re.I)


# Training versus generation
def _has_train(ss: ParsedSentence) -> bool:
    return bool(ss.hits.get("training")) or bool(ss.hits.get("never_trained"))


_RIGHT_SIDE = {"same": CLM, "diff": MLM}
# a verb of losing right before the sameness phrase (at most one word between)
_LOSS_BEFORE = re.compile(
    r"\b(?:los(?:e|es|t|ing)|lack(?:s|ed|ing)?|miss(?:es|ed|ing)|(?:is|are|was|were) "
    r"deprived of|(?:gives?|gave|giving) up|(?:is|are|was|were) robbed of|forfeits?)"
    r"\W+(?:\w+\W+)?$",
    re.IGNORECASE,
)


def _lost(ss: ParsedSentence, r: Hit) -> bool:
    """A loss verb right before the sameness phrase `r`, in its clause; one that is also a
    negation cue ("lacks") already reverses it through `negated`."""
    m = _LOSS_BEFORE.search(ss.sent.norm[: r.start])
    if m is None or ss.clause(m.start()) != ss.clause(r.start):
        return False
    return not any(g.start <= m.start() < g.end for g in ss.hits.get("negation", []))


# what the relation word is said of is the output or the use, not the conditions: "keeps it
# consistent", "makes the text coherent and consistent" (the text agrees with itself), "for
# different things / tasks" (the two models have different uses; not "training and using it
# are different things")
_OUTPUT_BEFORE = re.compile(
    r"\b(?:keeps?|keeping|kept|makes?|making|made)\W+(?:it|them|the\W+\w+|its\W+\w+|"
    r"their\W+\w+)\W+(?:\w+\W+and\W+)?$",
    re.IGNORECASE,
)
_FOR_BEFORE = re.compile(r"\b(?:for|at)\W+(?:(?:two|very|quite|completely)\W+)?$", re.I)
_USE_AFTER = re.compile(
    r"^\W+(?:things|tasks|jobs|purposes|uses|applications|use cases|problems|stuff)\b", re.I
)


# "maybe with more compute it would be different": a supposed outcome, no stated relation
_SUPPOSED_BEFORE = re.compile(
    r"\b(?:would|might|could|may)(?:\W+\w+ly)?\W+(?:be|look|turn out)\W+(?:\w+\W+)?$", re.I
)


def _about_output_or_use(norm: str, r: Hit) -> bool:
    if _OUTPUT_BEFORE.search(norm[: r.start]):
        return True
    if not r.text.lower().startswith("differ"):
        return False
    used_for = _FOR_BEFORE.search(norm[: r.start]) and _USE_AFTER.match(norm[r.end :])
    return bool(used_for or _SUPPOSED_BEFORE.search(norm[: r.start]))


_POINTS_BACK = re.compile(r"\bsuch\b", re.IGNORECASE)
# "training and generation line up, no problem": an "all fine" after a sameness affirms it
_NO_PROBLEM = re.compile(
    r"^\W*(?:\w+\W+)?no (?:problems?|issues?|trouble|worries|bother)\b", re.IGNORECASE
)


def _modifies_difference(ss: ParsedSentence, r: Hit) -> bool:
    """The sameness word only modifies a difference noun right after it in a compound ("a
    large consistency gap", "the matching difference"): the phrase names the difference."""
    return any(
        0 <= d.tok - r.tok_end <= 0 and ss.same_clause(d, r)
        for d in ss.hits.get("diff_relation", [])
    )


def relations(c: ClaimContext, found: list[Claim]) -> list[Claim]:
    """A sameness / difference phrase between training and generation, with its polarity."""
    ss = c.ss
    has_train = _has_train(ss)
    # a relation compares conditions when a training word, or a stated visibility condition
    # ("each prediction depends only on preceding tokens, exactly what generation offers"), is
    # in the sentence, or the previous sentence was about training and this one is set at
    # generation time
    conditioned = (
        has_train
        or any(f.kind in ("see_left", "see_both", "uses_earlier", "mlm_relies") for f in found)
        or (c.prev_train and bool(ss.hits.get("generation_time")))
    )
    has_gen_here = bool(ss.hits.get("generation") or ss.hits.get("generation_time"))
    has_gen_here = has_gen_here or use_paired(ss.sent.norm)  # "how it's trained and used"
    # "trained on Wikipedia but asked about anything, so there is a mismatch": right words,
    # wrong reason. Without any word about context / tokens, such a relation stays general.
    norm = ss.sent.norm
    starts = [*ss.strong, len(norm)]

    def about_data(r: Hit) -> bool:
        """The relation is argued from data or domain ("trained on Wikipedia, but asked about
        anything, so there is a mismatch"): read its clause and the reasons before it, and a
        next clause that gives its reason ("because ..."). A later point ("...; the real
        problem is its vocabulary") says nothing about this relation."""
        ci = ss.clause(r.start)
        end = starts[ci + 1]
        if ci + 2 < len(starts) and _REASON.match(norm[end : starts[ci + 2]]):
            end = starts[ci + 2]
        text = norm[:end]
        return bool(_DATA.search(text)) and not _CONTEXT.search(text)

    out: list[Claim] = []
    for key, base in (("same_relation", "same"), ("diff_relation", "diff")):
        for r in ss.hits.get(key, []):
            generic = r.text.lower().startswith("differ")
            if generic and not (has_train and has_gen_here):
                continue  # "a different task": only a relation when both conditions are named
            if _about_output_or_use(norm, r):
                continue  # "it keeps the story consistent", "it's just for different things"
            if not_a_relation(norm, r):
                continue  # "a different task" (the other model's), "a real match" (a game)
            # "exactly what BERT never saw": a negation after a sameness word reverses it
            after = base == "same" and ss.negated_after(r) and not _NO_PROBLEM.match(norm[r.end :])
            # "missing the context it was trained with": what is absent is the training
            # condition, so the sameness phrase states a difference
            lacking = base == "same" and any(
                a.end <= r.start and ss.same_clause(a, r) and 0 <= r.tok - a.tok_end <= 1
                for a in c.absent
            )
            # "it loses exactly the information it had in training": what a loss verb takes
            # away is the training condition, so the sameness phrase states a difference; so
            # does an absence said of it ("the context it was trained with is half gone")
            lacking = lacking or (base == "same" and (_lost(ss, r) or said_gone(ss, r, c.absent)))
            if base == "same" and _modifies_difference(ss, r):
                continue  # "the prefix-consistency gap": the phrase names a difference
            flip = (ss.negated(r) != after) != lacking
            # "The causal LM has no such shift.": the relation points back at the one just
            # stated about training and generation, so it compares the same conditions
            framed = conditioned or (c.prev_train and bool(_POINTS_BACK.search(r.text)))
            rel = base if not flip else ("diff" if base == "same" else "same")
            subj = ss.subject_at(r.start, loose=False)
            carried = False
            # a bare "Models ..." opening inherits no model (round 12)
            inherits = not ss.own_subjects and not _MODELS_OPEN.search(norm)
            if subj is not None and not ss.own_subjects and _PLURAL_MODELS.search(norm):
                # "the way the models are trained differs from how they are used": both
                # models, in general, not the last one named
                subj = None
            if (
                subj != BOTH
                and plural_pair(norm, r)
                and any(code == BOTH for _, code, k in ss.subj if not k)
            ):
                subj = BOTH  # "Both are ..., so no difference between how they're trained and used"
            if about_data(r):
                subj = None  # a data or domain gap is not the rubric's information condition
            elif not ss.own_subjects and _ASKED_BEFORE.search(norm[: r.start]):
                subj = None  # "what settles it is whether training matches generation"
            elif subj is None and inherits and ss.inherited == _RIGHT_SIDE[rel]:
                # "CLM: only past tokens. = exactly the gen condition": the argument goes on
                # about the model of the sentence before. A carried subject earns credit for
                # the side the relation is right about, and never makes a false claim.
                subj, carried = ss.inherited, True
            elif inherited_wrong_side(ss, subj, _RIGHT_SIDE[rel]):
                # "So it's about train/gen consistency.", "The issue is that training differs
                # from how the model is used.": a sentence naming no model states the
                # principle; a model it only inherits is never charged with a false relation
                subj = None
            out.append(
                Claim(
                    f"relation_{rel}",
                    subj,
                    c.idx,
                    framed,
                    c.gen_any,
                    r.text,
                    attributed=not carried,
                )
            )
    out.extend(_signed(c))
    return out


def _signed(c: ClaimContext, lexicon_read: bool = True) -> list[Claim]:
    """ "CLM: train context = decode context": a relation sign between the two conditions."""
    return [
        Claim(f"relation_{rel}", c.ss.subject_at(at, loose=False), c.idx, True, True, sign)
        for rel, at, sign in sign_relations(c.ss, lexicon_read)
    ]
