"""A tiny interpreter for the seccomp programs of `grader.sandbox.seccomp`, for tests.

It knows the few classic-BPF instructions the filter uses: load a word of `seccomp_data`
(syscall number at 0, architecture at 4, first argument's low word at 16), the conditional
jumps `jeq`, `jge`, `jset`, and `ret`.
"""

from __future__ import annotations

ALLOW, EPERM, ENOSYS = 0x7FFF0000, 0x00050000 | 1, 0x00050000 | 38


def run_filter(program: list[tuple[int, int, int, int]], nr: int, arch: int, arg0: int = 0) -> int:
    """The action the filter `program` returns for syscall `nr` on `arch` with `arg0`."""
    data = {0: nr, 4: arch, 16: arg0}
    acc, pc = 0, 0
    while True:
        code, jt, jf, k = program[pc]
        if code == 0x20:
            acc = data[k]
        elif code == 0x06:
            return k
        else:
            ok = {0x15: acc == k, 0x35: acc >= k, 0x45: bool(acc & k)}[code]
            pc += jt if ok else jf
        pc += 1
