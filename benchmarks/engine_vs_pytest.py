"""Grade N copies of the reference three ways, side by side in one run, and print ratios.

    python benchmarks/engine_vs_pytest.py [-n 20]

(a) the engine: one warm `Grader` (sandbox zygote pre-loaded), every submission in a fresh
    jailed worker, hidden suite + reference on the trusted side;
(b) one fresh `python -m pytest` process per submission running the same hidden suite with the
    student code imported in-process (no sandbox at all) - the usual autograder baseline;
(c) one cold `grader grade` CLI process per submission (what a CI job pays).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from grader.parts import CODE_PARTS as PARTS  # noqa: E402
from grader.pipeline import GradeOptions, Grader  # noqa: E402
from grader.testing import SOLUTIONS, reference_submission  # noqa: E402


def make_copies(root: Path, n: int) -> list[Path]:
    folders = []
    for i in range(n):
        d = root / f"student{i:03d}"
        d.mkdir()
        for p in PARTS:
            shutil.copy(SOLUTIONS / f"{p}.py", d / f"{p}.py")
        folders.append(d)
    return folders


def bench_engine(n: int) -> tuple[float, float]:
    t0 = time.perf_counter()
    with Grader(GradeOptions(grade_written=False), long_lived=True) as g:
        t_ready = time.perf_counter()
        for i in range(n):
            report = g.grade(reference_submission(f"s{i}"))
            assert report.score == report.max_score, report.to_json()
    t1 = time.perf_counter()
    return (t1 - t_ready) / n, t_ready - t0


def bench_pytest(folders: list[Path]) -> float:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    t0 = time.perf_counter()
    for d in folders:
        env["BENCH_SUBMISSION"] = str(d)
        res = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "benchmarks.inprocess_plugin",
                "-c",
                str(REPO / "grader/suites/pytest.ini"),
                "--rootdir",
                str(REPO / "grader/suites"),
                "--import-mode=importlib",
                "-p",
                "no:cacheprovider",
                str(REPO / "grader/suites/hidden"),
            ],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
        )
        assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    return (time.perf_counter() - t0) / len(folders)


def bench_cli(folders: list[Path]) -> float:
    if not folders:
        return float("nan")
    t0 = time.perf_counter()
    for d in folders:
        res = subprocess.run(
            [sys.executable, "-m", "grader", "grade", str(d), "--format", "json"],
            cwd=REPO,
            capture_output=True,
            text=True,
        )
        assert res.returncode == 0, res.stderr
    return (time.perf_counter() - t0) / len(folders)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=20, help="submissions per method")
    ap.add_argument("--cli", type=int, default=3, help="submissions for the cold CLI method")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folders = make_copies(Path(tmp), args.n)
        engine, startup = bench_engine(args.n)
        pytest_each = bench_pytest(folders)
        cli_each = bench_cli(folders[: args.cli])
    print(f"submissions: {args.n} copies of the reference (hidden suite)")
    print(
        f"(a) engine, warm sandbox:           {engine * 1000:8.1f} ms / submission "
        f"(+ {startup:.2f} s once to start the sandbox)"
    )
    print(
        f"(b) fresh pytest process each:      {pytest_each * 1000:8.1f} ms / submission "
        "(no sandbox)"
    )
    print(f"(c) cold `grader grade` each:       {cli_each * 1000:8.1f} ms / submission")
    print(f"ratio (b)/(a): {pytest_each / engine:.1f}x   ratio (c)/(a): {cli_each / engine:.1f}x")


if __name__ == "__main__":
    main()
