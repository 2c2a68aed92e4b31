# ALTERNATIVE xtransformers_masks: x-transformers style: the causal mask as
# ones(i, j).triu(j - i + 1) (True = masked) inverted into a keep-mask, einsum for the scores
# ('b h i d, b h j d -> b h i j') and the output, masked scores filled with
# -torch.finfo(dtype).max, rows with no key zeroed by multiplying with the mask.
# A valid implementation: must keep full marks.
import torch
from torch import einsum


def causal_mask(q_len, k_len=None, device=None):
    i = q_len
    j = q_len if k_len is None else k_len
    if i < 0 or j < 0:
        raise ValueError("lengths must be non-negative")
    masked = torch.ones((i, j), device=device, dtype=torch.bool).triu(j - i + 1)
    return ~masked


def padding_mask(attention_mask):
    if attention_mask.ndim != 2:
        raise ValueError("expected a (batch, seq) attention mask")
    return attention_mask.bool()[:, None, None, :]


def build_attention_mask(attention_mask, seq_len, causal):
    if attention_mask is not None and attention_mask.shape[-1] != seq_len:
        raise ValueError("attention_mask length differs from seq_len")
    b = 1 if attention_mask is None else attention_mask.shape[0]
    dev = None if attention_mask is None else attention_mask.device
    keep = torch.ones((b, 1, seq_len, seq_len), dtype=torch.bool, device=dev)
    if attention_mask is not None:
        keep = keep & padding_mask(attention_mask)
    if causal:
        keep = keep & causal_mask(seq_len, device=dev)
    return keep


def masked_attention(q, k, v, mask=None):
    if mask is not None and mask.dtype != torch.bool:
        raise TypeError("mask must be a boolean keep-mask")
    dtype = q.dtype
    work = torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype
    q, k, v = (t.to(work) for t in (q, k, v))
    scale = q.shape[-1] ** -0.5
    sim = einsum("b h i d, b h j d -> b h i j", q, k) * scale
    if mask is not None:
        max_neg_value = -torch.finfo(sim.dtype).max
        sim = sim.masked_fill(~mask, max_neg_value)
    attn = sim.softmax(dim=-1)
    if mask is not None:
        attn = attn * mask.to(attn.dtype)
    out = einsum("b h i j, b h j d -> b h i d", attn, v)
    return out.to(dtype), attn.to(dtype)
