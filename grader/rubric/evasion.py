"""Answers that say nothing of their own while naming everything: claims offered with their
alternative ("BERT sees both sides, or perhaps it does not"), text a reader of the rendered
answer never sees (Markdown comments, hidden HTML), and the grader's own feedback handed back.
Each is read as what it says to a person about the student's understanding: nothing.

Every pattern here is linear (no nested quantifiers) and runs on text already capped by the
scorer.
"""

from __future__ import annotations

import re
from functools import lru_cache

from grader.rubric.feedback import GOOD, IMPROVE, MISSING, WRONG
from grader.rubric.model import Rubric
from grader.rubric.text import Sentence, words

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
    (`_BOTH_WAYS`). A question ("Does GPT see it or not?") asks rather than hedges: the
    polarity reader already takes nothing from it as asserted, and an answer to it may follow."""
    if text.rstrip().endswith("?"):
        return False
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


def feedback_texts(rubric: Rubric) -> tuple[str, ...]:
    """Every text the grader shows a student about this rubric: the criteria's titles and
    requirements, each level's feedback (what was good, what is missing, how to improve) and
    the false-claim messages. A student who handed in a weak answer reads them in the
    feedback, so pasting them back is a copy of shipped text, not an answer."""
    return _feedback_texts(_feedback_key(rubric))


def _feedback_key(rubric: Rubric) -> tuple:
    """The rubric's own feedback strings, as a hashable key (a `Rubric` holds mappings)."""
    return (
        rubric.title,
        tuple((c.title, c.requires, tuple(c.levels.values())) for c in rubric.criteria),
        tuple(rubric.claims.values()),
    )


@lru_cache(maxsize=2)  # one per rubric in use: built once per process, not once per answer
def _feedback_texts(key: tuple) -> tuple[str, ...]:
    title, criteria, claims = key
    out = [title]
    for c_title, requires, levels in criteria:
        out += [c_title, requires]
        for lv in levels:  # as the feedback shows them, labels included
            out += [f"{GOOD}: {lv.good}", f"{MISSING}: {lv.gap}", f"{WRONG}: {lv.gap}"]
            out += [f"{IMPROVE}: {lv.improve}"]
    out += [f"{WRONG}: {m}" for m in claims]
    return tuple(t for t in out if t and not t.endswith(": "))


@lru_cache(maxsize=2)
def _field_grams(key: tuple) -> tuple[dict[tuple[str, ...], tuple[int, ...]], tuple[int, ...]]:
    """Each word 4-gram of the feedback texts -> the texts holding it, and each text's number
    of distinct 4-grams."""
    index: dict[tuple[str, ...], tuple[int, ...]] = {}
    sizes = []
    for k, t in enumerate(_feedback_texts(key)):
        ws = words(t)
        grams = set(zip(*(ws[i:] for i in range(4)), strict=False))
        for g in grams:
            index[g] = (*index.get(g, ()), k)
        sizes.append(len(grams))
    return index, tuple(sizes)


def feedback_copies(
    grams: dict[int, list[list[tuple[str, ...]]]], rubric: Rubric, coverage: float, share: float
) -> set[int]:
    """Indices of sentences copied from the rubric's feedback (`feedback_texts`): `grams` maps
    each sentence to its word 4-grams (as read and as written). Once the answer holds
    `coverage` of one feedback text's 4-grams, a sentence `share` of whose 4-grams are the
    feedback's is a copy (also one that runs two texts together: a title and the praise after
    it); before that, a phrase of the feedback in an own sentence is a coincidence."""
    index, sizes = _field_grams(_feedback_key(rubric))
    held = [0] * len(sizes)
    for g in {g for variants in grams.values() for gs in variants for g in gs}:
        for k in index.get(g, ()):
            held[k] += 1
    if not any(n and n >= coverage * size for n, size in zip(held, sizes, strict=True)):
        return set()
    return {
        i
        for i, variants in grams.items()
        if any(sum(g in index for g in gs) >= share * len(gs) for gs in variants)
    }
