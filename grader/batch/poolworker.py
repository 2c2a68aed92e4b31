"""The worker side of the batch pool (`grader.batch.pool`): what runs in the forked processes.

`prewarm` runs in the parent before it forks (imports, one warm-up run of the suite, then
`gc.freeze`); `_worker_main` is each forked worker's loop: its own `Grader` and zygote, one
JSON job in, one JSON report out, until the parent says stop. Jobs cross the pipe as
`submission_to_dict` / `submission_from_dict` (plain strings), never as pickles.
"""

from __future__ import annotations

import gc
import json
import os
import signal
import sys
import time
from dataclasses import asdict
from multiprocessing.connection import Connection
from typing import Any

from grader.batch import cpugroup
from grader.loading import CODE_PARTS, Submission
from grader.sandbox.launch import Launched


def submission_to_dict(sub: Submission) -> dict[str, Any]:
    """`sub` as plain JSON-able data for the pipe to a pool worker (the inverse of
    `submission_from_dict`)."""
    d = asdict(sub)
    d["problems"] = list(sub.problems)
    return d


def submission_from_dict(d: dict[str, Any]) -> Submission:
    """Rebuild a Submission from `submission_to_dict`'s data, coercing every field to its type (the
    data crosses a process boundary)."""
    return Submission(
        name=str(d["name"]),
        origin=str(d["origin"]),
        sources={str(k): str(v) for k, v in d.get("sources", {}).items()},
        missing={str(k): str(v) for k, v in d.get("missing", {}).items()},
        written={str(k): str(v) for k, v in d.get("written", {}).items()},
        files={str(k): str(v) for k, v in d.get("files", {}).items()},
        problems=tuple(str(p) for p in d.get("problems", ())),
        # a notebook's cell map: its messages name cells ("cell 7, line 4"), as grader grade's do
        cell_lines={
            str(k): tuple(tuple(int(x) for x in run) for run in v)
            for k, v in d.get("cell_lines", {}).items()
        },
    )


def prewarm(options: Any) -> None:
    """Import and exercise everything a grade needs, in this process, before forking."""
    import torch

    torch.set_num_threads(1)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:  # already set (or already used) in this process
        pass
    import pytest  # noqa: F401

    import grader.pipeline  # noqa: F401
    import grader.suite.plugin  # noqa: F401
    import grader.suite.runner  # noqa: F401
    from grader.suite.proxy import ReferenceProxy

    ref = ReferenceProxy()
    for part in CODE_PARTS:
        try:
            ref._module(part)
        except ImportError:
            pass
    if getattr(options, "grade_written", False):
        try:
            from grader.pipeline import grade_explanation

            grade_explanation(
                Submission(name="warm-up", origin="<warm-up>", written={"explanation": "warm-up"})
            )
        except Exception:  # noqa: BLE001 - a broken scorer shows up in the real grades
            pass
    _warm_suite(options, ref)
    gc.collect()
    gc.freeze()


class _NoSandbox:
    """A stand-in zygote for the warm-up run: every part is missing, so nothing is spawned."""

    def spawn(self, *args: Any, **kwargs: Any) -> Any:
        from grader.sandbox.client import SandboxUnavailable

        raise SandboxUnavailable("warm-up: no sandbox")


def _warm_suite(options: Any, reference: Any) -> None:
    """Run the suite once against an empty submission (imports the tests, primes pytest)."""
    from grader.sandbox.client import SandboxSession
    from grader.suite.proxy import StudentProxy
    from grader.suite.runner import run_suite

    try:
        session = SandboxSession(
            _NoSandbox(),
            {},
            options.limits,
            slot=0,
            missing={p: "warm-up" for p in CODE_PARTS},
        )
        run_suite(options.suite, StudentProxy(session), reference, keyword=options.keyword)
    except Exception:  # noqa: BLE001 - only a warm-up; real runs report their own errors
        pass


def _cpu_for(index: int) -> int | None:
    """The CPU pool worker `index` is pinned to (round robin over the usable ones), or None."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return None
    return cpus[index % len(cpus)] if len(cpus) > 1 else None


def _pin(cpu: int | None, pid: int = 0) -> None:
    """Keep this worker, its zygote and every sandbox process it forks on one CPU (`pid`:
    the process to pin, 0 for this one).

    A grade is a ping-pong: the trusted side waits while the sandbox runs a call, and the other
    way round, so the pair never needs two CPUs at once. On one CPU each hand-over is a local
    wake-up with warm caches instead of a cross-CPU interrupt; measured 5-10% less CPU per
    submission. Student code may change its own affinity: that only costs speed.
    """
    if cpu is None:
        return
    try:
        os.sched_setaffinity(pid, {cpu})
    except OSError:
        pass


def _worker_main(
    conn: Connection,
    slot: int,
    options: Any,
    parent: int,
    close_fds: list[int],
    cpu: int | None = None,
    launched: Launched | None = None,
    group: str | None = None,
) -> None:
    """Runs in a forked worker: own Grader + zygote, grade jobs until told to stop.

    `launched`: a zygote the parent started for this worker before forking it (it imports
    torch while the parent does); otherwise the worker launches its own. `group`: the CPU
    cgroup of this slot (`cpugroup`), joined like the pin."""
    code = 0
    try:
        _pin(cpu)  # before the zygote starts, so it and its workers inherit it
        cpugroup.join(group)
        for fd in close_fds:  # the parent's ends of other workers' pipes, its journal...
            try:
                os.close(fd)
            except OSError:
                pass
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        try:
            from grader.sandbox.jail import PR_SET_PDEATHSIG, prctl

            prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # the batch dies -> so does this worker
        except Exception:  # noqa: BLE001 - not Linux: rely on the pipe closing
            pass
        if os.getppid() != parent:
            os._exit(0)
        from grader.pipeline import Grader

        grader = Grader(options, long_lived=True)
        try:
            grader.zygote.launch(launched)
            if launched is not None:
                _pin(cpu, launched.proc.pid)  # it forks every sandbox worker of ours
                cpugroup.join(group, launched.proc.pid)
            grader.start()
        except Exception as exc:  # noqa: BLE001
            _send(conn, {"fatal": f"the sandbox could not start: {type(exc).__name__}: {exc}"})
            return
        zygote = grader.zygote.pid
        _send(conn, {"ready": True, "slot": slot, "pid": os.getpid(), "zygote": zygote})
        try:
            while True:
                try:
                    raw = conn.recv_bytes()
                except (EOFError, OSError):
                    break
                msg = json.loads(raw)
                if msg.get("op") != "grade":
                    break
                started = time.perf_counter()
                try:
                    sub = submission_from_dict(msg["submission"])
                    report = grader.grade(sub, slot=slot)
                    reply = {"key": msg["key"], "report": report.to_dict()}
                except Exception as exc:  # noqa: BLE001 - reported for this submission only
                    reply = {"key": msg["key"], "error": f"{type(exc).__name__}: {exc}"}
                reply["seconds"] = time.perf_counter() - started
                reply["zygote"] = grader.zygote.pid  # a zygote that died was replaced
                _send(conn, reply)
        finally:
            grader.close()
    except BaseException:  # noqa: BLE001
        code = 1
    finally:
        try:
            conn.close()
        finally:
            sys.stdout.flush()
            os._exit(code)


def _send(conn: Connection, msg: dict[str, Any]) -> None:
    conn.send_bytes(json.dumps(msg, ensure_ascii=False).encode("utf-8"))
