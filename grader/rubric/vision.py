"""What each model is said to see: the vision extractors of `claims.EXTRACTORS`.

`see_both` / `see_left` claims from "sees both sides", "the mask hides the later tokens",
"only the earlier tokens", "positions <= i", "unidirectional", "the causal mask hides ...", and
(in `vision_shared.py`) what a "like" comparison or a verb-phrase ellipsis carries to the other
model. Context phrases next to an absence become `mlm_relies`, availability at generation
`future_available`.
"""

from __future__ import annotations

import re
from dataclasses import replace

from grader.rubric.extractor import ClaimContext
from grader.rubric.facts import BOTH, CLM, MLM, Claim, Hit
from grader.rubric.prediction_context import predicts_using
from grader.rubric.sentence import ParsedSentence, _overlap
from grader.rubric.sentence_cues import NON_CAUSAL

VIEW_WINDOW = 3  # words between a seeing/using verb and the context it governs
PAIR_WINDOW = 6  # words between "only" and "earlier tokens"
# A range of positions is itself the restriction: "attends to positions <= i".
_RANGE = re.compile(r"[<\u2264]|\bup to\b|\b(?:1|0|one)\s*(?:to|through|\.\.)\s*[a-z]\b", re.I)
# Verbs that state what a model perceives (vs "trained with", "from", "has").
_PERCEPTION = re.compile(
    r"(?:see|saw|seen|look|attend|access|peek|read|know|knew|visible|in view|\w+ shown)", re.I
)
_CONSEQUENCE = re.compile(
    r"\W*(?:so|therefore|thus|hence|which is why|that's why|this is why|and so)\b", re.I
)
_LATER_ONLY = re.compile(
    r"^(?!.*\b(?:both|bi ?directional\w*|before|left|earlier|previous|preceding|around|"
    r"surround\w*|whole|entire|full|all|every)\b).*\b(?:after|later|future|following|right|"
    r"upcoming|subsequent|ahead|rest|end)\b",
    re.I,
)
# a prediction verb right before a later-token phrase makes it the target
_TARGET = re.compile(
    r"\b(?:predict\w*|guess\w*|output\w*|emit\w*|sampl\w*)\s+(?:the\s+|a\s+|each\s+)?$",
    re.IGNORECASE,
)
# a hypothetical obligation before the context phrase: "would have to predict without",
# "would be forced to guess with no"
_SUPPOSED = re.compile(
    r"\b(?:would|'d|could)\s+(?:\w+\s+)?(?:have|need|be (?:forced|made|asked|expected|"
    r"required))\s+to(?:\s+\w+){1,4}\s*$",
    re.IGNORECASE,
)
_LABEL = re.compile(r"^(?:bi ?directional|non[\s-]*causal)(?:ly|ity)?$", re.IGNORECASE)
# a person doing the hiding, right before the hiding verb: an intervention on the input
_PERSON_AGENT = re.compile(r"\b(?:i|we|you|one)\s+(?:\w+\s+)?$", re.IGNORECASE)
# the passive of the hiding in a clause of time or condition ("once the later tokens were
# removed", "when the words after it are deleted"): done to the input by the experimenter
_DONE_TO_INPUT = re.compile(
    r"\b(?:once|when|whenever|after|if|as soon as)\s+(?:(?:the|all|any|its|of)\s+)?$", re.I
)
# the availability verb in a relative clause after the later-part phrase: "the end of what
# exists", "the end of whatever is there"
_OF_WHAT = re.compile(r"^\s+of\s+(?:what|whatever|everything that|all that)\s+(?:\w+\s+)?$", re.I)
_BY_AGENT = re.compile(r"\s+by\b", re.IGNORECASE)  # "... were hidden by the causal mask"
# a hiding verb after the context phrase that governs another noun ("the whole page with a few
# words covered up", "the entire sentence apart from the hidden tokens"): the context itself
# is what the model has (round 9)
_OTHER_HIDDEN = re.compile(
    r"\b(?:with|apart from|except|but|minus|other than|save|besides|barring)\b", re.IGNORECASE
)
_CONTEXT_NOUN = frozenset(
    "context contexts attention self information conditioning tokens words neighbours "
    "neighbors access".split()
)


