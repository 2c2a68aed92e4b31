"""Back the zygote's anonymous memory with 2 MiB pages, so that forking a worker is cheap.

Importing torch leaves ~140 MB of anonymous memory (the heap and torch's own mappings). With
4 KiB pages a fork copies ~36,000 page-table entries and the worker's exit tears them down
again: ~7 ms of kernel time per worker, four workers per submission. Backed by transparent
huge pages the same memory is ~70 entries: a bare fork and exit drops to ~1.5 ms, a jailed
worker's start from ~10.4 to ~7.4 ms (benchmarks/sandbox_cost.py prints both). A worker that
writes to a shared huge page gets a private 4 KiB copy of what it touched, as before; nothing
about the sandbox changes.

Best effort: without transparent huge pages (``never``), on kernels before 6.1 (no
``MADV_COLLAPSE``) or on other systems this does nothing.
"""

from __future__ import annotations

import ctypes
import sys

MADV_HUGEPAGE = 14
MADV_COLLAPSE = 25
HUGE_PAGE = 2 * 1024 * 1024


def _anonymous_writable_ranges() -> list[tuple[int, int]]:
    """(start, end) of this process's private anonymous read-write mappings and its heap."""
    ranges = []
    try:
        with open("/proc/self/maps", encoding="ascii") as maps:
            for line in maps:
                fields = line.split()
                name = fields[5] if len(fields) > 5 else ""
                private_rw = fields[1].startswith("rw") and fields[1].endswith("p")
                if private_rw and name in ("", "[heap]"):
                    start, end = (int(x, 16) for x in fields[0].split("-"))
                    ranges.append((start, end))
    except OSError:
        return []
    return ranges


def collapse_anonymous_memory() -> int:
    """Ask the kernel to back the 2 MiB-aligned parts of this process's anonymous memory with
    huge pages, now (``MADV_COLLAPSE``). Returns the number of bytes it accepted (0 when the
    system cannot do it). Takes ~0.3 s for a process that imported torch, so call it once in a
    process that will fork many times."""
    if not sys.platform.startswith("linux"):
        return 0
    try:  # the process's own symbols include libc's (find_library would run ldconfig)
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return 0
    madvise = libc.madvise
    madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    madvise.restype = ctypes.c_int
    collapsed = 0
    for start, end in _anonymous_writable_ranges():
        lo = (start + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1)
        hi = end & ~(HUGE_PAGE - 1)
        if hi <= lo:
            continue
        if madvise(lo, hi - lo, MADV_HUGEPAGE) != 0:
            continue
        # One huge page at a time: a range call gives up on the whole range when one page
        # cannot be collapsed (memory too fragmented at that moment).
        for page in range(lo, hi, HUGE_PAGE):
            if madvise(page, HUGE_PAGE, MADV_COLLAPSE) == 0:
                collapsed += HUGE_PAGE
    return collapsed
