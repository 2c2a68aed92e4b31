"""Self-corrections: what the student writes and then takes back.

    withdrawn_spans(norm) -> list[(start, end)]
    withdraws_previous(norm) -> bool
    drop_struck(norm) -> str
    blank_struck_passages(text) -> str

Students correct themselves as they write: "BERT sees only the left context - no sorry, that's
backwards.", "It sees the whole sentence, scratch that, it sees only the earlier words.",
"GPT looks ahead. Wait, no. It only looks back.", "EDIT: actually ...", a struck-through
"~~because it is bigger~~". A claim the student withdraws is neither credited nor contradicted;
the corrected statement after the marker is the student's claim.

- A repair marker inside a sentence (after a comma, dash, colon, bracket or "...") withdraws
  the clause just before it (from the previous clause boundary: "BERT sees both sides and GPT
  sees everything - wait, no, GPT sees only the left" withdraws only "GPT sees everything").
- A sentence that opens with a repair marker withdraws the sentence before it (the rest of
  the sentence is the correction and stays asserted).
- A marker needs a word of withdrawal ("no", "sorry", "scratch that", "backwards", "I take
  that back", "correction:", "EDIT: actually"; in speech "sorry, I mean", "actually, no"):
  a "wait" that confirms ("wait - yes, it does") withdraws nothing.

- A struck-through passage ("~~word~~", how a transcript shows a word crossed out by hand) is
  not part of the sentence at all: `drop_struck` takes it out of the text the scorer reads,
  so the words around it join as the student left them ("the words ~~before~~ before and
  after it" reads "the words before and after it"; "the way it ~~is~~ generates" reads "the
  way it generates"). The quote still shows the student's text as written.

Offsets are into `Sentence.norm`. Pure functions, no state.
"""

from __future__ import annotations

import bisect
import re

from grader.rubric.text import clause_bounds

# the marker itself; the alternatives each contain a word that withdraws
_MARKER = (
    r"(?:(?:wait|hold on|hmm+|oops|sorry|nope|no|err?m?|uh+|actually)\W{1,3}"
    r"(?:no|sorry|wait|nope|scratch that|i mean|(?:that's|that is|i had (?:it|that)) "
    r"(?:backwards|wrong|not right|the wrong way round|reversed|mixed up))\b|"
    r"(?:scratch|strike|forget|ignore) that\b|i take (?:that|it) back\b|"
    r"correction\s*:|edit\s*:\s*(?:actually|no\b|wait|correction|i was wrong|wrong)|"
    r"(?:sorry|oops|my bad),?\s+(?:that's|that was|i had (?:it|that)|i got (?:it|that))\s+"
    r"(?:backwards|wrong|the wrong way round|mixed up|reversed)\b|"
    r"no,?\s+(?:not sure|i'm not sure|never mind|forget it)\b)"
)
_INSIDE = re.compile(r"(?:[,;:(\u2014\u2013]|\s-|\.\.\.|\u2026)\s*(?P<m>" + _MARKER + r")", re.I)
_OPENS = re.compile(r"^\W*" + _MARKER, re.I)
# "... trained on less... no, not sure": an ellipsis and a "no" standing alone (a comma or a
# stop after it) withdraw the guess before it; "... no future tokens" is a negation, kept
_TRAILING_NO = re.compile(r"(?:\.\.\.|\u2026)\s*(?P<m>no\b)(?=\s*[,.;:!?\u2014\u2013-])", re.I)
_STRUCK = re.compile(r"~~[^~]+~~")
# a struck passage with the space before it when a stop or the end follows, else the space
# after it
_STRUCK_GAP = re.compile(r"\s*~~[^~]+~~(?=[^\w\s]|\s*$)|~~[^~]+~~\s*")


_PARAGRAPH = re.compile(r"\n[ \t]*\n")
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)|\n")


def blank_struck_passages(text: str) -> str:
    """`text` with every struck-through passage that runs over more than one sentence
    ("~~BERT sees ... . GPT sees ...~~", as Markdown strikes a passage within a paragraph)
    replaced by spaces, line breaks kept: the same length, so offsets still index the answer.
    A passage inside one sentence is left to `drop_struck`, which joins the words around it.
    Linear: each marker pairs with the next one in its paragraph."""
    if text.count("~~") < 2:
        return text
    breaks = [m.start() for m in _PARAGRAPH.finditer(text)]
    marks = [m.start() for m in re.finditer("~~", text)]
    out = list(text)
    k = 0
    while k + 1 < len(marks):
        a, b = marks[k], marks[k + 1]
        nxt = bisect.bisect_right(breaks, a)
        if nxt < len(breaks) and breaks[nxt] < b:
            k += 1  # a marker left open at a paragraph's end strikes nothing
            continue
        if _SENTENCE_END.search(text, a + 2, b):
            for i in range(a, b + 2):
                if out[i] not in "\r\n":
                    out[i] = " "
        k += 2
    return "".join(out)


def drop_struck(s: str) -> str:
    """`s` without its struck-through passages ("~~word~~"): a word the student crossed out
    is withdrawn, neither asserted nor part of the phrase around it."""
    if "~~" not in s:
        return s
    return _STRUCK_GAP.sub("", s).strip()


def withdraws_previous(s: str) -> bool:
    """The sentence opens with a repair marker ("Wait, no.", "Scratch that.", "EDIT:
    actually ..."): it withdraws the sentence before it."""
    return _OPENS.match(s) is not None


def withdrawn_spans(s: str) -> list[tuple[int, int]]:
    """Spans of `s` the student takes back inside the sentence: each clause followed by a
    repair marker (through the marker), a struck-through passage, and an opening marker
    itself. Sorted."""
    spans: list[tuple[int, int]] = [(m.start(), m.end()) for m in _STRUCK.finditer(s)]
    opening = _OPENS.match(s)
    if opening is not None:
        spans.append((0, opening.end()))
    marks = [m for rx in (_INSIDE, _TRAILING_NO) for m in rx.finditer(s)]
    if marks:
        _, bounds = clause_bounds(s)
        for m in marks:
            start = m.start()
            if opening is not None and start < opening.end():
                continue
            # the clause the marker follows: from the last boundary before the marker's own
            before = [b for b in bounds if b < start - 1]
            spans.append((before[-1] if before else 0, m.end("m")))
    return sorted(spans)
