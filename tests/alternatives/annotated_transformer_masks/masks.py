# ALTERNATIVE annotated_transformer_masks: The Annotated Transformer's (Harvard NLP) recipe,
# adapted: subsequent_mask as torch.triu(torch.ones(shape), diagonal=1).type(torch.uint8) == 0
# (the diagonal moved by Tk - Tq for the bottom-right alignment of the contract), the key mask
# as (mask != 0).unsqueeze(-2) twice, and attention(query, key, value, mask) with
# scores.masked_fill(mask == 0, -1e9) and scores.softmax(dim=-1). Adapted to the contract: half
# inputs computed in float32 (-1e9 is -inf in float16), masked weights zeroed after the
# softmax (empty rows become 0). A valid implementation: must keep full marks.
import math

import torch


def subsequent_mask(q_len, k_len, device=None):
    attn_shape = (q_len, k_len)
    future = torch.triu(torch.ones(attn_shape, device=device), diagonal=1 + k_len - q_len)
    return future.type(torch.uint8) == 0


def causal_mask(q_len, k_len=None, device=None):
    if k_len is None:
        k_len = q_len
    if q_len < 0 or k_len < 0:
        raise ValueError("negative length")
    return subsequent_mask(q_len, k_len, device=device)


def padding_mask(attention_mask):
    if attention_mask.dim() != 2:
        raise ValueError("attention_mask must be (B, T)")
    return (attention_mask != 0).unsqueeze(-2).unsqueeze(-2)


def build_attention_mask(attention_mask, seq_len, causal):
    if attention_mask is None:
        mask = torch.ones(1, 1, seq_len, seq_len, dtype=torch.bool)
        return mask & subsequent_mask(seq_len, seq_len) if causal else mask
    if attention_mask.size(-1) != seq_len:
        raise ValueError("seq_len does not match attention_mask")
    src_mask = padding_mask(attention_mask)  # (B, 1, 1, T)
    full = src_mask.expand(-1, -1, seq_len, -1)
    if causal:
        full = full & subsequent_mask(seq_len, seq_len, device=attention_mask.device)
    return full.clone()


def attention(query, key, value, mask=None):
    d_k = query.size(-1)
    scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)
    p_attn = scores.softmax(dim=-1)
    if mask is not None:
        p_attn = p_attn.masked_fill(mask == 0, 0.0)
    return torch.matmul(p_attn, value), p_attn


def masked_attention(q, k, v, mask=None):
    if mask is not None and mask.dtype != torch.bool:
        raise TypeError("mask must be a bool keep-mask")
    dtype = q.dtype
    if dtype in (torch.float16, torch.bfloat16):
        q, k, v = q.float(), k.float(), v.float()
    if mask is not None:
        mask = mask.to(q.device)
    out, p_attn = attention(q, k, v, mask)
    return out.to(dtype), p_attn.to(dtype)
