"""Sentences and frames the answer itself disowns.

    disowned_sentences(text, sentences) -> {sentence index: why}
    disowning_spans(norm, folded) -> list[(start, end)]

A correct sentence earns nothing when the answer around it says the student does not hold it.
`retraction.py` and `polarity.py` read that inside one sentence or from the sentence right
after it; this module reads what reaches further, across sentences:

- a retraction of everything before it: "None of the above is true.", "All of that is
  nonsense.", "I don't believe a word of it.", "Ignore everything I wrote above." (not "none
  of this is true for GPT", which qualifies a claim about one model);
- a one-sentence rejection of the sentence before it: "Not really.", "Just kidding.",
  "False.", "Nope." standing alone after a statement (after a question it is an answer);
- a rejection tagged onto the end of a sentence: "... (false).", "... - said no one ever.",
  "..., or so they claim, though I doubt it.";
- in a dialogue where the student labels their own lines ("Me:"), every other speaker's
  lines ("Tutor:", "Alice's view:");
- a block introduced as someone's wrong answer, a list of myths or what a good answer "would
  say": an introducing sentence that points forward (it ends in a colon, or says "the
  following" / "below" / "here is") and calls what follows wrong ("a confused classmate's
  answer, which got zero", "common myths (all false)", "a misunderstanding I will debunk") or
  staged ("a strong answer would say", "the points the grader looks for"). The block is the
  rest of that paragraph, or the next paragraph when the introduction ends its own; it ends
  early where the student turns to their own view ("The truth is ...", "Actually, ...").

Within a sentence, `disowning_spans` adds the frames `polarity.py` lacks: "I disagree with
the claim that ...", "The lecturer wrongly claimed that ...", "A strong answer would say
that ...", "The key points the grader is looking for are ...": the rest of the sentence is
not the student's claim.

The scorer reads a disowned sentence as asserting nothing. An answer that disowns a third of
its sentences or more goes to a person (`FLAGGED_SHARE`): a student who rejects one myth in
passing is read as written, an answer that takes most of itself back is no answer.
Offsets are into `Sentence.norm`. Pure functions, no state.
"""

from __future__ import annotations

import bisect
import re

from grader.rubric.prefilter import finditer
from grader.rubric.reference import is_heading
from grader.rubric.text import Sentence

__all__ = ["disowned_reason", "disowned_sentences", "disowning_spans"]

_FALSE = (
    r"(?:false|untrue|not true|wrong|incorrect|nonsense|rubbish|garbage|made up|a joke|a lie|"
    r"lies|bogus|bs|not right|not correct|fiction|invented)"
)
# what came before, named so that it can only be the answer itself
_ABOVE = (
    r"(?:the above|all (?:of )?the above|"
    r"everything (?:above|i (?:just )?(?:wrote|said)(?: above)?)|"
    r"what i (?:just )?(?:wrote|said)(?: above)?|all i (?:just )?(?:wrote|said)|"
    r"(?:all )?my (?:previous|earlier) (?:sentences|points|answer))"
)
# what came just before: "that", "all of this", "a word of it"
_THAT = r"(?:this|that|it|all (?:of )?(?:this|that))"


def _retraction(what: str) -> re.Pattern[str]:
    """A sentence that is only a retraction of `what` ("None of the above is true.", "I
    don't believe a word of that.", "Ignore everything I wrote above."), perhaps after a
    short opener ("Just kidding,") and before "and I ..." ("..., and I do not believe a word
    of it"); nothing after it qualifies it ("none of this is true, of course, for GPT")."""
    body = (
        r"(?:(?:none|not one|not a single one|nothing)\s+of\s+{w}\s+(?:is|was|are|were)\s+"
        r"(?:actually\s+|really\s+)?(?:true|right|correct|real)|"
        r"(?:all\s+(?:of\s+)?)?{w}\s+(?:is|was|are|were)\s+(?:actually\s+|really\s+|totally\s+|"
        r"completely\s+|just\s+|all\s+)?" + _FALSE + r"|"
        r"i\s+(?:do not|don't|dont)\s+(?:really\s+)?believe\s+"
        r"(?:a word of|any of|one word of)\s+{w}|"
        r"(?:ignore|disregard|forget)\s+(?:everything\s+|all\s+(?:of\s+)?)?{w})"
    ).replace("{w}", what)
    return re.compile(
        r"^\W*(?:(?:just\s+)?kidding|jk|honestly|to be honest|lol|haha|ok(?:ay)?)?\W*"
        + body
        + r"(?:\s*,?\s*(?:and|so)\s+i\b[^.;:]*)?\W*$",
        re.IGNORECASE,
    )


