# ALTERNATIVE transpose_ce_weighted_losses: cross_entropy on (B, V, T) logits (the transposed
# layout F.cross_entropy accepts), reduction="none", and a float weight mask: sum(loss * w) /
# w.sum().clamp(min=1), which is already a differentiable 0 when nothing counts. Padding and
# -100 slots get a safe dummy target of 0 before the weights remove them. A valid
# implementation: must keep full marks.
import torch
import torch.nn.functional as F


def _weighted_ce(logits, targets, weight):
    work = torch.float64 if logits.dtype == torch.float64 else torch.float32
    logits = logits.to(work)
    safe = torch.where(weight, targets, torch.zeros_like(targets)).long()
    per_token = F.cross_entropy(logits.transpose(1, 2), safe, reduction="none")  # (B, T)
    w = weight.to(work)
    return (per_token * w).sum() / w.sum().clamp(min=1.0)


def causal_lm_loss(logits, input_ids, attention_mask=None):
    if logits.dim() != 3 or input_ids.shape != logits.shape[:2]:
        raise ValueError("input_ids must be (B, T) matching logits (B, T, V)")
    if attention_mask is not None and attention_mask.shape != input_ids.shape:
        raise ValueError("attention_mask must be (B, T)")
    keep = (
        torch.ones_like(input_ids, dtype=torch.bool)
        if attention_mask is None
        else attention_mask.bool()
    )
    return _weighted_ce(logits[:, :-1], input_ids[:, 1:], keep[:, 1:])


def masked_lm_loss(logits, labels):
    if logits.dim() != 3 or labels.shape != logits.shape[:2]:
        raise ValueError("labels must be (B, T) matching logits (B, T, V)")
    return _weighted_ce(logits, labels, labels != -100)
