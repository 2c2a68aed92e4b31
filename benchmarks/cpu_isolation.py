"""How much a CPU-burning submission slows down the classmates graded beside it, side by side.

    python benchmarks/cpu_isolation.py [--burn 5] [--honest 18]

A batch of two slots grades `--honest` copies of the reference and, fifth in line, a burner
whose import spins threads (after trying to widen its affinity) until its call timeout of
`--burn` seconds kills it. Prints the median grading time of the honest submissions graded
(mostly) during the burn and of those graded before or after it, and their ratio: the
requirement is at most 1.5x. The test (tests/batch/test_cpu_isolation.py) checks the mechanism
without a clock: every thread of the batch pinned to its slot's one CPU, one cgroup per slot.
Needs two CPUs and a CPU cgroup (root, or a delegated cgroup).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from batch.test_cpu_isolation import BURNER  # noqa: E402

from grader.batch import cpugroup  # noqa: E402
from grader.batch.pool import GradingPool, Job  # noqa: E402
from grader.loading import load_submission  # noqa: E402
from grader.pipeline import GradeOptions  # noqa: E402
from grader.sandbox.limits import SandboxLimits  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--burn", type=float, default=5.0, help="the burner's call timeout, s")
    ap.add_argument("--honest", type=int, default=18)
    args = ap.parse_args()
    if not cpugroup.available():
        print("no CPU cgroup can be made here: the slots are only pinned")
    options = GradeOptions(
        grade_written=False,
        grade_drill=False,
        keyword="test_masks or test_losses",
        limits=SandboxLimits(call_timeout=args.burn, submission_timeout=30.0),
    )
    honest = load_submission(REPO / "solutions", name="honest")
    burner = replace(
        honest, name="burner", sources={**honest.sources, "masks": honest.sources["masks"] + BURNER}
    )
    jobs = [Job(f"h{i:02d}", honest) for i in range(4)] + [Job("burner", burner)]
    jobs += [Job(f"h{i:02d}", honest) for i in range(4, args.honest)]
    spans: dict[str, tuple[float, float]] = {}

    def done(d) -> None:
        end = time.monotonic()
        spans[d.key] = (end - d.seconds, end)

    with GradingPool(options, 2) as pool:
        pool.run(jobs, done)
    start, end = spans.pop("burner")
    during = [b - a for a, b in spans.values() if min(b, end) - max(a, start) >= (b - a) / 2]
    beside = [b - a for a, b in spans.values() if b <= start or a >= end]
    alone = statistics.median(beside)
    print(f"burner ran {end - start:.2f} s; graded during it: {len(during)}, beside: {len(beside)}")
    if during:
        slow = statistics.median(during)
        print(f"honest submission: {alone:.3f} s beside, {slow:.3f} s during: {slow / alone:.2f}x")
    else:
        print(f"no honest submission was graded during the burn ({alone:.3f} s each beside)")


if __name__ == "__main__":
    main()
