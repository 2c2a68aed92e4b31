"""A CPU-burning submission in a batch must not slow down the classmates graded beside it.

The pool pins each grading slot (its trusted side, its zygote and every sandbox worker) to one
CPU; the seccomp filter stops a worker from widening its affinity or changing its scheduling,
so a burner spins only on its own slot's CPU, against its own grading.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest
from bpf import ALLOW, EPERM, run_filter

from grader.batch import cpugroup
from grader.batch.pool import GradingPool, Job
from grader.loading import load_submission
from grader.sandbox.client import SandboxSession, StudentException, Zygote
from grader.sandbox.jail import can_jail
from grader.sandbox.limits import SandboxLimits
from grader.sandbox.seccomp import _TABLES, filter_program

REPO = Path(__file__).resolve().parents[2]
BURN_SECONDS = 3.0  # the burner's import spins until this call timeout kills it

# Widens its affinity to every CPU, then keeps them busy from as many threads as RLIMIT_NPROC
# allows: torch matrix products release the GIL, so each thread really wants a core of its own.
BURNER = """
import os as _os, threading as _threading, torch as _torch

try:
    _os.sched_setaffinity(0, range(_os.cpu_count() or 2))
except OSError:
    pass
_torch.set_num_threads(1)  # one predictable thread per spinner


def _spin():
    a = _torch.ones(160, 160)
    while True:
        a @ a


for _ in range(12):
    try:
        _threading.Thread(target=_spin, daemon=True).start()
    except RuntimeError:  # RLIMIT_NPROC
        break
_spin()
"""


def _cpu_cgroup(pid: int) -> str:
    """The path of `pid`'s cpu cgroup (v1), or its unified one (v2)."""
    with open(f"/proc/{pid}/cgroup", encoding="utf-8") as f:
        lines = [line.rstrip("\n").split(":", 2) for line in f]
    return next(
        (path for _, ctrls, path in lines if "cpu" in ctrls.split(",")),
        next((path for n, _, path in lines if n == "0"), ""),
    )


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return 1


SECCOMP = os.uname().machine in _TABLES


def test_the_filter_refuses_every_call_that_changes_scheduling():
    """sched_setaffinity, sched_setscheduler, sched_setparam, sched_setattr, setpriority and
    ioprio_set get EPERM on both architectures; reading the affinity stays allowed."""
    for machine, arch, refused, allowed in (
        ("x86_64", 0xC000003E, (203, 144, 142, 314, 141, 251), (204, 24)),
        ("aarch64", 0xC00000B7, (122, 119, 118, 274, 140, 30), (123, 124)),
    ):
        program = filter_program(machine)
        for nr in refused:
            assert run_filter(program, nr, arch) == EPERM, (machine, nr)
        for nr in allowed:
            assert run_filter(program, nr, arch) == ALLOW, (machine, nr)


@pytest.mark.skipif(not SECCOMP, reason="the seccomp filter is Linux x86_64/aarch64 only")
@pytest.mark.parametrize("jailed", [True, False] if can_jail() else [False])
def test_student_code_cannot_widen_its_affinity_or_raise_its_priority(jailed):
    src = (
        "import os, resource\n"
        "def widen():\n"
        "    os.sched_setaffinity(0, range(os.cpu_count()))\n"
        "def fifo():\n"
        "    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))\n"
        "def nicer():\n"
        "    os.setpriority(os.PRIO_PROCESS, 0, 0)\n"
        "def limits():\n"
        "    return [resource.getrlimit(r)[1] for r in (resource.RLIMIT_NICE,\n"
        "                                              resource.RLIMIT_RTPRIO)]\n"
        "def affinity():\n"
        "    return sorted(os.sched_getaffinity(0))\n"
    )
    with Zygote(jail=jailed) as z, SandboxSession(z, {"masks": src}, SandboxLimits()) as s:
        for name in ("widen", "fifo", "nicer"):
            with pytest.raises(StudentException, match="PermissionError"):
                s.call("masks", name, (), {})
        assert s.call("masks", "limits", (), {}).value == [0, 0]
        assert s.call("masks", "affinity", (), {}).value == sorted(os.sched_getaffinity(0))


def _descendants(root: int) -> list[int]:
    """Every live process below `root` (by parent pid), read from /proc."""
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", "rb") as f:
                    ppid = int(f.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(name))
    out, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def _tasks(pid: int) -> dict[int, frozenset[int]]:
    """Each thread of `pid`: the CPUs it may run on."""
    out = {}
    try:
        tids = [int(t) for t in os.listdir(f"/proc/{pid}/task")]
    except OSError:
        return out
    for tid in tids:
        try:
            out[tid] = frozenset(os.sched_getaffinity(tid))
        except OSError:
            continue
    return out


