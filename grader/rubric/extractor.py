"""The interface of a claim extractor: the `ClaimContext` it reads and the `Extractor` type.

`ClaimContext.of(parsed)` adds to a `ParsedSentence` (`sentence.py`) what several extractors
(`claims.py`, `uses.py`, `vision.py`) ask of the sentence: is it about generation, and its
absence phrases; an `Extractor` reads it and returns its own claims.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from grader.rubric.facts import Claim, Hit
from grader.rubric.sentence import ParsedSentence, _inside

# "both sides of the missing word": an absence word on a singular noun names the blank the
# masked LM fills (one word, one sense), not context that generation lacks
_BLANK_NOUN = re.compile(r"\s+(?:word|token|position|slot|piece)\b(?!s)", re.IGNORECASE)


@dataclass(frozen=True)
class ClaimContext:
    """One sentence being read for claims, with what several extractors ask of it."""

    ss: ParsedSentence
    prev_train: bool  # the sentence before talks about training (see `sentence_claims`)
    gen_sentence: bool  # a generation-time phrase ("at generation time") is in the sentence
    gen_words: bool  # ... or any generation word
    gen_any: bool  # ... or a left-to-right phrase
    absent: tuple[Hit, ...]  # absence phrases ("doesn't exist yet"), not "predict the masked"

    @classmethod
    def of(cls, ss: ParsedSentence, prev_train: bool = False) -> ClaimContext:
        gen_sentence = bool(ss.hits.get("generation_time"))
        masked = ss.hits.get("predict_masked", [])
        return cls(
            ss=ss,
            prev_train=prev_train,
            gen_sentence=gen_sentence,
            gen_words=gen_sentence or bool(ss.hits.get("generation")),
            gen_any=bool(
                ss.hits.get("generation")
                or ss.hits.get("generation_time")
                or ss.hits.get("left_to_right")
            ),
            absent=tuple(
                a
                for a in ss.hits.get("absent", [])
                if not _inside(a, masked) and not _BLANK_NOUN.match(ss.sent.norm, a.end)
            ),
        )

    @property
    def idx(self) -> int:
        return self.ss.sent.index

    def gen_ctx(self, h: Hit, with_l2r: bool = True) -> bool:
        """The phrase is about generation time, not training."""
        return (
            self.gen_sentence
            or self.ss.clause_has("generation", h)
            or (with_l2r and self.ss.clause_has("left_to_right", h))
        )

    def absent_near(self, h: Hit) -> bool:
        return any(abs(a.tok - h.tok) <= 12 for a in self.absent)

    def absent_in_clause(self, h: Hit) -> bool:
        return any(self.ss.same_clause(a, h) for a in self.absent)


# An extractor reads the sentence and the claims the extractors before it found, and returns
# its own claims (it never changes `found`).
Extractor = Callable[[ClaimContext, list[Claim]], list[Claim]]
