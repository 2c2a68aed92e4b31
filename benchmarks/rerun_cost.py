"""The no-change re-run of `grader batch`, side by side: CPU and wall per re-run.

    python benchmarks/rerun_cost.py [-n 100]                       # this checkout
    python benchmarks/rerun_cost.py --compare /work/wt-base --rounds 3

The class of `benchmarks/batch_throughput.py` (grader.batch.sampleclass, seed 1) is graded
once per checkout into its own OUT (a checkout whose cache keys differ grades it in its
warm-up), then re-run `--runs` times with nothing changed. Printed per checkout: the median
wall time, the CPU of the batch process and of its children (the bounded loaders). A re-run
that writes a file (other outputs than the first run made) is reported: its time then
includes writing. `--compare` runs this file under each checkout's own ``.venv/bin/python``,
alternating the order each round, and prints the medians side by side.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve()
FINGERPRINT = "rerun-benchmark"


def measure(root: Path, n: int, runs: int) -> dict[str, float]:
    """Grade the class into `root` (once), then time `runs` re-runs with nothing changed."""
    from grader.batch import BatchOptions, run_batch
    from grader.batch.sampleclass import synthetic_class, write_canvas_zip

    zpath = root / "submissions.zip"
    if not zpath.exists():
        write_canvas_zip(zpath, synthetic_class(n, seed=1, loops=0))

    def once():
        return run_batch(
            BatchOptions(input=zpath, out=root / "out", progress=False, fingerprint=FINGERPRINT)
        )

    once()  # grades what this checkout has not graded yet, writes its outputs
    walls, selfs, kids, written = [], [], [], 0
    for _ in range(runs):
        t0, c0 = time.perf_counter(), os.times()
        result = once()
        c1 = os.times()
        walls.append(time.perf_counter() - t0)
        selfs.append(c1.user + c1.system - c0.user - c0.system)
        kids.append(c1.children_user + c1.children_system - c0.children_user - c0.children_system)
        written += len(result.writes.written) + result.graded_now
    return {
        "wall": statistics.median(walls),
        "cpu": statistics.median(selfs),
        "children": statistics.median(kids),
        "written": written,
    }


def _line(name: str, r: dict[str, float]) -> str:
    extra = f"  ({r['written']:.0f} files written or graded)" if r["written"] else ""
    return (
        f"{name:<24} wall {r['wall']:.3f} s  cpu {r['cpu']:.3f} s  "
        f"children {r['children']:.3f} s{extra}"
    )


def compare(trees: list[Path], rounds: int, n: int, runs: int, tmp: Path) -> None:
    sys.path.insert(0, str(HERE.parent))
    from sidebyside import alternate

    def args_for(tree: Path) -> list[str]:
        root = tmp / tree.name
        root.mkdir(exist_ok=True)
        return ["-n", str(n), "--runs", str(runs), "--root", str(root), "--json"]

    print(f"{runs} re-runs of a class of {n} per round")
    alternate(HERE, trees, rounds, args_for, _line)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=100, help="class size")
    ap.add_argument("--runs", type=int, default=5, help="re-runs measured per round")
    ap.add_argument("--rounds", type=int, default=3, help="rounds of --compare")
    ap.add_argument("--root", type=Path, help="where the class and its OUT live (kept)")
    ap.add_argument("--json", action="store_true", help="print one JSON line")
    ap.add_argument("--compare", nargs="+", type=Path, metavar="TREE",
                    help="also run under these checkouts' venvs, alternating")  # fmt: skip
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="rerun-bench-") as d:
        if args.compare:
            trees = [HERE.parent.parent, *(t.resolve() for t in args.compare)]
            compare(trees, args.rounds, args.n, args.runs, Path(d))
            return
        sys.path.insert(0, str(Path.cwd()))
        res = measure(args.root or Path(d), args.n, args.runs)
    print(json.dumps(res) if args.json else _line("re-run", res))


if __name__ == "__main__":
    main()
