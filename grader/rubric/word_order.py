"""Word order: sentences whose words are not in an order English uses (a shuffled answer).

An answer-level check like those of `guards.py`, split from it: `order_breaks` counts the
closed-class pairs English never writes, `scrambled_sentences` names the sentences (or the
whole answer) that earn nothing for it. It reads only the sentence text.
"""

from __future__ import annotations

import re

from grader.rubric.text import Sentence

# Word order. Shuffling the words of a sentence keeps every concept it names, and the
# concepts are what the claims are read from, so a word salad of a good answer would earn
# nearly its marks; shuffling also breaks the 4-grams the copy check compares. English never
# puts these closed-class words next to each other, so such pairs (and a sentence ending in
# an article, and a sentence-opening word in mid-sentence) show the order was scrambled.
# Measured on the 467 labelled and sample answers (2,864 sentences): one break, in a
# Markdown run of headings; in the same sentences shuffled, about half of those of 6+ words
# hold one.
_ORDER_TOKEN = re.compile(r"[A-Za-z0-9]+(?:['\u2019-][A-Za-z0-9]+)*|[^\sA-Za-z0-9]")
_ARTICLES = frozenset("the a an every".split())
_NOT_AFTER_ARTICLE = _ARTICLES | frozenset(
    """is are was were can cannot could will would should must does did has had isn't aren't
    wasn't can't doesn't didn't won't of to in on at by for with from into about over under
    than as and or but because so although whereas it they we he she i you them us
    not never also""".split()
)
# a finite verb cannot follow a copula or a modal ("is are", "can does"; "can be" is fine)
_FINITE = frozenset(
    """is are was were has had does did can cannot could will would should must isn't aren't
    wasn't doesn't didn't can't won't""".split()
)
_COPULAS_MODALS = frozenset("is are was were can cannot could will would should must".split())
_STRAY_STOP = re.compile(r"[,;:][.!?](?![.!?])")  # "yet,." (not an ellipsis: "x1,...")
_SUBJECTS = frozenset("it they we he she".split())  # two subjects in a row ("it they")
_SENTENCE_OPENERS = frozenset(
    "the a an but and so it this that in when because however while".split()
)
SCRAMBLED_SENTENCE_BREAKS = 2  # a sentence with this many breaks earns nothing
SCRAMBLED_ANSWER_SENTENCES = 3  # an answer with this many sentences with one earns nothing
# (or with two, when they are half of its sentences)


def order_breaks(text: str) -> int:
    """How many places in `text` put words in an order English does not use: an article
    followed by a function word ("the of", "a is"), a finite verb after a copula or a modal
    ("is are", "can does"), two subject pronouns in a row ("it they"), a sentence ending in
    an article, a comma before the full stop ("yet,."), a capitalised sentence opener after a
    lowercase word with no punctuation between ("model The"). A repeated word ("the the") is
    a slip, not a break."""
    toks = _ORDER_TOKEN.findall(text)
    n = len(_STRAY_STOP.findall(text))
    for x, y in zip(toks, toks[1:], strict=False):
        a, b = x.lower(), y.lower()
        if not (x[0].isalnum() and y[0].isalnum()) or a == b:
            continue
        if a in _ARTICLES and x != "A" and b in _NOT_AFTER_ARTICLE:
            n += 1
        elif (a in _COPULAS_MODALS and b in _FINITE) or (a in _SUBJECTS and b in _SUBJECTS):
            n += 1
        elif b in _SENTENCE_OPENERS and y[0].isupper() and not y.isupper() and x.islower():
            n += 1
    last = [t for t in toks if t[0].isalnum()][-1:]
    if len(toks) > 2 and last and last[0].lower() in _ARTICLES:
        n += 1
    return n


def scrambled_sentences(sentences: list[Sentence]) -> set[int]:
    """Indices of sentences whose words are not in an English order (`order_breaks`): each
    with `SCRAMBLED_SENTENCE_BREAKS` breaks, or every sentence of an answer in which
    `SCRAMBLED_ANSWER_SENTENCES` sentences have one, or two that are half its sentences (a
    shuffle leaves about half of the sentences without a break). Such text earns nothing,
    whatever words it holds."""
    breaks = {s.index: order_breaks(s.text) for s in sentences}
    broken = sum(n > 0 for n in breaks.values())
    if broken >= SCRAMBLED_ANSWER_SENTENCES or (broken >= 2 and 2 * broken >= len(breaks)):
        return {s.index for s in sentences}
    return {i for i, n in breaks.items() if n >= SCRAMBLED_SENTENCE_BREAKS}
