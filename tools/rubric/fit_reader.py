"""Fit the second reader's weights (`reader_weights.json`) and report cross-validation.

    python -m tools.rubric.fit_reader [--write] [--sweep]   # from the checkout's root

Trains on the TUNING sets only (`TRAIN_SPLITS`: dev, dev2, heldout, heldout2, dev3; never
heldout3 or heldout4), English answers only (the scorer abstains on other languages). For each
criterion C1-C4 two L2-regularised logistic regressions are fitted with Newton's method in
numpy: y >= partial and y == met. Answers labelled contradicted are left out of a criterion's
training data: the rules own contradictions, the reader only decides met / partial / missing.

Cross-validation (out-of-fold predictions, combined with the rule verdicts exactly as the scorer
combines them) is reported two ways: 5-fold over the pooled answers (fixed fold assignment),
and leave-one-split-out (train on four sets, predict the fifth: the closest proxy for a set in
new voices). Deterministic: no randomness beyond a fixed fold assignment.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass

import numpy as np

from grader.rubric.criteria import judge_all
from grader.rubric.model import Rubric, load_rubric
from grader.rubric.reader import (
    CRITERIA,
    NO_RAISE,
    ORD,
    RAISE_AT,
    SHORTFALL_AT,
    WEIGHTS_PATH,
    features,
)
from grader.rubric.scorer import read_answer, score_explanation
from grader.rubric.text import detect_non_english
from tools.rubric.agreement import ORDINAL, load_split, quadratic_weighted_kappa

TRAIN_SPLITS = ("dev", "dev2", "heldout", "heldout2", "dev3")
L2 = 1.0  # ridge penalty (features are 0/1 or small, so one value fits all)
K = 5
RULE_FEATURES = ("rule_partial", "rule_met")


@dataclass
class Row:
    split: str
    id: str
    text: str
    labels: dict[str, str]
    rule: dict[str, str]
    feats: dict[str, dict[str, tuple[float, tuple[int, ...]]]]


def build_rows(splits: tuple[str, ...] = TRAIN_SPLITS, rubric: Rubric | None = None) -> list[Row]:
    rubric = rubric or load_rubric()
    rows = []
    for sp in splits:
        for r in load_split(sp):
            if detect_non_english(r["text"], rubric.thresholds.english_stopword_ratio):
                continue
            _, _, an = read_answer(r["text"], rubric)
            js = judge_all(an, rubric)
            rule = {c: js[c].verdict for c in js}
            feats = features(an, {c: ORD[v] for c, v in rule.items()})
            rows.append(Row(sp, r["id"], r["text"], r["labels"], rule, feats))
    return rows


def names_for(rows: list[Row], cid: str, drop: tuple[str, ...] = ()) -> list[str]:
    return sorted(k for k in rows[0].feats[cid] if k not in drop)


def matrix(rows: list[Row], cid: str, names: list[str]) -> np.ndarray:
    return np.array([[r.feats[cid][n][0] for n in names] for r in rows], dtype=float)


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = L2, iters: int = 50) -> np.ndarray:
    """Newton-Raphson for L2-penalised logistic regression; column 0 of the returned vector is
    the (unpenalised) bias."""
    xb = np.hstack([np.ones((x.shape[0], 1)), x])
    w = np.zeros(xb.shape[1])
    pen = np.full(xb.shape[1], l2)
    pen[0] = 1e-6
    for _ in range(iters):
        z = xb @ w
        p = 1.0 / (1.0 + np.exp(-z))
        g = xb.T @ (p - y) + pen * w
        h = (xb * (p * (1 - p))[:, None]).T @ xb + np.diag(pen)
        step = np.linalg.solve(h, g)
        w -= step
        if np.max(np.abs(step)) < 1e-9:
            break
    return w


def fit_criterion(rows: list[Row], cid: str, names: list[str], l2: float = L2) -> dict:
    keep = [r for r in rows if r.labels[cid] != "contradicted"]
    x = matrix(keep, cid, names)
    y = np.array([ORDINAL[r.labels[cid]] for r in keep])
    out = {}
    for head, lo in (("partial", 1), ("met", 2)):
        w = fit_logistic(x, (y >= lo).astype(float), l2)
        out[head] = {
            "bias": round(float(w[0]), 6),
            "coef": {n: round(float(c), 6) for n, c in zip(names, w[1:], strict=True)},
        }
    return out


def folds(rows: list[Row], k: int = K) -> list[int]:
    """Fixed fold assignment: answers sorted by (split, id), dealt round-robin."""
    order = sorted(range(len(rows)), key=lambda i: (rows[i].split, rows[i].id))
    f = [0] * len(rows)
    for n, i in enumerate(order):
        f[i] = n % k
    return f


def fold_weights(
    rows: list[Row], groups: list, drop: tuple[str, ...] = (), l2: float = L2
) -> dict[object, dict]:
    """Weights fitted without each group: {group: weights}."""
    out = {}
    for g in sorted(set(groups), key=str):
        train = [r for r, gg in zip(rows, groups, strict=True) if gg != g]
        out[g] = {
            "criteria": {c: fit_criterion(train, c, names_for(rows, c, drop), l2) for c in CRITERIA}
        }
    return out


@dataclass
class Scored:
    verdicts: dict[str, str]
    score: float
    review: bool
    human: float


def score_rows(
    rows: list[Row], groups: list | None, per_group: dict | None, extra: dict, rubric: Rubric
) -> list[Scored]:
    """Score every row through the production path (`score_explanation`), with the weights of
    the fold that left it out (`per_group`), or with no reader at all (`per_group` None)."""
    out = []
    for i, r in enumerate(rows):
        if per_group is None or groups is None:
            w: dict = {"criteria": {}}
        else:
            w = {**per_group[groups[i]], **extra}
        res = score_explanation(r.text, rubric, reader_weights=w)
        human = sum(rubric.points(c.id, r.labels[c.id]) for c in rubric.criteria)  # type: ignore[arg-type]
        out.append(
            Scored({c.id: c.verdict for c in res.criteria}, res.score, res.needs_review, human)
        )
    return out


def summarise(rows: list[Row], sc: list[Scored], subset=None) -> dict:
    """Kappa per criterion, score MAE and bias (human - machine), the share flagged for review,
    and the flag's precision / recall for answers under-credited by >= 2 points and for answers
    off by >= 2 points either way."""
    idx = [i for i in range(len(rows)) if subset is None or subset(rows[i])]
    k = {}
    for cid in ("C1", "C2", "C3", "C4", "C5"):
        h = [ORDINAL[rows[i].labels[cid]] for i in idx]
        m = [ORDINAL[sc[i].verdicts[cid]] for i in idx]
        k[cid] = quadratic_weighted_kappa(h, m, 3)
    diff = [sc[i].human - sc[i].score for i in idx]
    flagged = [sc[i].review for i in idx]
    under = [d >= 2 for d in diff]
    big = [abs(d) >= 2 for d in diff]

    def pr(target: list[bool]) -> tuple[float, float]:
        tp = sum(f and t for f, t in zip(flagged, target, strict=True))
        return tp / max(sum(flagged), 1), tp / max(sum(target), 1)

    n = max(len(idx), 1)
    return {
        "n": len(idx),
        "kappa": k,
        "mae": sum(abs(d) for d in diff) / n,
        "bias": sum(diff) / n,
        "flag_rate": sum(flagged) / n,
        "under": (sum(under), *pr(under)),
        "big": (sum(big), *pr(big)),
    }


def fmt(s: dict) -> str:
    k = " ".join(f"{s['kappa'][c]:.2f}" for c in ("C1", "C2", "C3", "C4", "C5"))
    return (
        f"kappa {k} | MAE {s['mae']:.2f} bias {s['bias']:+.2f} | flagged {s['flag_rate']:.0%} | "
        f"under>=2: {s['under'][0]:>2} P {s['under'][1]:.2f} R {s['under'][2]:.2f} | "
        f"|err|>=2: {s['big'][0]:>2} P {s['big'][1]:.2f} R {s['big'][2]:.2f}"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help=f"write {WEIGHTS_PATH.name}")
    ap.add_argument("--sweep", action="store_true", help="try several raise/doubt thresholds")
    ap.add_argument("--raise-at", type=float, default=RAISE_AT)
    ap.add_argument("--shortfall-at", type=float, default=SHORTFALL_AT)
    ap.add_argument(
        "--with-rule-features", action="store_true", help="also feed the rule verdict to the reader"
    )
    ap.add_argument(
        "--keep-partial", action="store_true", help="never raise a partial verdict to met"
    )
    args = ap.parse_args(argv)
    drop = () if args.with_rule_features else RULE_FEATURES
    rubric = load_rubric()
    rows = build_rows(rubric=rubric)
    print(f"{len(rows)} English tuning answers from {', '.join(TRAIN_SPLITS)}")
    subsets = [("pooled", None)] + [(s, (lambda r, s=s: r.split == s)) for s in TRAIN_SPLITS]
    base = score_rows(rows, None, None, {}, rubric)
    print("\nrules only (no second reader), in-sample:")
    for name, sub in subsets:
        print(f"  {name:<9}{fmt(summarise(rows, base, sub))}")
    settings = [(args.raise_at, args.shortfall_at)]
    if args.sweep:
        settings = [(ra, da) for ra in (0.7,) for da in (0.75,)]
    schemes = (("5-fold", folds(rows)), ("leave-one-split-out", [r.split for r in rows]))
    for gname, groups in schemes:
        per_group = fold_weights(rows, groups, drop)
        for ra, da in settings:
            extra = {"raise_at": ra, "shortfall_at": da, "raise_partial": not args.keep_partial}
            sc = score_rows(rows, groups, per_group, extra, rubric)
            print(f"\n{gname}, reader out of fold, {extra}:")
            for name, sub in subsets if not args.sweep else [subsets[0], subsets[-1]]:
                print(f"  {name:<9}{fmt(summarise(rows, sc, sub))}")
    if args.write:
        weights = {
            "about": "grader.rubric.reader weights; fitted by python -m tools.rubric.fit_reader "
            f"on {', '.join(TRAIN_SPLITS)} ({len(rows)} English answers), L2={L2}",
            "raise_at": args.raise_at,
            "shortfall_at": args.shortfall_at,
            "raise_partial": not args.keep_partial,
            "no_raise": list(NO_RAISE),
            "criteria": {c: fit_criterion(rows, c, names_for(rows, c, drop)) for c in CRITERIA},
        }
        WEIGHTS_PATH.write_text(json.dumps(weights, indent=1, sort_keys=True) + "\n")
        print(f"wrote {WEIGHTS_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
