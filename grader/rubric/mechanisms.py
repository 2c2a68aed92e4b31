"""Catalogue of wrong mechanisms: families of false claims, one extractor per family.

Each extractor reads one sentence (`sentence.ParsedSentence`: lexicon hits, subjects, negation
scope) and returns `Claim`s of a `wrong_*` kind; `criteria.py` turns them into contradicted
verdicts with the rubric's `[claims]` message. A family is a wrong *mechanism*, not a wording:

- `wrong_mlm_causal` (C1): the masked LM is said to work like a causal LM: it predicts the
  next word, uses a causal mask, reads left to right, is autoregressive;
- `wrong_mlm_trailing_mask` (C2): a [MASK] at the end is said to turn the masked LM into a
  working next-word generator;
- `wrong_mlm_trained_generation` (C2): the masked LM is said to be trained for (left-to-right)
  generation;
- `wrong_mlm_trained_causal` (C2, `c2_trained_causal.py`): that causal mechanism said to be
  what the masked LM is trained with ("BERT is trained left to right to predict the next word");
- `wrong_mlm_no_problem` (C2): generation is said to pose the masked LM no problem, or its
  problem is said not to be the missing context;
- `wrong_mlm_generates_well` (C5): the masked LM is said to generate fine / well /
  coherently, to be used for / better at generation, or to be the better generator;
- `wrong_clm_fills_blanks` (C3): the causal LM is said to predict masked tokens / fill blanks;
- `wrong_clm_cannot_generate` (C5): the causal LM is said unable to generate coherently
  (`clm_inability.py`).

Every extractor needs the model it blames as the subject of the phrase (`subject_at`), skips
negated phrases and phrases under a modal or purpose frame ("would have to predict the next
word", "asked to fill a blank"), and never fires inside text the student does not assert
(`polarity`: those hits were already removed). Register a new family in `EXTRACTORS`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from grader.rubric.architecture_swaps import (
    architecture_illustrated_by_other,
    family_called_other_architecture,
    label_swapped_under_heading,
)
from grader.rubric.blame import blamed as _blamed
from grader.rubric.c2_trained_causal import trained_causal
from grader.rubric.clm_inability import clm_cannot_generate
from grader.rubric.facts import BOTH, CLM, MLM, Claim, Hit
from grader.rubric.generation_ability import (
    ASKED_CAN,
    BOTH_CAN_BUT,
    GOOD,
    able_alone,
    both_fit_to_generate,
)
from grader.rubric.polarity import inside
from grader.rubric.sentence import ParsedSentence
from grader.rubric.uses import noun_complement, purpose_opener, suited_time, unsuited

_OBJECTIVE = re.compile(r"^(?:predict|guess|next (?:token|word) prediction)", re.IGNORECASE)
# round 11: a chain read from its first end to its last, "reads the sequence N to C" (the
# protein voice's left to right)
_CHAIN_WAY = re.compile(r"n\W*to\W*c\b", re.I)
_READ_VERB = re.compile(
    r"\b(?:reads?|reading|process(?:es|ing)?|looks?|sees?|attends?|goes|go|works?|scans?|"
    r"moves?|handles?|is|are|was|were|being)\s+(?:\w+\s+){0,3}$",
    re.IGNORECASE,
)
_TRAIL = re.compile(
    r"\b(?:at the (?:very )?end|append\w*|to the (?:very )?end|last position|trailing|on the end|"
    r"after the text)\b",
    re.IGNORECASE,
)
_TRAIL_GOOD = re.compile(
    r"\b(?:next (?:word|token)|like gpt|as gpt|works?|fine|no (?:real )?problem|"
    r"generat\w*|becomes?|turns? (?:it )?into|gives?)\b",
    re.IGNORECASE,
)
# an attempt reported ("my first attempt", "I tried", "we experimented with"; not the
# imperative "try appending a [MASK]", which offers it as a method): the trailing [MASK] is
# claimed to work only when the sentence says that it worked
_TRIED = re.compile(
    r"\b(?:(?:my|our|a|the|first|one)\s+(?:\w+\s+)?(?:attempts?|try|experiments?)|attempted|"
    r"tried|experimented|(?:i|we)\s+(?:was|were|am|are)\s+trying)\b",
    re.IGNORECASE,
)
_TRAIL_WORKS = re.compile(
    r"\b(?:works?|worked|fine|no (?:real )?problem|like gpt|as gpt|well|coherent\w*|"
    r"successfully|succeed\w*|perfectly|great)\b",
    re.IGNORECASE,
)
_TRAIL_BAD = re.compile(
    r"\b(?:but|however|never|not|no longer|poor\w*|bad\w*|badly|incoherent\w*|garbage|fail\w*|"
    r"struggl\w*|nonsense|weird|wrong|worse|unreliable|mismatch\w*|only works|doesn't|don't|"
    r"isn't|won't|can't)\b|n't\b",
    re.IGNORECASE,
)
_NO_BEFORE = re.compile(r"\bno\s+(?:real\s+|actual\s+|big\s+)?$", re.IGNORECASE)
_NO_PROBLEM = re.compile(
    r"\b(?:no (?:real |big |actual |fundamental )?(?:problem|issue|difficulty|obstacle)s?|"
    r"not (?:really )?a problem|(?:is|was)(?:n't| not) (?:really )?(?:the|a|an) (?:real )?"
    r"(?:problem|issue|obstacle|difficulty)|"
    # round 11: the denial in the writer's belief, "I don't think generation is a real
    # obstacle for it"
    r"(?:don't|do not|doesn't|does not) (?:really )?think (?:\w+ ){1,3}(?:is|poses|makes) "
    r"(?:a |an |any )?(?:real |big |actual )?(?:problem|issue|obstacle|difficulty)|"
    # round 12: the absence waved away, "..., but this does not matter", "makes no difference"
    r"(?:this|that|it) (?:does not|doesn't|did not|didn't) (?:really )?matter|"
    r"makes? (?:no|little) (?:real )?difference|"
    # the missing context said handled: "BERT copes with that fine", "handles it easily"
    r"(?:copes?|coped|deals?|dealt|handles?|handled|manages?|managed)\s+(?:with\s+)?"
    r"(?:that|this|it|them)\s+(?:just\s+)?(?:fine|well|easily|perfectly|without (?:any )?"
    r"(?:problems?|trouble|issues?))|"
    r"(?:does not|doesn't|do not|don't|never) (?:really )?(?:affect|hurt|harm)s? (?:the )?"
    r"(?:output|quality|its output|generation))\b",
    re.IGNORECASE,
)
_NOT_CONTEXT = re.compile(
    r"\b(?:problem|issue|reason|difficulty)\s+(?:is|was)\s+not\s+(?:the\s+)?"
    r"(?:missing|lack of|absent|absence of|unavailable)\s+(?:\w+\s+)?"
    r"(?:context|tokens|words|information)",
    re.IGNORECASE,
)
_REVERSAL = re.compile(r"\b(?:but|however)\b", re.IGNORECASE)
# "puts a [MASK] on the next token", "masks the next word": the blank is the next word
_MASKS_NEXT = re.compile(r"(?:\[mask\]|\bmask(?:s|ing|ed)?)\s+(?:(?:on|over|at)\s+)?$", re.I)
_MIDDLE = re.compile(r"\b(?:middle|masked|hidden|blanks?|gaps?|holes?|cloze)\b", re.IGNORECASE)
_SHOWN = re.compile(
    r"\W*(?:part|region|half|entries|positions|cells)?\s*(?:\w+\s+){0,1}?(?:filled|visible|"
    r"unmasked|not masked|present|available|open|shown)\b",
    re.IGNORECASE,
)
# a mask's hidden region as a thing lost or lacked, not a mask the model has
_REGION = re.compile(r"\b(?:triangle|triangular|triu|half|region|part)\b", re.IGNORECASE)
_LOST = re.compile(
    r"\b(?:missing|miss(?:es)?|lacks?|lacking|los(?:es|t|ing)|without|deprived of|robbed of|"
    r"no longer (?:has|have|gets?|sees?))\s+(?:(?:the|its|their|that|this|an?)\s+)?$",
    re.IGNORECASE,
)
_ANY_POSITION = re.compile(r"\b(?:middle|anywhere)\b", re.IGNORECASE)


def mlm_causal(ss: ParsedSentence) -> list[Claim]:
    """The masked LM predicts the next word / has a causal mask / reads left to right."""
    out: list[Claim] = []
    at_gen = bool(ss.hits.get("generation_time")) or bool(ss.hits.get("generation"))
    # "append a [MASK] at the end and BERT predicts the next word" is the trailing-[MASK]
    # family (C2), whether it is claimed to work or not: no claim about BERT's objective
    trailing = trailing_mask(ss) is not None
    cands = [
        h
        for h in ss.hits.get("predict_next", [])
        if (_OBJECTIVE.match(h.text) or _MASKS_NEXT.search(ss.sent.norm[: h.start]))
        and not trailing
    ]
    # "trained with the triu part filled in": the region the mask would hide, shown (the
    # opposite of a causal mask)
    # "is suddenly missing the upper triangle it relied on": the region taken away from it
    cands += [
        h
        for h in ss.hits.get("causal_mask", [])
        if not _SHOWN.match(ss.sent.norm, h.end)
        and not (_REGION.search(h.text) and _LOST.search(ss.sent.norm, 0, h.start))
    ]
    for h in ss.hits.get("left_to_right", []):
        t = h.text.lower()
        if (
            "left to right" in t or t.startswith("autoregressive") or _CHAIN_WAY.match(t)
        ) and _READ_VERB.search(ss.sent.norm[max(0, h.start - 30) : h.start]):
            cands.append(h)
    # "append a [MASK] at the end and BERT will predict the next word": the next word is the
    # trailing-[MASK] experiment's output (a C2 claim), not the masked LM's objective
    trailing = bool(mlm_trailing_mask(ss))
    for h in cands:
        # the generation scene of this clause, not a use named in another one ("BERT reads
        # left to right so it can only guess the next word, GPT is better at writing")
        scene = at_gen and any(
            ss.same_clause(g, h) or g.end <= h.start
            for k in ("generation_time", "generation")
            for g in ss.hits.get(k, [])
        )
        if (scene or trailing) and h.key != "causal_mask":
            continue  # "when BERT generates it must predict the next word": the scenario
        # "Both BERT and GPT read text left to right" says it of BERT too
        blamed = _blamed(ss, h, MLM) or _blamed(ss, h, BOTH)
        if blamed and not any(
            n.start < h.end and h.start < n.end for n in ss.hits.get("masked_model", [])
        ):
            out.append(Claim("wrong_mlm_causal", MLM, ss.sent.index, True, False, h.text))
            break
    return out


# round 9: "so both of them can generate; GPT is just more popular": both families said able
_BOTH_CAN = re.compile(r"\bcan\s+(?:\w+\s+)?$", re.I)
# (an embedded question before that "can" asserts no ability: `generation_ability.ASKED_CAN`)


def mlm_generates_well(ss: ParsedSentence) -> list[Claim]:
    """The masked LM generates fine / well / coherently (or both families can generate)."""
    for g in ss.hits.get("generation", []):
        if not g.text.lower().startswith(("generat", "writ", "produc")):
            continue
        if (
            ss.subject_at(g.start) == BOTH
            and _BOTH_CAN.search(ss.sent.norm[max(0, g.start - 20) : g.start])
            and not ASKED_CAN.search(ss.sent.norm[max(0, g.start - 40) : g.start])
            and not ss.negated(g)
            and not BOTH_CAN_BUT.search(ss.sent.norm[g.end :].split(";")[0])
            and not inside(g.start, ss.unasserted)
        ):
            return [Claim("wrong_mlm_generates_well", MLM, ss.sent.index, True, True, g.text)]
        if able_alone(ss, g):
            return [Claim("wrong_mlm_generates_well", MLM, ss.sent.index, True, True, g.text)]
        if not GOOD.match(ss.sent.norm[g.end : g.end + 60]):
            continue
        if _blamed(ss, g, MLM):
            return [Claim("wrong_mlm_generates_well", MLM, ss.sent.index, True, True, g.text)]
    both = both_fit_to_generate(ss)
    if both is not None:
        return [Claim("wrong_mlm_generates_well", MLM, ss.sent.index, True, True, both.text)]
    return []


_DENIED_BEFORE = re.compile(
    r"\b(?:nobody|no one|never|not|cannot|can't|n't|hardly|rarely)\b|n't\b", re.I
)
_NOT_THIS = re.compile(
    r"(?:rather than|instead of|than|not|over|unlike|but not)\s+"
    # "instead of being used to write text": the use set aside, through its own verb
    r"(?:(?:being|been|be|getting|used|using|put|employed|deployed|applied)\s+){0,2}"
    r"(?:(?:to|for|in)\s+)?$",
    re.I,
)


# "something generation can never supply", "what generation gives": the generation word
# is the subject of its own clause, not the object of a use
# round 9: the use named as what training is compared with ("the training of BERT and its use
# for generation do not match"): the comparand of a relation, not a choice of the model
_PAIRED_WITH_TRAINING = re.compile(
    r"\btrain(?:ing|ed|s)?\b[^.;:]{0,40}?\b(?:and|vs\.?|versus|from|with|to)\s+"
    r"(?:(?:its|their|the)\s+|how\s+(?:\S+\s+){0,2}?)(?:use\s+|usage\s+)?$",
    re.I,
)
_HEADS_CLAUSE = re.compile(
    r"\s+(?:can(?:not|'t)?|could(?:n't)?|will|won't|would|never|always|gives?|provides?|"
    r"supplies|offers?|has|hands?|feeds?|does(?:n't)?)\b",
    re.I,
)


# "for BERT, training and generation are ...": "for" + a model names the topic, not a use
_TOPIC_FOR = re.compile(
    r"for\s+(?:the\s+)?(?:bert|gpt|masked|causal|encoders?|decoders?|mlms?|clms?)\b", re.I
)


# "BERT-style models are actually the better generators": the masked LM given the role of a
# good generator by a copula
_GOOD_GENERATOR = re.compile(
    r"\b(?:is|are|was|were|be)\s+(?:actually\s+|really\s+|clearly\s+|in fact\s+)?"
    r"(?:the\s+|a\s+)?(?:better|best|good|great|stronger|superior)\s+(?:text\s+)?generators?\b",
    re.IGNORECASE,
)


def mlm_good_generator(ss: ParsedSentence) -> list[Claim]:
    """The masked LM said to be the better / a good generator (C5); its subject is read at
    the copula, and a modal ("should be the better generator") or a negation is no claim."""
    for m in _GOOD_GENERATOR.finditer(ss.sent.norm):
        h = ss._hit("good_generator", m.start(), m.end())
        if _blamed(ss, h, MLM) and not inside(m.start(), ss.unasserted):
            return [Claim("wrong_mlm_generates_well", MLM, ss.sent.index, True, True, h.text)]
    return []


def mlm_used_for_generation(ss: ParsedSentence) -> list[Claim]:
    """The masked LM is said to be used for / better at generation ("Encoders such as BERT
    are used for text generation", "BERT is the better model for long-form writing")."""
    timed = ss.hits.get("generation_time", [])
    uses = ss.hits.get("usage", []) + ss.hits.get("suitability", [])
    for g in ss.hits.get("generation_use", []):
        norm = ss.sent.norm
        if any(t.start < g.end and g.start < t.end and not suited_time(norm, t) for t in timed):
            continue  # "at inference time for generation" is a time; "better at generation" not
        if _NOT_THIS.search(ss.sent.norm[max(0, g.start - 40) : g.start]):
            continue  # "for understanding rather than generation"
        if _HEADS_CLAUSE.match(norm, g.end):
            continue  # "it asks for something generation can never supply": its subject
        used = [
            u
            for u in uses
            if u.end <= g.start and ss.same_clause(u, g) and g.tok - u.tok_end <= 4
            and not _TOPIC_FOR.match(ss.sent.norm[u.start :])
            and not unsuited(ss.sent.norm, u)
            and not noun_complement(ss.sent.norm, u)
            and not purpose_opener(ss.sent.norm, u, g)
        ]  # fmt: skip
        if any(_PAIRED_WITH_TRAINING.search(norm[: u.start]) for u in used):
            continue  # "its training and its use for generation differ": a compared term
        if any(0 <= u.tok - t.tok_end <= 1 for t in timed for u in used):
            continue  # "at inference time for generation": a time, not a use of the model
        if (
            not used
            or ss.negated(used[0])
            or _DENIED_BEFORE.search(ss.sent.norm[ss.strong[ss.clause(g.start)] : g.start])
        ):
            continue  # "cannot be reused for generation", "nobody uses it for writing"
        if _blamed(ss, g, MLM):
            return [Claim("wrong_mlm_generates_well", MLM, ss.sent.index, True, True, g.text)]
    return []


def mlm_trailing_mask(ss: ParsedSentence) -> list[Claim]:
    """A trailing [MASK] presented as a working next-word generator (no failure stated in the
    sentence; `criteria` also looks at the next sentence)."""
    s = ss.sent.norm
    mask = trailing_mask(ss)
    if mask is None or not _TRAIL_GOOD.search(s):
        return []
    if _TRIED.search(s) and not _TRAIL_WORKS.search(s):
        return []  # "my first attempt to generate by putting a [MASK] at the end": tried, no more
    # "People say it can't, but actually you simply append a [MASK]": a failure said before
    # the last "but" ahead of the mask is what the experiment answers, not its outcome
    cuts = [m.end() for m in _REVERSAL.finditer(s) if m.end() <= mask.start]
    tail = s[cuts[-1] if cuts else 0 :]
    # "so there is no real mismatch": a failure word denied by "no" is no failure (round 12)
    if any(not _NO_BEFORE.search(tail, 0, m.start()) for m in _TRAIL_BAD.finditer(tail)):
        return []
    return [Claim("wrong_mlm_trailing_mask", MLM, ss.sent.index, True, True, mask.text)]


def trailing_mask(ss: ParsedSentence) -> Hit | None:
    """The sentence puts a [MASK] at the end of the text (the mask nearest the phrase that
    puts it there: "looks at both sides of a [MASK], but put the [MASK] at the end"), else
    None."""
    masks = [h for h in ss.hits.get("predict_masked", []) if "mask" in h.text.lower()]
    trail = _TRAIL.search(ss.sent.norm) if masks else None
    if trail is None:
        return None
    return min(masks, key=lambda h: (abs(h.start - trail.start()), h.start))


def mlm_no_problem(ss: ParsedSentence) -> list[Claim]:
    """Generation poses the masked LM no problem, or its problem is not the missing context."""
    s = ss.sent.norm
    m = _NOT_CONTEXT.search(s)
    if m is None:
        m = _NO_PROBLEM.search(s)
        gen = ss.hits.get("generation") or ss.hits.get("generation_time")
        if m is None or not gen:
            return []
        subj = ss.subject_at(m.start())
        named = {c for _, c, _ in ss.subj}
        if subj not in (MLM, BOTH) and not (subj is None and named & {MLM, BOTH}):
            return []
    if ss.negated(ss._hit("no_problem", m.start(), m.end())):
        return []  # "it is not true that there is no problem"
    return [Claim("wrong_mlm_no_problem", MLM, ss.sent.index, True, True, m.group(0))]


def clm_fills_blanks(ss: ParsedSentence) -> list[Claim]:
    """The causal LM predicts masked tokens / fills blanks in the middle."""
    anywhere = _ANY_POSITION.search(ss.sent.norm) is not None
    for h in ss.hits.get("predict_masked", []):
        if not _MIDDLE.search(h.text) and not anywhere:
            continue
        if h.text.lower() in ("[mask]",):
            continue
        # "both learn to predict missing words anywhere in a sentence" says it of GPT too;
        # "both predict missing words" alone does not (GPT's is the last one)
        if _blamed(ss, h, CLM) or (anywhere and _blamed(ss, h, BOTH)):
            return [Claim("wrong_clm_fills_blanks", CLM, ss.sent.index, True, False, h.text)]
    return []


# round 9 (C2): "the masked LM is actually trained for left-to-right generation": a training
# verb whose purpose right after it is generation (not "trained to write the missing word", nor
# "write" at all: measured, "trained to write" is mostly the blank being written)
_FOR_GENERATION = re.compile(
    r"^\W+(?:\w+\W+){0,2}?(?:for|to)\W+(?:\w+\W+)?(?:left\W+to\W+right\W+)?"
    r"(?:(?:generation|generating|generate)\b(?!\W+(?:\w+\W+)?(?:missing|masked|"
    r"hidden|blank\w*|covered|gaps?|embeddings?|representations?|features?)\b)|"
    # round 10: "trained to produce text from left to right"
    r"produc(?:e|ing)\W+(?:\w+\W+)?(?:text|sentences|prose|continuations?)\b)",
    re.IGNORECASE,
)
_TRAIN_VERB = re.compile(r"^(?:pre-?)?(?:trained|optimi[sz]ed|practi[sc]es?|practi[sc]ed)$", re.I)


def mlm_trained_to_generate(ss: ParsedSentence) -> list[Claim]:
    """The masked LM said to be trained for (left-to-right) generation, asserted: the
    guide's C2 false claim (the condition generation gives is one it trained for)."""
    for h in ss.hits.get("training", []):
        if _TRAIN_VERB.match(h.text) and _FOR_GENERATION.match(ss.sent.norm[h.end :]):
            if _blamed(ss, h, MLM):
                return [
                    Claim("wrong_mlm_trained_generation", MLM, ss.sent.index, True, True, h.text)
                ]
    return []


EXTRACTORS: tuple[Callable[[ParsedSentence], list[Claim]], ...] = (
    mlm_causal,
    mlm_trailing_mask,
    mlm_trained_to_generate,
    mlm_no_problem,
    mlm_generates_well,
    mlm_used_for_generation,
    mlm_good_generator,
    clm_fills_blanks,
    label_swapped_under_heading,
    family_called_other_architecture,
    architecture_illustrated_by_other,
    clm_cannot_generate,
)


def wrong_mechanisms(ss: ParsedSentence) -> list[Claim]:
    """Every registered family's claims for one sentence (list-like sentences never reach
    here: a keyword list states no mechanism)."""
    out: list[Claim] = []
    for extract in EXTRACTORS:
        out.extend(extract(ss))
    out.extend(trained_causal(ss, out))  # the causal mechanism as its training (C2)
    if any(c.kind == "wrong_mlm_trained_generation" for c in out):
        # "trained for generation" says how it was trained (C2), not what it is used for (C5)
        out = [c for c in out if c.kind != "wrong_mlm_generates_well"]
    return out
