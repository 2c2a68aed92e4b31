"""Sentences and frames the answer itself disowns.

    disowned_sentences(text, sentences) -> {sentence index: why}
    disowning_spans(norm) -> list[(start, end)]

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

The scorer reads a disowned sentence as asserting nothing and asks a person to read the answer:
a real student rarely disowns a correct sentence, so where this fires a person decides.
Offsets are into `Sentence.norm`. Pure functions, no state.
"""

from __future__ import annotations

import re

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
_RETRACT_ALL = (
    r"\b(?:(?:none|not one|not a single one|nothing)\s+of\s+(?:{above}|(?<=^none of )(?:this|that))"
    r"\s+(?:is|was|are|were)\s+(?:actually\s+|really\s+)?(?:true|right|correct|real)|"
    r"(?:{above}|(?<=^)(?:all (?:of )?(?:this|that)|everything))\s+(?:is|was|are|were)\s+"
    r"(?:actually\s+|really\s+|totally\s+|completely\s+|just\s+)?" + _FALSE + r"|"
    r"i\s+(?:do not|don't|dont)\s+(?:really\s+)?believe\s+(?:a word of|any of|one word of)\s+"
    r"(?:it|this|that|{above})|"
    r"(?:ignore|disregard|forget)\s+(?:{above}|everything|all of (?:this|that)))"
    # nothing qualifies it: "none of the above is true for GPT" is a claim about GPT
    r"(?=\s*(?:[.!,;:)]|\band\b|\bbut\b|$))"
).replace("{above}", _ABOVE)
_ALL_BEFORE = re.compile(_RETRACT_ALL, re.IGNORECASE)
# a short opener that may stand before the retraction: "Just kidding, none of this is true"
_OPENER = re.compile(
    r"^\W*(?:(?:just\s+)?kidding|jk|honestly|to be honest|lol|haha|ok(?:ay)?)\W+", re.I
)
# a sentence that only rejects the one before it
_REJECTS_PREVIOUS = re.compile(
    r"^\W*(?:(?:just\s+)?kidding|jk|j/k|not really|nope|false|wrong|not true|untrue|lies|"
    r"(?:that's|that is|this is)\s+(?:all\s+)?(?:false|wrong|not true|nonsense|a lie)|"
    r"(?:of course\s+)?not)\W*$",
    re.IGNORECASE,
)
# a rejection tagged onto the end of a sentence
_TAGGED = re.compile(
    r"(?:\((?:false|not true|wrong|untrue|jk|just kidding|lol no|not really)\)|"
    r"(?:[-\u2013\u2014,]\s*)?said no(?: ?one| ?body)(?: ever)?|"
    r",?\s*or so (?:they|the \w+|people|some|my \w+|it is|some people)\s+(?:\w+\s+)?"
    r"(?:claims?|says?|said|say|believe|think)\b[^.]*\b(?:i doubt|i don't buy|i do not buy|"
    r"not that i believe|which i doubt)\b[^.]*)"
    r"\W*$",
    re.IGNORECASE,
)
# an introduction pointing forward to a block
_FORWARD = re.compile(r":\W*$|\b(?:the following|below|as follows)\b", re.I)
# ... that calls the block someone's wrong answer, a list of myths, a thing to debunk (a word
# about the block, not the topic: "here is why BERT goes wrong:" introduces the student's own)
_WRONG_BLOCK = re.compile(
    r"\b(?:myths?|misconceptions?|misunderstandings?|fallac(?:y|ies)|debunk\w*|"
    r"got (?:zero|0|no (?:marks|points|credit))|"
    r"confused|clueless|(?:wrong|incorrect|bad|false|mistaken|failed|failing)\s+"
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
    r"^\W*(?:the truth|in truth|in reality|in fact|actually|but|however|the (?:real|correct|"
    r"actual|right) (?:answer|explanation|reason|story)|here is what is (?:actually )?true|"
    r"my (?:own )?(?:answer|view|explanation))\b",
    re.IGNORECASE,
)
_PARAGRAPH = re.compile(r"\n[ \t]*\n")
_REPORTED = re.compile(
    r"[\"\u201c\u201d]|\b(?:said|says|say|thinks?|thought|claims?|claimed|believes?|believed|"
    r"wrote|writes|told|argues?|argued|insists?|insisted)\b",
    re.IGNORECASE,
)


def disowning_spans(norm: str) -> list[tuple[int, int]]:
    """Spans of `norm` after a frame that disowns the rest of the sentence ("I disagree with
    the claim that", "X wrongly claimed that", "a strong answer would say"). Sorted."""
    return sorted(
        (m.start(), len(norm)) for pat in (_DISOWN_FRAME, _STAGED_FRAME) for m in pat.finditer(norm)
    )


def disowned_sentences(text: str, sentences: list[Sentence]) -> dict[int, str]:
    """The `Sentence.index` of every sentence the answer disowns across sentences, with why
    ("retracted", "rejected", "introduced as wrong", "staged"). `text` is the answer the
    sentences' offsets index (for paragraph breaks)."""
    out: dict[int, str] = {}
    breaks = [m.start() for m in _PARAGRAPH.finditer(text)]

    def paragraph(s: Sentence) -> int:
        return sum(b < s.start for b in breaks)

    for k, s in enumerate(sentences):
        norm = s.norm.strip()
        opened = _OPENER.sub("", norm) if len(norm.split()) <= 16 else norm
        if _ALL_BEFORE.search(opened):
            out.update({p.index: "retracted" for p in sentences[:k]})
            out.setdefault(s.index, "retracted")
        elif k > 0 and _REJECTS_PREVIOUS.match(norm):
            before = sentences[k - 1]
            # after a question it answers; after someone's reported words ('my friend said
            # "..."', "That's wrong.") it confirms what polarity already reads as theirs
            if not before.norm.rstrip(" \"')").endswith("?") and not _REPORTED.search(before.norm):
                out.setdefault(before.index, "rejected")
        if _TAGGED.search(norm):
            out.setdefault(s.index, "rejected")
        if _FORWARD.search(norm) and (_WRONG_BLOCK.search(norm) or _STAGED_FRAME.search(norm)):
            why = "staged" if _STAGED_FRAME.search(norm) else "introduced as wrong"
            here = paragraph(s)
            ends_paragraph = k + 1 < len(sentences) and paragraph(sentences[k + 1]) > here
            block = here + 1 if ends_paragraph else here
            for nxt in sentences[k + 1 :]:
                if paragraph(nxt) != block or _OWN_TURN.match(nxt.norm):
                    break
                out.setdefault(nxt.index, why)
    return out


_WHY = {
    "retracted": "taken back by a later sentence",
    "rejected": "rejected by the answer itself",
    "introduced as wrong": "introduced as someone's wrong answer or a list of myths",
    "staged": "given as what an answer would say, not as the student's own",
}


def disowned_reason(disowned: dict[int, str]) -> str:
    """The review reason for an answer that disowns sentences, "" when it disowns none."""
    if not disowned:
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
