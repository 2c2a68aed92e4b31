"""What the sandbox costs per submission, measured side by side in one run.

    python benchmarks/sandbox_cost.py [-n 10] [--calls 200]

Grades N copies of the reference (hidden suite, no written part) three ways:

  jail        a warm Grader, each part in a fresh jailed worker (namespaces, chroot, uid drop,
              rlimits) - what `grader grade` / `grader batch` do as root;
  basic       the same Grader with GradeOptions(jail=False): workers are forked and rlimited
              (and, as root, still drop to a sandbox uid) but get no namespaces or chroot;
  in-process  no sandbox at all: the same warm suite (one pytest session, as the Grader keeps)
              with the student's functions imported into the trusted process (each copy under
              its own package name) - the cost floor, and so a ceiling on any sandbox's rate.

and then the two components of the overhead in isolation: starting one worker (fork from
the zygote + confinement + handshake) and one call round trip (encode, socket, decode) of a
trivial function, jailed vs basic vs a direct in-process call; and the worker start once more
from a zygote left on 4 KiB pages (as a one-submission `grader grade` leaves it). Medians,
not means: the machine is shared.
"""

from __future__ import annotations

import argparse
import importlib
import os
import shutil
import statistics
import sys
import tempfile
import time
import types
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from grader.loading import load_submission  # noqa: E402
from grader.parts import CODE_PARTS as PARTS  # noqa: E402
from grader.pipeline import GradeOptions, Grader  # noqa: E402
from grader.sandbox.client import SandboxSession, Zygote  # noqa: E402
from grader.sandbox.jail import can_jail  # noqa: E402
from grader.sandbox.limits import SandboxLimits  # noqa: E402
from grader.suite.proxy import ReferenceProxy  # noqa: E402
from grader.suite.runner import PreparedSuite  # noqa: E402


def make_copies(root: Path, n: int) -> list[Path]:
    out = []
    for i in range(n):
        d = root / f"student{i:03d}"
        d.mkdir()
        for p in PARTS:
            shutil.copy(REPO / "solutions" / f"{p}.py", d / f"{p}.py")
        out.append(d)
    return out


def _grade_checked(g: Grader, folder: Path) -> float:
    sub = load_submission(folder)
    t = time.perf_counter()
    report = g.grade(sub)
    elapsed = time.perf_counter() - t
    assert report.score == report.max_score, [
        (x.id, x.message[:200]) for x in report.tests if x.status != "passed"
    ]
    return elapsed


class _InProcessStudent(ReferenceProxy):
    """The student's copy imported into this process: the suite without any sandbox."""

    def __init__(self, folder: Path, tag: str) -> None:
        pkg = types.ModuleType(tag)
        pkg.__path__ = [str(folder)]
        sys.modules[tag] = pkg
        super().__init__(package=tag)
        self.session = types.SimpleNamespace(sources={p: "" for p in PARTS}, missing={})

    def model_forward(self, model, input_ids, attention_mask=None):
        from grader.sandbox.models import model_from_spec, model_to_spec

        masks = self._module("masks")
        header, tensors = model_to_spec(model)
        copy = model_from_spec(
            header, tensors, mask_fn=masks.build_attention_mask, attention_fn=masks.masked_attention
        )
        import torch

        with torch.no_grad():
            return copy(input_ids, attention_mask=attention_mask)

    def has_part(self, module: str) -> bool:
        return True


def _in_process_checked(folder: Path, tag: str, suite: PreparedSuite) -> float:
    t = time.perf_counter()
    run = suite.run(_InProcessStudent(folder, tag))
    elapsed = time.perf_counter() - t
    assert all(r.status == "passed" for r in run.results), [
        (r.id, r.message[:200]) for r in run.results if r.status != "passed"
    ]
    return elapsed


def bench_interleaved(folders: list[Path], jailed: bool) -> dict[str, tuple[list[float], float]]:
    """Each submission graded by every mode in turn, so all modes see the same machine load
    (the machine may be shared). Returns mode -> (per-submission seconds, start seconds)."""
    modes = (["jail"] if jailed else []) + ["basic"]
    graders, starts = {}, {}
    for mode in modes:
        t = time.perf_counter()
        graders[mode] = Grader(
            GradeOptions(grade_written=False, jail=(mode == "jail")), long_lived=True
        ).start()
        starts[mode] = time.perf_counter() - t
    t = time.perf_counter()
    suite = PreparedSuite("hidden", ReferenceProxy())
    starts["in-process"] = time.perf_counter() - t
    times: dict[str, list[float]] = {m: [] for m in [*modes, "in-process"]}
    try:
        for mode in modes:  # warm-up: first grade of each mode is not counted
            _grade_checked(graders[mode], folders[0])
        _in_process_checked(folders[0], "bench_warmup", suite)
        for i, d in enumerate(folders):
            for mode in modes:
                times[mode].append(_grade_checked(graders[mode], d))
            times["in-process"].append(_in_process_checked(d, f"bench_student_{i}", suite))
    finally:
        for g in graders.values():
            g.close()
        suite.close()
    return {m: (t, starts.get(m, 0.0)) for m, t in times.items()}


