"""The trusted side's handle on the sandbox: the zygote process and the workers it forks.

`Zygote` owns the pre-warmed forker process (`grader.sandbox.zygote` is its other side) and
hands out `WorkerHandle`s: a confined worker's socket and pid, and how to kill it.
`SandboxSession` (`grader.sandbox.client`) grades one submission through them.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import threading
import time
from dataclasses import dataclass, field

from grader.sandbox import wire
from grader.sandbox.launch import Launched, launch_zygote
from grader.sandbox.limits import SandboxLimits


class SandboxUnavailable(RuntimeError):
    """The grader could not start its sandbox (an internal error, never the student's fault)."""


# ----------------------------------------------------------------------------- zygote

_CONTROL_LIMITS = wire.Limits(max_frame_bytes=64 * 1024)
_CLOSE_GRACE = 2.0  # seconds a closing zygote gets to remove its workers' folders


class Zygote:
    """A pre-warmed process that forks confined workers. Thread-safe; start once, reuse."""

    def __init__(self, *, jail: bool = True, huge_pages: bool = False) -> None:
        """`huge_pages`: this zygote will fork many workers (see `launch_zygote`)."""
        self._jail = jail
        self._huge_pages = huge_pages
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._ctl: socket.socket | None = None
        self._own_child = True
        self._ready = False
        self.jailed = False

    def launch(self, launched: Launched | None = None) -> None:
        """Start the zygote process without waiting for it (torch imports in the background).

        `launched` adopts a zygote started earlier with `grader.sandbox.launch.launch_zygote`.
        """
        if self._proc is not None:
            return
        launched = launched or launch_zygote(huge_pages=self._huge_pages)
        self._proc, self._ctl = launched.proc, launched.ctl
        self._own_child = launched.parent == os.getpid()
        self._ready = False

    def start(self) -> Zygote:
        """Launch if needed and wait until the zygote is ready to fork workers."""
        self.launch()
        if self._ready:
            return self
        try:
            hello, _ = wire.recv_frame(self._ctl, wire.Limits(), time.monotonic() + 120)
        except (EOFError, TimeoutError, wire.WireError) as exc:
            self.close()
            raise SandboxUnavailable(f"the sandbox process did not start: {exc}") from exc
        self.jailed = bool(hello.get("jail")) and self._jail
        self._ready = True
        return self

    def spawn(self, sources: dict[str, str], limits: SandboxLimits, slot: int) -> WorkerHandle:
        """Fork a confined worker holding `sources`; returns once it is jailed and ready.

        The zygote only receives the worker's socket (and the slot, for the sandbox uid); the
        sources and limits go over that socket to the forked process, so no submission ever
        enters the zygote's memory.
        A worker that cannot be set up raises SandboxUnavailable (the grader's problem,
        never charged to the student).
        """
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        with self._lock:
            if self._ctl is None:
                ours.close()
                theirs.close()
                raise SandboxUnavailable("the sandbox is not running")
            try:
                socket.send_fds(self._ctl, [b"S"], [theirs.fileno()])
                wire.send_frame(self._ctl, {"op": "spawn", "slot": slot, "jail": self._jail})
                forked, _ = wire.recv_frame(self._ctl, wire.Limits(), time.monotonic() + 30)
            except (OSError, EOFError, TimeoutError, wire.WireError) as exc:
                ours.close()
                raise SandboxUnavailable(f"could not start a worker: {exc}") from exc
            finally:
                theirs.close()
        request = {
            "op": "setup",
            "limits": limits.to_dict(),
            "sources": sources,
            "slot": slot,
            "no_jail": not self._jail,
        }
        pid = None
        try:
            wire.send_frame(ours, request)
            deadline = time.monotonic() + 30
            if forked.get("worker") is True:  # forked straight into its own namespaces
                pid = int(forked["pid"])
            hello, _ = wire.recv_frame(ours, _CONTROL_LIMITS, deadline)
            if pid is None:  # a supervisor forked it and tells us
                pid = int(hello["pid"])
            ready = hello
            if hello.get("op") != "setup_failed":
                ready, _ = wire.recv_frame(ours, _CONTROL_LIMITS, deadline)
            if ready.get("op") != "ready":
                raise SandboxUnavailable(
                    f"a worker could not be confined: {ready.get('error', 'unknown error')}"
                )
        except (
            OSError,
            EOFError,
            TimeoutError,
            wire.WireError,
            KeyError,
            TypeError,
            ValueError,
            SandboxUnavailable,
        ) as exc:
            if pid is not None:
                WorkerHandle(ours, pid, False).kill()
            ours.close()
            if isinstance(exc, SandboxUnavailable):
                raise
            raise SandboxUnavailable(f"a worker did not start: {exc!r}") from exc
        return WorkerHandle(ours, pid, bool(hello.get("jailed")))

    @property
    def pid(self) -> int | None:
        """The zygote's process id (None when it is not running)."""
        return None if self._proc is None else self._proc.pid

    def alive(self) -> bool:
        if self._proc is None:
            return False
        if self._own_child:
            return self._proc.poll() is None
        return _running(self._proc.pid)  # adopted: only its parent can wait for it

    def close(self) -> None:
        if self._ctl is not None:
            self._ctl.close()
            self._ctl = None
        if self._proc is not None:
            # SIGTERM first: the zygote kills its workers and removes their work folders
            # (a SIGKILL would leave them in /tmp); SIGKILL if it does not exit in time.
            # Adopted: Popen.kill would first try to wait for it, fail (not our child), take
            # it for dead and send nothing. Its parent reaps it, so the pid stays ours to
            # signal until then.
            pid = self._proc.pid
            if self._own_child:
                try:
                    self._proc.terminate()
                    self._proc.wait(_CLOSE_GRACE)
                except subprocess.TimeoutExpired:
                    self._proc.kill()
                except OSError:
                    pass
                self._proc.wait()
            else:
                try:
                    os.kill(pid, signal.SIGTERM)
                    deadline = time.monotonic() + _CLOSE_GRACE
                    while _running(pid) and time.monotonic() < deadline:
                        time.sleep(0.005)
                    if _running(pid):
                        os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            self._proc = None
        self._ready = False

    def __enter__(self) -> Zygote:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


def _running(pid: int) -> bool:
    """Whether process `pid` exists and has not exited (a zombie has exited)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        try:
            os.kill(pid, 0)  # no /proc (not Linux): existence is all we can tell
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    return stat[stat.rfind(b")") + 2 : stat.rfind(b")") + 3] not in (b"Z", b"X")


@dataclass
class WorkerHandle:
    sock: socket.socket
    pid: int
    jailed: bool
    models: wire.ModelRefs = field(default_factory=wire.ModelRefs)  # what it holds

    def kill(self) -> None:
        """SIGKILL the worker and everything it started.

        Jail mode: the worker is PID 1 of its own PID namespace; SIGKILL from outside cannot
        be caught or ignored (not even by a namespace init), and its death makes the kernel
        kill every other process in the namespace. Basic mode: the worker leads its own
        process group, so the group is killed too (a process that left the group with
        setsid() is killed by the supervisor, which is their subreaper).
        """
        try:
            os.kill(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if not self.jailed:
            try:
                os.killpg(self.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            self.sock.close()
        except OSError:
            pass

    def wait_gone(self, timeout: float = 3.0) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                os.kill(self.pid, 0)
            except ProcessLookupError:
                return True
            time.sleep(0.005)
        return False
