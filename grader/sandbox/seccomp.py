"""A seccomp filter that stops a worker from starting processes (threads stay allowed) and
from using the kernel facilities no namespace of the jail confines.

Student code has no reason to fork, and a fork bomb was the most expensive thing a submission
could do to a batch (every copy of the torch-sized worker costs page tables and teardown, and
strays had to be hunted down after each call). With the filter, ``fork``, ``vfork`` and
``clone`` without ``CLONE_THREAD`` fail at once with EPERM (Python raises PermissionError),
``clone3`` reports ENOSYS so that the C library falls back to ``clone`` for threads, and any
system call made through a foreign ABI (32-bit ``int 0x80`` or x32 on x86_64) fails with
EPERM, so the filter cannot be sidestepped through another system call table. Sockets other
than Unix ones fail with EAFNOSUPPORT (vsock and netlink are not confined by the empty network
namespace), and the kernel keyring (``add_key``, ``request_key``, ``keyctl``: keys outlive the
worker), ``ptrace``, ``process_vm_readv``/``writev``, ``bpf``, ``perf_event_open``,
``userfaultfd`` and ``io_uring`` fail with EPERM, and so do the calls that change scheduling
(``sched_setaffinity``, ``sched_setscheduler``, ``sched_setparam``, ``sched_setattr``,
``setpriority``, ``ioprio_set``): a worker stays on the CPU its batch slot was pinned to.

Installed by the worker on itself after its other confinement and before any student code
runs, with ``SECCOMP_FILTER_FLAG_TSYNC`` so that every thread is covered; filters are
inherited and can never be removed. Linux on x86_64 and aarch64 only; elsewhere
`block_process_creation` returns False and the other defences (RLIMIT_NPROC, the PID
namespace, `worker._cut_off_children`, `worker._kill_strays`) are what remains.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import platform
import sys

# struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6]
_NR, _ARCH, _ARG0_LOW = 0, 4, 16  # args[0] low word (both architectures are little-endian)

_BPF_LD_W_ABS = 0x00 | 0x00 | 0x20
_BPF_JEQ_K = 0x05 | 0x10 | 0x00
_BPF_JGE_K = 0x05 | 0x30 | 0x00
_BPF_JSET_K = 0x05 | 0x40 | 0x00
_BPF_RET_K = 0x06 | 0x00

_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000
_SET_MODE_FILTER = 1
_FLAG_TSYNC = 1
_PR_SET_NO_NEW_PRIVS = 38
_CLONE_THREAD = 0x00010000
_X32_BIT = 0x40000000

_AF_UNIX = 1

# machine -> (AUDIT_ARCH_*, seccomp syscall number, {name: number} of the calls filtered)
_TABLES: dict[str, tuple[int, int, dict[str, int]]] = {
    "x86_64": (0xC000003E, 317, {
        "clone": 56, "fork": 57, "vfork": 58, "clone3": 435, "socket": 41, "socketpair": 53,
        "ptrace": 101, "add_key": 248, "request_key": 249, "keyctl": 250,
        "perf_event_open": 298, "process_vm_readv": 310, "process_vm_writev": 311, "bpf": 321,
        "userfaultfd": 323, "io_uring_setup": 425, "io_uring_enter": 426,
        "io_uring_register": 427, "setpriority": 141, "sched_setparam": 142,
        "sched_setscheduler": 144, "sched_setaffinity": 203, "ioprio_set": 251,
        "sched_setattr": 314,
    }),
    "aarch64": (0xC00000B7, 277, {
        "clone": 220, "clone3": 435, "socket": 198, "socketpair": 199, "ptrace": 117,
        "add_key": 217, "request_key": 218, "keyctl": 219, "perf_event_open": 241,
        "process_vm_readv": 270, "process_vm_writev": 271, "bpf": 280, "userfaultfd": 282,
        "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
        "ioprio_set": 30, "sched_setparam": 118, "sched_setscheduler": 119,
        "sched_setaffinity": 122, "setpriority": 140, "sched_setattr": 274,
    }),
}  # fmt: skip
# Refused outright (EPERM), besides fork and vfork: kernel facilities that no namespace of the
# jail isolates, or that reach into other processes or the kernel. The kernel keyring is the
# worst: a key added with add_key outlives the worker and the next submission under the same
# sandbox uid could read it. The scheduling calls come last (rare, so the common calls are
# decided a few instructions sooner): a batch pins each grading slot to one CPU, and a worker
# that widened its affinity could spin threads on the CPUs of classmates graded in parallel.
# An unprivileged worker can only lower its own priority (its RLIMIT_NICE and RLIMIT_RTPRIO
# are 0), but where the grader's user has real-time rights (basic mode) SCHED_FIFO would starve a
# CPU, and none of these has a use in student code.
_DENIED = (
    "fork", "vfork", "ptrace", "add_key", "request_key", "keyctl", "perf_event_open",
    "process_vm_readv", "process_vm_writev", "bpf", "userfaultfd", "io_uring_setup",
    "io_uring_enter", "io_uring_register", "sched_setaffinity", "sched_setscheduler",
    "sched_setparam", "sched_setattr", "setpriority", "ioprio_set",
)  # fmt: skip


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte),
                ("k", ctypes.c_uint32)]  # fmt: skip


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


def filter_program(machine: str) -> list[tuple[int, int, int, int]]:
    """The BPF program, as (code, jt, jf, k) tuples, for `machine` (``platform.machine()``).

    Raises KeyError for an architecture without a table."""
    arch, _, calls = _TABLES[machine]
    deny = _ERRNO | errno.EPERM
    prog: list[tuple[int, int, int, int]] = []

    def ret(value: int) -> None:
        prog.append((_BPF_RET_K, 0, 0, value))

    prog.append((_BPF_LD_W_ABS, 0, 0, _ARCH))
    prog.append((_BPF_JEQ_K, 1, 0, arch))  # native ABI: go on; anything else: refused
    ret(deny)
    prog.append((_BPF_LD_W_ABS, 0, 0, _NR))
    if machine == "x86_64":
        prog.append((_BPF_JGE_K, 0, 1, _X32_BIT))  # x32 system calls: refused
        ret(deny)
    # Each rule: "if nr == N: <action>" as a jump over the action when it does not match.
    prog.append((_BPF_JEQ_K, 0, 4, calls["clone"]))
    prog.append((_BPF_LD_W_ABS, 0, 0, _ARG0_LOW))  # clone flags
    prog.append((_BPF_JSET_K, 1, 0, _CLONE_THREAD))
    ret(deny)  # a new process
    ret(_ALLOW)  # a new thread
    prog.append((_BPF_JEQ_K, 0, 1, calls["clone3"]))
    ret(_ERRNO | errno.ENOSYS)  # flags live in memory BPF cannot read: make libc use clone
    for name in ("socket", "socketpair"):
        # Only Unix sockets: the network namespace is empty, but vsock, netlink and the
        # like are not confined by it.
        prog.append((_BPF_JEQ_K, 0, 4, calls[name]))
        prog.append((_BPF_LD_W_ABS, 0, 0, _ARG0_LOW))  # the address family
        prog.append((_BPF_JEQ_K, 0, 1, _AF_UNIX))
        ret(_ALLOW)
        ret(_ERRNO | errno.EAFNOSUPPORT)
    for name in _DENIED:
        if name in calls:
            prog.append((_BPF_JEQ_K, 0, 1, calls[name]))
            ret(deny)
    ret(_ALLOW)
    return prog


@functools.cache
def _compiled(machine: str) -> _SockFprog:
    """The program as the kernel takes it; built once (in the zygote, before it forks)."""
    program = filter_program(machine)
    filters = (_SockFilter * len(program))(*(_SockFilter(*op) for op in program))
    return _SockFprog(len(program), filters)  # ctypes keeps `filters` alive with it


def prepare() -> None:
    """Build this machine's filter now, in a process that will fork many workers."""
    if sys.platform.startswith("linux") and platform.machine() in _TABLES:
        _compiled(platform.machine())


def block_process_creation() -> bool:
    """Install the filter on this process (all its threads). True when it is in force.

    Sets no_new_privs first (required for an unprivileged filter; the jail sets it anyway).
    Never raises: on an unsupported system it returns False and changes nothing.
    """
    machine = platform.machine()
    if not sys.platform.startswith("linux") or machine not in _TABLES:
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return False
    fprog = _compiled(machine)
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return False
    nr = _TABLES[machine][1]
    libc.syscall.restype = ctypes.c_long
    done = libc.syscall(ctypes.c_long(nr), ctypes.c_long(_SET_MODE_FILTER),
                        ctypes.c_long(_FLAG_TSYNC), ctypes.byref(fprog))  # fmt: skip
    return done == 0