def bench_components(calls: int, jail: bool, huge_pages: bool = True) -> tuple[float, float, float]:
    """Medians: seconds to start one ready worker, per trivial call, and per trivial call
    that also receives the standard test model (as most generation calls do)."""
    from grader.trusted_tinylm import shared_standard_model

    src = "def f(x, model=None):\n    return x\n"
    model = shared_standard_model("causal")
    limits = SandboxLimits()
    with Zygote(jail=jail, huge_pages=huge_pages) as z:
        spawns = []
        for _ in range(20):
            t = time.perf_counter()
            w = z.spawn({"masks": src}, limits, 0)
            spawns.append(time.perf_counter() - t)
            w.kill()
            w.wait_gone()
        with SandboxSession(z, {"masks": src}, limits) as s:
            s.call("masks", "f", (1,), {})
            rtts, with_model = [], []
            for i in range(calls):
                t = time.perf_counter()
                s.call("masks", "f", (i,), {})
                rtts.append(time.perf_counter() - t)
            for i in range(calls):
                t = time.perf_counter()
                s.call("masks", "f", (i, model), {})
                with_model.append(time.perf_counter() - t)
    return statistics.median(spawns), statistics.median(rtts), statistics.median(with_model)


def bench_direct_call(calls: int) -> float:
    from grader.sandbox.invoke import invoke

    mod = types.ModuleType("m")
    exec("def f(x):\n    return x\n", mod.__dict__)
    times = []
    for i in range(calls):
        t = time.perf_counter()
        invoke(mod.f, (i,), {})
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=10, help="submissions per mode")
    ap.add_argument("--calls", type=int, default=200, help="calls for the round-trip timing")
    args = ap.parse_args()
    importlib.import_module("torch")
    jailed = can_jail()
    with tempfile.TemporaryDirectory() as tmp:
        folders = make_copies(Path(tmp), args.n)
        results = bench_interleaved(folders, jailed)
    floor = statistics.median(results["in-process"][0])
    print(
        f"Grading {args.n} reference submissions (hidden suite), modes interleaved, "
        "median per submission:"
    )
    print(
        f"  {'mode':<11} {'per sub':>9} {'overhead':>10} {'x floor':>8} {'start':>7} {'workers':>8}"
    )
    for mode, (times, start) in results.items():
        per = statistics.median(times)
        workers = 0 if mode == "in-process" else len(PARTS)
        print(
            f"  {mode:<11} {per * 1000:7.0f}ms {(per - floor) * 1000:8.0f}ms "
            f"{per / floor:7.2f}x {start:6.2f}s {workers:8d}"
        )
    cores = len(os.sched_getaffinity(0))
    print(
        f"  With no sandbox at all, {cores} cores grade at most {cores / floor:.1f} such "
        "submissions/s\n  (the suite itself: the student's functions, pytest and the checks)."
    )
    print("\nComponents (median):")
    direct = bench_direct_call(args.calls)
    print(f"  direct in-process call  {direct * 1e6:8.0f} us")
    for mode, jail in (("jail", True), ("basic", False)):
        if jail and not jailed:
            continue
        spawn, rtt, with_model = bench_components(args.calls, jail)
        print(f"  {mode:<5} worker start        {spawn * 1000:8.1f} ms")
        print(
            f"  {mode:<5} call round trip     {rtt * 1e6:8.0f} us  "
            f"({rtt / direct:.0f}x a direct call)"
        )
        print(
            f"  {mode:<5} ... with the model  {with_model * 1e6:8.0f} us  "
            "(the worker keeps its weights after the first call)"
        )
    small, _, _ = bench_components(10, jailed, huge_pages=False)
    mode = "jail" if jailed else "basic"
    print(
        f"  {mode:<5} worker start        {small * 1000:8.1f} ms  (zygote on 4 KiB pages, as in "
        "a one-submission run; the pool's zygotes use huge pages)"
    )
    if not jailed:
        print("\n(not root: the jail mode was not measured)")


if __name__ == "__main__":
    main()
