"""Agreement of the Exercise 2 rubric scorer with human labels.

    python benchmarks/rubric_agreement.py [--split SPLIT] [--details]

    SPLIT: dev | dev2 ... dev30 | heldout | heldout2 ... heldout30 | both | seen | all

Prints, per split and per criterion: exact agreement on the four verdicts and quadratic-weighted
Cohen's kappa on the ordinal scale missing = contradicted (0) < partial (1) < met (2), for all
answers, for the answers the scorer scores (English; it abstains on other languages and routes
them to a human) and for the answers it did not flag for review; the scorer's contradicted
true positives / predictions / labels; then the mean absolute error of the 0-10 score. `--details`
lists every disagreement. Each held-out split was frozen before the changes it measures (see
tools/rubric/devset/README.md and docs/rubric.md). heldout10 and heldout11 are the newest (two
independent authors; frozen before the fifth issue-19 round, measured at its start and end, in
aggregate only); heldout5-heldout7 have never been tuned on or read; heldout8 and heldout9
were released as tuning data after their measurement; heldout3 is only looked at in aggregate.
Do not use --details on a held-out split you still want to measure generalisation with. The
second reader's cross-validation is `python -m tools.rubric.fit_reader`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tools/ lives in the checkout

from tools.rubric.agreement import (  # noqa: E402
    FROZEN,
    ORDINAL,
    SplitReport,
    evaluate,
    quadratic_weighted_kappa,
)

# every labelled set, in the order `--split all` reports them
SPLITS = ("dev", "dev2", "dev3", "dev4", "heldout", "heldout2", "heldout3", "heldout4",
          "heldout5", "dev5", "heldout6", "heldout7", "dev6", "heldout8", "heldout9",
          "dev7", "dev8", "heldout10", "heldout11", "heldout12", "heldout13", "dev9",
          "dev10", "heldout14", "heldout15", "heldout16", "dev11", "dev12", "dev13",
          "dev14", "dev15", "dev16", "heldout17", "heldout18", "heldout19", "dev17", "dev18",
          "dev19", "heldout20", "heldout21", "heldout22", "heldout23", "dev20", "dev21",
          "dev22", "dev23", "heldout24", "heldout25", "heldout26", "dev24", "dev25",
          "dev26", "heldout27", "heldout28", "dev27", "dev28", "heldout29", "heldout30",
          "dev29", "dev30")  # fmt: skip


def pooled_kappa(rep: SplitReport, items: list) -> float:
    """Kappa over every (answer, criterion) verdict of `items` at once: stable on the small
    subsets where a per-criterion kappa degenerates (one criterion nearly constant)."""
    h = [ORDINAL[i.labels[c]] for i in items for c in rep.criteria]
    m = [ORDINAL[i.predicted[c]] for i in items for c in rep.criteria]
    return quadratic_weighted_kappa(h, m, 3)


def print_report(rep: SplitReport, details: bool) -> None:
    n = len(rep.items)
    scored = [i for i in rep.items if not i.abstained]
    unflagged = [i for i in rep.items if not i.needs_review]
    print(
        f"\n== {rep.split}: {n} answers; scored (English) {len(scored)}; "
        f"not flagged for review {len(unflagged)} =="
    )
    print(
        f"{'':<10}{'---- all ----':>16}{'--- scored ---':>16}{'-- unflagged --':>17}   contradicted"
    )
    print(
        f"{'criterion':<10}{'exact':>8}{'kappa':>8}{'exact':>8}{'kappa':>8}{'exact':>9}{'kappa':>8}"
        "   tp/pred/label"
    )
    for cid in rep.criteria:
        tp, pred, lab = rep.contradicted_pr(cid)
        cells = "".join(
            f"{rep.exact(cid, its):>{w}.2f}{rep.kappa(cid, its):>8.2f}"
            for its, w in ((rep.items, 8), (scored, 8), (unflagged, 9))
        )
        print(f"{cid:<10}{cells}   {tp}/{pred}/{lab}")
    print(
        f"score MAE (0-10): all {rep.mae():.2f}, scored {rep.mae(scored):.2f}, "
        f"unflagged {rep.mae(unflagged):.2f}"
    )
    tp = pred = lab = 0
    for cid in rep.criteria:
        a, b, c = rep.contradicted_pr(cid)
        tp, pred, lab = tp + a, pred + b, lab + c
    mean_k = sum(rep.kappa(c, scored) for c in rep.criteria) / len(rep.criteria)
    mean_u = sum(rep.kappa(c, unflagged) for c in rep.criteria) / len(rep.criteria)
    pooled_u = pooled_kappa(rep, unflagged)
    print(
        f"summary: mean kappa (scored) {mean_k:.2f}; wrong claims found {tp}/{lab} "
        f"(recall {tp / max(lab, 1):.2f}) at precision {tp / max(pred, 1):.2f} ({pred} predicted); "
        f"not flagged {len(unflagged) / max(n, 1):.0%}, mean kappa among them {mean_u:.2f} "
        f"(pooled over criteria {pooled_u:.2f})"
    )
    if details:
        for i in rep.items:
            diffs = [
                f"{c}:{i.labels[c]}->{i.predicted[c]}"
                for c in rep.criteria
                if i.labels[c] != i.predicted[c]
            ]
            if diffs:
                flag = " [not English]" if i.abstained else " [review]" if i.needs_review else ""
                print(
                    f"  {i.id}{flag} human {i.human_score:g} machine {i.machine_score:g}: "
                    + " ".join(diffs)
                )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--split",
        choices=[*SPLITS, "both", "seen", "all"],
        default="both",
        help="both = dev and heldout; seen = dev, dev2, dev3, heldout and heldout2 (tuned on or "
        "already looked at); all = every labelled set",
    )
    ap.add_argument("--details", action="store_true", help="list every disagreement")
    args = ap.parse_args(argv)
    named = {
        "both": ["dev", "heldout"],
        "seen": ["dev", "dev2", "dev3", "dev4", "heldout", "heldout2"],
        "all": list(SPLITS),
    }
    splits = named.get(args.split, [args.split])
    if args.details and set(splits) & set(FROZEN):
        ap.error(
            f"--details would show frozen held-out answers: {sorted(set(splits) & set(FROZEN))}"
        )
    for s in splits:
        print_report(evaluate(s), args.details)
    return 0


if __name__ == "__main__":
    sys.exit(main())
