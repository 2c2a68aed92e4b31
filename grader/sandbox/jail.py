"""Confine the current (freshly forked) process before it runs student code. Linux only.

Two modes, chosen by what the OS allows:

* **jail** (started as root): new mount, PID, network, IPC and UTS namespaces; a tmpfs root
  holding read-only bind mounts of only what Python and torch need (the interpreter's library
  folders, the system libraries, the `exercises` package and `grader/sandbox`), with the
  grader package, the solutions and the project folder covered by an empty tmpfs wherever a
  needed mount would show them (`plan_mounts`); no hidden tests, no solutions, no other
  submissions, no grader outputs, no /tmp of the host; an empty network namespace; a scratch
  tmpfs (which /tmp is part of); then a drop to an unprivileged uid that no other live worker
  holds (`claim_sandbox_uid`) with `no_new_privs`. The worker is PID 1 of its namespace, so
  killing it kills every process the student started.
* **basic** (no root): a new session, resource limits, a private scratch folder, an import
  blocker for the grader's secrets (not a security boundary), `no_new_privs`; as root with the
  jail switched off it still drops to a sandbox uid. Documented as weaker in docs/security.md.

Both modes apply the rlimits of `SandboxLimits`, a scrubbed environment, /dev/null for the
standard streams, no inherited descriptors, and make the worker the OOM killer's first choice.
"""

from __future__ import annotations

import ctypes
import functools
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
SANDBOX_UID_COUNT = 1000  # sandbox uids are 61000-61999
SCRATCH = "/scratch"
SAFE_ENV = {
    "PATH": "/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "HOME": SCRATCH,
    "TMPDIR": SCRATCH + "/.tmp",
    "OMP_NUM_THREADS": "1",
}

_libc = ctypes.CDLL(None, use_errno=True)


def _check(ret: int, what: str) -> None:
    if ret != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def prctl(option: int, arg: int) -> None:
    """`prctl(option, arg)`; OSError with errno on failure."""
    _check(_libc.prctl(option, arg, 0, 0, 0), "prctl")


def can_jail() -> bool:
    """True when this process may create namespaces (root on Linux)."""
    return sys.platform.startswith("linux") and os.geteuid() == 0


def unshare_namespaces() -> None:
    """Called in the supervisor before it forks the worker (which becomes PID 1)."""
    flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS
    _check(_libc.unshare(flags), "unshare")


def next_child_in_new_pid_namespace(own_pid_ns_fd: int) -> None:
    """Make this process's next child PID 1 of a fresh PID namespace; callable repeatedly.

    ``unshare(CLONE_NEWPID)`` works once: afterwards the namespace for children differs from
    the caller's own and a second unshare fails with EINVAL. Joining our own namespace again
    (`reset_pid_namespace_for_children`, on a descriptor of it opened at start) undoes that,
    so a long-lived forker can give every child a namespace of its own without a go-between
    process. Call the reset right after the fork, so no later child lands in this namespace.
    """
    reset_pid_namespace_for_children(own_pid_ns_fd)
    _check(_libc.unshare(CLONE_NEWPID), "unshare")


def reset_pid_namespace_for_children(own_pid_ns_fd: int) -> None:
    """Children forked from now on are in this process's own PID namespace again."""
    _check(_libc.setns(own_pid_ns_fd, CLONE_NEWPID), "setns")


def unshare_all_but_pid() -> None:
    """In a child that is already PID 1 of its namespace: the mount, net, IPC and UTS ones."""
    _check(_libc.unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS), "unshare")


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


