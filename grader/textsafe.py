"""Student-supplied text made safe to show in a terminal, Markdown or HTML report.

Everything a student controls that reaches a report (exception messages, file and member
names, the written answer and the sentences quoted from it) passes through `clean_text` on
the trusted side: terminal escape sequences, control characters (newlines and tabs stay),
bidi overrides and lone surrogates are removed. Names (of students, files, archive members,
folders) and one-line messages go through `clean_name`, which also turns line breaks and tabs
into a space, where they are first read (loading, batch intake, a report read back), so
nothing downstream sees a raw name. Markup is escaped later, by each renderer.
"""

from __future__ import annotations

import re
from typing import Any

_ANSI = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)?|[@-Z\\-_])")
# control characters, bidi overrides and isolates, and lone surrogates (not encodable as UTF-8:
# one in a message would make the report unwritable)
_CONTROL = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
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