_ALL_BEFORE = _retraction(_ABOVE)
_JUST_BEFORE = _retraction(_THAT)
# a sentence that only rejects the one before it
_REJECTS_PREVIOUS = re.compile(
    r"^\W*(?:(?:just\s+)?kidding|jk|j/k|not really|nope|false|wrong|not true|untrue|lies|"
    r"(?:that's|that is|this is)\s+(?:all\s+)?(?:false|wrong|not true|nonsense|a lie)|"
    # round 12 (second red team): the colloquial rejections
    r"yeah,?\s+no|yeah,?\s+right|as if|sike|psych|doubt it|lol,?\s+no|"
    r"i\s+(?:just\s+)?made\s+(?:that|this|it|all\s+(?:of\s+)?(?:that|this))\s+up|"
    r"not\s+(?:a|one)\s+word\s+of\s+(?:that|this|it)\s+(?:holds|is true|is right))\W*$",
    re.IGNORECASE,
)
# a rejection tagged onto the end of a sentence
_TAGGED = re.compile(
    r"(?:\((?:false|not true|wrong|untrue|jk|just kidding|lol no|not really)\)|"
    r"(?:[-\u2013\u2014,]\s*)?said no(?: ?one| ?body)(?: ever)?|,\s*yeah,?\s+right|"
    r",?\s*or so (?:they|the \w+|people|some|my \w+|it is|some people)\s+(?:\w+\s+)?"
    r"(?:claims?|says?|said|say|believe|think)\b[^.]*\b(?:i doubt|i don't buy|i do not buy|"
    r"not that i believe|which i doubt)\b[^.]*)"
    r"\W*$",
    re.IGNORECASE,
)
# an introduction pointing forward to a block: it ends in a colon, or says what the following
# is ("The following is a common misunderstanding that I will debunk afterwards.")
_FORWARD = re.compile(
    r":\W*$|^\W*(?:the following|below|what follows)\s+(?:is|are|was|were)\s+(?:\w+\s+){0,3}?"
    r"(?:myths?|misconceptions?|misunderstandings?|fallac(?:y|ies)|(?:wrong|incorrect|bad|false)"
    r"\s+(?:answers?|claims?|ideas?|beliefs?|explanations?))\b",
    re.IGNORECASE,
)
# ... that calls the block someone's wrong answer, a list of myths, a thing to debunk (a word
# about the block, not the topic: "here is why BERT gets confused:" introduces the student's own)
_WRONG_BLOCK = re.compile(
    r"\b(?:myths?|misconceptions?|misunderstandings?|fallac(?:y|ies)|debunk\w*|"
    r"got (?:zero|0|no (?:marks|points|credit))|"
    r"(?:confused|clueless)\s+(?:\w+\s+)?(?:classmate|friend|student|partner|peer|person|"
    r"colleague|roommate|flatmate)s?|"
    r"(?:wrong|incorrect|bad|false|mistaken|failed|failing)\s+"
    r"(?:answers?|claims?|statements?|ideas?|beliefs?|explanations?|reasoning|submissions?)|"
    r"(?:all|each|every one)\s+(?:of\s+(?:them|these|which)\s+)?(?:is\s+|are\s+)?"
    r"(?:false|wrong|untrue|incorrect|nonsense))\b",
    re.IGNORECASE,
)
_STAGED = (
    r"(?:(?:a|an|the)\s+(?:good|strong|full|complete|model|perfect|ideal|correct|right|top|"
    r"full[- ]marks?|textbook|typical)\s+(?:answer|response|explanation|student|essay)"
    r"(?:\s+(?:to|for)\s+(?:this|the)\s+question)?\s+(?:would|should|might|could|will|is "
    r"expected to|needs to)\s+(?:probably\s+|likely\s+|surely\s+|presumably\s+)?"
    r"(?:say|mention|explain|point out|include|note|write|argue|state|talk about|cover)|"
    r"(?:the\s+)?(?:key\s+|main\s+)?(?:points?|things?|words?|terms?|keywords?)\s+(?:that\s+)?"
    r"(?:the\s+)?(?:grader|rubric|marker|teacher|examiner|instructor|autograder)\s+"
    r"(?:is|are)?\s*(?:looking for|wants?|expects?|rewards?|checks? for)|"
    r"(?:the\s+)?(?:grader|rubric|marker|autograder)\s+(?:is|are)\s+(?:probably\s+)?"
    r"looking for)"
)
_STAGED_FRAME = re.compile(r"\b" + _STAGED + r"\b", re.IGNORECASE)
# other frames that disown the rest of the sentence
_DISOWN_FRAME = re.compile(
    r"\b(?:i\s+(?:strongly\s+|completely\s+|totally\s+)?disagree\s+with\s+(?:the|this|that|any)"
    r"\s+(?:\w+\s+)?(?:claim|idea|view|statement|notion|assertion|suggestion)s?(?:\s+that)?|"
    r"(?:\w+\s+){0,3}?(?:wrongly|falsely|mistakenly|incorrectly|erroneously)\s+"
    r"(?:claims?|claimed|says?|said|believes?|believed|thinks?|thought|states?|stated|"
    r"argues?|argued|asserts?|asserted|wrote|writes|told us)(?:\s+that)?)\b",
    re.IGNORECASE,
)
# where the student turns from the block to their own view
_OWN_TURN = re.compile(
    r"^\W*(?:the truth|in truth|in reality|in fact|actually|but|however|instead|rather|"
    r"the (?:real|correct|actual|right|true) (?:answer|explanation|reason|story|mechanism)|"
    r"what(?:'s| is) (?:actually |really )?(?:true|going on|happening)|here is what is "
    r"(?:actually |really )?true|my (?:own )?(?:answer|view|explanation)|(?:the )?facts?\b|"
    r"neither|none of (?:these|them|this|that))\b",
    re.IGNORECASE,
)
_PARAGRAPH = re.compile(r"\n[ \t]*\n")
# a dialogue's speaker label opening a line: "Tutor:", "Me:", "Alice's view:"
_SPEAKER_LABEL = re.compile(
    r"^\W{0,3}(?P<who>[A-Za-z][\w.'-]*(?:\s+[\w.'-]+){0,2}?)(?:'s\s+(?:view|answer|take))?\s*:\s"
)
_SELF = frozenset(("me", "i", "myself", "my view", "my answer", "my take", "student (me)"))
_REPORTED = re.compile(
    r"[\"\u201c\u201d]|\b(?:said|says|say|thinks?|thought|claims?|claimed|believes?|believed|"
    r"wrote|writes|told|argues?|argued|insists?|insisted)\b",
    re.IGNORECASE,
)


