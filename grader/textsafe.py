"""Student-supplied text made safe to show in a terminal, Markdown or HTML report.

Everything a student controls that reaches a report (exception messages, file and member
names, the written answer and the sentences quoted from it) passes through `clean_text` on
the trusted side: terminal escape sequences, control characters (newlines and tabs stay),
bidi overrides and lone surrogates are removed. Markup is escaped later, by each renderer.
"""

from __future__ import annotations

import re
from typing import Any

_ANSI = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)?|[@-Z\\-_])")
# control characters, bidi overrides and isolates, and lone surrogates (not encodable as UTF-8:
# one in a message would make the report unwritable)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


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
