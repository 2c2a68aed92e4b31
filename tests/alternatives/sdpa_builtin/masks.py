# ALTERNATIVE sdpa_builtin: torch built-ins. causal_mask by index comparison, attention with
# F.scaled_dot_product_attention (bool keep-mask), the weights obtained from SDPA itself with
# the identity as values. A valid implementation: must keep full marks.
import torch
import torch.nn.functional as F


def causal_mask(q_len, k_len=None, device=None):
    k_len = q_len if k_len is None else k_len
    if min(q_len, k_len) < 0:
        raise ValueError("lengths must be >= 0")
    rows = torch.arange(k_len - q_len, k_len, device=device).view(-1, 1)
    cols = torch.arange(k_len, device=device).view(1, -1)
    return cols <= rows


def padding_mask(attention_mask):
    if attention_mask.dim() != 2:
        raise ValueError("expected (B, T)")
    B, T = attention_mask.shape
    return (attention_mask != 0).reshape(B, 1, 1, T)


def build_attention_mask(attention_mask, seq_len, causal):
    if attention_mask is None:
        keep = torch.ones(seq_len, seq_len, dtype=torch.bool)
        if causal:
            keep = causal_mask(seq_len)
        return keep.expand(1, 1, seq_len, seq_len).clone()
    if attention_mask.shape[-1] != seq_len:
        raise ValueError("seq_len does not match attention_mask")
    keep = padding_mask(attention_mask)  # (B, 1, 1, T): broadcast later
    if causal:
        keep = keep & causal_mask(seq_len, device=attention_mask.device)
    return keep.expand(-1, 1, seq_len, seq_len)


def masked_attention(q, k, v, mask=None):
    if mask is not None and mask.dtype != torch.bool:
        raise TypeError("bool mask expected")
    dtype = q.dtype
    if dtype in (torch.float16, torch.bfloat16):
        q, k, v = q.float(), k.float(), v.float()
    Tk = k.shape[-2]
    eye = torch.eye(Tk, dtype=q.dtype, device=q.device).expand(*k.shape[:-2], Tk, Tk)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    weights = F.scaled_dot_product_attention(q, k, eye, attn_mask=mask)
    if mask is not None:  # SDPA gives exact zeros already; make masked weights exactly 0
        weights = weights.masked_fill(~mask, 0.0)
    return out.to(dtype), weights.to(dtype)
