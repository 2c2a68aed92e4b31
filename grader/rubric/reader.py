"""A second reader for C1-C5: a small, transparent model over interpretable features.

The rule judges (`criteria.py`) give "met" only when they recognise the exact link a criterion
is about; on answers written in new voices they miss links a person sees and under-credit. This
reader looks at the same answer more coarsely:

1. **Families.** Each sentence is tagged with broad concept families (the masked model, the
   causal model, later / whole context, earlier context, "only", generation, training, absence,
   sameness, difference, negation, hedges), from the rubric's lexicon hits *and* from a short
   list of plain English cue words (`reader_cues.CUES`, read after `reader_cues.register` has
   spelled out texting and relation symbols), so "peek ahead", "nothing to the right yet",
   "l8r toks" or "what it practised" still count.
2. **Features.** Per criterion, a handful of co-occurrence indicators: the families the
   criterion links, found in one sentence or in neighbouring sentences (`_FEATURES`), plus the
   rule judge's own verdict. Every indicator remembers the sentences where it fired, so a
   verdict it supports can still quote the student. (Both live in `reader_features.py`.)
3. **Model.** Two logistic regressions per criterion (ordinal: P(at least partial) and P(met)),
   fitted with numpy on every tuning set (`python -m tools.rubric.fit_reader --write`, chosen
   by leave-one-set-out cross-validation); the weights
   live in `reader_weights.json` and are read once. Prediction is a dot product: deterministic
   and well under a millisecond.

`scorer.py` uses the reader in two ways (see docs/rubric.md): it may raise a rule verdict by
one level where the reader is confident, and its probabilities give each criterion a calibrated
confidence, so a low verdict the reader doubts is flagged for review instead of being sent
out as if it were sure.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from grader.resources import data_path
from grader.rubric.criteria import Judgement
from grader.rubric.facts import Analysis
from grader.rubric.reader_cues import style
from grader.rubric.reader_features import Fam, Found, families, features, names_models

WEIGHTS_PATH = data_path("grader.rubric", "reader_weights.json")
RAISE_AT = 0.85  # defaults; the weights file carries the values chosen by cross-validation
# Raise thresholds, chosen per criterion by leave-one-set-out cross-validation on the newest
# authors' sets (issue 19, round 7, nine sets, `fit_reader.NEW_AUTHORS`; best mean kappa, ties
# to the lower MAE): C2 and C3 raise at 0.85, C1 at 0.95 (round 6's 0.55-0.8 raised verdicts
# the new authors' graders had not given: out of fold, 35-90% of the raises from missing and
# 30-50% of those to met were wrong); C4 at 0.8, its best on the merged round-7 rules (0.871
# against 0.867 at 0.85); C5 is never raised (`NO_RAISE`)
RAISE_AT_BY = {"C1": 0.95, "C4": 0.8}
SHORTFALL_AT = 2.0  # expected points missed that flag an answer for review (chosen by LOSO)
# the review model's probability that flags an answer. Round 9: 0.6, chosen by nested
# leave-one-set-out on the 18 newest authors' sets (per set, the value with the best mean kappa
# among the unflagged on the other 17 that leaves 65% of them unflagged: 0.6 in every fold)
REVIEW_AT = 0.6
CONFLICT_AT = 0.0  # the review model's probability that flags a conflicted criterion
ORD = {"missing": 0, "contradicted": 0, "partial": 1, "met": 2}
CRITERIA = ("C1", "C2", "C3", "C4", "C5")

__all__ = [
    "CRITERIA",
    "ORD",
    "RAISE_AT",
    "RAISE_AT_BY",
    "REVIEW_AT",
    "SHORTFALL_AT",
    "CONFLICT_AT",
    "WEIGHTS_PATH",
    "Fam",
    "Found",
    "Opinion",
    "conflict_at",
    "families",
    "features",
    "load_weights",
    "opinions",
    "predict",
    "review_at",
    "review_features",
    "review_risk",
    "second_read",
    "settle_opinions",
    "doubt_points",
    "shortfall",
    "shortfall_at",
]


@dataclass(frozen=True)
class Opinion:
    """The reader's view of one criterion: P(at least partial), P(met), the level it would give
    and the sentences its strongest firing feature came from."""

    p_partial: float
    p_met: float
    level: int
    evidence: tuple[int, ...]
    named: bool = True  # the models the criterion's met level needs are named (`MET_NEEDS`)

    def p_level(self, level: int) -> float:
        """Probability of exactly `level` (0 missing, 1 partial, 2 met)."""
        hi = min(self.p_met, self.p_partial)
        return (1 - self.p_partial, self.p_partial - hi, hi)[level]


@lru_cache(maxsize=4)
def load_weights(path: Path = WEIGHTS_PATH) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _sigmoid(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def predict(feats: dict[str, dict[str, Found]], weights: dict | None = None) -> dict[str, Opinion]:
    weights = load_weights() if weights is None else weights
    out: dict[str, Opinion] = {}
    for cid, fs in feats.items():
        w = weights.get("criteria", {}).get(cid)
        if not w:
            continue
        probs = []
        best: tuple[float, tuple[int, ...]] = (0.0, ())
        for head in ("partial", "met"):
            coef = w[head]["coef"]
            z = w[head]["bias"] + sum(coef.get(k, 0.0) * v for k, (v, _) in fs.items())
            probs.append(_sigmoid(z))
            for k, (v, ev) in fs.items():
                contrib = coef.get(k, 0.0) * v
                if ev and contrib > best[0]:
                    best = (contrib, ev)
        p1, p2 = probs
        p2 = min(p1, p2)
        level = 2 if p2 >= 0.5 else 1 if p1 >= 0.5 else 0
        out[cid] = Opinion(round(p1, 4), round(p2, 4), level, best[1])
    return out


def opinions(
    an: Analysis, judgements: dict[str, Judgement], weights: dict | None = None
) -> dict[str, Opinion]:
    """The reader's opinion on each of C1-C5 (empty when no weights file is installed)."""
    levels = {c: ORD[j.verdict] for c, j in judgements.items()}
    fams = families(an)
    return settle_opinions(predict(features(an, levels, fams), weights), fams)


