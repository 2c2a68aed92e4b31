"""The pre-warmed forker: imports torch once, then forks one confined worker per request.

It is started by the trusted side with ``python -I`` and a scrubbed environment, and imports
only what student code may see anyway (torch, numpy, the `exercises` package, `grader.sandbox`):
never the hidden tests, the solutions or anything about other submissions, so a forked worker
inherits nothing secret. It never receives a submission either: the sources and limits go
over each worker's own socket straight to the forked process, so the zygote's memory, which
every worker inherits, never held another student's code. Process tree per worker::

    jail mode (root):  zygote -> worker (PID 1 of a fresh PID namespace; runs student code)
    basic mode:        zygote -> supervisor (child subreaper) -> worker (own session)

In jail mode the zygote claims the worker's sandbox uid, makes its next child PID 1 of a new
PID namespace (`jail.next_child_in_new_pid_namespace`) and forks the worker straight into it:
one fork per worker, and the kernel kills whatever the student left behind when the worker
ends; the uid is freed when the zygote reaps it. In basic mode a supervisor claims the uid (as
root), tells the trusted side the worker's pid, waits for it to end, then kills any process the
student left behind. Either way the worker confines itself and sends "ready" before any student
code runs; a worker that cannot be confined reports "setup_failed" instead. Every process has a
parent-death signal, so killing the grader (even with SIGKILL) takes the whole tree down.
"""

from __future__ import annotations

import os
import re
import select
import shutil
import signal
import socket
import stat
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

from grader.sandbox import jail, seccomp, wire
from grader.sandbox.hugepages import collapse_anonymous_memory
from grader.sandbox.limits import SandboxLimits

# Control frames carry no submission data at all (see `main`): small caps.
_CTL_LIMITS = wire.Limits(max_frame_bytes=64 * 1024)
# One submission's setup: its sources (the loaders cap them far below this) and its limits.
_SETUP_LIMITS = wire.Limits(max_frame_bytes=64 * 1024 * 1024)
_SETUP_TIMEOUT = 30.0
WORKDIR_PREFIX = "grader-sbx-"  # + the zygote's pid + "-" + mkdtemp's random part
_WORKDIR_NAME = re.compile(re.escape(WORKDIR_PREFIX) + r"([0-9]{1,10})-[A-Za-z0-9_]{1,64}")


def _preload(huge_pages: bool) -> Any:
    """Import what workers need and build what they share; returns the model `Templates`
    every worker inherits warm (`grader.sandbox.models`)."""
    import torch

    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    import numpy  # noqa: F401  - students may use it; import before the jail closes
    import torch.nn.functional  # noqa: F401

    import grader.sandbox.invoke  # noqa: F401
    import grader.sandbox.worker  # noqa: F401

    for name in (
        "exercises.tinylm",
        "grader.sandbox.models",
        "grader.sandbox.drillrun",
        "math",
        "random",
        "numpy.random",
        "itertools",
        "functools",
        "collections",
        "typing",
        "dataclasses",
        "statistics",
        "torch.distributions",
        "torch.nn.attention",
    ):
        try:
            __import__(name)
        except ImportError:
            pass
    from grader.sandbox.models import Templates

    templates = Templates().warm()  # one thread (set above): no thread pool at fork time
    if jail.can_jail():
        jail.jail_plan()
    seccomp.prepare()
    import gc

    # Everything imported so far lives as long as the zygote: keep it out of the collector's
    # generations, so a worker's collections do not walk (and copy-on-write) all of torch.
    gc.collect()
    gc.freeze()
    if huge_pages:
        # Before the first fork: pages shared with a live child cannot be collapsed.
        collapse_anonymous_memory()
    return templates


