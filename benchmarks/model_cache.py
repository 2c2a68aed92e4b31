"""Do the sandbox's two model caches pay? Measured per submission, with and without.

    python benchmarks/model_cache.py [-n 300]

A worker rebuilds every TinyLM it is sent. `models.Templates` (warmed by the zygote, held by
each worker's `wire.ModelStore`) makes a rebuild a structural copy instead of a constructor
run; the kept weights (`ModelStore` + `wire.ModelRefs`) let a model the worker already holds
travel as a reference instead of its ~110 KB of weights. Printed: the cost of one rebuild and
one decode each way (medians of `-n`, this process standing in for a worker), the number of
models one graded reference submission sends, and so what each cache saves per submission,
against the CPU a submission costs (`benchmarks/per_submission.py`, ~0.33 CPU-s): a cache is
kept only if it saves more than 3%.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import torch

from grader.sandbox import models
from grader.trusted_tinylm import shared_standard_model

SUBMISSION_CPU_S = 0.33  # per_submission.py, this tree, idle machine


def _median_us(fn, n: int) -> float:
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def models_per_submission() -> int:
    """TinyLMs sent to the sandbox while one reference submission is graded."""
    from grader.pipeline import GradeOptions, Grader
    from grader.sandbox import client
    from grader.testing import reference_submission

    sent = [0]
    call = client.SandboxSession.call

    def counting(self, module, function, args, kwargs, **kw):
        sent[0] += sum(isinstance(a, torch.nn.Module) for a in (*args, *kwargs.values()))
        return call(self, module, function, args, kwargs, **kw)

    client.SandboxSession.call = counting
    try:
        with Grader(GradeOptions(grade_written=False), long_lived=True) as g:
            g.grade(reference_submission("count"))
    finally:
        client.SandboxSession.call = call
    return sent[0]


def _proc_cpu(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def round_trips(n: int) -> tuple[float, float]:
    """CPU (trusted side + worker) of one `greedy_generate(model, ...)` call in a real worker,
    the model sent by reference, and in full (the worker's references forgotten each time)."""
    from grader.sandbox.client import SandboxSession, Zygote
    from grader.testing import SOLUTIONS

    sources = {"generation": (SOLUTIONS / "generation.py").read_text()}
    model, ids = shared_standard_model("causal"), torch.tensor([[5, 9, 2]])
    out = {}
    with Zygote() as z:
        for mode in ("ref", "full", "ref", "full"):
            with SandboxSession(z, sources) as s:
                for _ in range(10):
                    s.call("generation", "greedy_generate", (model, ids, 1), {})
                worker = s._workers["generation"]
                c0, w0 = time.process_time(), _proc_cpu(worker.pid)
                for _ in range(n):
                    if mode == "full":
                        worker.models.held.clear()
                    s.call("generation", "greedy_generate", (model, ids, 1), {})
                cpu = time.process_time() - c0 + _proc_cpu(worker.pid) - w0
                out[mode] = min(out.get(mode, cpu / n), cpu / n) * 1e6
    return out["ref"], out["full"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=300)
    args = ap.parse_args()
    torch.set_num_threads(1)
    model = shared_standard_model("causal")
    header, tensors = models.model_to_spec(model)
    templates = models.Templates().warm()
    copy = _median_us(lambda: models.model_from_spec(header, tensors, templates=templates), args.n)
    built = _median_us(lambda: models.model_from_spec(header, tensors), args.n)

    by_ref, full = round_trips(args.n // 3)
    count = models_per_submission()
    budget = SUBMISSION_CPU_S * 1e6
    t_save = count * (built - copy)
    r_save = count * (full - by_ref)
    print(f"models sent per reference submission: {count}")
    print(
        f"templates:    rebuild {copy:7.0f} us vs constructor {built:7.0f} us -> saves "
        f"{t_save / 1e3:5.1f} ms per submission ({100 * t_save / budget:4.1f}%)"
    )
    print(
        f"kept weights: a model call {by_ref:7.0f} us by reference vs {full:7.0f} us in full "
        f"(both sides) -> saves {r_save / 1e3:5.1f} ms per submission "
        f"({100 * r_save / budget:4.1f}%)"
    )


if __name__ == "__main__":
    main()