def _vision(c: ClaimContext, h: Hit, left: bool, strong: bool, direct: bool = True) -> list[Claim]:
    """What a model sees. In a sentence about generation, "cannot see the later tokens"
    describes generation time, not what the model was trained on (`gen_ctx`)."""
    ss = c.ss
    kind = "see_left" if left else "see_both"
    subj = ss.subject_at(h.start, h.end)
    if left and c.absent_near(h) and (subj in (MLM, None) or c.absent_in_clause(h)):
        return []  # "can't see the end because it hasn't been written": existence, not vision
    # "queried on the prefix only, for which it has never been optimised": the condition the
    # masked LM was never trained under is the generation condition, not what it trained with
    untrained = left and subj in (MLM, None) and bool(ss.hits.get("never_trained"))
    # "BERT, however, would have to predict without the right context": a use supposed, so
    # the condition it would meet there (generation's), not what the model sees
    supposed = (
        left
        and subj in (MLM, None)
        and _SUPPOSED.search(ss.sent.norm, ss.bounds[ss.clause(h.start, strong=False)], h.start)
    )
    scene = c.gen_words and not _gen_only_after(ss, h)
    at_gen = scene or untrained or bool(supposed)
    out = [Claim(kind, subj, c.idx, strong, at_gen, h.text, direct, ss.anchored)]
    if left and scene and (subj in (MLM, None) or ss.clause_has("generation_time", h)):
        # "when generating, BERT only has the left context": the generation condition
        out.append(Claim("future_absent", subj, c.idx, True, True, h.text))
    return out


def _gen_only_after(ss: ParsedSentence, h: Hit) -> bool:
    """Generation is named only in a consequence drawn after `h` ("BERT only looks at the
    left, so its generations are worse"): the consequence does not set `h` at generation."""
    if ss.hits.get("generation_time"):
        return False
    gens = ss.hits.get("generation", [])
    ci = ss.clause(h.start)
    starts = [*ss.strong, len(ss.sent.norm)]
    for g in gens:
        gi = ss.clause(g.start)
        if gi <= ci:
            return False
        if not any(
            _CONSEQUENCE.match(ss.sent.norm[starts[k] : starts[k + 1]])
            for k in range(ci + 1, gi + 1)
        ):
            return False
    return bool(gens)


def _relies(c: ClaimContext, h: Hit) -> list[Claim]:
    """A context phrase next to an absence ("trained with future context it will never
    have at generation"): not a claim about what the model sees, but still a statement
    that the masked model was trained with / relies on that context."""
    ss = c.ss
    subj = ss.subject_at(h.start, h.end)
    verb = ss.near_before("view_verb", h, VIEW_WINDOW) or ss.near_before("training", h, VIEW_WINDOW)
    if subj in (MLM, BOTH) and verb is not None and not ss.negated(verb):
        return [Claim("mlm_relies", MLM, c.idx, True, False, h.text)]
    return []


def _available(c: ClaimContext, h: Hit) -> list[Claim]:
    """ "At generation time it can still see the later tokens": availability claimed. A
    "still" ties it to the generation phrase anywhere in the sentence."""
    ss = c.ss
    avail = ss.near_after("available_verb", h, 3) or ss.near_before("available_verb", h, 2)
    if avail is None or ss.negated(avail) or ss.negated(h):
        return []
    if _OF_WHAT.match(ss.sent.norm[h.end : avail.start]):
        return []  # "at the end of what exists": what exists is the text before the end
    lo = min(h.start, avail.start)
    if _NOT_YET.search(ss.sent.norm[max(0, lo - 40) : lo]):
        # "token i is produced before token i+1 exists": a time before the availability, so
        # the later token does not exist yet (the generation condition, not availability)
        if not c.gen_any:
            return []
        return [Claim("future_absent", ss.subject_at(h.start), c.idx, True, True, h.text)]
    at_gen = (
        ss.clause_has("generation_time", h)
        or ss.leading_time(h)
        or ("still" in avail.text.lower() and bool(ss.hits.get("generation_time")))
    )
    # round 12: "So both are trained with the full sentence available": a training verb that
    # governs the availability sets it in training, whatever scene the sentence before set
    # (the carried generation frame is a zero-width hit)
    carried = all(g.end == 0 for g in ss.hits.get("generation_time", []))
    if at_gen and carried and ss.near_before("training", h, 3) is not None:
        at_gen = False
    return [Claim("future_available", ss.subject_at(h.start), c.idx, True, at_gen, h.text)]


