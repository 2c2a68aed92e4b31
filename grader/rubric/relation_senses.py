"""Relation words read in another sense, or turned round by what is said of them (issue 19,
round 5): `claims.relations` asks these before it counts a sameness or difference phrase.

- `not_a_relation`: "a real match" is the game; "trained on a different task" with no
  comparand sets the objective against the other model's, not training against use.
- `said_gone`: the sameness phrase is the subject of an absence ("the context it was trained
  with is half gone"), so it states a difference.
"""

from __future__ import annotations

import re

from grader.rubric.facts import Hit
from grader.rubric.sentence import ParsedSentence

# "trained on a different task, it predicts the next word": an objective called different with
# no comparand ("from", "than") is set against the other model's objective, not against use
_OTHER_OBJECTIVE = re.compile(
    r"^\W+(?:\w+\W+)?(?:tasks?|objectives?|goals?|jobs?|games?|exercises?|problems?)\b"
    r"(?!\W+(?:\w+\W+)?(?:from|than|to)\b)",
    re.IGNORECASE,
)
# "match" as the game: after an article or a determiner and at most one adjective, and not
# "a match between / with / for" (a correspondence)
_GAME_BEFORE = re.compile(r"\b(?:a|an|the|this|that|each|every|their|her|his)\W+(?:\w+\W+)?$", re.I)
_MATCH_OF = re.compile(r"^\W+(?:between|with|for|to|of)\b", re.IGNORECASE)
# the sameness phrase, a verb "to be" and at most one word, then the absence
_IS_BETWEEN = re.compile(r"^\s+(?:is|are|was|were|'s)\s+(?:\w+\s+)?$", re.IGNORECASE)


def not_a_relation(norm: str, r: Hit) -> bool:
    """The relation hit `r` in `norm` is no relation between training and use: a game
    ("sent into a real match") or a different objective with no comparand."""
    word = r.text.lower()
    if word.startswith("differ") and _OTHER_OBJECTIVE.match(norm[r.end :]):
        return True
    if word in ("match", "matches"):
        return bool(_GAME_BEFORE.search(norm[: r.start])) and not _MATCH_OF.match(norm[r.end :])
    return False


def said_gone(ss: ParsedSentence, r: Hit, absent: list[Hit]) -> bool:
    """An absence is said of the sameness phrase `r` in its clause ("the context it was
    trained with is gone", "... are now missing")."""
    norm = ss.sent.norm
    return any(
        a.start >= r.end and ss.same_clause(a, r) and _IS_BETWEEN.match(norm[r.end : a.start])
        for a in absent
    )