def main() -> None:
    """Entry point: ``python -I -c 'from grader.sandbox.zygote import main; main()' FD
    [--huge-pages]`` (the flag: this zygote will fork many workers, see `hugepages`).

    The zygote never receives a submission: a spawn request is only a socket for the new
    worker. The sources and limits travel over that socket, straight to the forked
    supervisor. So the zygote's memory - which every later worker inherits by fork - never
    holds another student's code, not even in freed heap pages.
    """
    ctl = socket.socket(fileno=int(sys.argv[1]))
    jail.prctl(jail.PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() == 1:
        os._exit(0)
    reap_stale_workdirs()  # left by a zygote that was killed (kill -9 of its grader)
    templates = _preload(huge_pages="--huge-pages" in sys.argv[2:])
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    own_pid_ns = _own_pid_namespace()
    children: dict[int, tuple[str, int | None]] = {}
    signal.signal(signal.SIGTERM, _exit_on_signal)  # Zygote.close: clean up, then exit
    try:
        wire.send_frame(ctl, {"ready": True, "jail": jail.can_jail(), "pid": os.getpid()})
        _serve(ctl, own_pid_ns, children, templates)
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        _end_children(children)


def _exit_on_signal(_signum: int, _frame: object) -> None:
    raise SystemExit(0)


def _serve(
    ctl: socket.socket,
    own_pid_ns: int | None,
    children: dict[int, tuple[str, int | None]],
    templates: Any = None,
) -> None:
    """Fork one worker per spawn request until the trusted side goes away. `templates`: the
    model templates each worker inherits (`_preload`)."""
    while True:
        _reap(children)
        readable, _, _ = select.select([ctl], [], [], 0.5)
        if not readable:
            continue
        try:
            _msg, fds, _flags, _addr = socket.recv_fds(ctl, 1, 1)
            if not _msg:
                return
            header, _ = wire.recv_frame(ctl, _CTL_LIMITS)
        except (EOFError, OSError, wire.WireError):
            return
        if header.get("op") != "spawn" or len(fds) != 1:
            for fd in fds:
                os.close(fd)
            return
        _reap(children)  # free the uids of workers that ended since the last request
        workdir = tempfile.mkdtemp(prefix=f"{WORKDIR_PREFIX}{os.getpid()}-")
        direct, uid, uid_lock = False, 0, None
        if own_pid_ns is not None and header.get("jail") is True:
            uid, uid_lock = jail.claim_sandbox_uid(_int(header.get("slot")))
            try:
                jail.next_child_in_new_pid_namespace(own_pid_ns)
                direct = True
            except OSError:  # fall back to a supervisor, which unshares for itself
                jail.reset_pid_namespace_for_children(own_pid_ns)
                if uid_lock is not None:
                    os.close(uid_lock)
                uid_lock = None
        pid = os.fork()
        if pid == 0:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            ctl.close()
            for _workdir, other_lock in children.values():  # other workers' uid claims
                if other_lock is not None:
                    os.close(other_lock)
            try:
                if direct:
                    _jailed_worker(fds[0], workdir, uid, (uid_lock, own_pid_ns), templates)
                else:
                    _supervise(fds[0], workdir, templates)
            finally:
                os._exit(0)
        if direct:
            jail.reset_pid_namespace_for_children(own_pid_ns)
        children[pid] = (workdir, uid_lock)
        os.close(fds[0])
        wire.send_frame(ctl, {"pid": pid, "worker": direct})


def _end_children(children: dict[int, tuple[str, int | None]]) -> None:
    """Kill and reap every worker still running and remove its work folder."""
    for pid, (workdir, uid_lock) in list(children.items()):
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except OSError:
            pass
        shutil.rmtree(workdir, ignore_errors=True)
        if uid_lock is not None:
            os.close(uid_lock)
        del children[pid]


def reap_stale_workdirs(base: str | None = None) -> list[str]:
    """Remove the work folders of zygotes that are gone; returns the folders removed.

    A zygote names each worker's folder ``grader-sbx-<its pid>-<random>`` in `base` (the temp
    folder) and removes it when the worker ends or the zygote is closed; only a zygote that
    was killed (SIGKILL) leaves some behind. Only real folders (not links) owned by this user
    with that exact pattern are touched, and only when no process has that pid any more (a
    reused pid merely postpones the clean-up). shutil.rmtree does not follow links inside.
    """
    base = base or tempfile.gettempdir()
    removed = []
    try:
        names = os.listdir(base)
    except OSError:
        return removed
    for name in names:
        m = _WORKDIR_NAME.fullmatch(name)
        if m is None or _pid_exists(int(m.group(1))):
            continue
        path = os.path.join(base, name)
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid():
            continue
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    return removed


def _pid_exists(pid: int) -> bool:
    if pid <= 0:
        return True  # not a real owner: leave it alone
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError: someone else's process
        return True
    return not _is_zombie(pid)


def _is_zombie(pid: int) -> bool:
    """A killed zygote stays a zombie until init reaps it, which can take seconds: its
    folders are already orphaned then."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat_line = f.read(4096)
    except OSError:
        return False
    # "pid (comm) S ...": comm may hold spaces and parentheses, so split at the last ")"
    return stat_line[stat_line.rfind(b")") + 2 : stat_line.rfind(b")") + 3] == b"Z"


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _own_pid_namespace() -> int | None:
    """A descriptor of this process's PID namespace when workers can be forked straight into
    namespaces of their own (root on Linux), else None (workers then get a supervisor)."""
    if not jail.can_jail():
        return None
    try:
        fd = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        jail.next_child_in_new_pid_namespace(fd)
        jail.reset_pid_namespace_for_children(fd)
    except OSError:
        os.close(fd)
        return None
    return fd


def _reap(children: dict[int, tuple[str, int | None]] | None = None) -> None:
    """Collect finished children; for each, remove its work folder and free its sandbox uid.

    A jailed worker is PID 1 of its namespace: the kernel lets it be reaped only after every
    other process in that namespace is gone, so its uid is free again at that point.
    """
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        if children is not None and pid in children:
            workdir, uid_lock = children.pop(pid)
            shutil.rmtree(workdir, ignore_errors=True)
            if uid_lock is not None:
                os.close(uid_lock)


def _supervise(fd: int, workdir: str, templates: Any = None) -> None:
    """Runs in the supervisor: start the worker, report its pid, wait, clean up after it."""
    jail.prctl(jail.PR_SET_PDEATHSIG, signal.SIGKILL)
    jail.prctl(jail.PR_SET_CHILD_SUBREAPER, 1)
    sock = socket.socket(fileno=fd)
    setup = _read_setup(sock)
    if setup is None:
        return
    request, limits, sources = setup
    jailed = jail.can_jail() and not request.get("no_jail", False)
    uid = None
    if os.geteuid() == 0:
        uid, _uid_lock = jail.claim_sandbox_uid(_int(request.get("slot")))  # held until exit
    if jailed:
        jail.unshare_namespaces()
    go_r, go_w = os.pipe()
    wpid = os.fork()
    if wpid == 0:
        os.close(go_w)
        try:
            _report_setup_failure(
                sock,
                lambda: _run_worker(sock, go_r, workdir, jailed, limits, uid, sources, templates),
            )
        finally:
            os._exit(0)
    os.close(go_r)
    try:
        wire.send_frame(sock, {"op": "hello", "pid": wpid, "jailed": jailed})
    except OSError:
        pass
    os.close(go_w)
    sock.close()
    try:
        os.waitpid(wpid, 0)
    except ChildProcessError:
        pass
    _kill_descendants()


def _run_worker(sock, go_r, workdir, jailed, limits, uid, sources, templates) -> None:
    """The supervisor's worker: wait until our pid is announced, then confine and serve."""
    os.read(go_r, 1)  # wait until the supervisor has announced our pid
    os.close(go_r)
    _confine_and_serve(sock, workdir, jailed, limits, uid, sources, templates)


def _jailed_worker(
    fd: int, workdir: str, uid: int, close: tuple[int | None, ...], templates: Any = None
) -> None:
    """A worker forked straight from the zygote as PID 1 of a fresh PID namespace (root).

    The zygote holds its uid claim and reaps it, so no supervisor process is needed: the
    kernel kills everything left in the namespace when this process ends. The trusted side
    learned our pid from the zygote, so nothing needs to wait before confinement.
    """
    jail.prctl(jail.PR_SET_PDEATHSIG, signal.SIGKILL)
    for extra in close:
        if extra is not None:
            os.close(extra)
    sock = socket.socket(fileno=fd)
    setup = _read_setup(sock)
    if setup is None:
        return
    _request, limits, sources = setup

    def confine_and_serve() -> None:
        jail.unshare_all_but_pid()
        wire.send_frame(sock, {"op": "hello", "jailed": True})
        _confine_and_serve(sock, workdir, True, limits, uid, sources, templates)

    _report_setup_failure(sock, confine_and_serve)


def _read_setup(sock: socket.socket) -> tuple[dict, SandboxLimits, dict[str, str]] | None:
    """The trusted side's setup request for this worker (None if it never came)."""
    try:
        request, _ = wire.recv_frame(sock, _SETUP_LIMITS, time.monotonic() + _SETUP_TIMEOUT)
    except (EOFError, TimeoutError, OSError, wire.WireError):
        return None
    if request.get("op") != "setup":
        return None
    limits = SandboxLimits.from_dict(dict(request.get("limits") or {}))
    sources = {str(k): str(v) for k, v in dict(request.get("sources") or {}).items()}
    return request, limits, sources


def _report_setup_failure(sock: socket.socket, run: Callable[[], None]) -> None:
    """Run `run`; if confinement fails, tell the trusted side instead of dying silently."""
    try:
        run()
    except BaseException as exc:  # noqa: BLE001 - setup failed: tell the trusted side
        import traceback

        traceback.print_exc()  # visible with GRADER_DEBUG_SANDBOX=1 (before redirection)
        try:
            wire.send_frame(
                sock, {"op": "setup_failed", "error": f"{type(exc).__name__}: {exc}"[:500]}
            )
        except BaseException:  # noqa: BLE001
            pass


def _confine_and_serve(sock, workdir, jailed, limits, uid, sources, templates=None) -> None:
    """Confine this process, then serve calls. No student code runs before `serve`."""
    jail.prefer_for_oom_killer()
    if jailed:
        jail.enter_jail(workdir, limits, uid, sources)
    else:
        os.setsid()
        jail.enter_basic(os.path.join(workdir, "scratch"), sources, uid)
    jail.prctl(jail.PR_SET_PDEATHSIG, signal.SIGKILL)  # credentials changed: set it again
    jail.close_inherited_fds({sock.fileno()})
    jail.apply_limits(limits, jail.address_space_in_use())
    if not limits.may_fork:
        seccomp.block_process_creation()
    from grader.sandbox.worker import serve

    wire.send_frame(sock, {"op": "ready"})
    serve(
        sock,
        os.getcwd(),
        set(sources),
        max_result_bytes=limits.max_result_mb * 1024 * 1024,
        namespace_init=jailed,
        templates=templates,
    )


def _kill_descendants() -> None:
    """SIGKILL every process reparented to this (subreaper) supervisor, until none is left."""
    me = os.getpid()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        children = _children_of(me)
        if not children:
            break
        for pid in children:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        _reap()
        time.sleep(0.01)
    _reap()


def process_parents() -> dict[int, int]:
    """pid -> parent pid of every process visible in /proc (vanished ones skipped)."""
    parents = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 1:
            parents[int(entry)] = int(fields[1])
    return parents


def _children_of(ppid: int) -> list[int]:
    return [pid for pid, parent in process_parents().items() if parent == ppid]
