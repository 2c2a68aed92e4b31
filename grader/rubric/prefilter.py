"""A cheap necessary condition for a regular expression to match: the literals it needs.

Most of the scorer's ~700 lexicon and injection patterns find nothing in a given sentence,
and a regex scan costs microseconds where a substring test (`str.__contains__`) costs tens of
nanoseconds. `needs(pattern)` reads the pattern's syntax tree once and returns sets of
lowercased strings such that every match contains a member of each set; `may_match(need,
fold(text))` is False only when the pattern cannot match `text`, so a caller that skips the
scan then changes nothing: a pattern that passes is still scanned as before. `LiteralIndex`
does this for a tuple of patterns with one substring test per distinct literal.

Soundness rests on three facts: a match of a sequence contains a match of each element that
must consume text (a literal, a group, a repeat of at least one); a match of an alternation
is a match of one branch; and, case-insensitively, an ASCII character matches only itself in
either case and the few non-ASCII letters in `ASCII_CASE_TWINS` (which `fold` maps to it),
and an uncased character ("≤") only itself.
Anything the reader does not know (a class, a back-reference, an assertion) contributes no
literal, so the worst case is no prefilter at all (`needs` returns ()).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

try:  # the parser of the `re` module itself: the tree it compiles, not a re-implementation
    from re import _parser as _sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python < 3.11
    import sre_parse as _sre_parse  # type: ignore[no-redef]

# Non-ASCII characters that a case-insensitive ASCII letter matches (`re` folds them: the
# dotted and dotless i, the long s, the Kelvin sign); `tests/rubric/test_rubric_prefilter.py`
# checks every code point.
ASCII_CASE_TWINS = {"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"}
_FOLD = str.maketrans(
    {**{chr(c): chr(c + 32) for c in range(ord("A"), ord("Z") + 1)}, **ASCII_CASE_TWINS}
)

# Sets of strings, each of which has a member in every match (a conjunction of
# disjunctions), most selective first; empty: nothing is known, the pattern is always scanned.
Need = tuple[tuple[str, ...], ...]
# Short words most English sentences hold: a literal of these rejects little text.
_COMMON = frozenset("the a an and or of to in on at is it as be by for not no can".split())


def fold(text: str) -> str:
    """`text` as `may_match` reads it: ASCII lowercased, case twins read as their ASCII
    letter, every other character kept (one character for one, so nothing merges)."""
    return text.translate(_FOLD)


def may_match(need: Need, folded: str) -> bool:
    """False only when a pattern whose `needs` are `need` cannot match the text `folded`
    came from (`fold`)."""
    for alts in need:  # loops, not all()/any(): this runs for every scan it may spare
        for n in alts:
            if n in folded:
                break
        else:
            return False
    return True


def finditer(pattern: re.Pattern[str], text: str, folded: str) -> Iterator[re.Match[str]]:
    """`pattern.finditer(text)`, without the scan where `folded` (`fold(text)`) lacks a
    literal every match needs."""
    return pattern.finditer(text) if may_match(needs(pattern), folded) else iter(())


def search(pattern: re.Pattern[str], text: str, folded: str) -> re.Match[str] | None:
    """`pattern.search(text)`, without the scan where `folded` (`fold(text)`) lacks a
    literal every match needs."""
    return pattern.search(text) if may_match(needs(pattern), folded) else None


# `needs` of each pattern asked, by the pattern's identity: a compiled pattern's hash digests
# its whole program (microseconds for a long one), and `finditer` / `search` ask per scan. An
# entry holds its pattern, so no other object can take that id while the entry is there.
_NEEDS_BY_ID: dict[int, tuple[re.Pattern[str], Need]] = {}
_NEEDS_KEPT = 4096  # entries; past this the table starts afresh


def needs(pattern: re.Pattern[str]) -> Need:
    """The literal sets every match of `pattern` draws one member from (see `Need`), as
    lowercased strings."""
    hit = _NEEDS_BY_ID.get(id(pattern))
    if hit is not None and hit[0] is pattern:
        return hit[1]
    need = _read_needs(pattern)
    if len(_NEEDS_BY_ID) >= _NEEDS_KEPT:
        _NEEDS_BY_ID.clear()
    _NEEDS_BY_ID[id(pattern)] = (pattern, need)
    return need


def _read_needs(pattern: re.Pattern[str]) -> Need:
    """`needs`, read from the pattern's syntax tree."""
    try:
        tree = _sre_parse.parse(pattern.pattern, pattern.flags)
    except Exception:  # noqa: BLE001 - an unreadable tree only means no prefilter
        return ()
    sets = sorted(set(_seq(list(tree))), key=_selectivity, reverse=True)
    return tuple(tuple(sorted(x)) for x in sets)


