"""Time per answer of the Exercise 2 scorer, and a byte-exact dump of everything it returns.

    python benchmarks/rubric_speed.py                          # this checkout: median/p95 ms
    python benchmarks/rubric_speed.py --compare /tmp/base --rounds 3
    python benchmarks/rubric_speed.py --profile out.prof       # cProfile of one pass
    python benchmarks/rubric_speed.py --dump /tmp/golden.json  # every output, to diff

The answers are those of the labelled sets that may be read (`SPLITS`: the dev sets and the
held-out sets already released for tuning); the frozen held-out sets are never opened. After
one warm-up pass, each answer is scored `--repeat` times and its fastest time counts (the
machine is shared, so the fastest is the least noisy); printed are the median and the 95th
percentile over answers, in milliseconds of CPU time of this thread.

`--compare TREE ...` runs this file once per round under this checkout and each TREE
(alternating the order, so a drift in the machine's load favours neither), each in its own
subprocess with that tree first on `sys.path`, and prints every round, the medians and the
ratio to this checkout. `--dump` writes, per answer, the whole `WrittenResult` plus the rules'
verdicts before the second reader, the second reader's opinions (probabilities, level,
evidence) and every sentence's facts (hits, subjects, claims), as sorted JSON, and the same
for every two consecutive sentences of each answer (`windows`): two dumps are byte-identical
exactly when the scorer's outputs are.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve()
DEVSET = HERE.parents[1] / "tools" / "rubric" / "devset"
# never heldout5-7, heldout10, heldout11 or any later one: they are frozen
SPLITS = ("dev", "dev2", "dev3", "dev4", "dev5", "dev6", "dev7", "dev8",
          "heldout", "heldout2", "heldout3", "heldout4", "heldout8", "heldout9")  # fmt: skip


def answers() -> list[tuple[str, str]]:
    """(split/id, text) of every readable labelled answer, in a fixed order."""
    out = []
    for split in SPLITS:
        with (DEVSET / f"{split}.jsonl").open(encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    row = json.loads(line)
                    out.append((f"{split}/{row['id']}", row["text"]))
    return out


def windows(texts: list[str]) -> list[str]:
    """Every two consecutive sentences of each answer, split here by a plain rule (not the
    scorer's), so a dump also compares each sentence in other company."""
    out = []
    for text in texts:
        parts = [p for p in re.split(r"(?<=[.!?])\s+|\n+", text) if p.strip()]
        out.extend(" ".join(parts[i : i + 2]) for i in range(max(len(parts) - 1, 0)))
    return out


def _percentile(xs: list[float], q: float) -> float:
    s = sorted(xs)
    k = (len(s) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def measure(repeat: int) -> dict[str, float]:
    """Median and p95 (ms) over answers of each answer's fastest of `repeat` scorings."""
    from grader.rubric import load_rubric, score_explanation

    rubric = load_rubric()
    texts = [t for _, t in answers()]
    for t in texts:  # warm-up: imports, compiled patterns, loaded weights
        score_explanation(t, rubric)
    best = [float("inf")] * len(texts)
    for _ in range(repeat):
        for i, t in enumerate(texts):
            t0 = time.thread_time()
            score_explanation(t, rubric)
            best[i] = min(best[i], time.thread_time() - t0)
    ms = [b * 1000 for b in best]
    return {
        "median_ms": round(statistics.median(ms), 3),
        "p95_ms": round(_percentile(ms, 0.95), 3),
        "mean_ms": round(statistics.fmean(ms), 3),
        "max_ms": round(max(ms), 3),
    }


def dump(path: Path) -> None:
    """Write every output of the scorer on every answer (see the module doc)."""
    from grader.rubric import load_rubric, reader, score_explanation
    from grader.rubric.certainty import settle
    from grader.rubric.criteria import judge_all
    from grader.rubric.scorer import read_answer

    rubric = load_rubric()
    out = {}
    given = answers()
    pairs = [(f"window/{i}", t) for i, t in enumerate(windows([t for _, t in given]))]
    for key, text in given + pairs:
        res = score_explanation(text, rubric)
        _, _, an = read_answer(text, rubric)
        judgements, settled = settle(an, judgements=judge_all(an, rubric), rubric=rubric)
        ops = reader.opinions(an, judgements, None)
        out[key] = {
            "result": dataclasses.asdict(res),
            "rules": {c: repr(j) for c, j in judgements.items()},
            "settled": settled,
            "reader": {c: repr(op) for c, op in ops.items()},
            "skipped": sorted(an.skipped),
            "facts": [_facts(f) for f in an.sentences],
        }
    path.write_text(json.dumps(out, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    print(f"{len(out)} answers written to {path}")


def _facts(f) -> dict:  # noqa: ANN001 (a SentenceFacts; imported lazily)
    """One sentence's facts, sets sorted and empty hit lists left out (no order to compare)."""
    return {
        "index": f.sentence.index,
        "norm": f.sentence.norm,
        "hits": {k: [repr(h) for h in hs] for k, hs in sorted(f.hits.items()) if hs},
        "list_like": f.list_like,
        "subjects": sorted(f.subjects),
        "mentions": sorted(f.mentions),
        "primary": f.primary,
        "claims": [repr(c) for c in f.claims],
        "asserted": f.asserted,
        "label_spans": f.label_spans,
        "compared": f.compared,
    }


def profile(path: Path) -> None:
    import cProfile
    import pstats

    from grader.rubric import load_rubric, score_explanation

    rubric = load_rubric()
    texts = [t for _, t in answers()]
    for t in texts:
        score_explanation(t, rubric)
    prof = cProfile.Profile()
    prof.enable()
    for t in texts:
        score_explanation(t, rubric)
    prof.disable()
    prof.dump_stats(str(path))
    for order in ("cumulative", "tottime"):
        pstats.Stats(str(path)).sort_stats(order).print_stats(25)


def compare(trees: list[Path], rounds: int, repeat: int) -> None:
    """Alternate this checkout and `trees` for `rounds` rounds; print medians and ratios."""
    everyone = [HERE.parents[1], *trees]
    results: dict[Path, list[dict[str, float]]] = {t: [] for t in everyone}
    for r in range(rounds):
        for tree in everyone if r % 2 == 0 else everyone[::-1]:
            env = {**os.environ, "PYTHONPATH": str(tree)}
            proc = subprocess.run(
                [sys.executable, str(HERE), "--repeat", str(repeat), "--tree", str(tree)],
                cwd=tree,
                env=env,
                check=True,
                capture_output=True,
                text=True,
            )
            res = json.loads(proc.stdout.strip().splitlines()[-1])
            results[tree].append(res)
            print(f"round {r + 1} {tree}: {_line(res)}", flush=True)
    print(f"medians over {rounds} rounds:")
    base = None
    for tree in everyone:
        med = {k: statistics.median(x[k] for x in results[tree]) for k in results[tree][0]}
        base = base or med
        ratio = " ".join(f"{k} x{med[k] / base[k]:.2f}" for k in ("median_ms", "p95_ms"))
        print(f"{tree}: {_line(med)}   ({ratio} of this checkout)")


def _line(res: dict[str, float]) -> str:
    return " ".join(f"{k} {v:.2f}" for k, v in res.items())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="scorings per answer (fastest counts)")
    ap.add_argument("--compare", nargs="+", type=Path, metavar="TREE", help="other checkouts")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--dump", type=Path, metavar="JSON", help="write every output to JSON")
    ap.add_argument("--profile", type=Path, metavar="PROF", help="cProfile one pass")
    ap.add_argument("--tree", type=Path, help=argparse.SUPPRESS)  # set by --compare
    args = ap.parse_args(argv)
    if args.compare:
        compare([t.resolve() for t in args.compare], args.rounds, args.repeat)
        return 0
    if args.tree is not None:
        sys.path.insert(0, str(args.tree))
    if args.dump:
        dump(args.dump)
        return 0
    if args.profile:
        profile(args.profile)
        return 0
    import grader

    res = measure(args.repeat)
    if args.tree is not None and not Path(grader.__file__).resolve().is_relative_to(args.tree):
        raise SystemExit(f"imported {grader.__file__}, not the tree {args.tree}")
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
