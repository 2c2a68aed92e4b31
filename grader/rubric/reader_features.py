"""The second reader's features: concept families per sentence and their co-occurrences.

1. **Families** (`families`): each sentence is tagged with broad concept families (the masked
   model, the causal model, later / whole context, earlier context, "only", generation,
   training, absence, sameness, difference, negation, hedges), from the rubric's lexicon hits
   *and* from a short list of plain English cue words (`CUES`).
2. **Features** (`features`): per criterion, a handful of co-occurrence indicators: the
   families the criterion links, found in one sentence or in neighbouring sentences
   (`_FEATURES`), plus the rule judge's own verdict. Each remembers the sentences where it
   fired (`Found`), so a verdict it supports can still quote the student.

`reader.py` weighs them (see its module doc).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from grader.rubric.facts import CLM, MLM, Analysis, SentenceFacts
from grader.rubric.prefilter import fold, search
from grader.rubric.reader_cues import CUES, LEX, plain
from grader.rubric.relation_claims import _CONTEXT, _DATA
from grader.rubric.text import words

__all__ = ["CONTENT", "MET_NEEDS", "Fam", "Found", "families", "features", "names_models",
           "plain", "stuffed"]  # fmt: skip


@dataclass(frozen=True)
class Fam:
    """Concept families of one sentence (`index` is the sentence index in the answer)."""

    index: int
    on: frozenset[str]
    list_like: bool


def families(an: Analysis) -> list[Fam]:
    out = []
    for s in an.sentences:
        out.append(_families(s))
    return out


# Families that name content (the rest mark hedges, negation, contrast or a kind of use).
CONTENT = frozenset("mlm clm fut past only gen train absent same diff und guse mask both".split())
_ITEM = re.compile(r"[,;/]|\b(?:and|or|plus)\b", re.IGNORECASE)


def _cue_families(text: str) -> set[str]:
    return {k for k, pat in CUES.items() if pat.search(text)} & CONTENT


def stuffed(text: str) -> bool:
    """True when a sentence strings concept words together instead of relating them: four or
    more short coordinated items (<= 3 words) that between them name four or more content
    families ("masks, the future, training and the same"). A list of examples of one family
    ("classification, NER, QA and retrieval") is not stuffed: its items add no new family.
    A terse claim ("GPT: earlier tokens only") is not either: it is one item."""
    short = [i for i in _ITEM.split(text) if 1 <= len(words(i)) <= 3]
    return len(short) >= 4 and len(set().union(*(_cue_families(i) for i in short))) >= 4


def _families(s: SentenceFacts) -> Fam:
    text = plain(s.asserted or s.sentence.norm)
    folded = fold(text)  # a cue whose literals the text lacks is not scanned for
    on = {k for k, pat in CUES.items() if search(pat, text, folded)}
    for fam, keys in LEX.items():
        # a bare label ("bidirectional") names a family, it does not state what it sees
        skip = s.label_spans + s.compared
        if any((h.start, h.end) not in skip for k in keys for h in s.hits.get(k, [])):
            on.add(fam)
    if "n't" in text.lower():
        on.add("neg")
    if _DATA.search(text) and on & {"same", "diff"}:
        on.add("data_rel")  # a train/use relation argued (also) from data or domain
        if not _CONTEXT.search(text):
            on -= {"same", "diff"}  # a data or domain gap is not the information condition
    # the model the sentence is about, not one it is compared with ("unlike GPT")
    if MLM in s.subjects or (not s.mentions and s.primary == MLM):
        on.add("mlm")
    if CLM in s.subjects or (not s.mentions and s.primary == CLM):
        on.add("clm")
    # a stuffed sentence counts as list-like: its co-occurrences are not an argument
    return Fam(s.sentence.index, frozenset(on), s.list_like or stuffed(s.sentence.norm))


# -- features -------------------------------------------------------------------------------
Found = tuple[float, tuple[int, ...]]  # value, sentences that earned it
NONE: Found = (0.0, ())


def _has(f: Fam, need: tuple[str, ...]) -> bool:
    """Every item of `need` is on; an item "a|b" is on when either family is."""
    return _has_on(f.on, need)


def _has_on(on: frozenset[str], need: tuple[str, ...]) -> bool:
    return all(any(x in on for x in _alternatives(n)) for n in need)


@lru_cache(maxsize=256)
def _alternatives(item: str) -> tuple[str, ...]:
    return tuple(item.split("|"))


def _sent(fams: list[Fam], *need: str, claims: bool = True) -> Found:
    """All families in one sentence (`claims`: not a list-like one)."""
    for f in fams:
        if (not claims or not f.list_like) and _has(f, need):
            return 1.0, (f.index,)
    return NONE


def _window(fams: list[Fam], *need: str, span: int = 1) -> Found:
    """All families within `span` sentences either side of some sentence (list-like sentences
    are skipped); the evidence is the smallest run of sentences that holds them."""
    prose = [f for f in fams if not f.list_like]
    # `_has_on` only gains by more families: when the whole prose lacks one, so does any run
    if not _has_on(frozenset().union(*(g.on for g in prose)), need):
        return NONE
    best: Found = NONE
    for i in range(len(prose)):
        on: frozenset[str] = frozenset()
        for j in range(i, min(len(prose), i + 2 * span + 1)):
            on = on | prose[j].on  # the run prose[i..j]
            if _has_on(on, need):
                ev = tuple(g.index for g in prose[i : j + 1])
                if not best[0] or len(ev) < len(best[1]):
                    best = (1.0, ev)
                break
    return best


def _answer(fams: list[Fam], *need: str) -> Found:
    """All families somewhere in the answer's prose (no evidence: a coverage signal only)."""
    on = frozenset().union(*(f.on for f in fams if not f.list_like)) if fams else frozenset()
    return (1.0, ()) if _has_on(on, need) else NONE


