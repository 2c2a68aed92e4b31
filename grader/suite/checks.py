"""Assertions for hidden tests that fail with a message a student can act on.

Order of checks, as in PrairieLearn's `code_feedback`: the value is a tensor -> its shape ->
its dtype -> finiteness -> values. The first failing check stops, with expected vs got (small
tensors shown in full) and, where the test knows one, the misconception it points to.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import torch


class GradeFailure(AssertionError):
    """A failed check: `message` is for the student, `diagnoses` are misconception ids."""

    def __init__(self, message: str, diagnoses: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.diagnoses = tuple(diagnoses)


def fail(message: str, diagnoses: Iterable[str] = ()) -> None:
    """Fail the current test with a student-facing message and optional misconception ids."""
    raise GradeFailure(message, tuple(diagnoses))


def show(t: Any, limit: int = 64) -> str:
    """A tensor as text: in full when small, else shape, dtype and a few statistics."""
    if not isinstance(t, torch.Tensor):
        return repr(t)[:300]
    if t.numel() <= limit:
        body = repr(t.detach().cpu().tolist())
        return f"{body} (shape {tuple(t.shape)}, {str(t.dtype).removeprefix('torch.')})"
    ft = t.detach().float()
    return (
        f"tensor of shape {tuple(t.shape)}, {str(t.dtype).removeprefix('torch.')}, "
        f"min {ft.min().item():.4g}, max {ft.max().item():.4g}"
    )


def check_tensor(
    got: Any,
    *,
    what: str,
    shape: Sequence[int] | None = None,
    dtype: torch.dtype | Sequence[torch.dtype] | None = None,
    finite: bool = False,
) -> torch.Tensor:
    """Fail unless `got` is a tensor with the given shape/dtype (and finite values)."""
    if not isinstance(got, torch.Tensor):
        fail(f"{what} should return a torch.Tensor, but returned {type(got).__name__}: {show(got)}")
    if shape is not None and tuple(got.shape) != tuple(shape):
        fail(f"{what} returned shape {tuple(got.shape)}; expected {tuple(shape)}")
    if dtype is not None:
        allowed = (dtype,) if isinstance(dtype, torch.dtype) else tuple(dtype)
        if got.dtype not in allowed:
            names = " or ".join(str(d).removeprefix("torch.") for d in allowed)
            fail(f"{what} returned dtype {str(got.dtype).removeprefix('torch.')}; expected {names}")
    if finite and got.is_floating_point() and not torch.isfinite(got).all():
        bad = (~torch.isfinite(got)).nonzero()[0].tolist()
        fail(f"{what} contains NaN or inf (first at index {bad}): {show(got)}")
    return got


def assert_close(
    got: Any,
    want: torch.Tensor,
    *,
    what: str,
    rtol: float = 1e-5,
    atol: float = 1e-6,
    check_dtype: bool = True,
    diagnoses: Iterable[str] = (),
    hint: str = "",
) -> None:
    """Fail unless `got` matches `want` in shape, dtype (optionally) and value."""
    check_tensor(got, what=what, shape=tuple(want.shape), dtype=want.dtype if check_dtype else None)
    g, w = got.detach().double(), want.detach().double()
    if want.dtype == torch.bool or not want.is_floating_point():
        bad = g != w
    else:
        both_nan = torch.isnan(g) & torch.isnan(w)
        bad = ~(torch.isclose(g, w, rtol=rtol, atol=atol) | both_nan)
    if bad.any():
        idx = tuple(bad.nonzero()[0].tolist())
        msg = (
            f"{what} is wrong: at index {list(idx)} expected {w[idx].item():.6g}, "
            f"got {g[idx].item():.6g} ({int(bad.sum())} of {bad.numel()} values differ)."
        )
        if want.numel() <= 64:
            msg += f"\n  expected: {show(want)}\n  got:      {show(got)}"
        if hint:
            msg += f"\n  {hint}"
        fail(msg, diagnoses)


def assert_equal(got: Any, want: Any, *, what: str, diagnoses: Iterable[str] = ()) -> None:
    """Exact equality for tensors (shape, dtype, values) or plain values."""
    if isinstance(want, torch.Tensor):
        assert_close(got, want, what=what, rtol=0, atol=0, diagnoses=diagnoses)
    elif got != want:
        fail(f"{what}: expected {want!r}, got {got!r}", diagnoses)