def _selectivity(alts: frozenset[str]) -> tuple[bool, int, int, tuple[str, ...]]:
    """Higher for a set that rejects more text: no common word, a long shortest member,
    few members (and a fixed order among equals)."""
    return (
        not alts & _COMMON,
        min(len(a) for a in alts),
        -len(alts),
        tuple(sorted(alts)),
    )


def _plain(code: int) -> str | None:
    """The character a literal of `code` stands for in folded text, or None when a
    case-insensitive match could also take some other character."""
    c = chr(code)
    if code < 128:
        return c.lower()
    if c.lower() == c == c.upper() and c.casefold() == c and c not in ASCII_CASE_TWINS:
        return c  # uncased ("≤", "→"): it matches only itself
    return None


def _seq(items: list[tuple[Any, Any]]) -> list[frozenset[str]]:
    """What a match of a sequence needs: every element that must consume text needs its
    own literals (a run of literals is one string)."""
    out: list[frozenset[str]] = []
    run: list[str] = []

    def close() -> None:
        if run:
            out.append(frozenset(["".join(run)]))
            run.clear()

    for op, av in items:
        name = str(op)
        ch = _plain(av) if name == "LITERAL" else None
        if ch is not None:
            run.append(ch)
            continue
        close()
        if name == "SUBPATTERN":
            out.extend(_seq(list(av[-1])))
        elif name == "ATOMIC_GROUP":
            out.extend(_seq(list(av)))
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT") and av[0] >= 1:
            out.extend(_seq(list(av[2])))
        elif name == "BRANCH":
            alts = [_seq(list(b)) for b in av[1]]
            if alts and all(alts):
                # one branch matches: the union of each branch's best set
                out.append(frozenset().union(*(max(a, key=_selectivity) for a in alts)))
    close()
    return out


# Length of the character grams `LiteralIndex` files its literals under (a literal's first
# `_GRAM` characters occur in every text that holds it; shorter literals are tested directly).
_GRAM = 3


class LiteralIndex:
    """The patterns of a fixed tuple that may match a text, found from the needed literals
    the text holds (see the module doc) with set operations, not a test per pattern.

    Each literal is filed under its first `_GRAM` characters, and only the literals filed
    under a gram of the text are tested: a literal in the text has its first gram there, so
    `present` finds exactly the literals the text contains. A pattern may match when each of
    its literal sets (`needs`) has a member present: the sets are numbered, the text's
    satisfied sets are the union of its literals' sets, and a pattern is a candidate when
    its sets are a subset of those (looked up from its most selective set)."""

    def __init__(self, patterns: tuple[re.Pattern[str], ...]) -> None:
        set_ids: dict[tuple[str, ...], int] = {}
        by_first: dict[int, list[int]] = {}
        always: list[int] = []
        rest: list[frozenset[int]] = []
        for i, p in enumerate(patterns):
            ids = [set_ids.setdefault(alts, len(set_ids)) for alts in needs(p)]
            if not ids:
                always.append(i)
            else:
                by_first.setdefault(ids[0], []).append(i)
            rest.append(frozenset(ids[1:]))
        self.patterns = patterns
        self._always = frozenset(always)
        self._by_first = {s: tuple(ix) for s, ix in by_first.items()}
        self._rest = tuple(rest)
        of_literal: dict[str, list[int]] = {}
        for alts, s in set_ids.items():
            for n in alts:
                of_literal.setdefault(n, []).append(s)
        self._sets_of = {n: tuple(ss) for n, ss in of_literal.items()}
        literals = sorted(of_literal)
        self._chars = frozenset(n for n in literals if len(n) == 1)
        self._pairs = tuple(n for n in literals if 1 < len(n) < _GRAM)
        by_gram: dict[str, list[str]] = {}
        for n in literals:
            if len(n) >= _GRAM:
                by_gram.setdefault(n[:_GRAM], []).append(n)
        self._by_gram = {g: tuple(ns) for g, ns in by_gram.items()}
        self._grams = frozenset(by_gram)

    def present(self, folded: str) -> list[str]:
        """The needed literals (of any pattern) that the folded text `folded` contains."""
        found = [*self._chars.intersection(folded), *(n for n in self._pairs if n in folded)]
        by_gram = self._by_gram
        # the text's grams: `_GRAM` shifted copies zipped (one `join` per position)
        shifted = [folded[k:] for k in range(_GRAM)]
        for g in self._grams.intersection(map("".join, zip(*shifted, strict=False))):
            for n in by_gram[g]:
                if len(n) == _GRAM or n in folded:
                    found.append(n)
        return found

    def candidates(self, text: str) -> list[int]:
        """Indices (ascending) into `patterns` of every pattern that may match `text`; the
        others cannot."""
        sets_of = self._sets_of
        held = set().union(*[sets_of[n] for n in self.present(fold(text))])
        by_first, rest = self._by_first, self._rest
        found = self._always.union(*[by_first[s] for s in held if s in by_first])
        return [i for i in sorted(found) if rest[i] <= held]