# "before / until <the later token> exists": the availability lies after the time spoken of
_NOT_YET = re.compile(r"\b(?:before|until|till)\s+(?:[\w{}+_-]+\s+){0,4}$", re.IGNORECASE)


# What each model sees --------------------------------------------------------------------
def sees_both_sides(c: ClaimContext, found: list[Claim]) -> list[Claim]:
    """ "BERT sees both sides / bidirectional context" (negated: only one side)."""
    ss, out = c.ss, []
    seen: list[Hit] = []
    for h in ss.hits.get("both_sides", []):
        if _placed_at_end(ss, h):
            continue
        if any(_overlap(h, p) and ss.negated(h) != ss.negated(p) for p in seen):
            continue  # one phrase read twice ("words after the" / "after the gap"): one polarity
        seen.append(h)
        if NON_CAUSAL.match(h.text):
            # the engineers' label of the masked side earns credit only: denied or in a
            # contrast ("cannot run a non-causal filter in real time") it is no view (round 9)
            if not ss.negated(h):
                out += _vision(c, h, False, not _bare_label(ss, h))
            continue
        out += _available(c, h)
        removal = _removed(ss, h)
        if removal is not None:
            out += _relies(c, h)
            if any(ss.same_clause(g, removal) for g in ss.hits.get("generation", [])):
                # "generation removes the right-hand context": the generation condition
                out.append(
                    Claim("future_absent", ss.subject_at(h.start, h.end), c.idx, True, True, h.text)
                )
            continue  # context said to be taken away is not context a model sees
        if c.absent_in_clause(h):
            out += _relies(c, h)
            if any(ss.clause(a.start, False) == ss.clause(h.start, False) for a in c.absent):
                continue  # "with future context it will never have": not a claim of vision
        out += _vision(c, h, ss.negated(h), not _bare_label(ss, h))
    return out


# round 9 (classroom voice): a context phrase right after (or before) an un-negated verb of
# removal ("generation removes the right-hand context", "the words after it are removed")
_REMOVAL = re.compile(r"remov|cut off", re.I)


def _removed(ss: ParsedSentence, h: Hit) -> Hit | None:
    """The verb of removal that takes the context phrase `h` away, if any."""
    for v in (ss.near_before("hide_verb", h, 2), ss.near_after("hide_verb", h, 2)):
        if v is not None and _REMOVAL.match(v.text) and not ss.negated(v):
            return v
    return None


# round 9: "it would need the later words, and during generation those are available too": a
# demonstrative standing for the later tokens named before it in the sentence, right before
# an availability verb, at generation time
# (round 11: "they're also available during generation", "they are still available")
_ANAPHOR = re.compile(
    r"\b(?:those|these|they)(?:'re|\s+are)?\s+(?:(?:also|still|even|likewise)\s+)?$", re.I
)


