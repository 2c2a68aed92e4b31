"""Leave-one-split-out cross-validation of the second reader (used by `fit_reader`).

Each labelled set is one author's (or one session's) voice, so the honest proxy for a class
written by a new author is: fit on every other set, score this one (`loso`). Scoring goes
through the production path (`score_explanation` with the fold's weights), so raises, the
false-premise rule and the guards act exactly as in grading; the review flag is recomputed
from the same pieces (`reader.doubt_points`) so that its threshold can be swept without
re-scoring (`Scored.base_review` is every flag except the second reader's).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from grader.rubric import reader
from grader.rubric.evasion import visible_text
from grader.rubric.guards import MAX_CHARS
from grader.rubric.model import Rubric
from grader.rubric.scorer import score_explanation
from grader.textsafe import clean_text
from tools.rubric.agreement import ORDINAL, human_score, quadratic_weighted_kappa

ALL = ("C1", "C2", "C3", "C4", "C5")
INF = float("inf")


@dataclass
class Scored:
    """One answer scored with the weights of the fold that left its set out."""

    split: str
    labels: dict[str, str]
    verdicts: dict[str, str]
    human: float
    score: float
    base_review: bool  # flagged for any reason but the second reader's doubt
    doubts: dict[str, float]  # the reader's doubt points per criterion (`reader.doubt_points`)
    confidence: dict[str, float]  # the scorer's confidence per criterion
    x: dict[str, float]  # the review model's inputs (`reader.review_features`)
    risk: float = 0.0  # the review model's probability, set once that model is fitted
    conflicted: bool = False  # a verdict is conflicted (flagged when risk >= `conflict_at`)
    wrong: bool = False  # a grader would change at least one verdict (the model's target)


def scored_text(text: str) -> str:
    """The text `score_explanation` reads (and hands to `reader.review_features`)."""
    return visible_text(clean_text(text))[:MAX_CHARS]


def score_fold(rows: Sequence, weights: Callable[[object], dict], rubric: Rubric) -> list[Scored]:
    """Score every row with `weights(row)` (its fold's weights); the reader's own flags are off
    here (`shortfall_at` infinite, no review model) and recomputed by `flagged`."""
    out = []
    for r in rows:
        w = {**weights(r), "shortfall_at": float("inf"), "review": {}, "conflict_at": INF}
        res = score_explanation(r.text, rubric, reader_weights=w)
        verdicts = {c.id: c.verdict for c in res.criteria}
        ops = reader.settle_opinions(reader.predict(r.feats, w), r.fams)
        doubts = reader.doubt_points(verdicts, ops, {c.id: c.weight for c in rubric.criteria}, w)
        human = human_score(r.labels, rubric)
        out.append(
            Scored(
                r.split,
                r.labels,
                verdicts,
                human,
                res.score,
                res.needs_review,
                doubts,
                {c.id: c.confidence for c in res.criteria},
                reader.review_features(
                    r.rule,
                    verdicts,
                    ops,
                    sum(doubts.values()),
                    scored_text(r.text),
                    conflicted=r.conflicted,
                ),
                wrong=any(ORDINAL[r.labels[c]] != ORDINAL[v] for c, v in verdicts.items()),
                conflicted=bool(r.conflicted),
            )
        )
    return out


def flagged(
    s: Scored, shortfall_at: float, review_at: float = INF, conflict_at: float = 0.0
) -> bool:
    """The scorer's review flag for `s` at thresholds `shortfall_at`, `review_at` and
    `conflict_at` (a conflicted verdict is flagged at that risk; 0: always)."""
    return (
        s.base_review
        or sum(s.doubts.values()) >= shortfall_at
        or s.risk >= review_at
        or (s.conflicted and s.risk >= conflict_at)
    )


def summary(
    sc: list[Scored], shortfall_at: float, review_at: float = INF, conflict_at: float = 0.0
) -> dict:
    """Per-criterion kappa, score MAE, unflagged share and kappa among the unflagged (mean over
    criteria, and pooled over every (answer, criterion) verdict)."""
    un = [s for s in sc if not flagged(s, shortfall_at, review_at, conflict_at)]

    def kappa(items: list[Scored], cid: str) -> float:
        h = [ORDINAL[s.labels[cid]] for s in items]
        m = [ORDINAL[s.verdicts[cid]] for s in items]
        return quadratic_weighted_kappa(h, m, 3) if items else float("nan")

    pooled_h = [ORDINAL[s.labels[c]] for s in un for c in ALL]
    pooled_m = [ORDINAL[s.verdicts[c]] for s in un for c in ALL]
    n = max(len(sc), 1)
    return {
        "n": len(sc),
        "kappa": {c: kappa(sc, c) for c in ALL},
        "mae": sum(abs(s.human - s.score) for s in sc) / n,
        "unflagged": len(un) / n,
        "un_kappa": sum(kappa(un, c) for c in ALL) / len(ALL) if un else float("nan"),
        "un_pooled": quadratic_weighted_kappa(pooled_h, pooled_m, 3) if un else float("nan"),
    }


def fmt(name: str, s: dict) -> str:
    k = " ".join(f"{s['kappa'][c]:.2f}" for c in ALL)
    return (
        f"| {name} ({s['n']}) | {k} | {s['mae']:.2f} | {s['unflagged']:.0%} | "
        f"{s['un_kappa']:.2f} / {s['un_pooled']:.2f} |"
    )


HEADER = (
    "| set (n) | kappa C1 C2 C3 C4 C5 | MAE | unflagged | kappa unflagged (mean / pooled) |\n"
    "| --- | --- | --- | --- | --- |"
)


def table(
    sc: list[Scored],
    splits: Sequence[str],
    new: Sequence[str],
    shortfall_at: float,
    review_at: float = INF,
    conflict_at: float = 0.0,
) -> str:
    """A Markdown table: one line per set, the pool, and the mean over the new authors' sets."""
    lines = [HEADER]
    at = (shortfall_at, review_at, conflict_at)
    for sp in splits:
        part = [s for s in sc if s.split == sp]
        if part:
            lines.append(fmt(sp, summary(part, *at)))
    lines.append(fmt("pooled", summary(sc, *at)))
    lines.append(fmt("new authors, mean", new_author_mean(sc, new, *at)))
    return "\n".join(lines)


def new_author_mean(
    sc: list[Scored],
    new: Sequence[str],
    shortfall_at: float,
    review_at: float = INF,
    conflict_at: float = 0.0,
) -> dict:
    """The mean over the new authors' sets of each number of `summary` (the objective)."""
    at = (shortfall_at, review_at, conflict_at)
    parts = [summary([s for s in sc if s.split == sp], *at) for sp in new]
    parts = [p for p in parts if p["n"]]
    if not parts:
        return summary([], shortfall_at)

    def mean(key: str, sub: str | None = None) -> float:
        return sum(p[key][sub] if sub else p[key] for p in parts) / len(parts)

    return {
        "n": sum(p["n"] for p in parts),
        "kappa": {c: mean("kappa", c) for c in ALL},
        "mae": mean("mae"),
        "unflagged": mean("unflagged"),
        "un_kappa": mean("un_kappa"),
        "un_pooled": mean("un_pooled"),
    }


def curve(
    sc: list[Scored],
    new: Sequence[str],
    grid: Sequence[tuple[float, float]],
    conflict_at: float = 0.0,
) -> str:
    """The unflagged share / kappa trade-off over (`review_at`, `shortfall_at`) pairs."""
    lines = [
        "| review_at | shortfall_at | unflagged (pooled) | kappa unflagged mean / pooled | "
        "unflagged (new authors) | kappa unflagged (new authors) |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for ra, t in grid:
        p, a = summary(sc, t, ra, conflict_at), new_author_mean(sc, new, t, ra, conflict_at)
        lines.append(
            f"| {ra:g} | {t:g} | {p['unflagged']:.0%} | "
            f"{p['un_kappa']:.3f} / {p['un_pooled']:.3f} | "
            f"{a['unflagged']:.0%} | {a['un_kappa']:.3f} / {a['un_pooled']:.3f} |"
        )
    return "\n".join(lines)


def curve_by_set(
    sc: list[Scored],
    new: Sequence[str],
    shortfall_at: float,
    review_ats: Sequence[float],
    conflict_at: float = 0.0,
) -> str:
    """The trade-off per new author's set: unflagged share and mean kappa among the unflagged
    at each `review_at`, and their mean over the sets."""
    lines = [
        "| set | " + " | ".join(f"review_at {r:g}" for r in review_ats) + " |",
        "| --- |" + " --- |" * len(review_ats),
    ]
    for sp in [*new, None]:
        cells = []
        for ra in review_ats:
            if sp is None:
                s = new_author_mean(sc, new, shortfall_at, ra, conflict_at)
            else:
                s = summary([x for x in sc if x.split == sp], shortfall_at, ra, conflict_at)
            cells.append(f"{s['unflagged']:.0%} {s['un_kappa']:.2f}")
        lines.append(f"| {sp or 'mean'} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
