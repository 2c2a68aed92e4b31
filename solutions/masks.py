"""Reference for Part A (Tasks 1.1-1.4). The contract is in ``exercises/masks.py``."""

from __future__ import annotations

import math

import torch
from torch import Tensor

_HALF_DTYPES = (torch.float16, torch.bfloat16)


def causal_mask(
    q_len: int, k_len: int | None = None, device: torch.device | str | None = None
) -> Tensor:
    """Task 1.1: bool ``(Tq, Tk)``, query i may attend key j iff ``j <= Tk - Tq + i``."""
    k_len = q_len if k_len is None else k_len
    if q_len < 0 or k_len < 0:
        raise ValueError(f"lengths must be >= 0, got q_len={q_len}, k_len={k_len}")
    i = torch.arange(q_len, device=device).unsqueeze(1)  # (Tq, 1)
    j = torch.arange(k_len, device=device).unsqueeze(0)  # (1, Tk)
    return j <= i + (k_len - q_len)  # (Tq, Tk), bottom-right aligned


def padding_mask(attention_mask: Tensor) -> Tensor:
    """Task 1.2: ``(B, T)`` 0/1 or bool -> bool ``(B, 1, 1, T)``, True at real keys."""
    if attention_mask.dim() != 2:
        raise ValueError(f"attention_mask must be (B, T), got shape {tuple(attention_mask.shape)}")
    return (attention_mask != 0)[:, None, None, :]  # (B, 1, 1, T)


def build_attention_mask(attention_mask: Tensor | None, seq_len: int, causal: bool) -> Tensor:
    """Task 1.3: causal AND padding -> bool ``(B or 1, 1, T, T)``."""
    if attention_mask is None:
        if causal:
            return causal_mask(seq_len)[None, None]  # (1, 1, T, T)
        return torch.ones(1, 1, seq_len, seq_len, dtype=torch.bool)  # (1, 1, T, T)
    B, T = attention_mask.shape
    if T != seq_len:
        raise ValueError(f"attention_mask has length {T} but seq_len is {seq_len}")
    keys = padding_mask(attention_mask).expand(B, 1, T, T)  # (B, 1, T, T)
    if not causal:
        return keys.clone()
    return keys & causal_mask(T, device=attention_mask.device)  # (B, 1, T, T)


def masked_attention(
    q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None = None
) -> tuple[Tensor, Tensor]:
    """Task 1.4: ``(output (B, H, Tq, D), weights (B, H, Tq, Tk))`` in ``q``'s dtype."""
    if mask is not None and mask.dtype != torch.bool:
        raise TypeError(f"mask must be a bool keep-mask (True = attend), got {mask.dtype}")
    # half inputs are computed in float32 so that the scores cannot overflow
    dtype = q.dtype
    compute = torch.float32 if dtype in _HALF_DTYPES else dtype
    q, k, v = q.to(compute), k.to(compute), v.to(compute)
    scale = 1.0 / math.sqrt(q.size(-1))
    scores = (q @ k.transpose(-2, -1)) * scale  # (B, H, Tq, Tk)
    if mask is not None:
        mask = mask.to(scores.device)
        # a finite fill keeps fully-masked rows NaN-free (softmax of all -inf is NaN) ...
        scores = torch.where(mask, scores, torch.finfo(compute).min)
    weights = torch.softmax(scores, dim=-1)  # (B, H, Tq, Tk)
    if mask is not None:
        # ... and this makes masked weights exactly 0, so fully-masked rows become all zeros
        weights = torch.where(mask, weights, 0.0)
    out = weights @ v  # (B, H, Tq, D)
    return out.to(dtype), weights.to(dtype)