# where a staged answer gives way to the student's own ("..., so here goes:", "but ...")
_STAGED_END = re.compile(r"\b(?:but|however|instead|actually|(?:so\s+)?here goes)\b", re.I)


# where a disowned claim gives way to the student's own ("...; it was trained with ...",
# "..., but the real reason is ...")
_FRAME_END = re.compile(
    r";|\s[\u2014\u2013-]\s|,\s*yet\b|\b(?:but|however|whereas|in fact|in reality|actually)\b|"
    r"\bthe (?:real|actual|true) (?:reason|answer|problem)\b",
    re.IGNORECASE,
)


def disowning_spans(norm: str, folded: str) -> list[tuple[int, int]]:
    """Spans of `norm` after a frame that disowns what follows: "I disagree with the claim
    that" and "X wrongly claimed that" up to the end of the disowned claim (`_FRAME_END`);
    "a strong answer would say" and "the points the grader looks for are" to the end of the
    sentence or a "but" / "so here goes". `folded`: `prefilter.fold(norm)`, so a frame whose
    literals the sentence lacks is not scanned for. Sorted."""
    spans = []
    for m in finditer(_DISOWN_FRAME, norm, folded):
        stop = _FRAME_END.search(norm, m.end())
        spans.append((m.start(), stop.start() if stop else len(norm)))
    for m in finditer(_STAGED_FRAME, norm, folded):
        stop = _STAGED_END.search(norm, m.end())
        spans.append((m.start(), stop.start() if stop else len(norm)))
    return sorted(spans)


