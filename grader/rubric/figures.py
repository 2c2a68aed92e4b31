"""Two figures of one noun told apart by their descriptions (round 12, `discourse.aliases`).

"MLM is like a student who only ever practised cloze exercises ... A causal LM is a student
who practised writing essays ...": "student" names neither model alone, but "the cloze
student" is the masked LM and "the essay student" the causal LM, by a word only one figure's
description has.
"""

from __future__ import annotations

import re

__all__ = ["STOP_WORDS", "content_words", "told_apart"]

# generic words, never a name or a distinguishing word of a figure (`discourse._head_name`)
STOP_WORDS = frozenset(
    """a an the and or but of to in on at by for with from as is are was were be it its this that
    these those who which what how when where while so than then only just also very more most
    same other one ones thing things way ways part parts kind sort type model models network
    networks word words sentence sentences text texts token tokens context task tasks problem
    problems reason point answer question case example difference issue side sides time
    left right rest end start version""".split()
)
_CONTENT = re.compile(r"[a-z]{3,}", re.IGNORECASE)


def _stem(w: str) -> str:
    """A plural's singular, roughly ("stories" -> "story", "essays" -> "essay")."""
    w = w.lower()
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    return w[:-1] if len(w) > 4 and w.endswith("s") and not w.endswith("ss") else w


def content_words(text: str) -> set[str]:
    return {_stem(w) for w in _CONTENT.findall(text) if w.lower() not in STOP_WORDS}


def told_apart(
    figures: dict[str, dict[str, set[str]]], text: str
) -> list[tuple[str, re.Pattern[str]]]:
    """One figure noun for both models, told apart by a word of each one's description:
    "MLM is like a student who only ever practised cloze exercises ... A causal LM is a
    student who practised writing essays ..." then "the cloze student" is the masked LM and
    "the essay student" the causal LM (the noun alone stands for neither)."""
    out: list[tuple[str, re.Pattern[str]]] = []
    for np, by_key in sorted(figures.items()):
        if len(by_key) != 2:
            continue
        body = r"[\s-]+".join(re.escape(w) for w in np.split())
        for key, said in sorted(by_key.items()):
            others = set().union(*(v for k, v in by_key.items() if k != key))
            for w in sorted(said - others):  # only the names the answer uses
                pat = rf"(?<![\w-])the\s+{re.escape(w)}(?:-\w+)?\s+{body}(?:'s)?(?![\w-])"
                rx = re.compile(pat, re.IGNORECASE)
                if rx.search(text):
                    out.append((key, rx))
    return out
