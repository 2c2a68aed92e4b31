"""What one sentence claims: small extractors, registered in order in `EXTRACTORS`.

Each extractor reads a `ClaimContext` (the `ParsedSentence` and what several extractors ask
of it) and the claims found before it, and returns its own `Claim`s: what each model sees
(`see_both` / `see_left`), the mentions that earn partial credit, the generation condition
(future tokens absent, reliance), the relation between training and generation, and the uses
of each family. The wrong-mechanism catalogue (`mechanisms.py`) is one entry.
"""

from __future__ import annotations

import re
from dataclasses import replace

from grader.rubric.extractor import ClaimContext, Extractor
from grader.rubric.facts import BOTH, CLM, MLM, Claim, Hit
from grader.rubric.mechanisms import trailing_mask, wrong_mechanisms
from grader.rubric.relation_claims import _has_train, _signed, relations
from grader.rubric.sentence import ParsedSentence
from grader.rubric.uses import parallel_use, used_for_generation, used_for_understanding
from grader.rubric.vision import (
    causal_mask_hides,
    later_tokens_said_available,
    sees_a_range,
    sees_both_sides,
    sees_later_tokens,
    sees_one_direction,
    sees_only_earlier,
)
from grader.rubric.vision_shared import elided_contrast, shared_by_comparison

_RELIANCE = ("rel", "depend", "need", "assum", "expect", "lean")
# Words that state a consequence; "BERT can't generate" counts as (half) an argument only when
# it is presented as following from something.
_CONNECTIVE = re.compile(
    r"\b(?:because|so|therefore|thus|hence|since|that's why|this is why|which is why|as a result|"
    r"consequently|due to|because of|the reason\b[^.;]*?\b(?:is|was) that)\b"
    # an arrow between two clauses of notes is their cause-and-effect link ("X => it can't
    # generate"), not one joining two words ("left->right")
    r"|(?:^|\s)(?:-+>|=+>|\u2192|\u21d2)(?=\s)",
    re.IGNORECASE,
)
# "masked language modelling", "the masked objective": the objective is named, not only the model
_OBJECTIVE_NAME = re.compile(r"mask\w* (?:language )?model(?:l)?ing|objective", re.IGNORECASE)
_COPULA = re.compile(r"(?:is|are) (\w+)$", re.IGNORECASE)


def wrong_mechanism_claims(c: ClaimContext, found: list[Claim]) -> list[Claim]:
    """The catalogue of false claims (`mechanisms.py`)."""
    return wrong_mechanisms(c.ss)


# Mentions that earn partial credit -------------------------------------------------------
def objective_named(c: ClaimContext, found: list[Claim]) -> list[Claim]:
    """ "masked language modelling": the masked LM's objective named with the model."""
    ss = c.ss
    return [
        Claim("predicts_masked", MLM, c.idx, False, False, h.text)
        for h, code, contrast in ss.subj
        if code == MLM and not contrast and _OBJECTIVE_NAME.search(h.text)
    ]


_MENTIONS = (
    ("predict_masked", "predicts_masked"),
    ("predict_next", "predicts_next"),
    ("causal_mask", "causal_mask"),
    ("earlier_ref", "uses_earlier"),
)


def mentions(c: ClaimContext, found: list[Claim]) -> list[Claim]:
    """What a model predicts or uses, named without the restriction ("predicts the next
    word", "uses a causal mask", "from the previous words")."""
    ss, out = c.ss, []
    # "a trailing [MASK]", "append a [MASK] at the end": the generation hack, not the objective
    trailing = trailing_mask(ss)
    for key, kind in _MENTIONS:
        for h in ss.hits.get(key, []):
            if ss.negated(h) or _tautology(ss, h) or h == trailing:
                continue
            out.append(Claim(kind, ss.subject_at(h.start), c.idx, True, c.gen_ctx(h), h.text))
    return out


def no_causal_mask(c: ClaimContext, found: list[Claim]) -> list[Claim]:
    """ "BERT has no causal mask": the masked LM's attention named by what it lacks, a label
    of its two-sided view without the view stated (C1 partial)."""
    ss = c.ss
    return [
        Claim("no_causal_mask", MLM, c.idx, False, False, h.text)
        for h in ss.hits.get("causal_mask", [])[:1]
        if ss.negated(h) and ss.subject_at(h.start) == MLM
    ]


def reads_left_to_right(c: ClaimContext, found: list[Claim]) -> list[Claim]:
    """ "reads left to right", said of training (not of generating)."""
    ss = c.ss
    return [
        Claim("left_to_right", ss.subject_at(h.start), c.idx, True, False, h.text)
        for h in ss.hits.get("left_to_right", [])
        if not c.gen_ctx(h, with_l2r=False) or ss.clause_has("training", h)
    ]


