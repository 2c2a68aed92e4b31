"""Answers that say nothing while naming everything: claims offered with their alternative
("BERT sees both sides, or perhaps it does not"), and text a reader of the rendered answer
never sees (Markdown comments, hidden HTML). Both are read as what they say to a person:
nothing.

Every pattern here is linear (no nested quantifiers) and runs on text already capped by the
scorer.
"""

from __future__ import annotations

import re

from grader.rubric.text import Sentence

_AUX = r"(?:do|does|did|is|are|was|were|can|could|might|may|will|would|has|have|had|should)"
_HEDGE = r"(?:perhaps |maybe |possibly |probably |equally |just as likely |it could be )?"
_PRONOUN = r"(?:(?:it|they|he|she|this|that|these|those|the model|the models|neither|both) )?"
_END = r"(?=\s*(?:[.!?;,)]|$))"
# A claim followed by its alternative asserts neither: "..., or perhaps it does not",
# "..., or maybe they do", "..., or the other way round", "X may or may not ...", and a
# sentence that opens "Either ... or ...". None of these occurs in the 542 labelled answers.
_BOTH_WAYS = re.compile(
    "|".join(
        (
            rf"\bor {_HEDGE}{_PRONOUN}(?:{_AUX}(?: ?n't| not)?|not)"
            rf"(?: (?:either|too|so|at all))?{_END}",
            rf"\bor {_HEDGE}(?:the other way (?:a)?round|vice versa|the (?:reverse|opposite)|"
            r"the other way|neither|none of (?:this|that|these|them))\b",
            rf"\b{_AUX} or {_AUX}(?: ?n't| not)\b",
            r"\bcan or cannot\b",
            r"^\W*either\b(?!\s+way)[^.?!]*\bor\b",
        )
    ),
    re.IGNORECASE,
)


def noncommittal(text: str) -> bool:
    """True when `text` offers a claim together with its alternative, so it asserts neither
    (`_BOTH_WAYS`)."""
    return _BOTH_WAYS.search(text) is not None


def noncommittal_sentences(sentences: list[Sentence]) -> set[int]:
    """Indices of sentences hedged both ways (`noncommittal`): such a sentence earns nothing,
    whichever side of it is right."""
    return {s.index for s in sentences if noncommittal(s.norm)}


# What a rendered answer never shows: an HTML comment, a Markdown reference definition used
# as a comment ("[//]: # (...)", "[note]: <> (...)"; a footnote "[^1]: ..." is shown), and
# the content of an element that is hidden or is no text (`<span style="display:none">`,
# `<div hidden>`, `<script>`, `<style>`, `<template>`). Text a reader cannot see earns
# nothing and is never quoted back, whatever it says.
_REFERENCE = re.compile(
    r"^ {0,3}\[(?!\^)[^\]\n]{1,200}\]:[ \t]*(?:<[^>\n]*>|\S+)"
    r"(?:[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^)\n]*\)))?[ \t]*$",
    re.MULTILINE,
)
_HIDDEN_OPEN = re.compile(
    r"<(script|style|template|[a-z][a-z0-9]{0,10})\b([^<>]{0,500})>", re.IGNORECASE
)
_HIDES = re.compile(
    r"\bhidden\b|display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?![.\d]*[1-9])"
    r"|opacity\s*:\s*0(?![.\d]*[1-9])",
    re.IGNORECASE,
)


def visible_text(text: str) -> str:
    """`text` with what a rendered answer never shows (`_REFERENCE`, HTML comments, hidden
    elements) replaced by spaces, line breaks kept: the same length, so offsets still index
    the answer. An unclosed comment or hidden element is kept as text. Linear in `text`."""
    spans: list[tuple[int, int]] = []
    pos = 0
    while (start := text.find("<!--", pos)) >= 0:
        end = text.find("-->", start + 4)
        if end < 0:
            break
        spans.append((start, end + 3))
        pos = end + 3
    spans += [m.span() for m in _REFERENCE.finditer(text)]
    closes: dict[str, re.Match[str] | None] = {}  # each tag's next closing tag, found once
    for m in _HIDDEN_OPEN.finditer(text):
        tag = m.group(1).lower()
        if tag not in ("script", "style", "template") and not _HIDES.search(m.group(2)):
            continue
        close = closes.get(tag, False)
        if close is False or (close is not None and close.start() < m.end()):
            close = re.compile(rf"</{tag}\s*>", re.IGNORECASE).search(text, m.end())
            closes[tag] = close
        if close is not None:
            spans.append((m.start(), close.end()))
    if not spans:
        return text
    out: list[str] = []
    done = 0
    for a, b in sorted(spans):
        if b <= done:
            continue
        a = max(a, done)
        out.append(text[done:a])
        out.append(re.sub(r"[^\r\n]", " ", text[a:b]))
        done = b
    out.append(text[done:])
    return "".join(out)