def later_tokens_said_available(c: ClaimContext, found: list[Claim]) -> list[Claim]:
    """The later tokens, named earlier in the sentence and then pointed to, said to be
    available at generation (the C2 false claim)."""
    ss = c.ss
    if any(f.kind == "future_available" and f.gen_ctx for f in found):
        return []  # (one said of training only, "available during training", leaves it open)
    refs = ss.hits.get("future_ref", []) + ss.hits.get("both_sides", [])
    for v in ss.hits.get("available_verb", []):
        if not _ANAPHOR.search(ss.sent.norm[max(0, v.start - 24) : v.start]) or ss.negated(v):
            continue
        ref = [r for r in refs if r.end <= v.start]
        if ref and (ss.clause_has("generation_time", v) or ss.leading_time(v)):
            subj = ss.subject_at(ref[-1].start)
            return [Claim("future_available", subj, c.idx, True, True, v.text)]
    return []


_AT_END = re.compile(r"\b(?:at|on|to)\s+$", re.I)
_SEEN_UP_TO = re.compile(r"\b(?:look\w*|glanc\w*|peek\w*|up|way|right)\s+(?:at|to)\s+$", re.I)


# being at the end ("you are at the end of", "it always sits at the end of"), not "access to"
_STANDS_AT = re.compile(
    r"\b(?:am|is|are|was|were|be|being|stands?|sits?|stays?|'re|'s)\s+(?:\w+\s+)?at\s+$",
    re.IGNORECASE,
)


def _placed_at_end(ss: ParsedSentence, h: Hit) -> bool:
    """ "a [MASK] at the end of the sentence" is where a token is put, not context the model
    uses (unlike "it looks at / sees up to the end of the sentence")."""
    if not h.text.lower().startswith("the end"):
        return False
    before = ss.sent.norm[max(0, h.start - 30) : h.start]
    return bool(_AT_END.search(before)) and not _SEEN_UP_TO.search(before)


def sees_later_tokens(c: ClaimContext, found: list[Claim]) -> list[Claim]:
    """ "the mask hides the future tokens", "it sees the whole sequence", "never conditioned
    on following ones": what a verb of hiding or seeing says about the later context."""
    out: list[Claim] = []
    for key, strong in (("future_ref", True), ("whole_seq", False)):
        for h in c.ss.hits.get(key, []):
            out += _later_context(c, h, strong)
    return out


def _later_context(c: ClaimContext, h: Hit, strong: bool) -> list[Claim]:
    ss = c.ss
    if h.text.lower().startswith("the end") and _STANDS_AT.search(ss.sent.norm, 0, h.start):
        return []  # "you are at the end of what exists": a position, not context seen
    if any(_overlap(h, p) for p in ss.hits.get("predict_next", [])):
        return []
    if _TARGET.search(ss.sent.norm[max(0, h.start - 30) : h.start]):
        return []  # "predict token t+1": the later token is the target, not the context
    if c.absent_in_clause(h):
        return _relies(c, h)
    if any(_overlap(h, b) for b in ss.hits.get("both_sides", [])):
        return []
    hide = ss.near_after("hide_verb", h, 4)
    if hide is not None and _OTHER_HIDDEN.search(ss.sent.norm, h.end, hide.start):
        hide = None  # "the whole page with a few words covered": the hiding is of other words
    active = ss.near_before("hide_verb", h, 3)  # "the mask hides everything after it"
    view = ss.near_before("view_verb", h, VIEW_WINDOW)
    if active is not None and view is not None and active.end <= view.start:
        active = None  # "predicts the hidden word using the whole sentence": the view governs
    if hide is None and active is not None and not ss.negated(active):
        hide = active
    if (
        view is not None
        and view.text.lower() in {"has", "have", "had"}
        and view.tok_end < len(ss.toks)
        and ss.toks[view.tok_end][2] == "to"
    ):
        view = None  # "has to predict the future tokens" is not seeing them
    out: list[Claim] = []
    if hide is not None:
        # "a mask that stops it from seeing the future tokens": the prevention cue the hiding
        # verb opens is the hiding itself, no negation of it
        prevented = any(_overlap(g, hide) and g.end <= h.start for g in ss.hits.get("negation", []))
        seen = _vision(c, h, ss.negated(h) == prevented, True)
        if (hide.start < h.start and _PERSON_AGENT.search(ss.sent.norm, 0, hide.start)) or (
            hide.start > h.end
            and _DONE_TO_INPUT.search(ss.sent.norm, 0, h.start)
            and not _BY_AGENT.match(ss.sent.norm, hide.end)
        ):
            # "once I removed the tokens after t", "once the later tokens were removed": an
            # experiment on the input, not what the model sees; it may earn credit, never make
            # a false claim
            seen = [replace(x, attributed=False) for x in seen]
        out += seen
    elif (
        view is None
        and ss.negated(h)
        and ss.near_before("view_verb", h, 12)
        and any(
            g.text.lower() in {"never", "not", "no"} and 0 <= h.tok - g.tok_end <= 2
            for g in ss.hits.get("negation", [])
        )
    ):
        # "conditioned on preceding tokens and never on following ones"
        out += _vision(c, h, True, True)
    elif view is not None:
        perceptual = bool(_PERCEPTION.match(view.text)) or predicts_using(ss, view)
        out += _vision(c, h, ss.negated(view) or ss.negated(h), strong, perceptual)
    elif strong and (joined := _joined_earlier_view(ss, h)) is not None:
        # "conditioned on the earlier tokens and on the later ones": the later side shares
        # the verb of the earlier side it is coordinated with, both sides together
        out += _vision(c, h, False, True, bool(_PERCEPTION.match(joined.text)))
    elif strong and _conditioned_with_earlier(ss, h):
        # "p(x_t | x_1..x_{t-1}, x_{t+1}..x_T)": the bar is the "conditioned on", and the
        # conditioning set holds both ranges, so the prediction uses both sides
        out.append(Claim("see_both", ss.subject_at(h.start, h.end), c.idx, True, False, h.text))
    return out + _available(c, h)