def _either(*xs: Found) -> Found:
    for x in xs:
        if x[0]:
            return x
    return NONE


def _c1(fams: list[Fam]) -> dict[str, Found]:
    return {
        "S mlm+fut": _sent(fams, "mlm", "fut"),
        "S mlm+both": _sent(fams, "mlm", "both"),
        "W mlm+fut": _window(fams, "mlm", "fut"),
        "A mlm": _answer(fams, "mlm"),
        "S fut-clm": _either(
            *[
                (1.0, (f.index,))
                for f in fams
                if "fut" in f.on and "clm" not in f.on and not f.list_like
            ]
        ),
    }


def _c2(fams: list[Fam]) -> dict[str, Found]:
    return {
        "S gen+absent+fut": _sent(fams, "gen", "absent", "fut"),
        "S gen+absent": _sent(fams, "gen", "absent"),
        "W gen+absent+mlm": _window(fams, "gen", "absent", "mlm"),
        "W gen+absent+mlm+train|fut": _window(fams, "gen", "absent", "mlm", "train|fut"),
        "S mlm+gen+diff": _sent(fams, "mlm", "gen", "diff"),
        "A gen+absent+mlm": _answer(fams, "gen", "absent", "mlm"),
        "S gen+fut": _sent(fams, "gen", "fut"),
        # the later context the masked model relies on, said to be absent at generation in
        # the next sentence ("It fills blanks from both sides. When writing, nothing follows.")
        "W gen+absent+fut": _window(fams, "gen", "absent", "fut"),
    }


def _c3(fams: list[Fam]) -> dict[str, Found]:
    return {
        "S clm+only+past": _sent(fams, "clm", "only", "past"),
        "W clm+only+past": _window(fams, "clm", "only", "past", span=0 if False else 1),
        "S clm+past": _sent(fams, "clm", "past"),
        "S clm+neg+fut": _sent(fams, "clm", "neg", "fut"),
        "A mask": _answer(fams, "mask"),
        "A clm": _answer(fams, "clm"),
        "S only+past": _sent(fams, "only", "past"),
    }


