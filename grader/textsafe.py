"""Student-supplied text made safe to show in a terminal, Markdown or HTML report.

Everything a student controls that reaches a report (exception messages, file and member
names, the written answer and the sentences quoted from it) passes through `clean_text` on
the trusted side: terminal escape sequences, control characters (newlines and tabs stay),
invisible characters (bidi overrides, zero-width spaces and joiners, every other format
character) and lone surrogates are removed. Names (of students, files, archive members,
folders) and one-line messages go through `clean_name`, which also turns line breaks and tabs
into a space, where they are first read (loading, batch intake, a report read back), so
nothing downstream sees a raw name. Markup is escaped later, by each renderer.
"""

from __future__ import annotations

import re
from typing import Any

_ANSI = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)?|[@-Z\\-_])")
# control characters, lone surrogates (not encodable as UTF-8: one in a message would make the
# report unwritable) and invisible characters: every format character (Unicode category Cf:
# bidi overrides and isolates, zero-width spaces and joiners, the soft hyphen, tag characters)
# and the blanks that render as nothing (Hangul fillers, the braille blank, the combining
# grapheme joiner, Mongolian variation selectors). An invisible character inside words hides
# text from a reader and from the copy check (a zero-width space in every other word of the
# published solution kept its 9.5/10 and lost the near-copy flag) without changing what shows.
_CONTROL = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff"
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f"
    "\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd"
    "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001"
    "\U000e0020-\U000e007f"
    "\u034f\u115f\u1160\u180b-\u180d\u2800\u3164\uffa0]"
)
# what clean_text keeps that would still break a one-line field: line and paragraph separators
_BREAKS = re.compile(r"[\t\n\u2028\u2029]+")


def clean_text(text: Any, limit: int | None = None) -> str:
    """`text` as a plain str with no terminal escapes, control characters or bidi overrides,
    cut to at most `limit` characters (None: no cut)."""
    s = text if type(text) is str else str(text)
    if limit is not None:
        s = s[: limit * 2]
    s = _CONTROL.sub("", _ANSI.sub("", s))
    return s if limit is None else s[:limit]


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>#|])")


def md_escape(s: str) -> str:
    """Escape Markdown/HTML control characters so student text renders literally."""
    return _MD_SPECIAL.sub(r"\\\1", s).replace("&", "&amp;")


def clean_name(text: Any, limit: int | None = None) -> str:
    """`clean_text` for a one-line field (a name, a one-line message): line breaks, paragraph
    separators and tabs also become a single space, so a name cannot start a forged line.

    >>> clean_name("ann\\n[ok] bob\\x1b[2J\\u202e")
    'ann [ok] bob'
    """
    return _BREAKS.sub(" ", clean_text(text, limit))
