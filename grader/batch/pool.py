"""A warm pool of trusted grading processes.

The trusted side of a grade (pytest running the hidden suite, the reference computations, the
rubric) is CPU-bound Python, so parallelism needs processes. The parent imports torch, pytest,
the suite machinery, the reference solutions and the rubric once, runs the suite once against
an empty submission (so the test modules are imported and pytest's first-run costs are paid),
freezes the garbage collector's view of all that (`gc.freeze`: pytest collects garbage several
times per run, and scanning torch's objects each time was two thirds of the per-submission
cost) and then forks N workers. Torch is limited to one thread before any tensor is made, so
no thread pool exists at fork time.

Each worker owns a `Grader` (its own pre-warmed sandbox zygote) and a distinct sandbox slot (so
distinct unprivileged uids): every submission still runs in a fresh, confined worker process
forked from that zygote, with all the sandbox limits. Jobs and results cross the pipe as JSON
(`Submission` fields in, `GradeReport.to_dict()` out); nothing is unpickled. A worker that dies
or stalls is replaced and its submission retried once; a second failure is reported for that
submission only.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any

from grader.batch import cpugroup
from grader.batch.poolworker import (
    _cpu_for,
    _worker_main,
    prewarm,
    submission_from_dict,
    submission_to_dict,
)
from grader.errors import InternalError
from grader.loading import Submission
from grader.sandbox.launch import Launched, launch_zygote

__all__ = [  # the worker side (and the JSON form of a Submission) lives in poolworker
    "Done",
    "GradingPool",
    "Job",
    "PoolError",
    "default_workers",
    "discard_zygotes",
    "launch_zygotes",
    "prewarm",
    "submission_from_dict",
    "submission_to_dict",
]

#: How long past the sandbox's own per-submission budget a trusted worker may take.
STALL_GRACE_SECONDS = 120.0
MAX_ATTEMPTS = 2


@dataclass(frozen=True)
class Job:
    key: str
    submission: Submission


@dataclass(frozen=True)
class Done:
    key: str
    report: dict[str, Any] | None
    error: str | None
    seconds: float
    worker: int


def default_workers() -> int:
    """The number of CPUs this process may run on (its affinity mask), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def launch_zygotes(n: int) -> list[Launched]:
    """Start `n` sandbox zygotes for a pool about to start (see `GradingPool`'s `launched`).

    Cheap here (fork + exec); each then imports torch in the background, so a batch that
    calls this before importing torch itself overlaps the two instead of doing them in turn.
    """
    return [launch_zygote(huge_pages=True) for _ in range(n)]


def discard_zygotes(launched: Iterable[Launched]) -> None:
    """Stop and reap zygotes this process launched and nobody uses any more."""
    for z in launched:
        try:
            z.ctl.close()
        except OSError:
            pass
        _stop(z.proc)


def _stop(proc: Any) -> None:
    try:
        proc.kill()
    except OSError:
        pass
    try:
        proc.wait(timeout=10)
    except Exception:  # noqa: BLE001 - a zombie that outlives this is reaped at exit
        pass


# ----------------------------------------------------------------------------- parent side


class _Worker:
    def __init__(
        self, index: int, slot: int, process: Any, conn: Connection, zygote: Any = None
    ) -> None:
        self.index = index
        self.slot = slot
        self.process = process
        self.conn = conn
        self.zygote = zygote  # the Popen of a zygote we launched for it, reaped by us
        self.zygote_pid: int | None = None  # the zygote it uses, once it is ready
        self.ready = False
        self.job: Job | None = None
        self.started = 0.0
        self.done = 0

    def kill(self) -> None:
        try:
            os.kill(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError, TypeError):
            pass
        try:
            self.conn.close()
        except OSError:
            pass
        self.process.join(timeout=5)
        self.reap_zygote()

    def reap_zygote(self) -> None:
        """Reap the zygote launched for this worker (the worker itself cannot: not its
        child). Its worker stopped it, or it died with its worker; kill it if not."""
        if self.zygote is not None:
            _stop(self.zygote)
            self.zygote = None


