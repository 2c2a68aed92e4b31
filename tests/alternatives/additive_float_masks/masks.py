# ALTERNATIVE additive_float_masks: masks built with triu / ~ / unsqueeze, attention through an
# additive float bias (0 where allowed, finfo.min where masked), softmax in float32, then the
# weights multiplied by the 0/1 mask (empty rows become 0, gradients stay finite).
# A valid implementation: must keep full marks. (An additive -inf bias followed by
# nan_to_num is NOT valid: its empty rows have NaN gradients; see the mutants.)
import math

import torch


def causal_mask(q_len, k_len=None, device=None):
    if k_len is None:
        k_len = q_len
    if q_len < 0 or k_len < 0:
        raise ValueError("negative length")
    ones = torch.ones(q_len, k_len, dtype=torch.bool, device=device)
    # blocked = strictly above the shifted diagonal; keep = everything else
    blocked = torch.triu(ones, diagonal=k_len - q_len + 1)
    return ~blocked


def padding_mask(attention_mask):
    if attention_mask.ndim != 2:
        raise ValueError("attention_mask must be (B, T)")
    return attention_mask.bool().unsqueeze(1).unsqueeze(2)


def build_attention_mask(attention_mask, seq_len, causal):
    if attention_mask is not None and attention_mask.shape[1] != seq_len:
        raise ValueError("length mismatch")
    device = None if attention_mask is None else attention_mask.device
    mask = torch.ones(1, 1, seq_len, seq_len, dtype=torch.bool, device=device)
    if causal:
        mask = mask & causal_mask(seq_len, device=device)
    if attention_mask is not None:
        mask = mask & padding_mask(attention_mask)
    return mask


def masked_attention(q, k, v, mask=None):
    if mask is not None and mask.dtype != torch.bool:
        raise TypeError("mask must be bool")
    out_dtype = q.dtype
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    qf, kf, vf = q.to(work), k.to(work), v.to(work)
    qf = qf / math.sqrt(q.shape[-1])  # scale q before the matmul
    scores = torch.matmul(qf, kf.transpose(-1, -2))
    if mask is not None:
        bias = torch.zeros(mask.shape, dtype=work, device=scores.device)
        bias = bias.masked_fill(~mask, torch.finfo(work).min)
        scores = scores + bias
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        weights = weights * mask.to(work)  # masked keys exactly 0, empty rows all 0
    out = torch.matmul(weights, vf)
    return out.to(out_dtype), weights.to(out_dtype)
