"""The pool's head start: sandbox zygotes launched before the batch imports torch, then
adopted by the pool workers forked later (`launch_zygotes`, `GradingPool(launched=...)`).

A zygote started by the batch process is not a child of the worker that uses it, so these
tests check what that changes: the worker really uses it, watches it without being able to
wait for it, and nothing is left running or unreaped whatever happens to the worker.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from grader.batch import BatchOptions, run_batch
from grader.batch import runner as batch_runner
from grader.batch.pool import GradingPool, Job, launch_zygotes
from grader.batch.sampleclass import GOOD_EXPLANATION, Student, correct_files, write_folder_class
from grader.sandbox.client import Zygote, _running
from grader.sandbox.launch import Launched, launch_zygote
from grader.testing import reference_submission

from .conftest import FINGERPRINT

REPO = Path(__file__).resolve().parents[2]


def _reaped(launched: Launched) -> bool:
    """The zygote exited and was waited for (no zombie left behind)."""
    return launched.proc.returncode is not None and not os.path.exists(f"/proc/{launched.proc.pid}")


def _grade_all(pool: GradingPool, n: int) -> list:
    # The reference code with an answer of the student's own (the model answer in solutions/
    # is course material: pasted, it earns nothing).
    # With the reference drill, whose rerun runs in the pool worker's sandbox too.
    subs = [reference_submission(f"h{i}", explanation=GOOD_EXPLANATION, drill=True)
            for i in range(n)]  # fmt: skip
    done: list = []
    pool.run([Job(f"k{i}", s) for i, s in enumerate(subs)], done.append)
    return done


def test_workers_adopt_the_zygotes_launched_before_them(fast_options):
    launched = launch_zygotes(2)
    with GradingPool(fast_options, 1, launched=launched) as pool:
        assert _reaped(launched[1])  # one worker: the spare zygote was stopped at start
        done = _grade_all(pool, 2)
        assert pool.zygote_pids() == [launched[0].proc.pid]
    assert [d.error for d in done] == [None, None]
    assert all(d.report["score"] == d.report["max_score"] for d in done)
    assert _reaped(launched[0])


def test_a_killed_worker_takes_its_adopted_zygote_with_it(fast_options):
    launched = launch_zygotes(1)
    with GradingPool(fast_options, 1, launched=launched) as pool:
        assert len(_grade_all(pool, 1)) == 1
        os.kill(pool.worker_pids()[0], signal.SIGKILL)
        done = _grade_all(pool, 1)  # the lost worker is replaced; it starts its own zygote
        assert pool.restarts == 1
        assert _reaped(launched[0])
        assert pool.zygote_pids()[0] not in (None, launched[0].proc.pid)
    assert done[0].error is None


def test_an_adopted_zygote_is_watched_without_being_waited_for():
    launched = launch_zygote()
    # As a pool worker sees it: started by another process, so not its child.
    adopted = Launched(launched.proc, launched.ctl, parent=-1)
    z = Zygote(jail=False)
    z.launch(adopted)
    z.start()
    assert z.alive() and z.pid == launched.proc.pid
    os.kill(launched.proc.pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while _running(launched.proc.pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not z.alive()  # a zombie nobody here may reap counts as dead
    z.close()  # kills, but leaves the waiting to the process that started it
    assert launched.proc.returncode is None
    launched.proc.wait(timeout=10)


def test_running_tells_live_processes_from_zombies_and_missing_ones():
    assert _running(os.getpid())
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    deadline = time.monotonic() + 10
    while _running(pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not _running(pid)  # exited, not yet reaped
    os.waitpid(pid, 0)
    assert not _running(pid)


def test_zygotes_launched_for_a_batch_are_stopped_if_it_cannot_start(
    tmp_path, fast_options, monkeypatch
):
    launched: list[Launched] = []

    def launch_and_record(n):
        launched.extend(launch_zygotes(n))
        return launched

    def broken_options(opts):
        raise RuntimeError("the engine could not be imported")

    monkeypatch.setattr(batch_runner, "launch_zygotes", launch_and_record)
    monkeypatch.setattr(batch_runner, "_grade_options", broken_options)
    root = write_folder_class(
        tmp_path / "class",
        [
            Student("ada", "Ada Ng", 101, "correct", correct_files("hs-ada"), form="folder"),
            Student("ben", "Ben Ng", 102, "correct", correct_files("hs-ben"), form="folder"),
        ],
    )
    with pytest.raises(RuntimeError, match="could not be imported"):
        run_batch(
            BatchOptions(
                input=root, out=tmp_path / "out", workers=2, fingerprint=FINGERPRINT, progress=False
            )
        )
    assert len(launched) == 2
    assert all(_reaped(z) for z in launched)


def test_zygotes_are_stopped_if_a_worker_cannot_be_started(fast_options, monkeypatch):
    launched = launch_zygotes(2)
    pool = GradingPool(fast_options, 2, launched=launched)

    def no_fork(self):
        raise OSError("fork failed")

    monkeypatch.setattr("multiprocessing.process.BaseProcess.start", no_fork)
    with pytest.raises(OSError, match="fork failed"):
        pool.start()
    assert all(_reaped(z) for z in launched)