def _conditioning_set(ss: ParsedSentence, h: Hit) -> tuple[int, int] | None:
    """The span of the conditioning set of the written conditional `h` lies in, from just
    after its bar ("|", "\\mid") to its closing parenthesis; None when `h` is in none."""
    norm = ss.sent.norm
    opened = norm.rfind("(", 0, h.start)
    if opened < 0 or ")" in norm[opened : h.start]:
        return None
    bar = _BAR.search(norm, opened, h.start)
    if bar is None:
        return None
    closed = norm.find(")", h.end)
    return bar.end(), (closed if closed >= 0 else len(norm))


def _conditioned_with_earlier(ss: ParsedSentence, h: Hit) -> bool:
    """The later range `h` and an earlier range share one conditioning set, un-negated."""
    span = _conditioning_set(ss, h)
    if span is None or ss.negated(h):
        return False
    return any(
        span[0] <= e.start and e.end <= span[1] and not ss.negated(e)
        for e in ss.hits.get("earlier_ref", [])
    )


_BAR = re.compile(r"\||\\mid\b")


def _joined_earlier_view(ss: ParsedSentence, h: Hit) -> Hit | None:
    """The (un-negated) verb of seeing or using that governs an earlier-context phrase joined
    to the later-context phrase `h` by a bare coordinator ("the earlier tokens and on the
    later tokens", "x_1..x_{i-1} and x_{i+1}..x_n"); None when `h` or the verb is negated,
    restricted ("only"), or nothing joins them."""
    if ss.negated(h) or ss.hits.get("only"):
        return None
    for e in ss.hits.get("earlier_ref", []):
        if e.end <= h.start and _BOTH_JOIN.match(_between(ss, e, h)):
            view = ss.near_before("view_verb", e, VIEW_WINDOW)
            if view is not None and not ss.negated(view) and not ss.negated(e):
                return view
    return None


def sees_only_earlier(c: ClaimContext, found: list[Claim]) -> list[Claim]:
    """ "only the earlier tokens": "only" paired with an earlier-context phrase."""
    ss, out = c.ss, []
    for h in ss.hits.get("only", []):
        pair = ss.near_after("earlier_ref", h, PAIR_WINDOW) or ss.near_before("earlier_ref", h, 3)
        if pair is not None:
            out += _vision(c, h, not ss.negated(h), True)
    return out


