"""How the trusted-side parsers of student bytes scale, measured side by side in one run.

    python benchmarks/parsing_scaling.py [--rounds 3]

For every pathological input of tests/test_loading_bounded.py (and the rubric's hidden-element
scan, tests/rubric/test_rubric_evasion.py) prints the seconds at ~1 MB and at 4 MB and their
ratio: ~4x is linear, ~16x quadratic (below ~1 MB the input still fits the CPU caches and even
a linear scan looks super-linear). Then the guarded loader (a forked child per run of entries)
against plain loading, per entry. Best of `--rounds`: the machine is shared. The tests check
the same properties without a clock (a CPU-time cap, a fork count); this is where the numbers
are.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]

import test_loading_bounded as cases  # noqa: E402

from grader.loading import LoadLimits, SubmissionError, load_entries, load_submission  # noqa: E402
from grader.loading.model import extract_answer  # noqa: E402
from grader.loading.notebook import load_notebook_bytes  # noqa: E402
from grader.rubric.evasion import visible_text  # noqa: E402
from grader.rubric.render import split_quote  # noqa: E402
from grader.rubric.text import split_sentences  # noqa: E402

MB = 1_000_000


def _best(fn: Callable[[str], object], text: str, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn(text)
        times.append(time.perf_counter() - t0)
    return min(times)


def _notebook(text: str) -> object:
    try:
        return load_notebook_bytes(text.encode(), name="s", origin="s.ipynb", limits=LoadLimits())
    except SubmissionError:
        return None


def _all_cases() -> list[tuple[str, Callable[[str], object], Callable[[int], str]]]:
    out = [(f"markdown {k}", extract_answer, m) for k, m in sorted(cases.MARKDOWN_CASES.items())]
    out += [(f"notebook {k}", _notebook, m) for k, m in sorted(cases.NOTEBOOK_CASES.items())]
    out += [(f"sentences {k}", split_sentences, m) for k, m in sorted(cases.TEXT_CASES.items())]
    out += [
        ("quote spaces", split_quote, lambda n: "a" + " " * n + "b"),
        ("quote open", split_quote, lambda n: 'You wrote: "' + " " * n + '"'),
        ("hidden spans", visible_text, lambda n: "<span hidden>" * (n // 13)),
    ]
    return out


def _guarded_per_entry(rounds: int, n: int = 100) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for part in ("masks", "corruption", "losses", "generation"):
            (root / f"{part}.py").write_text("def f(x):\n    return x\n" * 200)
        (root / "explanation.md").write_text("The masked model sees both sides. " * 100)
        plain, guarded = [], []
        for _ in range(rounds):
            t0 = time.perf_counter()
            for _ in range(n):
                load_submission(root)
            t1 = time.perf_counter()
            list(load_entries([lambda: load_submission(root)] * n))
            t2 = time.perf_counter()
            plain.append((t1 - t0) / n)
            guarded.append((t2 - t1) / n)
    return min(plain), min(guarded)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    print(f"{'input':40s} {'1 MB s':>9s} {'4 MB s':>9s} {'ratio':>7s}")
    for name, fn, make in _all_cases():
        one = _best(fn, make(MB), args.rounds)
        four = _best(fn, make(4 * MB), args.rounds)
        print(f"{name:40s} {one:9.4f} {four:9.4f} {four / max(one, 1e-9):7.1f}", flush=True)
    plain, guarded = _guarded_per_entry(args.rounds)
    print(
        f"loading per entry: plain {plain * 1e3:.2f} ms, guarded {guarded * 1e3:.2f} ms "
        f"(+{(guarded - plain) * 1e3:.2f} ms, {guarded / plain:.2f}x)"
    )


if __name__ == "__main__":
    main()