def _wider(before: frozenset[int], after: frozenset[int]) -> bool:
    return len(after) > len(before)


class _Watch:
    """Samples, every 20 ms, the affinity of every thread of the pool's workers and zygotes
    and of every process below them."""

    def __init__(self, pool: GradingPool) -> None:
        import threading

        self.pool = pool
        self.seen: dict[int, list[frozenset[int]]] = {}  # tid -> its affinities, in order
        self.threads: dict[int, int] = {}  # pid -> most threads seen at once
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> _Watch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(0.02):
            roots = {*self.pool.worker_pids(), *self.pool.zygote_pids()} - {None}
            for pid in {*roots, *(p for r in roots for p in _descendants(r))}:
                tasks = _tasks(pid)
                self.threads[pid] = max(self.threads.get(pid, 0), len(tasks))
                for tid, cpus in tasks.items():
                    history = self.seen.setdefault(tid, [])
                    if not history or history[-1] != cpus:
                        history.append(cpus)


@pytest.mark.skipif(_cpus() < 2, reason="needs two CPUs to grade two submissions in parallel")
@pytest.mark.skipif(not SECCOMP, reason="the seccomp filter is Linux x86_64/aarch64 only")
@pytest.mark.skipif(
    not cpugroup.available(),
    reason="no CPU cgroup can be made here: the slots "
    "are only pinned, and other load on the machine is pushed onto them",
)
def test_a_cpu_burner_stays_on_its_own_slots_cpu_and_cgroup(fast_options):
    """What keeps a burner from slowing down its classmates, read from the scheduler's state
    instead of timed: while a burner spins (and tries to widen its affinity), every thread of
    every process of the batch (pool workers, zygotes, sandbox workers, the burner's spinners)
    may run on one CPU only, never wider once pinned, the two slots on different CPUs; each
    slot (its worker and zygote) in a cgroup of its own. The slowdown itself (at most +50%),
    side by side: benchmarks/cpu_isolation.py."""
    options = replace(
        fast_options,
        grade_written=False,
        grade_drill=False,
        keyword="test_masks or test_losses",
        limits=replace(fast_options.limits, call_timeout=BURN_SECONDS),
    )
    honest = load_submission(REPO / "solutions", name="honest")
    burner = replace(
        honest, name="burner", sources={**honest.sources, "masks": honest.sources["masks"] + BURNER}
    )
    jobs = [Job(f"h{i:02d}", honest) for i in range(2)]
    jobs.append(Job("burner", burner))
    jobs += [Job(f"h{i:02d}", honest) for i in range(2, 8)]
    failed: list[str] = []
    groups: set[str] = set()
    seen: set[int | None] = set()

    def done(d) -> None:
        for pid in {*pool.worker_pids(), *pool.zygote_pids()} - seen - {None}:
            seen.add(pid)
            groups.add(_cpu_cgroup(pid))
        if d.report is None or (d.key != "burner" and d.report["score"] != d.report["max_score"]):
            failed.append(f"{d.key}: {d.error or d.report['score']}")

    with GradingPool(options, 2) as pool, _Watch(pool) as watch:
        pool.run(jobs, done)
    assert failed == []
    ours = cpugroup.PREFIX + str(os.getpid())
    assert len(groups) == 2 and all(ours in g for g in groups), groups
    assert not [g for g in cpugroup._base().iterdir() if g.name.startswith(ours)], "left behind"
    # the burner was watched while it spun its threads (an honest worker runs one or two)
    assert max(watch.threads.values(), default=0) >= 4, watch.threads
    # a thread starts with its parent's affinity (all CPUs, until the pool pins its slot), so
    # only its last one counts; but once pinned it must never have been widened again
    widened = {
        t: h
        for t, h in watch.seen.items()
        if any(len(h[i]) < len(h[i + 1]) for i in range(len(h) - 1))
    }
    assert not widened, f"threads that escaped their CPU: {widened}"
    last = {tid: h[-1] for tid, h in watch.seen.items()}
    wide = {tid: sorted(cpus) for tid, cpus in last.items() if len(cpus) != 1}
    assert not wide, f"threads not pinned to one CPU: {wide}"
    slots = {next(iter(cpus)) for cpus in last.values()}
    assert len(slots) == 2, slots  # the two slots, on two different CPUs


@pytest.mark.skipif(not cpugroup.available(), reason="no CPU cgroup can be made here")
def test_groups_left_by_a_killed_batch_are_removed_by_the_next(tmp_path):
    import subprocess
    import sys

    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    stale = cpugroup._base() / f"{cpugroup.PREFIX}{dead}-0"
    stale.mkdir()
    group = cpugroup.create(0)
    try:
        assert group is not None and not stale.exists()
    finally:
        cpugroup.remove(group)
        if stale.exists():
            stale.rmdir()
