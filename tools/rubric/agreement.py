"""Agreement between the scorer and human labels on the labelled answer sets.

Metrics (per criterion): exact agreement on the four verdicts, and quadratic-weighted Cohen's
kappa on the ordinal scale the score uses: missing = contradicted = 0 < partial = 1 < met = 2
(contradicted earns the same points as missing, so for kappa it is the same level; whether the
scorer *recognised* a false claim is reported separately as contradicted precision/recall).
Plus the mean absolute error of the 0-10 score. Kappa is implemented here (no sklearn).

Answers the scorer abstains on (not English: it only reads English and routes them to a human
with confidence <= 0.2) are included in the "all" numbers and excluded from the "scored" ones.

An instructor tool, not part of the installed grader: the labelled sets live next to it in
`tools/rubric/devset/` and neither ships in the wheel.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from grader.report import WrittenResult
from grader.rubric.model import Rubric, load_rubric
from grader.rubric.scorer import score_explanation
from grader.rubric.text import detect_non_english

DEVSET_DIR = Path(__file__).resolve().parent / "devset"
# Frozen held-out sets (devset/README.md): never fitted, tuned on or mined for examples; only
# `benchmarks/rubric_agreement.py` and the agreement floors score them, in aggregate.
FROZEN = ("heldout5", "heldout6", "heldout7", "heldout10", "heldout14", "heldout15", "heldout16",
          "heldout29", "heldout30")  # fmt: skip
ORDINAL = {"missing": 0, "contradicted": 0, "partial": 1, "met": 2}


def quadratic_weighted_kappa(a: Sequence[int], b: Sequence[int], n_levels: int) -> float:
    """Cohen's kappa with quadratic weights for two raters on levels 0..n_levels-1.

    kappa = 1 - sum(w * O) / sum(w * E), w_ij = (i - j)^2 / (n - 1)^2, O the observed joint
    distribution, E the product of the marginals. When both raters use a single identical
    level (no expected disagreement) the result is 1.0 if they agree everywhere, else 0.0.
    """
    if len(a) != len(b):
        raise ValueError("rater sequences differ in length")
    n = len(a)
    if n == 0:
        return float("nan")
    obs = [[0.0] * n_levels for _ in range(n_levels)]
    for x, y in zip(a, b, strict=True):
        obs[x][y] += 1.0 / n
    ra = [sum(row) for row in obs]
    rb = [sum(obs[i][j] for i in range(n_levels)) for j in range(n_levels)]
    denom_w = (n_levels - 1) ** 2 or 1
    num = den = 0.0
    for i in range(n_levels):
        for j in range(n_levels):
            w = (i - j) ** 2 / denom_w
            num += w * obs[i][j]
            den += w * ra[i] * rb[j]
    if den == 0.0:
        return 1.0 if num == 0.0 else 0.0
    return 1.0 - num / den


# The reprs show no labels, verdicts or scores: a failing assertion (pytest prints the objects
# it compared) must not show a frozen answer's labels to whoever runs the floors.
@dataclass
class ItemResult:
    id: str
    labels: dict[str, str] = field(repr=False)
    predicted: dict[str, str] = field(repr=False)
    human_score: float = field(repr=False)
    machine_score: float = field(repr=False)
    needs_review: bool = field(repr=False)
    abstained: bool = field(default=False, repr=False)  # not English: graded by hand
    tags: list[str] = field(default_factory=list, repr=False)


@dataclass
class SplitReport:
    split: str
    items: list[ItemResult] = field(repr=False)
    criteria: list[str]

    def exact(self, cid: str, items: list[ItemResult] | None = None) -> float:
        its = self.items if items is None else items
        return sum(i.labels[cid] == i.predicted[cid] for i in its) / max(len(its), 1)

    def kappa(self, cid: str, items: list[ItemResult] | None = None) -> float:
        its = self.items if items is None else items
        h = [ORDINAL[i.labels[cid]] for i in its]
        m = [ORDINAL[i.predicted[cid]] for i in its]
        return quadratic_weighted_kappa(h, m, 3)

    def mae(self, items: list[ItemResult] | None = None) -> float:
        its = self.items if items is None else items
        return sum(abs(i.human_score - i.machine_score) for i in its) / max(len(its), 1)

    def contradicted_pr(self, cid: str) -> tuple[int, int, int]:
        """(true positives, predicted contradicted, labelled contradicted)."""
        tp = sum(i.labels[cid] == i.predicted[cid] == "contradicted" for i in self.items)
        pred = sum(i.predicted[cid] == "contradicted" for i in self.items)
        lab = sum(i.labels[cid] == "contradicted" for i in self.items)
        return tp, pred, lab


def tuning_texts(directory: Path = DEVSET_DIR) -> list[str]:
    """Every answer text of the labelled sets that are not `FROZEN`, in file order: the corpus
    the evasion and disguise tests check honest answers against."""
    return [
        json.loads(line)["text"]
        for f in sorted(directory.glob("*.jsonl"))
        if f.stem not in FROZEN
        for line in f.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]


def load_split(split: str, directory: Path = DEVSET_DIR) -> list[dict]:
    path = directory / f"{split}.jsonl"
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def human_score(labels: dict[str, str], rubric: Rubric) -> float:
    return sum(rubric.points(c.id, labels[c.id]) for c in rubric.criteria)  # type: ignore[arg-type]


def evaluate(split: str, rubric: Rubric | None = None, directory: Path = DEVSET_DIR) -> SplitReport:
    """Score every answer of a split and pair the verdicts with the human labels."""
    rubric = rubric or load_rubric()
    items = []
    for row in load_split(split, directory):
        res: WrittenResult = score_explanation(row["text"], rubric)
        items.append(
            ItemResult(
                id=row["id"],
                labels=row["labels"],
                predicted={c.id: c.verdict for c in res.criteria},
                human_score=human_score(row["labels"], rubric),
                machine_score=res.score,
                needs_review=res.needs_review,
                abstained=detect_non_english(row["text"], rubric.thresholds.english_stopword_ratio)
                is not None,
                tags=list(row.get("tags", [])),
            )
        )
    return SplitReport(split, items, [c.id for c in rubric.criteria])