def _c4(fams: list[Fam]) -> dict[str, Found]:
    return {
        "S train+gen+rel": _sent(fams, "train", "gen", "same|diff"),
        "W train+gen+rel": _window(fams, "train", "gen", "same|diff"),
        "W clm+same+train|gen": _window(fams, "clm", "same", "train|gen"),
        "W mlm+diff+train|gen": _window(fams, "mlm", "diff", "train|gen"),
        "W clm+mlm+train+gen+rel": _window(fams, "clm", "mlm", "train", "gen", "same|diff", span=2),
        "A train+gen+same+diff": _answer(fams, "train", "gen", "same", "diff"),
        "S contrast+rel": _sent(fams, "contrast", "same|diff"),
    }


def _c5(fams: list[Fam]) -> dict[str, Found]:
    # the consequence: each family of models tied to a kind of use in the same sentence
    return {
        "S mlm+und": _sent(fams, "mlm", "und"),
        "S mlm+und+use": _sent(fams, "mlm", "und", "use"),
        "S clm+guse+use": _sent(fams, "clm", "guse", "use"),
        "W mlm+und+clm+guse+use": _window(fams, "mlm", "und", "clm", "guse", "use"),
        "A und": _answer(fams, "und"),
    }


_FEATURES: dict[str, Callable[[list[Fam]], dict[str, Found]]] = {
    "C1": _c1, "C2": _c2, "C3": _c3, "C4": _c4, "C5": _c5,
}  # fmt: skip


# What the labelling guide needs named before a criterion is met: C2 links the generation
# condition to the masked LM, C3 states the causal LM's restriction, C4 and C5 speak of both
# models. Without them (in the answer's prose) the reader may give partial, never met.
# (Requiring the masked LM within a sentence of the evidence cost seen C2 links: the evidence
# is only the strongest feature's sentences.)
MET_NEEDS: dict[str, tuple[str, ...]] = {
    "C1": ("mlm",), "C2": ("mlm",), "C3": ("clm",), "C4": ("mlm", "clm"), "C5": ("mlm", "clm"),
}  # fmt: skip


def names_models(fams: list[Fam], cid: str) -> bool:
    """True when the answer's prose names the models `MET_NEEDS[cid]`."""
    on = frozenset().union(*(f.on for f in fams if not f.list_like)) if fams else frozenset()
    return all(n in on for n in MET_NEEDS.get(cid, ()))


READ_BY = ("C4", "C5")  # heads that read the rule layer's readings (round 6, by LOSO)


def readings(an: Analysis, fams: list[Fam]) -> dict[str, Found]:
    """The rule layer's structural readings as coverage signals: one indicator per kind of
    claim and the model it is about ("R see_both mlm", "R future_absent -"), found in a prose
    sentence of the answer. Named from the claims themselves, so a kind the rules add or drop
    adds or drops a feature (`fit_reader` keeps those with enough support); no evidence, so a
    reading alone never makes the reader quote a sentence."""
    prose = {f.index for f in fams if not f.list_like}
    return {
        f"R {c.kind} {c.subject or '-'}": (1.0, ())
        for s in an.sentences
        if s.sentence.index in prose
        for c in s.claims
    }


def features(
    an: Analysis, rule_levels: dict[str, int], fams: list[Fam] | None = None
) -> dict[str, dict[str, Found]]:
    """Per criterion: feature name -> (value, evidence sentences), plus the rule verdict (not
    fitted on by default: `tools.rubric.fit_reader.RULE_FEATURES`). No answer-level length or
    hedging features: they made a short, precise answer less credible, and leaving them out
    changed no leave-one-set-out number (issue 19, round 5)."""
    fams = families(an) if fams is None else fams
    read = readings(an, fams)
    out: dict[str, dict[str, Found]] = {}
    for cid, fn in _FEATURES.items():
        feats = {**fn(fams), **(read if cid in READ_BY else {})}
        r = rule_levels.get(cid, 0)
        feats["rule_partial"] = (1.0 if r == 1 else 0.0, ())
        feats["rule_met"] = (1.0 if r == 2 else 0.0, ())
        out[cid] = feats
    return out