def settle_opinions(ops: dict[str, Opinion], fams: list[Fam]) -> dict[str, Opinion]:
    """`ops` with what the answer's families rule out: met where the models the guide needs
    are not named (`names_models`), and any evidence for C4 where a mismatch is argued from
    data or domain (the rules decide whether the information condition is there; the reader
    neither raises nor doubts C4 there)."""
    ops = {c: op if names_models(fams, c) else replace(op, named=False) for c, op in ops.items()}
    if "C4" in ops and any("data_rel" in f.on for f in fams):
        ops["C4"] = replace(ops["C4"], evidence=())
    return ops


_LEVEL_NAMES = ("missing", "partial", "met")


# Criteria the reader never raises. Until round 6 C1 was listed: its head had been fitted
# before the labelling guide made a bare label partial, and raised labels. Round 7: C5, whose
# raises at any threshold from 0.55 to 0.95 left the newest authors' mean kappa within 0.01
# of not raising (.931-.940 against .938): a raise that does not help is not worth a verdict
# the rules did not find.
NO_RAISE: tuple[str, ...] = ("C5",)


def second_read(
    cid: str,
    j: Judgement,
    op: Opinion | None,
    weights: dict | None = None,
    false_premise: bool = False,
    one_half: bool = False,
) -> Judgement:
    """Combine a rule judgement with the reader's opinion.

    A contradicted verdict stays: the rules own false claims. Otherwise the reader may raise the
    verdict (by one level, or missing -> met when it is sure of met) when its probability of the
    higher level is at least `raise_at` and it can point to the sentences that earned it; the
    verdict then quotes those sentences and its confidence is the reader's probability. C2 and
    C4 are not raised when the answer makes a false claim about what a model sees
    (`false_premise`: C1 or C3 contradicted); a partial verdict is raised only when the weights
    allow it (`raise_partial`): there the rules did find the relation and judged it one-sided.
    Criteria in `no_raise` (default `NO_RAISE`) are never raised; the reader still doubts them.
    C2 is raised at most to partial when the answer states only one half of its link anywhere
    (`one_half`: no absence at generation, or no reliance of the masked LM): the whole link
    needs both, and a half said at length co-occurs with the words of the whole.
    """
    if op is None or j.verdict == "contradicted" or not op.evidence:
        return j
    if false_premise and cid in ("C2", "C4"):
        return j  # an argument built on a false claim about what a model sees is not raised
    w = load_weights() if weights is None else weights
    raise_at = float(w.get("raise_at_by", RAISE_AT_BY).get(cid, w.get("raise_at", RAISE_AT)))
    r = ORD[j.verdict]
    if r == 1 and not w.get("raise_partial", True):
        return j
    if cid in w.get("no_raise", NO_RAISE):
        return j
    target = r
    if r < 2 and op.p_met >= raise_at and op.named:
        target = 2
    elif r == 0 and op.p_partial >= raise_at:
        target = 1
    if one_half and cid == "C2" and r == 1:
        target = r
    if target <= r:
        return j
    conf = op.p_met if target == 2 else op.p_partial
    return Judgement(_LEVEL_NAMES[target], op.evidence, round(conf, 3))  # type: ignore[arg-type]


