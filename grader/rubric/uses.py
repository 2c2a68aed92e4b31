"""What each family is used for (C5): the use extractors of `claims.EXTRACTORS`.

`used_understanding` / `used_generation` from "BERT is used for classification", "GPT -> chat";
`mlm_good_at_generation` when the masked LM is said to suit generation; and
`parallel_generation`, the second half of a use contrast whose use verb is left out ("encoders
are used for tagging, and decoders for sampling"), which `criteria._c5` pairs with the
understanding half of the same or the previous sentence.
"""

from __future__ import annotations

import re

from grader.rubric.extractor import ClaimContext
from grader.rubric.facts import BOTH, CLM, MLM, Claim, Hit, Subject
from grader.rubric.model import Rubric
from grader.rubric.sentence import ParsedSentence, _overlap

# "trained for generation", "works for generation": the objective or the question restated,
# not generation named as what the family is chosen for (the labelling guide's C5 rule)
_NOT_A_CHOICE = re.compile(
    r"\b(?:(?:pre ?)?trained|optimi[sz]ed|works?|worked|working|fine|ok(?:ay)?)\s+$", re.I
)
# the model may carry its examples in brackets before the arrow: "Decoders (GPT) -> generation",
# or a kind suffix: "GPT-like -> generation", "BERT-style models: NER"
_ATTACH = re.compile(
    r"(?:[-\s](?:like|style|type|based)(?:\s+(?:models?|ones|encoders?|decoders?))?)?"
    r"\s*(?:\([^()]*\))?\)?\s*(?::|->|=>|=|→)\s*$",
    re.IGNORECASE,
)


def used_for_understanding(c: ClaimContext, found: list[Claim]) -> list[Claim]:
    """ "BERT is used for classification / understanding"."""
    ss = c.ss
    return [
        Claim(
            "used_understanding",
            ss.subject_at(u.start) or _fronted_family(ss, u),
            c.idx, True, False, u.text,
        )
        for u in ss.hits.get("understanding", [])
        if not ss.negated(u)
        and not _OWN_GRASP.search(ss.sent.norm[: u.start])
        and not _MADE_OR_MEASURED.search(ss.sent.norm[max(0, u.start - 40) : u.start])
    ]  # fmt: skip


# "that's my understanding", "to our understanding": the student's grasp, not a task
_OWN_GRASP = re.compile(r"\b(?:my|our|your)\s+(?:\w+\s+)?$", re.IGNORECASE)
# "it outputs embeddings", "masked LMs achieve semantic understanding", "tests which measure
# reading comprehension": what a model makes or a test measures is the object of that verb,
# not a task the family is used for (round 10)
_MADE_OR_MEASURED = re.compile(
    r"\b(?:outputs?|outputting|produc(?:e|es|ing)|achiev(?:e|es|ing)|yields?|returns?|"
    r"measur(?:e|es|ing)|test(?:s|ing)?|assess(?:es|ing)?)\s+(?:(?:an?|the|its|their|"
    r"holistic|semantic|deep|rich|good|better|contextual|reading|real|true)\s+){0,3}$|"
    r"\b(?:measures?|tests?|proxy|proxies)\s+of\s+(?:\w+\s+)?$",
    re.IGNORECASE,
)


def _fronted_family(ss: ParsedSentence, u: Hit) -> Subject | None:
    """ "Where a task supplies the whole input (classification, NER), the encoder is
    preferred": a use named in a fronted condition or aside, before the sentence names any
    model, belongs to the first family named after it in its (strong) clause, when a word of
    choice follows that family there ("is preferred", "is the standard") or a user's verb
    stands right before it ("people use", "we rely on")."""
    if any(h.start < u.start for h, _, _ in ss.subj):
        return None
    stop = _PART_END.search(ss.sent.norm, u.end)
    end = stop.start() if stop else len(ss.sent.norm)
    after = [(h, x) for h, x, k in ss.subj if not k and u.end <= h.start < end]
    if not after or after[0][1] not in (MLM, CLM):
        return None
    h, code = after[0]
    # the word of choice after the family, or a user's verb right before it ("For binding
    # sites, people use the encoders")
    chosen = [
        x for x in ss.hits.get("usage", [])
        if h.end <= x.start < end and not ss.negated(x) and not unsuited(ss.sent.norm, x)
    ] or _USER_VERB.search(ss.sent.norm[u.end : h.start])  # fmt: skip
    return code if chosen else None


_USER_VERB = re.compile(
    r"(?:^|[,;:]\s*)(?:we|you|one|people|they|labs?|groups?|researchers|practitioners|i)\s+"
    r"(?:\w+\s+)?(?:use|pick|choose|reach for|go with|rely on|prefer)\s+(?:the\s+)?"
    r"(?:\w+\s+){0,2}$",
    re.I,
)