# Generation: what is missing, who relies on what -----------------------------------------
def future_absent(c: ClaimContext, found: list[Claim]) -> list[Claim]:
    """ "the later tokens do not exist yet at generation": the generation condition."""
    ss = c.ss
    refs = [h for k in ("future_ref", "whole_seq", "both_sides") for h in ss.hits.get(k, [])]
    refs += _context_words(ss)
    for a in c.absent:
        strong_absent = a.text.lower() != "yet" and not a.text.lower().startswith(
            ("missing", "empty")
        )
        near_ref = any(abs(r.tok - a.tok) <= 12 for r in refs)
        if (near_ref and (c.gen_any or "yet" in a.text.lower() or _has_yet(ss))) or (
            strong_absent and c.gen_any
        ):
            return [Claim("future_absent", ss.subject_at(a.start), c.idx, True, True, a.text)]
    return []


def mlm_cannot_generate(c: ClaimContext, found: list[Claim]) -> list[Claim]:
    """ "so BERT can't generate": strong when stated as a consequence."""
    ss = c.ss
    for g in ss.hits.get("generation", []):
        if ss.subject_at(g.start) == MLM and ss.negated(g):
            causal = bool(_CONNECTIVE.search(ss.sent.norm))
            return [Claim("mlm_cannot_generate", MLM, c.idx, causal, True, g.text)]
    return []


def mlm_relies(c: ClaimContext, found: list[Claim]) -> list[Claim]:
    """ "BERT relies on / needs the context", or "... and BERT always had them" pointing back
    at the missing context of this very sentence."""
    ss = c.ss
    for v in ss.hits.get("view_verb", []):
        nxt = ss.toks[v.tok_end][2] if v.tok_end < len(ss.toks) else ""
        points_back = bool(c.absent) and nxt in {"them", "those", "these"}
        if (
            (v.text.lower().startswith(_RELIANCE) or points_back)
            and ss.subject_at(v.start) == MLM
            and not ss.negated(v)
            # "generating needs the model to work without the future": generation needs it
            and not any(0 <= v.start - g.end <= 1 for g in ss.hits.get("generation", []))
        ):
            return [Claim("mlm_relies", MLM, c.idx, True, False, v.text)]
    return []


def never_trained(c: ClaimContext, found: list[Claim]) -> list[Claim]:
    """ "it was never trained to ..." / "never exposed to"."""
    ss = c.ss
    return [
        Claim("never_trained", ss.subject_at(n.start), c.idx, True, False, n.text)
        for n in ss.hits.get("never_trained", [])
    ]


def generation_left_to_right(c: ClaimContext, found: list[Claim]) -> list[Claim]:
    """ "generation goes left to right"."""
    ss = c.ss
    # "GPT is autoregressive, so it can generate", "BERT can't generate because it is not
    # autoregressive": the family's label, said of a model (named or pointed to), not how
    # generation goes
    l2r = [h for h in ss.hits.get("left_to_right", []) if not _LABEL_OF_MODEL.search(
        ss.sent.norm[max(0, h.start - 40) : h.end]) and not _clm_manner(ss, h)]  # fmt: skip
    if c.gen_any and l2r and (ss.hits.get("generation") or ss.hits.get("generation_time")):
        return [Claim("generation_left_to_right", None, c.idx, True, True, "")]
    return []


def _clm_manner(ss: ParsedSentence, h: Hit) -> bool:
    """ "only GPT can generate text coherently from left to right": the order is the manner of
    the causal LM's ability to generate (its subject, with "can"), what the question says it
    can do, not the condition generation puts a model in (round 12)."""
    return any(
        g.end <= h.start
        and ss.same_clause(g, h)
        and h.tok - g.tok_end <= 4
        and ss.subject_at(g.start) == CLM
        and not ss.negated(g)
        and _CAN.search(ss.sent.norm, max(0, g.start - 20), g.start) is not None
        for g in ss.hits.get("generation", [])
    )


_CAN = re.compile(r"\b(?:can|could|is able to|are able to)\s+(?:\w+\s+)?$", re.I)


_LABEL_OF_MODEL = re.compile(
    r"\b(?:bert|gpt|it|they|\w*(?:model|lm|coder)s?)\s*(?:\bis|\bare|'s|'re|isn't|aren't)\s+"
    r"(?:\w+\s+)?autoregressive\w*$",
    re.I,
)


def same_restriction_in_both(c: ClaimContext, found: list[Claim]) -> list[Claim]:
    """ "GPT only sees earlier tokens, in training and when it generates": the same
    restriction stated for both conditions is the consistency point itself."""
    ss = c.ss
    # "in training GPT attends to the future tokens too, and only at inference is it limited
    # to the past": a restriction said for one condition only is no sameness
    sees_more = any(f.kind == "see_both" and f.subject in (CLM, BOTH) for f in found)
    if (
        _has_train(ss)
        and ss.hits.get("generation_time")
        and not sees_more
        and not any(f.kind.startswith("relation_") for f in found)
    ):
        for f in found:
            if f.kind == "see_left" and f.strong and f.subject in (CLM, BOTH):
                return [Claim("relation_same", f.subject, c.idx, True, True, f.text)]
    return []