def _python_paths() -> set[str]:
    """The interpreter's library directories: standard library, lib-dynload, site-packages.

    Deliberately *not* every sys.path entry: a project root on sys.path (pytest's rootdir, a
    legacy editable install, a directory that merely has "python3" in its name) would expose
    the solutions and hidden tests.
    """
    import site
    import sysconfig

    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    paths: set[str] = set()
    for prefix in prefixes:
        for lib in ("lib", "lib64"):
            paths.add(os.path.join(prefix, lib))
    for scheme_vars in (None, {"base": sys.base_prefix, "platbase": sys.base_exec_prefix}):
        found = sysconfig.get_paths(vars=scheme_vars) if scheme_vars else sysconfig.get_paths()
        for key in ("stdlib", "platstdlib", "purelib", "platlib"):
            if found.get(key):
                paths.add(found[key])
    try:
        paths.update(site.getsitepackages())
    except AttributeError:  # some embedded interpreters
        pass
    roots = [os.path.join(p, "lib") for p in prefixes]
    for entry in sys.path:
        if not entry or not os.path.isabs(entry):
            continue
        if "site-packages" in entry or "dist-packages" in entry or _is_within(entry, roots):
            paths.add(entry)
    return {p for p in paths if os.path.exists(p)}


def _is_within(path: str, roots: list[str] | set[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


def _spellings(paths: set[str]) -> set[str]:
    """Each path as written and with symlinks resolved (the jail needs both to exist)."""
    out = set()
    for p in paths:
        if os.path.lexists(p):
            out.add(os.path.abspath(p))
            out.add(os.path.realpath(p))
    return out


def _needed_paths() -> list[str]:
    """Everything the interpreter may still read after the jail closes."""
    import exercises
    import grader.sandbox

    sandbox_dir = os.path.dirname(grader.sandbox.__file__)
    paths = {
        "/usr",
        "/lib",
        "/lib64",
        "/bin",
        "/etc/ld.so.cache",
        "/etc/localtime",
        list(exercises.__path__)[0],
        sandbox_dir,
        os.path.join(os.path.dirname(sandbox_dir), "__init__.py"),
    }
    paths |= _python_paths()
    return sorted(_spellings(paths))


def _secret_paths() -> list[str]:
    """What must stay invisible even where a needed directory contains it.

    The grader package (hidden tests, rubric; only grader/__init__.py and grader/sandbox/ are
    re-exposed), the reference solutions, and the project folder holding them when the
    project is not installed into site-packages (e.g. a repository under /usr/src/app, which
    the /usr mount would otherwise show whole).
    """
    import importlib.util

    import grader.sandbox

    grader_dir = os.path.dirname(os.path.dirname(grader.sandbox.__file__))
    secret = {grader_dir}
    try:
        spec = importlib.util.find_spec("solutions")
    except (ImportError, ValueError):
        spec = None
    if spec is not None:
        secret.update(spec.submodule_search_locations or [])
        if spec.origin and not spec.submodule_search_locations:
            secret.add(spec.origin)
    python = _spellings(_python_paths())
    for pkg in list(secret):
        project = os.path.dirname(pkg)
        if project not in python and project != "/":
            secret.add(project)
    return sorted(_spellings(secret))


@functools.lru_cache(maxsize=1)
def jail_plan() -> tuple[tuple[str, str], ...]:
    """The mount plan for this interpreter and checkout. Fixed for the life of a process, so
    the zygote computes it once and every forked worker inherits it."""
    return tuple(plan_mounts(_needed_paths(), _secret_paths()))


def plan_mounts(expose: list[str], hide: list[str]) -> list[tuple[str, str]]:
    """The ordered mount operations that build the jail's file tree. Pure; unit-tested.

    Returns ``("bind", path)`` (read-only bind of the host path), ``("empty", path)`` (an
    empty read-only tmpfs over it) and ``("link", path)`` (recreate a symlink) steps such that
    every `expose` path is visible, nothing under a `hide` path is visible except the `expose`
    paths below it, and nothing else is. Parents come before children. A path both exposed
    and hidden stays hidden.
    """
    hide_set = set(hide)
    expose_set = set(expose) - hide_set
    ops: list[tuple[str, str]] = []
    # state of each mount point: True = host contents visible below, False = empty
    mounts: dict[str, bool] = {}

    def visible(path: str) -> bool:
        best, state = "", False
        for m, st in mounts.items():
            if (path == m or path.startswith(m.rstrip("/") + "/")) and len(m) > len(best):
                best, state = m, st
        return state

    for path in sorted(expose_set | hide_set, key=lambda p: (p.count("/"), p)):
        if path in hide_set:
            if visible(path):
                ops.append(("empty", path))
                mounts[path] = False
        elif not visible(path):
            if os.path.islink(path):
                ops.append(("link", path))
            else:
                ops.append(("bind", path))
                mounts[path] = True
    return ops


def claim_sandbox_uid(slot: int) -> tuple[int, int | None]:
    """A sandbox uid no other live worker on this machine uses, and the lock that holds it.

    Two workers sharing a uid would share RLIMIT_NPROC (one's fork bomb would starve the
    other of threads) - this happens with several grader processes on one machine, or several
    parts of one submission. So each supervisor (root) takes an exclusive flock on
    ``<lockdir>/uid-N`` for the first free N from ``61000 + slot`` on, and keeps it until its
    worker and everything the worker started are dead. Returns ``(uid, lock_fd)``; without a
    usable lock folder it falls back to ``61000 + slot`` and ``None``.
    """
    import fcntl
    import stat
    import tempfile

    preferred = SANDBOX_UID_BASE + (slot % SANDBOX_UID_COUNT)
    base = "/run" if os.path.isdir("/run") else tempfile.gettempdir()
    lockdir = os.path.join(base, "grader-sandbox-uids")
    try:
        os.makedirs(lockdir, mode=0o700, exist_ok=True)
        st = os.lstat(lockdir)
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != 0 or st.st_mode & 0o077:
            return preferred, None  # not ours: do not trust it
    except OSError:
        return preferred, None
    for i in range(SANDBOX_UID_COUNT):
        uid = SANDBOX_UID_BASE + (preferred - SANDBOX_UID_BASE + i) % SANDBOX_UID_COUNT
        try:
            fd = os.open(
                os.path.join(lockdir, f"uid-{uid}"),
                os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC,
                0o600,
            )
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return uid, fd
        except OSError:
            os.close(fd)
    return preferred, None


def enter_jail(root: str, limits: SandboxLimits, uid: int, sources: dict[str, str]) -> str:
    """Build the jail under `root` (an empty host directory) and enter it as `uid`.

    Returns the scratch folder (the working directory)."""
    _mount(None, "/", None, MS_REC | MS_PRIVATE, None)
    _mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=4m,mode=755")
    empties: list[str] = []
    plan = jail_plan()
    for op, path in plan:
        inside = root + path
        if op == "link":
            # Recreate the link; its target is in the list too (both spellings are added).
            os.makedirs(os.path.dirname(inside), exist_ok=True)
            if not os.path.lexists(inside):
                os.symlink(os.readlink(path), inside)
            continue
        if os.path.isdir(path):
            os.makedirs(inside, exist_ok=True)
        else:
            os.makedirs(os.path.dirname(inside), exist_ok=True)
            if not os.path.exists(inside):
                Path(inside).touch()
        if op == "empty":
            kind = "dir" if os.path.isdir(path) else "file"
            if kind == "dir":
                _mount("tmpfs", inside, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=755")
                empties.append(inside)
            else:
                _mount("/dev/null", inside, None, MS_BIND, None)
            continue
        _mount(path, inside, None, MS_BIND | MS_REC, None)
        _mount(None, inside, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, None)
    for inside in empties:  # read-only once every exposed path below has its mount point
        _mount(None, inside, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, "size=64k")
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
    # /tmp is a folder of the scratch tmpfs, so everything the student writes shares one cap
    # (TMPDIR points there too). When the grader itself is installed under /tmp (a checkout in
    # a temporary folder, as CI may do), covering /tmp would hide the binds made above: then
    # /tmp stays the read-only jail folder and only TMPDIR is writable.
    os.makedirs(root + SCRATCH + "/.tmp", exist_ok=True)
    if not any(path == "/tmp" or path.startswith("/tmp/") for _op, path in plan):
        os.makedirs(root + "/tmp", exist_ok=True)
        _mount(root + SCRATCH + "/.tmp", root + "/tmp", None, MS_BIND, None)
    _write_sources(root + SCRATCH, sources)
    for dirpath, _dirs, files in os.walk(root + SCRATCH):
        os.chown(dirpath, uid, uid)
        for f in files:
            os.chown(os.path.join(dirpath, f), uid, uid)
    # The jail root itself read-only: the student may write only to /scratch (and /tmp).
    _mount(None, root, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, "size=4m,mode=755")
    os.chroot(root)
    os.chdir(SCRATCH)
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    prctl(PR_SET_NO_NEW_PRIVS, 1)
    return SCRATCH


def enter_basic(scratch: str, sources: dict[str, str], uid: int | None = None) -> str:
    """The no-namespace fallback: a private scratch folder in the host's file system.

    Without root this is all there is (see docs/security.md for what it does not stop). As
    root with the jail switched off (``GradeOptions(jail=False)``, e.g. for benchmarks) the
    worker still drops to the sandbox `uid`, so student code never runs as root.
    """
    os.makedirs(scratch, mode=0o700, exist_ok=True)
    _write_sources(scratch, sources)
    os.chdir(scratch)
    if uid is not None and os.geteuid() == 0:
        os.chmod(os.path.dirname(scratch), 0o711)  # the uid may pass through, not list
        for dirpath, _dirs, files in os.walk(scratch):
            os.chown(dirpath, uid, uid)
            for f in files:
                os.chown(os.path.join(dirpath, f), uid, uid)
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    prctl(PR_SET_NO_NEW_PRIVS, 1)
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
        # no raising of its own priority, no real-time scheduling, whatever the user may do
        (resource.RLIMIT_NICE, 0),
        (resource.RLIMIT_RTPRIO, 0),
    ):
        _soft, hard = resource.getrlimit(res)
        # For CPU the soft limit sends SIGXCPU and the hard one, 2 s later, SIGKILL.
        want_hard = value + 2 if res == resource.RLIMIT_CPU else value
        if hard != resource.RLIM_INFINITY:
            want_hard = min(want_hard, hard)
        resource.setrlimit(res, (min(value, want_hard), want_hard))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a too-large write fails instead of killing
    # Nobody reads what the student prints, so it goes nowhere: a flood costs only CPU time
    # (bounded by the call timeout), fills no disk, and fake "protocol frames" or fake pytest
    # output written to stdout reach no reader.
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)
    os.environ.clear()
    os.environ.update(SAFE_ENV)
    os.environ["HOME"] = os.getcwd()
    tmp = os.path.join(os.getcwd(), ".tmp")
    os.environ["TMPDIR"] = tmp if os.path.isdir(tmp) else os.getcwd()


def close_inherited_fds(keep: set[int]) -> None:
    """Close every inherited descriptor to a file, directory or socket except `keep`.

    A directory descriptor from outside the jail would let the student escape the chroot
    (``os.fchdir``), another socket would be a channel out; pipes and event descriptors of
    the runtime are left alone.
    """
    import stat

    try:
        fds = [int(x) for x in os.listdir("/proc/self/fd")]
    except OSError:
        fds = list(range(3, 256))
    for fd in fds:
        if fd in keep or fd < 3:
            continue
        try:
            mode = os.fstat(fd).st_mode
        except OSError:
            continue
        if stat.S_ISDIR(mode) or stat.S_ISREG(mode) or stat.S_ISSOCK(mode):
            try:
                os.close(fd)
            except OSError:
                pass


def prefer_for_oom_killer() -> None:
    """Make this process (and what it forks) the kernel OOM killer's first choice.

    rlimits bound each process, not their sum, so a submission running many processes can
    still press the machine's memory; then the OOM killer should end the student's code,
    never the grader. Raising one's own score needs no privilege.
    """
    try:
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write("1000")
    except OSError:
        pass


def address_space_in_use() -> int:
    """Current virtual memory size of this process, in bytes."""
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[0])
        return pages * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return 0