_PART_END = re.compile(r"[;:.!?]|\b(?:but|whereas|while|whilst)\b")


def used_for_generation(c: ClaimContext, found: list[Claim]) -> list[Claim]:
    """ "GPT is used for / suited to generation" (and the masked LM said to be good at it).
    A use word said of another model ("GPT can generate, unlike how you would use BERT to
    ...") is not this model's use."""
    ss, out = c.ss, []
    gen_time_spans = ss.hits.get("generation_time", [])
    has_understanding = bool(ss.hits.get("understanding"))
    # "a model that writes": a generation verb qualifying a model, read only as such a use
    qualified = [
        g
        for g in ss.hits.get("generation", [])
        if _THAT_BEFORE.search(ss.sent.norm[: g.start]) and _model_for_use(ss, g) is not None
        and not any(_overlap(g, u) for u in ss.hits.get("generation_use", []))
        and not ss.negated(g)
    ]  # fmt: skip
    for g in ss.hits.get("generation_use", []) + qualified:
        # "better at generation" restates the question for the causal LM (no credit), but
        # said of the masked LM it is a false claim (`mechanisms.mlm_used_for_generation`)
        if any(_overlap(g, t) for t in gen_time_spans) or ss.negated(g):
            continue
        subj = _model_for_use(ss, g) or ss.subject_at(g.start)
        usage = [
            u for u in ss.hits.get("usage", [])
            if ss.same_clause(u, g) and (u.text.lower() != "for" or 0 <= g.tok - u.tok_end <= 2)
            and not (u.text.lower() == "for" and _NOT_A_CHOICE.search(ss.sent.norm[: u.start]))
            and ss.subject_at(u.start) in (subj, None)
        ]  # fmt: skip
        # "Decoders: NLG", "GPT -> chat": a use attached to its model is a telegraphic claim
        attached = any(_ATTACH.match(ss.sent.norm[h.end : g.start]) for h, _, _ in ss.subj)
        usage = [
            u
            for u in usage
            if not unsuited(ss.sent.norm, u) and not purpose_opener(ss.sent.norm, u, g)
        ]
        if not usage and (fam := _fronted_family(ss, g)) is not None:
            # "Where text must be produced, decoders have become the standard choice"
            subj, usage = fam, [g]
        usage = usage or ([g] if attached or _model_for_use(ss, g) is not None else [])
        suit = ss.near_before("suitability", g, 4)
        if (
            suit is not None
            and not ss.negated(suit)
            and not unsuited(ss.sent.norm, suit)
            and subj in (MLM, BOTH)
        ):
            out.append(Claim("mlm_good_at_generation", subj, c.idx, True, True, g.text))
        # next to an understanding use, a generation word is the other half of the split,
        # unless its clause says how the model works ("GPT was trained to generate")
        if usage or (has_understanding and not _process_clause(ss, g) and not _able(ss, g)):
            # "GPT is better at writing": a comparison with no choice named restates the
            # question; it counts only beside an understanding use (`criteria._c5`)
            compared = bool(usage) and all(_compared(ss.sent.norm, u) for u in usage)
            kind = "compared_generation" if compared and subj == CLM else "used_generation"
            out.append(Claim(kind, subj, c.idx, True, True, g.text))
    return out


_COMPARED = re.compile(r"^(?:better|more|worse)\b", re.IGNORECASE)
_COMPARED_BEFORE = re.compile(r"\b(?:better|more|worse|less)\s+(?:\w+\s+)?$", re.IGNORECASE)


# "For gen it needs the full sentence", "For generation, BERT would have to ...": a fronted
# "for" whose clause goes on with its own subject and a verb of need or inability
# (after a note's label: "BERT: for gen it needs ...")
_OPENS_CLAUSE = re.compile(r"^\W*(?:[\w-]+\s*:\W*)?(?:(?:and|but|so|yet|then)\W+)?$", re.I)
_NEED_AFTER = re.compile(
    r"^\W*(?:[\w-]+\s+){1,3}?(?:really\s+|still\s+|always\s+)?(?:needs?|needed|requires?|required|"
    r"would|has to|have to|had to|must|relies|depends|lacks|cannot|can't|can not)\b",
    re.IGNORECASE,
)


def purpose_opener(norm: str, u: Hit, g: Hit) -> bool:
    """The use word `u` ("for") opens its sentence or clause before the generation word `g`,
    and a clause of need follows ("For generation it needs the full sentence"): generation
    is the purpose the sentence talks about, not a use chosen for a model."""
    if u.text.lower() != "for" or not _OPENS_CLAUSE.match(norm[: u.start].rsplit(";", 1)[-1]):
        return False
    return bool(_NEED_AFTER.match(norm[g.end :]))