# In order: later extractors read what earlier ones found (the ellipsis flips a vision claim;
# a relation is "conditioned" by a vision claim; the same restriction in both conditions
# stands in for a missing relation). Register a new extractor where its inputs are complete.
EXTRACTORS: tuple[Extractor, ...] = (
    sees_both_sides,
    sees_later_tokens,
    later_tokens_said_available,
    sees_only_earlier,
    sees_a_range,
    sees_one_direction,
    causal_mask_hides,
    elided_contrast,
    shared_by_comparison,
    wrong_mechanism_claims,
    objective_named,
    mentions,
    no_causal_mask,
    reads_left_to_right,
    future_absent,
    mlm_cannot_generate,
    mlm_relies,
    never_trained,
    generation_left_to_right,
    relations,
    same_restriction_in_both,
    used_for_understanding,
    used_for_generation,
    parallel_use,
)


def sentence_claims(ss: ParsedSentence, prev_train: bool = False) -> list[Claim]:
    """Claims of one sentence, from every registered extractor in order. `prev_train`: the
    sentence before talks about training, so a relation here ("At generation it sees its
    prefix, the same kind of input") compares generation with that training condition."""
    c = ClaimContext.of(ss, prev_train)
    out: list[Claim] = []
    for extract in EXTRACTORS:
        out.extend(extract(c, out))
    return out


def telegraphic_claims(ss: ParsedSentence) -> list[Claim]:
    """Claims of a list-like line that names one model family ("Decoders: NLG", "BERT ->
    classification"): only its uses. A list naming both families (or none) is a keyword salad
    and has no claims."""
    c = ClaimContext.of(ss, False)
    named = {code for _, code, _ in ss.subj} & {MLM, CLM}
    if not named:
        return []
    out: list[Claim] = []
    for extract in (used_for_understanding, used_for_generation):
        out.extend(extract(c, out))
    if len(named) == 1:
        # "GPT: practice = match": the line's one family is what the sign is said of
        (code,) = named
        out.extend(replace(x, subject=code) for x in _signed(c, lexicon_read=False))
        return [x for x in out if x.subject in named]
    # "BERT = encoder, NER; GPT = decoder, generation": one family per ";"-separated item is
    # a pair of telegraphic claims, not a salad; a use in an item naming both is nothing
    return [x for x in out if x.subject in named and _one_family_item(ss, x)]


_ITEM_SEP = re.compile(r";|\s[|\u2022]\s")


def _one_family_item(ss: ParsedSentence, x: Claim) -> bool:
    """The use `x` lies in a ";"-separated item of the line whose only model family is its
    subject."""
    s = ss.sent.norm
    cuts = [0, *(m.end() for m in _ITEM_SEP.finditer(s)), len(s) + 1]
    if len(cuts) < 3:
        return False
    for key in ("understanding", "generation_use"):
        for h in ss.hits.get(key, []):
            if h.text != x.text:
                continue
            k = max(i for i in range(len(cuts) - 1) if cuts[i] <= h.start)
            fams = {code for m, code, _ in ss.subj if cuts[k] <= m.start < cuts[k + 1]}
            if fams & {MLM, CLM} == {x.subject}:
                return True
    return False


def _context_words(ss: ParsedSentence) -> list[Hit]:
    """Bare "context" / "information" / "tokens" words: what generation lacks
    ("context that does not exist")."""
    out = []
    for a, b, t in ss.toks:
        if t in {"context", "information", "tokens", "words"}:
            out.append(ss._hit("context", a, b))
    return out


def _has_yet(ss: ParsedSentence) -> bool:
    return any(t == "yet" for _, _, t in ss.toks)


def _tautology(ss: ParsedSentence, h: Hit) -> bool:
    """A mention that only repeats its subject's name ("causal LMs are causal"): the predicate
    word already appears in the clause before it, so it says nothing about the model."""
    m = _COPULA.match(h.text.strip())
    if m is None:
        return False
    before = ss.sent.norm[max(0, h.start - 40) : h.start].lower()
    # "BERT is non-causal, GPT is causal": the denied word is another word, no repetition;
    # round 9: "GPT is causal" names the question's family for the model, no mechanism
    word = re.escape(m.group(1).lower())
    named = any(0 <= h.start - g.end <= 1 for g in ss.hits.get("causal_model", []))
    return re.search(rf"(?<!non)(?<!non-)(?<!non ){word}", before) is not None or named
