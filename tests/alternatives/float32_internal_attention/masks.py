# ALTERNATIVE float32_internal_attention: every dtype computed in float32 (float64 inputs too:
# the contract fixes the output dtype, not the internal precision), the mask applied with
# masked_fill of float32's lowest value and the masked weights zeroed with masked_fill;
# masks by arange comparisons. A valid implementation: must keep full marks.
import math

import torch


def causal_mask(q_len, k_len=None, device=None):
    k_len = q_len if k_len is None else k_len
    if q_len < 0 or k_len < 0:
        raise ValueError("negative size")
    offset = k_len - q_len
    q_pos = torch.arange(q_len, device=device)[:, None] + offset
    return torch.arange(k_len, device=device)[None, :] <= q_pos


def padding_mask(attention_mask):
    if len(attention_mask.shape) != 2:
        raise ValueError("need (B, T)")
    return (attention_mask > 0).unsqueeze(1).unsqueeze(1)


def build_attention_mask(attention_mask, seq_len, causal):
    base = causal_mask(seq_len) if causal else torch.ones(seq_len, seq_len, dtype=torch.bool)
    if attention_mask is None:
        return base.unsqueeze(0).unsqueeze(0)
    if attention_mask.shape[1] != seq_len:
        raise ValueError("wrong seq_len")
    return padding_mask(attention_mask) & base.to(attention_mask.device)


def masked_attention(q, k, v, mask=None):
    if mask is not None and mask.dtype != torch.bool:
        raise TypeError("bool mask required")
    qf, kf, vf = q.float(), k.float(), v.float()
    scores = torch.matmul(qf, kf.transpose(-1, -2)) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, torch.finfo(torch.float32).min)
    w = torch.softmax(scores, dim=-1)
    if mask is not None:
        w = w.masked_fill(~mask, 0.0)
    return torch.matmul(w, vf).to(q.dtype), w.to(q.dtype)
