# ALTERNATIVE logsoftmax_gather_losses: log_softmax + gather, sum / count with a float weight
# mask, slicing instead of -100 labels. A valid implementation: must keep full marks.
import torch


def _token_mean(logits, targets, weights):
    work = torch.float64 if logits.dtype == torch.float64 else torch.float32
    logp = torch.log_softmax(logits.to(work), dim=-1)
    nll = -logp.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    w = weights.to(work)
    return (nll * w).sum() / w.sum().clamp(min=1.0)


def causal_lm_loss(logits, input_ids, attention_mask=None):
    B, T, V = logits.shape
    if input_ids.shape != (B, T):
        raise ValueError("input_ids must be (B, T)")
    targets = input_ids[:, 1:].long()
    if attention_mask is None:
        weights = torch.ones_like(targets, dtype=torch.bool)
    else:
        if attention_mask.shape != (B, T):
            raise ValueError("attention_mask must be (B, T)")
        weights = attention_mask[:, 1:].bool()
    return _token_mean(logits[:, :-1], targets, weights)


def masked_lm_loss(logits, labels):
    if labels.shape != logits.shape[:-1]:
        raise ValueError("labels must be (B, T)")
    keep = labels != -100
    safe = torch.where(keep, labels, torch.zeros_like(labels)).long()
    return _token_mean(logits, safe, keep)
