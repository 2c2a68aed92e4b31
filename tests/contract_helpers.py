"""What both halves of the contract tests share (test_solutions_contract*.py).

Statistical assertions there use Hoeffding bands: for n independent draws of a probability p,
P(|freq - p| >= eps) <= 2 exp(-2 n eps^2), so `eps(n) = sqrt(ln(2 / DELTA) / (2 n))` fails a
correct implementation with probability <= DELTA.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

DELTA = 1e-7


def eps(n: int) -> float:
    """The Hoeffding half-width for n draws at failure probability DELTA."""
    return math.sqrt(math.log(2 / DELTA) / (2 * n))


def gen(seed: int) -> torch.Generator:
    """A CPU generator seeded with `seed`."""
    return torch.Generator().manual_seed(seed)


def randn(*shape: int, seed: int = 0, dtype: torch.dtype = torch.float64) -> Tensor:
    """Standard normal values drawn in float64 from `gen(seed)`, then cast to `dtype`."""
    return torch.randn(*shape, generator=gen(seed), dtype=torch.float64).to(dtype)