def _compared(norm: str, u: Hit) -> bool:
    """The use word `u` is a comparison ("better at", "better suited to", "more suitable")."""
    before = norm[max(0, u.start - 24) : u.start]
    return bool(_COMPARED.match(u.text) or _COMPARED_BEFORE.search(before))


# a use judged unfit: "weird for generating", "the wrong formula for writing", "a poor fit for
# chat" says the model is NOT for that use (issue-19 round 6)
_UNSUITED_BEFORE = re.compile(
    r"\b(?:weird|odd|strange|wrong|bad|poor|useless|awkward|terrible|awful|hopeless|unsuited|"
    # a degree word that judges the fit low ("poorly suited to", "ill suited", "less suited")
    r"poorly|badly|ill|less|least|hardly|barely|"
    r"unfit|inappropriate|pointless|clumsy|not (?:good|great|suited|made|meant|designed|built|"
    r"ideal|useful))\s+(?:\w+\s+){0,2}?$",
    re.IGNORECASE,
)


def unsuited(norm: str, use: Hit) -> bool:
    """The use word `use` ("for", "at") follows a judgement that the model is unfit for it
    ("weird for", "the wrong tool for", "useless at")."""
    before = norm[max(0, use.start - 40) : use.start]
    return bool(_UNSUITED_BEFORE.search(before) or before.lower().endswith("ill-"))


# a bare "for" completing a noun of cause or difficulty ("the reason for its poor writing",
# "the problem for generation is that ..."): the noun's complement, not a use of the model
_NOUN_FOR = re.compile(
    r"\b(?:reasons?|causes?|explanations?|problems?|trouble|difficult(?:y|ies)|challenges?|"
    r"obstacles?|hurdles?|consequences?|implications?|issues?|bottlenecks?|basis|grounds|"
    r"blame)\s+$",
    re.IGNORECASE,
)


def noun_complement(norm: str, use: Hit) -> bool:
    """`use` is a bare "for" after a noun of cause or difficulty: no use is named."""
    return use.text.lower() == "for" and bool(
        _NOUN_FOR.search(norm[max(0, use.start - 30) : use.start])
    )


_SUITED_BEFORE = re.compile(
    r"\b(?:better|best|good|great|excellent|strong|stronger|ideal|worse|worst|bad|poor)\s+$", re.I
)


def suited_time(norm: str, t: Hit) -> bool:
    """ "better at generation": the time phrase after a word of suitability names a use, not
    a time."""
    return t.text.lower().startswith("at ") and bool(_SUITED_BEFORE.search(norm[: t.start]))


# a model qualified by its use and then equated with or chosen as a family: "every chat model
# is decoder-only", "if you want a model that writes, you train a decoder"
_QUALIFIED_AFTER = re.compile(
    r"^\W*(?:models?|systems?|assistants?|bots?)?\s*(?:is|are|=|means)\s+(?:an?\s+|the\s+)?$",
    re.IGNORECASE,
)
_THAT_BEFORE = re.compile(r"\b(?:models?|ones?|systems?)\s+(?:that|which)\s+$", re.IGNORECASE)
_CHOSEN_AFTER = re.compile(
    r"^\W*(?:then\s+)?(?:you|we|one|people)\s+(?:\w+\s+)?(?:train|use|pick|choose|grab|take|"
    r"build|want|need)\s+(?:an?\s+|the\s+)?(?:\w+\s+)?$",
    re.IGNORECASE,
)


def _model_for_use(ss: ParsedSentence, g: Hit) -> Subject | None:
    """The family named right after the use `g` when `g` qualifies a model that the sentence
    equates with or chooses as that family (see `_QUALIFIED_AFTER`, `_CHOSEN_AFTER`)."""
    after = [(h, code) for h, code, k in ss.subj if h.start >= g.end and not k]
    if not after:
        return None
    h, code = after[0]
    between = ss.sent.norm[g.end : h.start]
    if _QUALIFIED_AFTER.match(between):
        return code
    tail = re.sub(r"^\w*", "", between, count=1)  # the rest of the verb ("writes", "chats")
    chosen = _THAT_BEFORE.search(ss.sent.norm[: g.start]) and _CHOSEN_AFTER.match(tail)
    return code if chosen else None


