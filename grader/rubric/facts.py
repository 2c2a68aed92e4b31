"""The data `analysis.py` produces: lexicon hits, claims, per-sentence facts, the analysis.

Plain data, no behaviour beyond lookups: `criteria.py`, `guards.py` and `reader.py` read it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from grader.rubric.text import Sentence

Subject = Literal["mlm", "clm", "both", "other"]
MLM: Subject = "mlm"
CLM: Subject = "clm"
BOTH: Subject = "both"
# the lexicon entry that names each model family
MODEL_KEYS: dict[str, str] = {MLM: "masked_model", CLM: "causal_model"}
OTHER: Subject = "other"  # another architecture (LSTM, T5, ...): counts for neither family


@dataclass(frozen=True)
class Hit:
    key: str
    start: int
    end: int
    tok: int  # index of the first token
    tok_end: int  # index one past the last token
    text: str


@dataclass(frozen=True)
class Claim:
    """One extracted statement. `kind` is e.g. "see_both"; `strong` distinguishes an explicit
    statement from a weaker one ("needs the whole sentence" vs "sees both sides")."""

    kind: str
    subject: Subject | None
    sentence: int
    strong: bool = True
    gen_ctx: bool = False
    text: str = ""
    direct: bool = True  # governed by a perception verb (sees, attends to), not "with"/"from"
    # the subject is named in the sentence, pointed to ("it", "the model") or implied by what
    # it describes; False when it is only carried over from an earlier sentence. A false claim
    # needs an attributed subject.
    attributed: bool = True


@dataclass
class SentenceFacts:
    """Everything the criteria need to know about one sentence."""

    sentence: Sentence
    hits: dict[str, list[Hit]]
    list_like: bool
    subjects: set[Subject] = field(default_factory=set)  # explicit, non-contrast
    mentions: set[Subject] = field(default_factory=set)  # any model named, incl. contrast
    primary: Subject | None = None  # last explicit subject (for the next sentence's pronouns)
    claims: list[Claim] = field(default_factory=list)
    # the text with what the student does not assert, and bare labels, blanked out
    asserted: str = ""
    # family labels standing for a mechanism ("BERT is bidirectional", "unidirectional")
    label_spans: tuple[tuple[int, int], ...] = ()
    compared: tuple[tuple[int, int], ...] = ()  # models named only as comparison objects

    def has(self, key: str) -> bool:
        return bool(self.hits.get(key))

    def kinds(self, kind: str) -> list[Claim]:
        return [c for c in self.claims if c.kind == kind]


@dataclass
class Analysis:
    sentences: list[SentenceFacts]
    skipped: frozenset[int] = frozenset()  # indices of sentences left out (see `analyse`)
    # sentences the answer itself disowns, by why (`disavowal.disowned_sentences`)
    disowned: dict[int, str] = field(default_factory=dict)

    def claims(self, kind: str) -> list[Claim]:
        return [c for s in self.sentences for c in s.claims if c.kind == kind]

    def fact(self, index: int) -> SentenceFacts:
        """The facts of the sentence whose `Sentence.index` is `index` (one of `sentences`)."""
        return next(f for f in self.sentences if f.sentence.index == index)