def sees_a_range(c: ClaimContext, found: list[Claim]) -> list[Claim]:
    """A range of positions is the restriction itself, without an "only"."""
    ss = c.ss
    if ss.hits.get("only"):
        return []
    pairs = ss.hits.get("both_sides", [])
    for h in ss.hits.get("earlier_ref", []):
        if any(p.start <= h.start < p.end for p in pairs):
            continue  # "x_{<i} and x_{>i}": one of two ranges, both sides together
        if _RANGE.search(h.text):  # "tokens <= i", "x_<t", "positions 1 to t-1", "up to i"
            later = [
                f
                for f in ss.hits.get("future_ref", [])
                if not ss.negated(f) and _BOTH_JOIN.match(_between(ss, h, f))
            ]
            if later and not ss.negated(h):
                # "conditioned on x_<i and x_>i": one side of a both-sides statement
                return _vision(c, later[0], False, True)
            # the conditioning set of a written conditional, "p(x_t | x_{<t})", is the
            # previous tokens as a formula: what the model is given, not that nothing else is
            strong = not _GIVEN.search(ss.sent.norm[: h.start])
            # "can't look past tokens 1 to t": what lies beyond the range is denied, so the
            # range is all it sees; "it sees beyond tokens 1..t" is the later ones
            beyond = bool(_BEYOND.search(ss.sent.norm[max(0, h.start - 40) : h.start]))
            return _vision(c, h, ss.negated(h) == beyond, strong)
    return []


# a probability's conditioning bar just before the range: "p(x_t | " , "p_θ(x_t \\mid "
_GIVEN = re.compile(r"(?:\||\\mid)\s*$")
# what lies outside a range: "past", "beyond", "more than", "anything other than", "except"
_BEYOND = re.compile(
    r"\b(?:past|beyond|further than|more than|other than|except(?: for| to)?|but|outside(?: of)?|"
    r"apart from|besides)\s+(?:(?:the|its|their)\s+)?$",
    re.IGNORECASE,
)


# "x_<i and x_>i", "x_<i, x_>i": the two sides joined, nothing else in between
_BOTH_JOIN = re.compile(
    r"^\W*(?:and|as well as|plus|&|\+|,)\W*(?:also\s+)?(?:(?:on|to|from|with|at)\s+)?"
    r"(?:(?:the|its|all|also)\s+)?$",
    re.I,
)


def _between(ss: ParsedSentence, a: Hit, b: Hit) -> str:
    lo, hi = (a, b) if a.start < b.start else (b, a)
    return ss.sent.norm[lo.end : hi.start]


def sees_one_direction(c: ClaimContext, found: list[Claim]) -> list[Claim]:
    """ "unidirectional" names the restriction without stating it; a lower-triangular
    attention pattern states which positions are used."""
    ss, out = c.ss, []
    for h in ss.hits.get("one_direction", []):
        out += _vision(c, h, not ss.negated(h), "triangular" in h.text.lower())
    return out


def causal_mask_hides(c: ClaimContext, found: list[Claim]) -> list[Claim]:
    """ "the causal mask hides the later positions": the causal LM sees the left only."""
    ss, out = c.ss, []
    for h in ss.hits.get("causal_mask", []):
        if ss.near_after("hide_verb", h, 4) is not None:
            subj = ss.subject_at(h.start) or CLM
            out.append(Claim("see_left", subj, c.idx, True, c.gen_ctx(h), h.text))
    return out


def _bare_label(ss: ParsedSentence, h: Hit) -> bool:
    """ "BERT is bidirectional": the family's label, not what it uses. It says what the model
    sees only when a context noun follows ("bidirectional context / attention")."""
    if not _LABEL.match(h.text.strip()):
        return False
    nxt = [t for _, _, t in ss.toks[h.tok_end : h.tok_end + 2]]
    return not any(t.lower() in _CONTEXT_NOUN for t in nxt)
