"""Words written so that a reader sees one word and the scorer reads another.

Two forms, both found by asking the Unicode data rather than a table of look-alikes (no table
is complete: Armenian "\u0585", Cherokee "\uab7a", Greek "\u03c1", Latin alpha "\u0251" were
missing from `text.normalize`'s and each kept 6.5-7/10 of a copied model answer):

* a word that mixes scripts (`mixed_script_words`): its letters, as an eye reads them
  (`evasion.letters_as_read`), are ordinary Latin ones and also letters of another script, or
  Latin letters no alphabet writes inside a word. Such a sentence earns nothing and the answer
  is flagged (`disguised_sentences`); an answer written in a non-Latin script is routed to a
  person whole instead (`scorer._read`);
* a word the copy check cannot read at all (`eye_words`): a whole word of another script
  ("\u13a2\u13bb\u13ac" for THE), a letter replaced by a digit ("t0"), punctuation inside a
  word ("t\u00b7he", "t.he", "t/he", "t'he"). In the copy check such a word matches any word
  (`wildcard_sources`), so replacing the small words of a copied text does not hide it.

Linear in the text; ASCII prose without odd tokens takes the fast paths.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from grader.rubric.evasion import _read_letter, letters_as_read
from grader.rubric.text import Sentence, words

# An ordinary Latin letter: ASCII, a letter with a diacritic ("LATIN SMALL LETTER O WITH
# STROKE"), or a letter of a Latin alphabet (sharp s, ae, oe, thorn, eth). Every other Latin
# letter (alpha "\u0251", script g "\u0261", turned or open letters) is IPA or phonetics, which
# no word of prose mixes with ordinary letters. A letter named a SIGN (micro "\u00b5") is a
# symbol, and a modifier letter (the apostrophe "\u02bc", a stress mark) a mark: not a script.
_ORDINARY_LATIN = re.compile(
    r"LATIN (?:SMALL|CAPITAL) (?:LETTER (?:[A-Z]|SHARP S|AE|THORN|ETH)(?: WITH .*)?|LIGATURE OE)"
)
_WORD_RUN = re.compile(r"[^\W_]+")


@lru_cache(maxsize=4096)
def _script(c: str) -> str:
    """'latin' for an ordinary Latin letter or digit, '' for a sign, else the character's
    script (the first word of its Unicode name) or 'odd latin'."""
    if c.isascii():
        return "latin"
    name = unicodedata.name(c, "")
    if "SIGN" in name.split() or name.startswith("MODIFIER LETTER"):
        return ""  # a symbol, or a mark that keyboards put in words ("don\u02bct")
    if _ORDINARY_LATIN.fullmatch(name):
        return "latin"
    first = name.split(" ", 1)[0]
    return "odd latin" if first == "LATIN" else first.lower() or "unnamed"


def mixed_script_words(text: str) -> list[str]:
    """The words of `text` (letters and digits, as `letters_as_read` reads them) that mix
    ordinary Latin letters with characters of another script or odd Latin letters (above),
    in that form. ASCII text has none; none of the 662 labelled answers holds one."""
    if text.isascii():
        return []
    out = []
    for m in _WORD_RUN.finditer(letters_as_read(text)):
        w = m.group()
        if w.isascii():
            continue
        scripts = {_script(c) for c in w} - {""}
        if "latin" in scripts and len(scripts) > 1:
            out.append(w)
    return out


def disguised_sentences(sentences: list[Sentence]) -> set[int]:
    """Indices of sentences holding a word that mixes scripts (`mixed_script_words`): such a
    sentence earns nothing, whatever its letters look like."""
    return {s.index for s in sentences if mixed_script_words(s.norm)}


# A token the copy check reads as the shipped texts are read (`text.words`): letters with
# hyphens or an English clitic ("BERT's", "don't", "I'm", "left-to-right"; not "t'he"), or a
# number (no word).
_WORDLIKE = r"(?:[A-Za-z]+|(?:[A-Za-z]{2,}|i)'(?:s|re|ve|ll|d|m)|[A-Za-z]+n't)"
_PLAIN = re.compile(rf"{_WORDLIKE}(?:-{_WORDLIKE})*|[\d.,:/%+-]+", re.IGNORECASE)
_EDGES = re.compile(r"^[^\w]+|[^\w]+$")


def eye_words(text: str) -> list[str | None]:
    """The words of `text` for the copy check, with None for a token no reader reads as an
    English word (a word of another script, letters mixed with digits or with punctuation
    inside: see the module docstring). A plain token gives what `text.words` gives."""
    out: list[str | None] = []
    for chunk in text.split():
        c = _EDGES.sub("", chunk)
        if not c:
            continue
        if not c.isascii():
            c = "".join(x if x.isascii() else _read_letter(x) for x in c)
        if _PLAIN.fullmatch(c):
            out += words(c)
        else:
            out.append(None)
    return out


def has_wildcards(ws: list[str | None]) -> bool:
    return any(w is None for w in ws)


MAX_WILDCARDS = 2  # of a 4-gram: a gram of fewer known words matches nothing


def positions(index: dict[tuple[str, ...], frozenset[int]]) -> list[dict[str, set]]:
    """For each position of the grams of `index`: word -> the grams with that word there."""
    out: list[dict[str, set]] = []
    for gram in index:
        while len(out) < len(gram):
            out.append({})
        for p, w in enumerate(gram):
            out[p].setdefault(w, set()).add(gram)
    return out


def wildcard_sources(
    gram: tuple[str | None, ...],
    index: dict[tuple[str, ...], frozenset[int]],
    by_position: list[dict[str, set]],
) -> frozenset[int]:
    """The sources of every gram of `index` that agrees with `gram` on its known words (None
    matches any word); nothing for a gram with more than MAX_WILDCARDS unknown words."""
    if None not in gram:
        return index.get(gram, frozenset())  # type: ignore[arg-type]
    known = [(p, w) for p, w in enumerate(gram) if w is not None]
    if len(gram) - len(known) > MAX_WILDCARDS:
        return frozenset()
    sets = sorted((by_position[p].get(w, set()) for p, w in known), key=len)
    found = set.intersection(*sets) if sets else set()
    return frozenset().union(*(index[g] for g in found))


def sentence_grams(s: Sentence, min_words: int, shingle: int) -> list[list[tuple[str | None, ...]]]:
    """The word `shingle`-grams of a sentence of at least `min_words` words, as read and as
    written: a table cell is read as a statement of its row and column
    (`discourse.expand_tables`), but what was copied is the row; as an eye reads its letters
    (`letters_as_read`); and, when it has tokens no reader reads as English words, with None
    for each (`eye_words`)."""
    variants: list[list] = [words(t) for t in {s.norm, s.text, letters_as_read(s.norm)}]
    if has_wildcards(eye := eye_words(s.norm)):
        variants.append(eye)
    return [
        [tuple(ws[i : i + shingle]) for i in range(len(ws) - shingle + 1)]
        for ws in variants
        if len(ws) >= min_words
    ]