def shortfall(verdict: str, op: Opinion | None, weight: float) -> float:
    """Points the reader expects on top of `verdict`: weight x (expected level - level) / 2,
    with the expected level P(>= partial) + P(met). 0 for a contradicted verdict, and when the
    reader has no evidence of its own (no co-occurrence fired): then its probabilities are
    mostly the base rate, which says nothing about this answer."""
    if op is None or verdict == "contradicted" or not op.evidence:
        return 0.0
    expected = op.p_partial + min(op.p_met, op.p_partial)
    return max(0.0, expected - ORD[verdict]) * weight / 2.0


def doubt_points(
    verdicts: dict[str, str],
    ops: dict[str, Opinion],
    crit_weights: dict[str, float],
    weights: dict | None = None,
) -> dict[str, float]:
    """Per criterion, the points the reader doubts in the final `verdicts` (`shortfall`).
    All zero when any verdict is contradicted: the reader counts co-occurring words and cannot
    tell a false claim from a true one, so there its expectation is no evidence of a missed
    argument (the false claim is reported on its own)."""
    if "contradicted" in verdicts.values():
        return dict.fromkeys(verdicts, 0.0)
    return {
        c: shortfall(v, ops.get(c), crit_weights.get(c, 0.0))
        for c, v in verdicts.items()
        if c in crit_weights
    }


def shortfall_at(weights: dict | None = None) -> float:
    w = load_weights() if weights is None else weights
    return float(w.get("shortfall_at", SHORTFALL_AT))


# -- the review model --------------------------------------------------------------------------
# Most verdicts that differ from a grader's are confident rule verdicts the reader's own
# expectation does not contradict, so a threshold on expected shortfall alone cannot find them.
# The review model is a logistic regression, fitted on out-of-fold verdicts of every tuning set
# (`tools.rubric.fit_reader`), of "a grader would change at least one verdict" on the final
# verdicts, which of them the reader raised, and the reader's expected level against each.


def review_features(
    rule: dict[str, str],
    final: dict[str, str],
    ops: dict[str, Opinion],
    doubt: float,
    text: str | None = None,
    *,
    conflicted: Iterable[str] = (),
) -> dict[str, float]:
    """The review model's inputs: per criterion the final level (partial / met /
    contradicted), whether the reader raised it, and the reader's expected level minus the
    verdict's (signed and absolute); plus the reader's summed doubt points and, given the
    answer's `text`, its length and register (`reader_cues.style`: informal registers are
    read less surely by the rules, whatever words they use); and how many criteria are
    `conflicted` (contradicted on an answer that also earned credit on them)."""
    x: dict[str, float] = {"doubt": doubt, **(style(text) if text is not None else {})}
    x["conflicted"] = float(len(set(conflicted)))
    for c, v in final.items():
        lv = ORD[v]
        x[f"{c} partial"] = float(lv == 1)
        x[f"{c} met"] = float(lv == 2)
        x[f"{c} contradicted"] = float(v == "contradicted")
        x[f"{c} raised"] = float(v != rule.get(c, v))
        op = ops.get(c)
        if op is not None:
            gap = op.p_partial + min(op.p_met, op.p_partial) - lv
            x[f"{c} gap"] = gap
            x[f"{c} |gap|"] = abs(gap)
    return x


def review_risk(x: dict[str, float], weights: dict | None = None) -> float:
    """P(a grader would change at least one verdict); 0 when no review model is installed."""
    w = (load_weights() if weights is None else weights).get("review")
    if not w:
        return 0.0
    return _sigmoid(w["bias"] + sum(w["coef"].get(k, 0.0) * v for k, v in x.items()))


def review_at(weights: dict | None = None) -> float:
    w = load_weights() if weights is None else weights
    return float(w.get("review_at", REVIEW_AT))


def conflict_at(weights: dict | None = None) -> float:
    """The review model's probability at which a conflicted criterion (`Judgement.conflicted`)
    is flagged; 0 (every conflict flagged) unless the weights say otherwise."""
    w = load_weights() if weights is None else weights
    return float(w.get("conflict_at", CONFLICT_AT))
