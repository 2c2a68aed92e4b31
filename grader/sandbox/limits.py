"""Resource limits for one sandboxed worker (plain data, shared by both sides)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any


@dataclass(frozen=True)
class SandboxLimits:
    """What one submission's worker may use.

    call_timeout: wall-clock seconds for one function call (or one module import).
    submission_timeout: wall-clock seconds for all the calls of one submission together; each
        part handed in gets an equal share of it, so a slow part cannot spend the others' time.
    cpu_seconds: CPU time of one worker process (RLIMIT_CPU; the kernel kills past it).
    memory_mb: address space the worker may add on top of the pre-loaded interpreter.
    max_processes: processes/threads the sandbox user may run (RLIMIT_NPROC, with a drop to an
        unprivileged user) - fork bombs stop here.
    max_file_mb: largest file the worker may write (RLIMIT_FSIZE), also caps its output log.
    max_open_files: RLIMIT_NOFILE.
    max_result_mb: largest frame the trusted side accepts from the worker.
    scratch_mb: size of the scratch tmpfs (jail mode only).
    drill_timeout: wall-clock seconds for the rerun of Exercise 3's reproduction command (its
        own worker and its own budget, on top of `submission_timeout`).
    may_fork: whether student code may start processes (fork, subprocess, multiprocessing).
        Off: a seccomp filter makes process creation fail with PermissionError at once
        (Linux x86_64/aarch64; see `grader.sandbox.seccomp`); threads stay allowed.
    """

    call_timeout: float = 10.0
    submission_timeout: float = 90.0
    cpu_seconds: int = 120
    memory_mb: int = 2048
    max_processes: int = 16
    max_file_mb: int = 8
    max_open_files: int = 64
    max_result_mb: int = 64
    scratch_mb: int = 32
    drill_timeout: float = 30.0
    may_fork: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> SandboxLimits:
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in names})