def disowned_sentences(text: str, sentences: list[Sentence]) -> dict[int, str]:
    """The `Sentence.index` of every sentence the answer disowns across sentences, with why
    ("retracted", "rejected", "introduced as wrong", "staged"). `text` is the answer the
    sentences' offsets index (for paragraph breaks)."""
    out: dict[int, str] = {}
    breaks = [m.start() for m in _PARAGRAPH.finditer(text)]

    def paragraph(s: Sentence) -> int:
        return bisect.bisect_left(breaks, s.start)

    def own_statement(s: Sentence) -> bool:
        # not a question (a rejection after it answers it) and not someone's reported words
        # (a rejection after 'my friend said "..."' confirms what polarity reads as theirs)
        return not s.norm.rstrip(" \"')").endswith("?") and not _REPORTED.search(s.norm)

    out.update(_other_speakers(sentences))
    for k, s in enumerate(sentences):
        norm = s.norm.strip()
        before = sentences[k - 1] if k > 0 else None
        if before is not None and own_statement(before):
            if _ALL_BEFORE.match(norm):
                out.update({p.index: "retracted" for p in sentences[:k]})
                out.setdefault(s.index, "retracted")
            elif _JUST_BEFORE.match(norm) or _REJECTS_PREVIOUS.match(norm):
                out.setdefault(before.index, "rejected")
        if _TAGGED.search(norm):
            out.setdefault(s.index, "rejected")
        staged = _STAGED_FRAME.search(norm) is not None
        if _FORWARD.search(norm) and (staged or _WRONG_BLOCK.search(norm)):
            why = "staged" if staged else "introduced as wrong"
            here = paragraph(s)
            ends_paragraph = k + 1 < len(sentences) and paragraph(sentences[k + 1]) > here
            block = here + 1 if ends_paragraph else here
            for nxt in sentences[k + 1 :]:
                if paragraph(nxt) != block or _OWN_TURN.match(nxt.norm) or is_heading(nxt.norm):
                    break
                out.setdefault(nxt.index, why)
    return out


def _other_speakers(sentences: list[Sentence]) -> dict[int, str]:
    """A dialogue in which the student labels their own lines ("Me:", "I:"): the lines of
    every other speaker ("Tutor:", "Alice's view:") are theirs, up to the next label. Without
    a label of the student's own, a dialogue is the student's way of explaining and stays
    theirs."""
    labels = [(k, m.group("who").lower()) for k, s in enumerate(sentences)
              if (m := _SPEAKER_LABEL.match(s.norm)) is not None]  # fmt: skip
    if not any(who in _SELF for _, who in labels) or len({w for _, w in labels}) < 2:
        return {}
    out: dict[int, str] = {}
    for n, (k, who) in enumerate(labels):
        stop = labels[n + 1][0] if n + 1 < len(labels) else len(sentences)
        if who not in _SELF:
            out.update({s.index: "another speaker's" for s in sentences[k:stop]})
    return out


_WHY = {
    "retracted": "taken back by a later sentence",
    "rejected": "rejected by the answer itself",
    "introduced as wrong": "introduced as someone's wrong answer or a list of myths",
    "staged": "given as what an answer would say, not as the student's own",
    "another speaker's": "said by another speaker of the dialogue, not by the student",
}


# the share of an answer's sentences it must disown to go to a person: one myth rejected in
# passing is read as it is written; an answer that disowns most of itself is no answer
FLAGGED_SHARE = 1 / 3


def disowned_reason(disowned: dict[int, str], n_sentences: int) -> str:
    """The review reason for an answer that disowns at least `FLAGGED_SHARE` of its
    `n_sentences` sentences; "" otherwise (the disowned sentences still earn nothing)."""
    if not disowned or len(disowned) < FLAGGED_SHARE * n_sentences:
        return ""
    parts = []
    for why, text in _WHY.items():
        idx = sorted(i for i, w in disowned.items() if w == why)
        if idx:
            parts.append(f"sentence {', '.join(str(i + 1) for i in idx)} {text}")
    return (
        "The answer disowns some of its own sentences (" + "; ".join(parts) + "): they earned "
        "nothing. Please read it."
    )
