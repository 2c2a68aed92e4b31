"""Confine the current (freshly forked) process before it runs student code. Linux only.

Two modes, chosen by what the OS allows:

* **jail** (started as root): new mount, PID, network, IPC and UTS namespaces; a tmpfs root
  holding read-only bind mounts of only what Python and torch need (the interpreter, its
  standard library, site-packages, the system libraries, the `exercises` package and
  `grader/sandbox`); no hidden tests, no solutions, no other submissions, no grader outputs,
  no /tmp of the host; an empty network namespace; a scratch tmpfs; then a drop to an
  unprivileged uid with `no_new_privs`. The worker is PID 1 of its namespace, so killing it
  kills every process the student started.
* **basic** (no root): a new session, resource limits, a private scratch folder, an import
  blocker for the grader's secrets. Documented as weaker in docs/security.md.

Both modes apply the rlimits of `SandboxLimits` and a scrubbed environment.
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import sys
from pathlib import Path

from grader.sandbox.limits import SandboxLimits

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 1, 36, 38

SANDBOX_UID_BASE = 61000
SCRATCH = "/scratch"
SAFE_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": SCRATCH, "OMP_NUM_THREADS": "1"}

_libc = ctypes.CDLL(None, use_errno=True)


def _check(ret: int, what: str) -> None:
    if ret != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def prctl(option: int, arg: int) -> None:
    _check(_libc.prctl(option, arg, 0, 0, 0), "prctl")


def can_jail() -> bool:
    """True when this process may create namespaces (root on Linux)."""
    return sys.platform.startswith("linux") and os.geteuid() == 0


def unshare_namespaces() -> None:
    """Called in the supervisor before it forks the worker (which becomes PID 1)."""
    flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS
    _check(_libc.unshare(flags), "unshare")


def _mount(src: str | None, target: str, fstype: str | None, flags: int, data: str | None) -> None:
    _check(
        _libc.mount(
            None if src is None else src.encode(),
            target.encode(),
            None if fstype is None else fstype.encode(),
            ctypes.c_ulong(flags),
            None if data is None else data.encode(),
        ),
        f"mount {target}",
    )


def _needed_paths() -> list[str]:
    """Everything the interpreter may still read after the jail closes."""
    import exercises
    import grader.sandbox

    paths = {
        sys.base_prefix,
        sys.prefix,
        "/usr",
        "/lib",
        "/lib64",
        "/bin",
        "/etc/ld.so.cache",
        "/etc/localtime",
        list(exercises.__path__)[0],
        os.path.dirname(grader.sandbox.__file__),
        os.path.join(os.path.dirname(os.path.dirname(grader.sandbox.__file__)), "__init__.py"),
    }
    for entry in sys.path:
        # Only interpreter and site-packages directories: a project root on sys.path (pytest's
        # rootdir, say) would expose the solutions and hidden tests.
        if entry and os.path.isdir(entry) and ("site-packages" in entry or "python3" in entry):
            paths.add(entry)
    real = set()
    for p in paths:
        if os.path.exists(p):
            real.add(os.path.realpath(p))
            real.add(os.path.abspath(p))
    return sorted(real)


def enter_jail(root: str, limits: SandboxLimits, slot: int, sources: dict[str, str]) -> str:
    """Build the jail under `root` (an empty host directory) and enter it. Returns the scratch."""
    _mount(None, "/", None, MS_REC | MS_PRIVATE, None)
    _mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=4m,mode=755")
    mounted: list[str] = []
    for path in _needed_paths():
        if any(path == m or path.startswith(m + "/") for m in mounted):
            continue  # already visible through an ancestor's mount
        inside = root + path
        if os.path.islink(path):
            # Recreate the link; its target is in the list too (both spellings are added).
            os.makedirs(os.path.dirname(inside), exist_ok=True)
            if not os.path.lexists(inside):
                os.symlink(os.readlink(path), inside)
            continue
        if os.path.isdir(path):
            os.makedirs(inside, exist_ok=True)
        else:
            os.makedirs(os.path.dirname(inside), exist_ok=True)
            Path(inside).touch()
        _mount(path, inside, None, MS_BIND | MS_REC, None)
        _mount(None, inside, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, None)
        mounted.append(path)
    os.makedirs(root + "/dev", exist_ok=True)
    for dev in ("null", "zero", "urandom", "random"):
        Path(root + "/dev/" + dev).touch()
        _mount("/dev/" + dev, root + "/dev/" + dev, None, MS_BIND, None)
    os.makedirs(root + "/proc", exist_ok=True)
    _mount("proc", root + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None)
    os.makedirs(root + SCRATCH, exist_ok=True)
    _mount(
        "tmpfs",
        root + SCRATCH,
        "tmpfs",
        MS_NOSUID | MS_NODEV,
        f"size={limits.scratch_mb}m,mode=700",
    )
    os.makedirs(root + "/tmp", exist_ok=True)
    os.chmod(root + "/tmp", 0o1777)
    uid = SANDBOX_UID_BASE + slot
    _write_sources(root + SCRATCH, sources)
    for dirpath, _dirs, files in os.walk(root + SCRATCH):
        os.chown(dirpath, uid, uid)
        for f in files:
            os.chown(os.path.join(dirpath, f), uid, uid)
    os.chroot(root)
    os.chdir(SCRATCH)
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    prctl(PR_SET_NO_NEW_PRIVS, 1)
    return SCRATCH


def enter_basic(scratch: str, sources: dict[str, str]) -> str:
    """The no-root fallback: a private scratch folder in the host's file system."""
    os.makedirs(scratch, mode=0o700, exist_ok=True)
    _write_sources(scratch, sources)
    os.chdir(scratch)
    return scratch


def _write_sources(directory: str, sources: dict[str, str]) -> None:
    for name, text in sources.items():
        with open(os.path.join(directory, f"{name}.py"), "w", encoding="utf-8") as f:
            f.write(text)


def apply_limits(limits: SandboxLimits, base_address_space: int) -> None:
    """rlimits, output redirection and a clean environment for the worker itself."""
    mb = 1024 * 1024
    as_limit = base_address_space + limits.memory_mb * mb
    for res, value in (
        (resource.RLIMIT_AS, as_limit),
        (resource.RLIMIT_CPU, limits.cpu_seconds),
        (resource.RLIMIT_FSIZE, limits.max_file_mb * mb),
        (resource.RLIMIT_NOFILE, limits.max_open_files),
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_NPROC, limits.max_processes),
    ):
        _soft, hard = resource.getrlimit(res)
        # For CPU the soft limit sends SIGXCPU and the hard one, 2 s later, SIGKILL.
        want_hard = value + 2 if res == resource.RLIMIT_CPU else value
        if hard != resource.RLIM_INFINITY:
            want_hard = min(want_hard, hard)
        resource.setrlimit(res, (min(value, want_hard), want_hard))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a too-large write fails instead of killing
    log = os.open("output.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.environ.clear()
    os.environ.update(SAFE_ENV)
    os.environ["HOME"] = os.getcwd()


def address_space_in_use() -> int:
    """Current virtual memory size of this process, in bytes."""
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[0])
        return pages * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return 0
