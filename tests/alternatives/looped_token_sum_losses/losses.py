# ALTERNATIVE looped_token_sum_losses: a student's loop over the batch: per sequence, select
# the counted positions with boolean indexing, add up F.cross_entropy(..., reduction="sum"),
# and divide the grand total by the grand count at the end (token level, not per sequence).
# Empty case: logits.sum() * 0.0 in the working dtype. A valid implementation: must keep full
# marks.
import torch
import torch.nn.functional as F


def _token_mean(rows):
    total, count, anchor = None, 0, None
    for lg, tg in rows:
        lg = lg.double() if lg.dtype == torch.float64 else lg.float()
        anchor = lg if anchor is None else anchor
        if tg.numel() == 0:
            continue
        s = F.cross_entropy(lg, tg.long(), reduction="sum")
        total = s if total is None else total + s
        count += tg.numel()
    if total is None:
        return anchor.sum() * 0.0
    return total / count


def causal_lm_loss(logits, input_ids, attention_mask=None):
    B, T, _ = logits.shape
    if tuple(input_ids.shape) != (B, T):
        raise ValueError("input_ids shape mismatch")
    if attention_mask is not None and tuple(attention_mask.shape) != (B, T):
        raise ValueError("attention_mask shape mismatch")
    rows = []
    for b in range(B):
        keep = (
            torch.ones(T - 1, dtype=torch.bool, device=logits.device)
            if attention_mask is None
            else attention_mask[b, 1:] != 0
        )
        rows.append((logits[b, :-1][keep], input_ids[b, 1:][keep]))
    return _token_mean(rows)


def masked_lm_loss(logits, labels):
    if tuple(labels.shape) != tuple(logits.shape[:-1]):
        raise ValueError("labels shape mismatch")
    rows = []
    for b in range(logits.shape[0]):
        keep = labels[b] != -100
        rows.append((logits[b][keep], labels[b][keep]))
    return _token_mean(rows)