# Generation named as a use in other words than the lexicon's uses: "text has to be generated",
# "when you want text written", "for sampling", "for gen". Only read in the second half of a
# use contrast (`parallel_use`), never as a use on its own.
_GEN_WORD = re.compile(
    r"\b(?:generat\w*|sampl(?:e|es|ed|ing)|writ(?:e|es|ing|ten)|wrote|gen|nlg|"
    r"(?:produc|creat)\w* (?:the )?(?:text|stories|prose))\b",
    re.IGNORECASE,
)
# what makes a clause about how a model works or what it lacks, not about what it is used for
_PROCESS_KEYS = (
    "training", "never_trained", "left_to_right", "earlier_ref", "future_ref", "both_sides",
    "whole_seq", "predict_next", "predict_masked", "causal_mask", "absent", "only", "negation",
)  # fmt: skip
# "GPT can generate": the question restated, not a use
_CAPABILITY = re.compile(r"\b(?:can|could|able to|manages? to)\s+(?:\w+ly\s+)?$", re.I)
_CLAUSE_END = re.compile(r"^\W*$")


def parallel_use(c: ClaimContext, found: list[Claim]) -> list[Claim]:
    """The causal family named with generation in a clause that only says what it is for,
    without a use verb of its own: "..., and GPT-style decoders in generation", "GPT-style
    decoders do generation", "and a decoder when you want text written". It is the second half
    of a use contrast when the understanding half stands in this sentence or the one before
    (`criteria._c5`); alone it earns nothing."""
    ss = c.ss
    if CLM not in {x for _, x, k in ss.subj if not k} or ss.sent.norm.rstrip().endswith("?"):
        return []  # the causal family named in this sentence; a question states no use
    if any(f.kind == "used_generation" and f.subject == CLM for f in found):
        return []
    for g in _generation_words(ss):
        if ss.negated(g) or _able(ss, g):
            continue
        if ss.subject_at(g.start) != CLM:
            continue
        if _process_clause(ss, g):
            continue
        if any(f.kind in ("see_left", "see_both") and f.subject == CLM for f in found):
            continue
        return [Claim("parallel_generation", CLM, c.idx, True, True, g.text)]
    return []


def _able(ss: ParsedSentence, g: Hit) -> bool:
    """ "GPT can generate": a capability, the question restated (no use named)."""
    return bool(_CAPABILITY.search(ss.sent.norm[: g.start]))


def _process_clause(ss: ParsedSentence, g: Hit) -> bool:
    """The (weak) clause of `g` says how a model works or what it lacks (`_PROCESS_KEYS`)."""
    ci = ss.clause(g.start, strong=False)
    return any(
        ss.clause(h.start, strong=False) == ci and not _overlap(h, g)
        for k in _PROCESS_KEYS
        for h in ss.hits.get(k, [])
    )


def _generation_words(ss: ParsedSentence) -> list[Hit]:
    """Generation uses, generation nouns and `_GEN_WORD`s; a time phrase ("in generation")
    only when it closes its clause, as in an elided use ("..., and decoders in generation")."""
    timed = ss.hits.get("generation_time", [])
    out = [
        h
        for k in ("generation_use", "generation")
        for h in ss.hits.get(k, [])
        if not any(_overlap(h, t) for t in timed)
    ]
    out += [ss._hit("generation", m.start(), m.end()) for m in _GEN_WORD.finditer(ss.sent.norm)]
    ends = [*ss.bounds[1:], len(ss.sent.norm)]
    for t in timed:
        ci = ss.clause(t.start, strong=False)
        nxt = min((e for e in ends if e >= t.end), default=len(ss.sent.norm))
        named = any(
            ss.clause(h.start, strong=False) == ci and h.end <= t.start for h, _, _ in ss.subj
        )
        if t.end > t.start and named and _CLAUSE_END.match(ss.sent.norm[t.end : nxt]):
            out.append(t)
    return sorted(out, key=lambda h: h.start)


_ANSWER_HEAD = re.compile(r"^[^,;:.!?(]*")
ANSWER_WORDS = 6  # a short answer naming a family ("The decoder.", "The bidirectional encoder")


def use_question_frame(question: str, answer: str, rubric: Rubric) -> tuple[str, ...]:
    """ "Which would you put behind a chatbot? The decoder.": a question about a use answered
    by naming one family claims that use for it. Returns the lexicon keys the answer inherits
    (zero-width, like `discourse.question_frame`): ("generation_use", "usage") or
    ("understanding",); none when the question names no use or both, or the answer is no
    short answer naming exactly one family."""
    q, a = question.rstrip(" \"')"), answer.strip()
    if not q.endswith("?") or a.rstrip(" \"')").endswith("?"):
        return ()
    head = _ANSWER_HEAD.match(a)
    words = re.findall(r"\w+", head.group(0)) if head else []
    if not words or len(words) > ANSWER_WORDS:
        return ()
    fams = {k for k in ("masked_model", "causal_model") if rubric.says(head.group(0), k)}
    if len(fams) != 1:
        return ()
    gen, und = rubric.says(q, "generation_use"), rubric.says(q, "understanding")
    if gen == und:
        return ()
    return ("generation_use", "usage") if gen else ("understanding",)
