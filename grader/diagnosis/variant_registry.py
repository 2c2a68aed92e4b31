"""The registry of known-bug variants and how their outputs are compared.

``@variant("losses.causal_lm_loss", "forgot_shift")`` registers a trusted model of one
misconception (`grader.diagnosis.variants` explains how they are used); `same` is the
comparison every diagnosis makes. The variants themselves live in ``variants_<part>.py``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import torch
from torch import Tensor

IGNORE = -100
HALF = (torch.float16, torch.bfloat16)

Variant = tuple[str, Callable[..., Any]]
REGISTRY: dict[str, list[Variant]] = {}


class NotApplicable(Exception):
    """Raised by a variant whose mistake cannot show on the given inputs."""


def variant(
    function: str, mid: str, *, applies: Callable[..., bool] | None = None
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register ``fn`` as a model of misconception ``mid`` for ``function`` ("module.name").

    ``applies(*args, **kwargs)`` (optional) says whether the mistake is observable on these
    inputs at all; when it is not, the variant is skipped instead of coinciding with another,
    and counts as giving the correct output there (so a wrong output there refutes it): a
    guard must only say no where the mistake really is invisible.
    """

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        REGISTRY.setdefault(function, []).append((mid, guarded(fn, mid, applies)))
        return fn

    return deco


def guarded(
    fn: Callable[..., Any], mid: str, applies: Callable[..., bool] | None
) -> Callable[..., Any]:
    """``fn``, raising `NotApplicable` on inputs where ``applies`` says the mistake is invisible."""
    if applies is None:
        return fn

    def entry(*args: Any, **kwargs: Any) -> Any:
        if not applies(*args, **kwargs):
            raise NotApplicable(mid)
        return fn(*args, **kwargs)

    return entry


def variants_for(function: str) -> list[Variant]:
    """The registered ``(id, model)`` pairs of ``function`` ("module.name"), a new list."""
    return list(REGISTRY.get(function, ()))


def same(a: Any, b: Any, *, rtol: float = 1e-5, atol: float = 1e-6) -> bool:
    """Equal in structure, shape and value (NaN == NaN, inf == inf; dtype not compared)."""
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        if tuple(a.shape) != tuple(b.shape):
            return False
        if a.numel() == 0:
            return True
        if not (a.is_floating_point() or b.is_floating_point()):
            return bool(torch.equal(a.long(), b.long()))
        x, y = a.detach().double(), b.detach().double()
        return bool(torch.isclose(x, y, rtol=rtol, atol=atol, equal_nan=True).all())
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        if len(a) != len(b):
            return False
        return all(same(x, y, rtol=rtol, atol=atol) for x, y in zip(a, b, strict=True))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=rtol, abs_tol=atol) or (a != a and b != b)
    return a is None and b is None


@contextmanager
def quiet_rng() -> Iterator[None]:
    """Variants that model a global-RNG bug must not disturb the grader's own global RNG."""
    with torch.random.fork_rng(devices=[]):
        yield
