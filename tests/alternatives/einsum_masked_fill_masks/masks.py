# ALTERNATIVE einsum_masked_fill_masks: the causal mask from torch.ones(...).tril(diagonal=Tk -
# Tq).bool(), the key mask by .bool().unsqueeze(1).unsqueeze(2), the combination with torch.
# logical_and, and attention written with torch.einsum, Tensor.masked_fill (finfo.min, not
# -inf) and a second masked_fill that zeroes the masked weights. A valid implementation: must
# keep full marks.
import math

import torch


def causal_mask(q_len, k_len=None, device=None):
    if k_len is None:
        k_len = q_len
    if min(q_len, k_len) < 0:
        raise ValueError(f"negative length: {q_len}, {k_len}")
    ones = torch.ones(q_len, k_len, dtype=torch.bool, device=device)
    return ones.tril(diagonal=k_len - q_len)


def padding_mask(attention_mask):
    if attention_mask.ndim != 2:
        raise ValueError("attention_mask must be 2-D (B, T)")
    return attention_mask.bool().unsqueeze(1).unsqueeze(2)


def build_attention_mask(attention_mask, seq_len, causal):
    if attention_mask is not None and attention_mask.shape[-1] != seq_len:
        raise ValueError("seq_len does not match the attention_mask")
    device = None if attention_mask is None else attention_mask.device
    batch = 1 if attention_mask is None else attention_mask.shape[0]
    full = torch.ones(batch, 1, seq_len, seq_len, dtype=torch.bool, device=device)
    if causal:
        full = torch.logical_and(full, causal_mask(seq_len, device=device))
    if attention_mask is not None:
        full = torch.logical_and(full, padding_mask(attention_mask))
    return full


def masked_attention(q, k, v, mask=None):
    if mask is not None and mask.dtype is not torch.bool:
        raise TypeError("mask must be a bool tensor")
    out_dtype = q.dtype
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    q, k, v = (t.to(work) for t in (q, k, v))
    scores = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(q.shape[-1])
    if mask is not None:
        blocked = ~mask.to(scores.device)
        scores = scores.masked_fill(blocked, torch.finfo(work).min)
        weights = scores.softmax(dim=-1).masked_fill(blocked, 0.0)
    else:
        weights = scores.softmax(dim=-1)
    out = torch.einsum("bhqk,bhkd->bhqd", weights, v)
    return out.to(out_dtype), weights.to(out_dtype)
