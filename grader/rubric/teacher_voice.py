"""Claims a teacher puts on stage without making them (the lesson-plan voice).

    staged_spans(norm) -> list[(start, end)]

A lesson plan reports what pupils or a source get wrong in order to correct it, under labels
a student's essay rarely uses:

- a labelled misconception box: "Misconception no. 1: 'BERT reads left to right.'",
  "Common misconception #2: \"...\"", "Myth: '...'" (the label, an optional number or box
  word, a colon, a quotation): the quotation is the misconception. Unquoted text under such
  a label is the teacher's own ("Misconception alert: BERT is bidirectional, GPT is not"
  states the correction; "Misconception alert: remember BERT reads left to right" is a wrong
  claim the teacher makes);
- a source the teacher found and quotes: "A revision guide I found says: '...'", "The
  textbook we use claims that ...", "One worksheet I was given states '...'": a source noun
  qualified by a short relative clause, then a verb of saying; a quotation after it (single
  or double quotes) is the source's to its closing quote, indirect speech to the end of the
  clause.

`polarity.unasserted_spans` adds these spans to the other frames.

    identified_model(next_norm, family_of) -> model key | None

An activity described with pupils as its actors and then identified ("Pupils guess the
bleeped word from both sides. That's masked LM (BERT).") is that model's: `analysis.analyse`
reads the sentence before such an identification with the named model as its subject.

Offsets are into the sentence's normalised text. Pure functions, no state.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from grader.rubric.prefilter import finditer, fold

# "Misconception no. 1:", "Common misconception #2:", "Misconception alert:", "Myth 3:",
# "Typical pupil misconception (box):" - the label opens its sentence and ends at a colon
_MISCONCEPTION_LABEL = re.compile(
    r"^\W*(?:(?:\w+\s+){0,2}?(?:misconceptions?|myths?|misunderstandings?|fallacy))"
    r"(?:\s*(?:no\.?|number|nr\.?|#)?\s*\d+|\s*\(?(?:alert|box|corner|check|warning|to avoid|"
    r"to address|to tackle|to watch for|spotted)\)?)?\s*:",
    re.IGNORECASE,
)
# a source of text, not a person the teacher agrees with
_SOURCE = (
    r"(?:revision guide|guide|textbook|text book|book|worksheet|handout|slide|slides|website|"
    r"web ?page|video|article|blog(?: post)?|post|forum(?: post)?|tutorial|resource|exam board|"
    r"mark scheme|answer key|quiz|chatbot answer|ai answer|summary|poster|leaflet)"
)
_SOURCE_SAYS = re.compile(
    r"\b(?:a|an|one|the|this|that|another|some)\s+(?:\w+\s+)?" + _SOURCE + r"\s+"
    # a short relative clause naming who found or used it: "I found", "we use", "I was given"
    r"(?:(?:that|which)\s+)?(?:i|we|you|they|my class|the class|pupils)\s+"
    r"(?:(?:once|recently|often|sometimes|last year)\s+)?"
    r"(?:found|find|read|saw|see|use|used|bought|got|get|was given|were given|came across|"
    r"looked at|downloaded|have|had)\s+(?:\w+\s+){0,2}?"
    r"(?:says|said|claims|claimed|states|stated|writes|wrote|tells|told|suggests|suggested|"
    r"argues|argued|puts it|explains|explained)\b",
    re.IGNORECASE,
)
_OPEN_QUOTE = re.compile(r"\s*(?:that\s+)?[:,]?\s*([\"'\u2018\u201c])")
_CLOSE = {'"': '"', "'": "'", "\u2018": "\u2019", "\u201c": "\u201d"}


def staged_spans(s: str, scope_end: Callable[[str, int], int]) -> list[tuple[int, int]]:
    """Spans of `s` a teacher reports rather than claims (module doc); `scope_end(s, i)` is
    where an unquoted frame's scope ends (`polarity._scope_end`)."""
    spans: list[tuple[int, int]] = []
    m = _MISCONCEPTION_LABEL.match(s)
    if m is not None and _OPEN_QUOTE.match(s, m.end()):
        # only a quotation under the label is the misconception: "Misconception alert: BERT
        # is bidirectional" is the teacher's own correction, written under the same heading
        spans.append((m.start(), _quote_end(s, m.end(), scope_end)))
    for m in finditer(_SOURCE_SAYS, s, fold(s)):  # scanned only with a source's words
        spans.append((m.start(), _quote_end(s, m.end(), scope_end)))
    return spans


def _quote_end(s: str, start: int, scope_end: Callable[[str, int], int]) -> int:
    q = _OPEN_QUOTE.match(s, start)
    if q is None:
        return scope_end(s, start)
    close = _CLOSE[q.group(1)]
    if close == "'":  # an apostrophe inside a word ("it's") does not close the quotation
        m = re.compile(r"'(?!\w)").search(s, q.end())
        return len(s) if m is None else m.end()
    at = s.find(close, q.end())
    return len(s) if at < 0 else at + 1


# "That's masked LM (BERT).", "That is a causal LM (GPT), where ...", "This is what GPT does.":
# the activity or scene just described is that model's (round 10)
_IDENTIFIES = re.compile(
    r"^\W*(?:that|this)(?:'s|\s+is|\s+was)\s+(?:exactly\s+|basically\s+|just\s+)?"
    r"(?:how\s+|what\s+)?(?:the\s+|a\s+|an\s+)?(?P<target>[\w -]{2,30}?)"
    r"(?:\s*\([^()]{1,20}\))?(?:\s+(?:does|do|is trained|learns|works))?"
    r"(?:\W*$|\s*,\s+(?:where|in which|which)\b)",
    re.IGNORECASE,
)


def identified_model(next_norm: str, family_of: Callable[[str], set[str]]) -> str | None:
    """The model key ("masked_model" / "causal_model") a sentence names when it only says
    which model the sentence before it described ("That's masked LM (BERT)."), else None.
    `family_of(text)` is the set of model keys a text names."""
    m = _IDENTIFIES.match(next_norm)
    if m is None:
        return None
    keys = family_of(next_norm[: m.end()])
    return next(iter(keys)) if len(keys) == 1 else None
