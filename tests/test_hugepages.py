"""A long-lived zygote moves its memory to huge pages before its first fork (cheaper forks)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from grader.sandbox import jail
from grader.sandbox.client import SandboxSession, Zygote
from grader.sandbox.limits import SandboxLimits

THP = Path("/sys/kernel/mm/transparent_hugepage/enabled")
_KERNEL = tuple(int(x) for x in re.findall(r"\d+", os.uname().release)[:2])
# MADV_COLLAPSE came with Linux 6.1; before that the collapse is a no-op by design.
COLLAPSE = THP.exists() and "[never]" not in THP.read_text() and _KERNEL >= (6, 1)
needs_collapse = pytest.mark.skipif(not COLLAPSE, reason="no huge pages or no MADV_COLLAPSE")


def _anon_huge_kb(pid: int | str) -> int:
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("AnonHugePages:"):
            return int(line.split()[1])
    return 0


@needs_collapse
def test_collapse_moves_anonymous_memory_to_huge_pages():
    code = (
        "import sys\n"
        "from grader.sandbox.hugepages import collapse_anonymous_memory\n"
        "from tests.test_hugepages import _anon_huge_kb\n"
        "block = bytearray(64 * 1024 * 1024)\n"  # touched: zero-filled by bytearray
        "before = _anon_huge_kb('self')\n"
        "done = collapse_anonymous_memory()\n"
        "print(before, _anon_huge_kb('self'), done)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[1],
        check=True,
    )
    before, after, done = map(int, out.stdout.split())
    assert done >= 32 * 1024 * 1024
    assert after - before >= 32 * 1024


def test_collapse_is_harmless_when_called_again():
    from grader.sandbox.hugepages import collapse_anonymous_memory

    assert collapse_anonymous_memory() >= 0
    assert collapse_anonymous_memory() >= 0


@pytest.mark.parametrize("huge_pages", [True, False])
def test_only_a_long_lived_zygote_collapses_and_its_workers_behave_the_same(huge_pages):
    src = "import torch\ndef f(x):\n    return (x * 2).sum()\n"
    import torch

    with Zygote(jail=jail.can_jail(), huge_pages=huge_pages) as z:
        for i in range(3):
            with SandboxSession(z, {"masks": src}, SandboxLimits()) as s:
                got = s.call("masks", "f", (torch.arange(4.0) + i,), {}).value
                assert got.item() == 2 * (6 + 4 * i)
        huge_kb = _anon_huge_kb(z._proc.pid)
    if not huge_pages:
        # khugepaged may still collapse a little in the background, never torch's ~80 MB heap
        assert huge_kb < 32 * 1024
    elif COLLAPSE:
        assert huge_kb >= 32 * 1024
