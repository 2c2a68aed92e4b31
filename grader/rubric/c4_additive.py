"""C4: a mismatch said again of a model with an additive.

"During training GPT sees the whole sentence ..., but at generation it only has the left side.
So the mismatch is there for GPT as well.", "So there's no real mismatch for BERT either.",
"GPT ... has the same mismatch as BERT": the additive ("as well", "either", "too", "the same
... as") carries the train-versus-generation comparison just made for that model (in one of
the two sentences before) to the relation, which then compares the two conditions though its
sentence has no training word. "Also" is left out: it as often adds to another part of the
sentence ("GPT also avoids the gap"). In "the same mismatch as BERT" the model after "as" is
the comparison object; the relation is said of the other one.
"""

from __future__ import annotations

import re

from grader.rubric.facts import BOTH, CLM, MLM, Analysis, Claim, SentenceFacts

_ADDITIVE = re.compile(r"\b(?:as well|either|too)\b", re.IGNORECASE)
_MISMATCH = re.compile(r"mismatch\w*|discrepanc\w*|gap", re.IGNORECASE)
_SAME_AS = re.compile(
    r"\bsame\s+(?:\w+\s+){0,2}?(?:mismatch|discrepancy|gap|problem)\s+as\s+", re.IGNORECASE
)
_MODEL_KEY = {MLM: "masked_model", CLM: "causal_model"}


def _compared_after_as(f: SentenceFacts) -> set[str]:
    """The models named right after "the same mismatch as" (comparison objects)."""
    out = set()
    for m in _SAME_AS.finditer(f.sentence.norm):
        for code, key in _MODEL_KEY.items():
            if any(m.end() <= h.start <= m.end() + 12 for h in f.hits.get(key, [])):
                out.add(code)
    return out


def _comparison_before(an: Analysis, k: int, subj: str | None) -> bool:
    """One of the two sentences before sets training against generation (a training word and
    a generation word in it, or a relation read as comparing them) for the same model."""
    for g in an.sentences[max(0, k - 2) : k]:
        if subj not in g.subjects:
            continue
        trained = g.has("training") or g.has("never_trained")
        gen = g.has("generation_time") or g.has("generation") or bool(g.kinds("future_absent"))
        framed = any(c.strong for c in g.kinds("relation_same") + g.kinds("relation_diff"))
        if (trained and gen) or framed:
            return True
    return False


def additive_mismatch(an: Analysis) -> list[Claim]:
    """The mismatch relations carried over to a model by an additive (see the module doc),
    as framed relations of that model."""
    out: list[Claim] = []
    for k, f in enumerate(an.sentences):
        objects = _compared_after_as(f)
        rels = [
            c
            for c in f.kinds("relation_same") + f.kinds("relation_diff")
            if (not c.strong or objects) and _MISMATCH.fullmatch(c.text.strip())
        ]
        if not rels or not (_ADDITIVE.search(f.sentence.norm) or objects):
            continue
        rest = (f.subjects & {MLM, CLM}) - objects
        for c in rels:
            # the model the sentence itself names as its subject, never one carried over
            subj = next(iter(rest)) if objects and len(rest) == 1 else c.subject
            if subj in f.subjects and subj in (MLM, CLM, BOTH) and _comparison_before(an, k, subj):
                out.append(Claim(c.kind, subj, f.sentence.index, True, True, c.text))
    return out
