# ALTERNATIVE mingpt_masks: minGPT's CausalSelfAttention recipe: a lower-triangular buffer
# (torch.tril(torch.ones(T, T)).view(1, 1, T, T)), att = (q @ k.transpose(-2, -1)) *
# (1.0 / math.sqrt(k.size(-1))), att.masked_fill(mask == 0, float('-inf')), F.softmax; then,
# because the contract has fully-masked rows, torch.where zeroes the masked weights (the
# masked_fill + where pair keeps the NaN of an all -inf row out of the output AND out of the
# gradients). A valid implementation: must keep full marks.
import math

import torch
import torch.nn.functional as F


def causal_mask(q_len, k_len=None, device=None):
    if k_len is None:
        k_len = q_len
    if q_len < 0 or k_len < 0:
        raise ValueError("negative length")
    bias = torch.tril(torch.ones(k_len, k_len, device=device)).view(1, 1, k_len, k_len)
    rows = (
        bias[0, 0, k_len - q_len :]
        if q_len <= k_len
        else torch.cat([torch.zeros(q_len - k_len, k_len, device=device), bias[0, 0]])
    )
    return rows == 1


def padding_mask(attention_mask):
    if attention_mask.dim() != 2:
        raise ValueError("attention_mask must be 2-D (B, T)")
    return attention_mask.ne(0).view(attention_mask.size(0), 1, 1, attention_mask.size(1))


def build_attention_mask(attention_mask, seq_len, causal):
    if attention_mask is None:
        m = torch.ones(seq_len, seq_len, dtype=torch.bool)
        if causal:
            m = causal_mask(seq_len)
        return m.view(1, 1, seq_len, seq_len)
    B, T = attention_mask.shape
    if T != seq_len:
        raise ValueError("seq_len does not match attention_mask")
    pad = padding_mask(attention_mask).repeat(1, 1, T, 1)
    if causal:
        pad = pad.logical_and(causal_mask(T, device=attention_mask.device))
    return pad


def masked_attention(q, k, v, mask=None):
    if mask is not None and mask.dtype is not torch.bool:
        raise TypeError("mask must be torch.bool")
    in_dtype = q.dtype
    if in_dtype in (torch.float16, torch.bfloat16):
        q, k, v = q.float(), k.float(), v.float()
    att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
    if mask is not None:
        att = att.masked_fill(mask == 0, float("-inf"))
    att = F.softmax(att, dim=-1)
    if mask is not None:
        att = torch.where(mask, att, torch.zeros((), dtype=att.dtype))
    y = att @ v
    return y.to(in_dtype), att.to(in_dtype)