class PoolError(InternalError, RuntimeError):
    """The pool could not grade at all (no worker could start)."""


class GradingPool:
    """N forked trusted workers, each with its own sandbox zygote and slot."""

    def __init__(
        self,
        options: Any,
        workers: int | None = None,
        *,
        max_tasks_per_worker: int | None = None,
        close_in_workers: Callable[[], list[int]] | None = None,
        launched: list[Launched] | None = None,
    ) -> None:
        """`launched`: zygotes started early with `launch_zygotes`; the pool owns them from
        here (each starting worker adopts one; any left over are stopped)."""
        self.options = options
        self._head_start = list(launched or [])
        self._close_in_workers = close_in_workers or (lambda: [])
        self.size = max(1, workers or default_workers())
        self.max_tasks = max_tasks_per_worker
        self._ctx = multiprocessing.get_context("fork")
        self._workers: list[_Worker] = []
        self._next_slot = 0
        self._groups: dict[int, str | None] = {}  # pool index -> its CPU cgroup
        self._started = False
        limits = options.limits  # the code parts' budget, then the drill's rerun
        budget = float(limits.submission_timeout) + float(limits.drill_timeout)
        self.stall_seconds = budget + STALL_GRACE_SECONDS
        self.restarts = 0

    # -- lifecycle
    def start(self) -> GradingPool:
        """Prewarm the reference cache and start every worker (adopting the zygotes launched ahead
        of time); idempotent. On failure every started worker and unadopted zygote is terminated
        before the error propagates. Returns self."""
        if self._started:
            return self
        try:
            prewarm(self.options)
        except BaseException:
            self._discard_head_start()
            raise
        self._started = True
        try:
            for i in range(self.size):
                head_start = self._head_start.pop(0) if self._head_start else None
                self._workers.append(self._spawn(i, head_start))
        except BaseException:
            self.terminate()  # the workers started so far, and every zygote not adopted
            raise
        self._discard_head_start()  # more zygotes than workers: the spares
        return self

    def _discard_head_start(self) -> None:
        discard_zygotes(self._head_start)
        self._head_start = []

    def _spawn(self, index: int, launched: Launched | None = None) -> _Worker:
        slot = self._next_slot
        self._next_slot = (self._next_slot + 1) % 4000  # fresh uid for a replaced worker
        ours, theirs = self._ctx.Pipe(duplex=True)
        inherited = [w.conn.fileno() for w in self._workers if not w.conn.closed]
        inherited += [z.ctl.fileno() for z in self._head_start]  # other workers' zygotes
        inherited += [ours.fileno(), *self._close_in_workers()]
        if index not in self._groups:
            self._groups[index] = cpugroup.create(index)
        proc = self._ctx.Process(
            target=_worker_main,
            args=(
                theirs,
                slot,
                self.options,
                os.getpid(),
                inherited,
                _cpu_for(index),
                launched,
                self._groups[index],
            ),
            name=f"grader-batch-{index}",
            daemon=True,
        )
        try:
            proc.start()
        except BaseException:
            ours.close()
            if launched is not None:
                discard_zygotes([launched])
            raise
        finally:
            theirs.close()
        if launched is None:
            return _Worker(index, slot, proc, ours)
        launched.ctl.close()  # the worker has its copy: its exit must end the zygote
        return _Worker(index, slot, proc, ours, launched.proc)

    def terminate(self) -> None:
        """Stop at once (Ctrl-C, an error): SIGKILL the workers; their sandboxes follow them."""
        for w in self._workers:
            w.kill()
        self._workers = []
        self._discard_head_start()
        cpugroup.remove_all(self._groups)

    def close(self) -> None:
        """Stop the workers once they finish what they are doing (at most ~10 s)."""
        for w in self._workers:
            try:
                w.conn.send_bytes(b'{"op": "stop"}')
            except (OSError, ValueError):
                pass
        deadline = time.monotonic() + 10
        for w in self._workers:
            w.process.join(timeout=max(0.1, deadline - time.monotonic()))
            if w.process.is_alive():
                w.kill()
            w.reap_zygote()
            try:
                w.conn.close()
            except OSError:
                pass
        self._workers = []
        self._discard_head_start()
        cpugroup.remove_all(self._groups)

    def __enter__(self) -> GradingPool:
        return self.start()

    def __exit__(self, exc_type: object, *exc: object) -> None:
        if exc_type is None:
            self.close()
        else:
            self.terminate()

    def worker_pids(self) -> list[int]:
        return [w.process.pid for w in self._workers if w.process.pid]

    def zygote_pids(self) -> list[int | None]:
        """The sandbox zygote each worker last graded with (None until it is ready)."""
        return [w.zygote_pid for w in self._workers]

    # -- grading
    def run(self, jobs: Iterable[Job], on_done: Callable[[Done], None]) -> None:
        """Grade every job; `on_done` is called in this process as each one finishes."""
        self.start()
        queue: deque[tuple[Job, int]] = deque((j, 0) for j in jobs)
        attempts: dict[str, int] = {}
        outstanding = len(queue)
        fatal: list[str] = []
        while outstanding:
            for w in self._workers:
                if w.ready and w.job is None and queue:
                    job, n = queue.popleft()
                    attempts[job.key] = n + 1
                    self._dispatch(w, job)
            if not any(w.ready or w.process.is_alive() for w in self._workers):
                raise PoolError("; ".join(fatal) or "no grading worker could start")
            conns = [w.conn for w in self._workers]
            sentinels = [w.process.sentinel for w in self._workers]
            ready = wait(conns + sentinels, timeout=1.0)
            now = time.monotonic()
            for w in list(self._workers):
                lost = False
                if w.conn in ready:
                    try:
                        msg = json.loads(w.conn.recv_bytes())
                    except (EOFError, OSError, ValueError):
                        lost = True
                    else:
                        if msg.get("fatal"):
                            fatal.append(str(msg["fatal"]))
                            lost = True
                        elif msg.get("ready"):
                            w.ready = True
                            w.zygote_pid = msg.get("zygote")
                        elif w.job is not None and msg.get("key") == w.job.key:
                            job, w.job = w.job, None
                            w.zygote_pid = msg.get("zygote", w.zygote_pid)
                            w.done += 1
                            outstanding -= 1
                            on_done(
                                Done(
                                    job.key,
                                    msg.get("report"),
                                    msg.get("error"),
                                    float(msg.get("seconds", 0.0)),
                                    w.index,
                                )
                            )
                            if self.max_tasks and w.done >= self.max_tasks:
                                self._replace(w)
                            continue
                elif w.process.sentinel in ready and not w.process.is_alive():
                    lost = True
                elif w.job is not None and now - w.started > self.stall_seconds:
                    lost = True
                if lost:
                    job = w.job
                    self._replace(w, dead=True)
                    if fatal and len(fatal) >= 3 * self.size:
                        raise PoolError("; ".join(dict.fromkeys(fatal)))
                    if job is not None:
                        if attempts.get(job.key, 1) < MAX_ATTEMPTS:
                            queue.appendleft((job, attempts.get(job.key, 1)))
                        else:
                            outstanding -= 1
                            on_done(
                                Done(
                                    job.key,
                                    None,
                                    "the grading process died or stalled twice on this submission",
                                    0.0,
                                    w.index,
                                )
                            )

    def _dispatch(self, w: _Worker, job: Job) -> None:
        w.job = job
        w.started = time.monotonic()
        payload = {"op": "grade", "key": job.key, "submission": submission_to_dict(job.submission)}
        try:
            w.conn.send_bytes(json.dumps(payload, ensure_ascii=False).encode("utf-8"))
        except (OSError, ValueError):
            pass  # noticed as a lost worker on the next turn

    def _replace(self, w: _Worker, *, dead: bool = False) -> None:
        if dead:
            self.restarts += 1
            w.kill()
        else:
            try:
                w.conn.send_bytes(b'{"op": "stop"}')
            except (OSError, ValueError):
                pass
            w.process.join(timeout=10)
            if w.process.is_alive():
                w.kill()
            w.reap_zygote()
            w.conn.close()
        i = self._workers.index(w)
        self._workers[i] = self._spawn(w.index)
