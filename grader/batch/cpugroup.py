"""One CPU cgroup per grading slot, where the kernel lets the batch make one.

A slot (a pool worker, its zygote and every sandbox worker it forks) is pinned to one CPU, and
the seccomp filter keeps sandbox workers there. Pinning alone is not enough: the scheduler
weighs every runnable thread alike, so a submission spinning 15 threads on its own CPU makes
that CPU look 15 times busier than the others, and the load balancer moves every unpinned
process of the machine onto the CPUs of the classmates graded beside it (and, with more slots
than CPUs, the burner takes 15/16 of a shared CPU). In its own cgroup a slot weighs the same
however many threads it runs, so a burner competes only with its own grading.

cgroup v1 (a `cpu` hierarchy) or v2 (`cpu` enabled for the batch's cgroup's children); as
root, or wherever the batch's cgroup is delegated to its user. Anywhere else every function
here does nothing: the slots are then only pinned.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

PREFIX = "grader-batch-"


def _base() -> Path | None:
    """The folder of this process's own cpu cgroup, or None."""
    try:
        with open("/proc/self/cgroup", encoding="utf-8") as f:
            lines = f.read().splitlines()
        with open("/proc/self/mounts", encoding="utf-8") as f:
            mounts = [line.split() for line in f]
    except OSError:
        return None
    v1 = {
        ctrl: path
        for _, ctrls, path in (line.split(":", 2) for line in lines if line.count(":") >= 2)
        for ctrl in ctrls.split(",")
        if ctrl
    }
    for m in mounts:
        if len(m) >= 4 and m[2] == "cgroup" and "cpu" in m[3].split(",") and "cpu" in v1:
            return Path(m[1] + v1["cpu"])
    unified = next((line.split(":", 2)[2] for line in lines if line.startswith("0::")), None)
    for m in mounts:
        if len(m) >= 3 and m[2] == "cgroup2" and unified is not None:
            base = Path(m[1] + unified)
            try:
                if "cpu" in (base / "cgroup.subtree_control").read_text().split():
                    return base
            except OSError:
                return None
    return None


def create(index: int) -> str | None:
    """A fresh cgroup for slot `index` of this batch process; None when none can be made."""
    base = _base()
    if base is None:
        return None
    _remove_stale(base)
    group = base / f"{PREFIX}{os.getpid()}-{index}"
    try:
        group.mkdir(exist_ok=True)
    except OSError:
        return None
    if not (group / "cgroup.procs").is_file():
        remove(str(group))
        return None
    return str(group)


def _remove_stale(base: Path) -> None:
    """Remove the empty groups of batches that were killed (SIGKILL skips their clean-up)."""
    try:
        names = [e.name for e in os.scandir(base) if e.name.startswith(PREFIX)]
    except OSError:
        return
    for name in names:
        pid = name[len(PREFIX) :].split("-", 1)[0]
        if pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
            with contextlib.suppress(OSError):
                os.rmdir(base / name)  # fails while a process is still in it


def available() -> bool:
    """Whether this process can give its slots CPU cgroups (makes and removes one)."""
    group = create(-1)
    remove(group)
    return group is not None


def join(group: str | None, pid: int = 0) -> bool:
    """Move process `pid` (0: this one) with all its threads into `group`; later children are
    born in it. False when it could not be moved (it then stays where it was)."""
    if group is None:
        return False
    try:
        with open(os.path.join(group, "cgroup.procs"), "w", encoding="ascii") as f:
            f.write(str(pid or os.getpid()))
        return True
    except OSError:
        return False


def remove(group: str | None, wait: float = 1.0) -> None:
    """Remove `group` once the processes in it are gone (they may take a moment to exit)."""
    if group is None:
        return
    deadline = time.monotonic() + wait
    while True:
        try:
            os.rmdir(group)
            return
        except FileNotFoundError:
            return
        except OSError:
            if time.monotonic() >= deadline:
                return
            time.sleep(0.02)


def remove_all(index_groups: dict[int, str | None]) -> None:
    """Remove every group in `index_groups` (cleared)."""
    for group in index_groups.values():
        with contextlib.suppress(OSError):
            remove(group)
    index_groups.clear()
