"""Bounded-time checks that do not depend on how busy the machine is.

`within_cpu` runs a call in a forked child whose CPU time is capped by RLIMIT_CPU: the kernel
counts only the child's own CPU time, so other tests, other xdist workers and other users of
the machine do not make it fail, and a quadratic or runaway parser is killed at the cap
instead of running for hours. Callers pick inputs where the linear cost is far below the cap
(tens of times) and a super-linear one far above it. The side-by-side timings (1 MB vs 4 MB
ratios) are printed by benchmarks/parsing_scaling.py instead.
"""

from __future__ import annotations

import os
import resource
import signal
import sys
import time
import traceback
from collections.abc import Callable

MB = 1_000_000


def within_cpu(fn: Callable[[], object], cpu_seconds: int) -> str | None:
    """None when `fn()` returned within `cpu_seconds` of CPU time in a forked child, else why
    not ("used more than N s of CPU", "raised ...", "killed by signal N"). A child that blocks
    without using CPU is killed after a generous wall-clock guard (a hang, not a measurement)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(read)
        code = 0
        try:
            resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
            fn()
        except BaseException:  # noqa: BLE001 - reported to the parent as text
            os.write(write, traceback.format_exc().encode()[-4000:])
            code = 1
        sys.stdout.flush()
        os._exit(code)
    os.close(write)
    deadline = time.monotonic() + 60 * cpu_seconds + 120
    status = 0
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(read)
            return "blocked without using CPU (killed by the hang guard)"
        time.sleep(0.01)
    with os.fdopen(read, "rb") as f:
        err = f.read().decode(errors="replace")
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig in (signal.SIGXCPU, signal.SIGKILL):
            return f"used more than {cpu_seconds} s of CPU"
        return f"killed by signal {sig}"
    return None if os.WEXITSTATUS(status) == 0 else f"raised {err}"
