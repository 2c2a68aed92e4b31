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


# a relation written as a sign between a training term and a use term ("CLM: train context =
# decode context", "BERT: practice ≠ match", "train ctx ⊋ decode ctx"); "==" and "≈" are
# lexicon phrases already
_SIGN = re.compile(r"(?<=\s)(?P<sign>=|≠|!=|=/=|⊋|⊊|⊃|⊂)(?=\s)")
_SAME_SIGNS = frozenset({"="})
# the occasion of use in an analogy's words ("practice = match", "training = the real exam")
_USE_FIGURE = re.compile(
    r"^\s*(?:the\s+)?(?:real\s+|actual\s+)?(?:match|game|race|exam|test|performance|"
    r"show|trip|use|usage|deployment)\b",
    re.IGNORECASE,
)
_NEAR = 30  # characters between a sign and the term on either side of it


def sign_relations(ss: ParsedSentence, lexicon_read: bool = True) -> list[tuple[str, int, str]]:
    """(relation, offset, sign) for each relation sign with a training term just before it
    and a use term just after it (or the other way round): "same" for "=", "diff" for the
    signs of inequality and strict inclusion (training gives more than use, or less).
    `lexicon_read`: a sign that is also a lexicon phrase was read as one already."""
    norm = ss.sent.norm
    train = ss.hits.get("training", [])
    use = ss.hits.get("generation", []) + ss.hits.get("generation_time", [])
    words = ss.hits.get("same_relation", []) + ss.hits.get("diff_relation", [])
    out = []
    for m in _SIGN.finditer(norm):
        a, b = m.start(), m.end()
        if lexicon_read and any(h.start <= a < h.end for h in words):
            continue  # a lexicon phrase ("≠" where the rubric lists it) is read as a phrase

        used_after = _after(use, b) or bool(_USE_FIGURE.match(norm[b:]))
        if (_before(train, a) and used_after) or (_before(use, a) and _after(train, b)):
            rel = "same" if m.group("sign") in _SAME_SIGNS else "diff"
            out.append((rel, a, m.group("sign")))
    return out


def _before(hs: list[Hit], at: int) -> bool:
    return any(h.end <= at and at - h.end <= _NEAR for h in hs)


def _after(hs: list[Hit], at: int) -> bool:
    return any(h.start >= at and h.start - at <= _NEAR for h in hs)
