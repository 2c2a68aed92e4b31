"""Two word-level cues `sentence.ParsedSentence` applies to its lexicon hits (round 9).

- "non-causal" / "non causal": the prefix denies the word, so a "causal ..." hit right after
  it is no mention of the causal model, its mask or its direction; the masked side's label
  "non-causal" is read by the lexicon (`both_sides`, `masked_model`) instead.
- "I had to predict a hidden word": a masked-token prediction whose predictor is the student
  ("I", "we") is their own exercise, so it implies no model as the sentence's subject.
"""

from __future__ import annotations

import re

from grader.rubric.facts import Hit

__all__ = ["NON_CAUSAL", "drop_non_causal", "own_exercise"]

_FIRST_PERSON_GUESS = re.compile(
    r"\b(?:i|we)\s+(?:\w+\s+){0,2}?(?:predict|guess|fill)", re.IGNORECASE
)
# "non-causal" / "non causal": the prefix denies the word (round 9, signal-processing voice)
_NON_PREFIX = re.compile(r"\bnon[\s-]*$", re.IGNORECASE)
_CAUSAL_KEYS = ("causal_model", "causal_mask", "one_direction", "left_to_right")
# the masked side's label itself, at the start of a hit's text (`vision`, `criteria`)
NON_CAUSAL = re.compile(r"\s*non[\s-]*causal", re.IGNORECASE)


def drop_non_causal(s: str, hits: dict[str, list[Hit]]) -> None:
    """A "causal ..." hit right after "non-" names the non-causal (masked) side: no mention
    of the causal model, its mask or its direction ("a masked LM is non-causal: ...")."""
    for key in _CAUSAL_KEYS:
        found = hits.get(key)
        if found:
            hits[key] = [h for h in found if not _NON_PREFIX.search(s, 0, h.start)]


def own_exercise(norm: str, h: Hit) -> bool:
    """`h` (a masked-prediction hit) is done by the student: "I had to guess the hidden word"."""
    return _FIRST_PERSON_GUESS.search(norm, max(0, h.start - 25), h.end) is not None
