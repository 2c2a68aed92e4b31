# MUTANT shifted_wrong_side: logits[:, 1:] against ids[:, :-1].
# One misconception written into solutions/losses.py; expected diagnosis: shifted_wrong_side.
"""Reference for Part C (Tasks 3.1-3.2). The contract is in ``exercises/losses.py``."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor

IGNORE_INDEX = -100


def _mean_cross_entropy(logits: Tensor, targets: Tensor) -> Tensor:
    """Token-level mean CE over ``targets != -100``; a differentiable zero if there are none.

    logits ``(N, V)`` in any float dtype, targets ``(N,)``. Reduced in float32 (float64 stays).
    """
    logits = logits.to(torch.promote_types(logits.dtype, torch.float32))
    count = (targets != IGNORE_INDEX).sum()
    if count == 0:
        return logits.sum() * 0.0  # keeps the graph: backward() gives zero gradients
    total = F.cross_entropy(logits, targets, ignore_index=IGNORE_INDEX, reduction="sum")
    return total / count


def causal_lm_loss(
    logits: Tensor, input_ids: Tensor, attention_mask: Tensor | None = None
) -> Tensor:
    """Task 3.1: mean CE of ``logits[:, t]`` against ``input_ids[:, t + 1]`` over real targets."""
    B, T, V = logits.shape
    if input_ids.shape != (B, T):
        raise ValueError(f"input_ids must be {(B, T)}, got {tuple(input_ids.shape)}")
    if attention_mask is not None and attention_mask.shape != (B, T):
        raise ValueError(f"attention_mask must be {(B, T)}, got {tuple(attention_mask.shape)}")
    targets = input_ids[:, :-1].to(torch.int64)
    if attention_mask is not None:
        real = attention_mask[:, :-1] != 0
        targets = torch.where(real, targets, IGNORE_INDEX)
    return _mean_cross_entropy(logits[:, 1:].reshape(-1, V), targets.reshape(-1))


def masked_lm_loss(logits: Tensor, labels: Tensor) -> Tensor:
    """Task 3.2: mean CE over the positions with ``labels != -100``."""
    V = logits.size(-1)
    if labels.shape != logits.shape[:-1]:
        raise ValueError(
            f"labels must be {tuple(logits.shape[:-1])} to match logits, got {tuple(labels.shape)}"
        )
    return _mean_cross_entropy(logits.reshape(-1, V), labels.reshape(-1).to(torch.int64))
