"""Warm CPU cost of grading one correct submission, trusted side and sandbox apart.

    python benchmarks/per_submission.py [-n 20]                 # this checkout
    python benchmarks/per_submission.py --compare /work/wt-base --rounds 3
    python benchmarks/per_submission.py --profile out.prof      # cProfile of the trusted side

One warm `Grader(long_lived=True)` (hidden suite, no written part) grades the reference
solutions N times, each copy with a unique trailing comment (so its drawn inputs are new and
no cache can deduplicate it), after a few warm-up copies. Printed per submission: CPU seconds
of this process (the trusted side: pytest, the reference, the checks, the wire) from
``getrusage(RUSAGE_SELF)``, CPU seconds of the sandbox (the zygote and every worker it reaped,
from /proc/<zygote>/stat), their sum, and wall time. CPU time, not wall time, is what to
compare on a shared machine.

`--compare TREE ...` runs this same file under each checkout's own ``.venv/bin/python`` (the
sandbox imports the installed package of that venv), this checkout first, alternating the
trees for `--rounds` rounds, and prints every round and the medians side by side.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import resource
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve()


def _proc_cpu(pid: int) -> float:
    """utime + stime of `pid` and of its reaped children, in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    utime, stime, cutime, cstime = (int(x) for x in fields[11:15])
    return (utime + stime + cutime + cstime) / os.sysconf("SC_CLK_TCK")


def _self_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def _profile_suite_thread(g):
    """A cProfile (thread CPU time) of the suite's helper thread, where the tests run."""
    import cProfile

    prof = cProfile.Profile(time.thread_time)  # CPU time: waiting on the sandbox is free
    plugin = g._prepared_suite().plugin
    start, finish = plugin.start_submission, plugin.finish_submission

    def started(student):
        prof.enable()
        return start(student)

    def finished():
        try:
            return finish()
        finally:
            prof.disable()

    plugin.start_submission, plugin.finish_submission = started, finished
    return prof


def measure(n: int, warmup: int, profile: str | None) -> dict[str, float]:
    from grader.pipeline import GradeOptions, Grader
    from grader.testing import SOLUTIONS, reference_submission

    text = (SOLUTIONS / "masks.py").read_text()
    tag = f"{os.getpid()}-{time.time_ns()}"

    def submission(i: int):
        return reference_submission(
            f"s{i}", {"masks.py": f"{text}\n# per-submission benchmark copy {tag}-{i}\n"}
        )

    options = GradeOptions(grade_written=False)
    if hasattr(options, "grade_drill"):  # the code parts only, in every tree compared
        options = dataclasses.replace(options, grade_drill=False)
    with Grader(options, long_lived=True) as g:
        for i in range(warmup):
            report = g.grade(submission(-1 - i))
            assert report.score == report.max_score, report.to_json()
        subs = [submission(i) for i in range(n)]
        zygote = g.zygote.pid
        prof = _profile_suite_thread(g) if profile else None
        wall0, self0, sbx0 = time.perf_counter(), _self_cpu(), _proc_cpu(zygote)
        for sub in subs:
            report = g.grade(sub)
            assert report.score == report.max_score, report.to_json()
        wall1, self1, sbx1 = time.perf_counter(), _self_cpu(), _proc_cpu(zygote)
        if prof:
            prof.dump_stats(profile)
    return {
        "trusted": (self1 - self0) / n,
        "sandbox": (sbx1 - sbx0) / n,
        "total": (self1 - self0 + sbx1 - sbx0) / n,
        "wall": (wall1 - wall0) / n,
    }


def _line(name: str, r: dict[str, float]) -> str:
    return (
        f"{name:<28} trusted {r['trusted'] * 1000:6.1f} ms  sandbox {r['sandbox'] * 1000:6.1f} ms"
        f"  total {r['total'] * 1000:6.1f} CPU-ms  wall {r['wall'] * 1000:6.1f} ms"
    )


def compare(trees: list[Path], rounds: int, n: int, warmup: int) -> None:
    sys.path.insert(0, str(HERE.parent))
    from sidebyside import alternate

    print(f"{n} submissions per round")
    alternate(
        HERE, trees, rounds, lambda _: ["-n", str(n), "--warmup", str(warmup), "--json"], _line
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=20, help="measured submissions")
    ap.add_argument("--warmup", type=int, default=3, help="submissions graded before measuring")
    ap.add_argument("--json", action="store_true", help="print one JSON line")
    ap.add_argument("--profile", help="write a cProfile of the measured grades (trusted side)")
    ap.add_argument("--compare", nargs="+", type=Path, metavar="TREE",
                    help="also run under these checkouts' venvs, alternating")  # fmt: skip
    ap.add_argument("--rounds", type=int, default=3, help="rounds of --compare")
    args = ap.parse_args()
    if args.compare:
        trees = [HERE.parent.parent, *(t.resolve() for t in args.compare)]
        compare(trees, args.rounds, args.n, args.warmup)
        return
    sys.path.insert(0, str(Path.cwd()))
    res = measure(args.n, args.warmup, args.profile)
    print(json.dumps(res) if args.json else _line("per submission", res))


if __name__ == "__main__":
    main()
