# ALTERNATIVE torch_square_subsequent_masks: PyTorch's nn.Transformer.generate_square_subsequent_
# mask(Tk) (a float mask, 0.0 on and below the diagonal, -inf above) turned into a keep-mask
# with == 0, and torchtune's KV-cache habit of picking the rows of a square causal mask at the
# queries' absolute positions (mask[input_pos], input_pos = Tk - Tq + i); a negative position
# (Tk < Tq) gets an all-False row. Attention: scores filled with finfo.min via masked_fill of
# ~mask, F.softmax(..., dtype=torch.float32) for half inputs, masked weights zeroed by
# multiplying with the mask. A valid implementation: must keep full marks.
import math

import torch
import torch.nn.functional as F
from torch import nn


def causal_mask(q_len, k_len=None, device=None):
    k_len = q_len if k_len is None else k_len
    if q_len < 0 or k_len < 0:
        raise ValueError("lengths must be >= 0")
    square = nn.Transformer.generate_square_subsequent_mask(k_len, device=device) == 0
    input_pos = torch.arange(k_len - q_len, k_len, device=device)
    rows = square[input_pos.clamp(min=0)] if k_len > 0 else square.new_zeros(q_len, 0)
    return rows & (input_pos >= 0)[:, None]


def padding_mask(attention_mask):
    if attention_mask.dim() != 2:
        raise ValueError("attention_mask must be (B, T)")
    key_padding_mask = attention_mask == 0  # nn.MultiheadAttention's polarity: True = pad
    return ~key_padding_mask.view(attention_mask.size(0), 1, 1, attention_mask.size(1))


def build_attention_mask(attention_mask, seq_len, causal):
    device = None if attention_mask is None else attention_mask.device
    keep = (
        causal_mask(seq_len, device=device)
        if causal
        else torch.ones(seq_len, seq_len, dtype=torch.bool, device=device)
    )
    if attention_mask is None:
        return keep.view(1, 1, seq_len, seq_len)
    if attention_mask.shape[-1] != seq_len:
        raise ValueError("seq_len must equal attention_mask.shape[1]")
    return padding_mask(attention_mask) & keep


def masked_attention(q, k, v, mask=None):
    if mask is not None and mask.dtype is not torch.bool:
        raise TypeError("a bool keep-mask is required")
    half = q.dtype in (torch.float16, torch.bfloat16)
    work = torch.float32 if half else q.dtype
    scores = torch.matmul(q.to(work), k.to(work).transpose(-1, -2)) / math.sqrt(q.shape[-1])
    if mask is not None:
        mask = mask.to(q.device)
        scores = scores.masked_fill(~mask, torch.finfo(work).min)
    weights = F.softmax(scores, dim=-1, dtype=work)
    if mask is not None:
        weights = weights * mask
    out = torch.matmul(weights, v.to(work))
    return out.to(q.dtype), weights.to(q.dtype)
