# ALTERNATIVE t5x_soft_target_losses: t5x's compute_weighted_cross_entropy with
# label_smoothing=0 and z_loss=0, adapted: soft targets onehot(targets) * confidence
# (+ low_confidence elsewhere, 0 here), the cross-entropy of F.cross_entropy with probability
# targets (reduction="none"), the normalising constant (0 for no smoothing) subtracted, a z-loss
# term z_loss * log_z**2 with z_loss = 0, a float weight per token (0 at padding / -100), and
# the weighted sum divided by the sum of the weights (t5x's loss_normalizing_factor), a zero
# tied to the graph when nothing counts. A valid implementation: must keep full marks.
import math

import torch
import torch.nn.functional as F

LABEL_SMOOTHING = 0.0
Z_LOSS = 0.0


def _weighted_cross_entropy(logits, targets, weights):
    work = torch.float64 if logits.dtype == torch.float64 else torch.float32
    logits = logits.to(work)
    vocab_size = logits.size(-1)
    confidence = 1.0 - LABEL_SMOOTHING
    low_confidence = (1.0 - confidence) / (vocab_size - 1)
    normalizing_constant = -(
        confidence * math.log(confidence)
        + (vocab_size - 1) * low_confidence * math.log(low_confidence + 1e-20)
    )
    safe = torch.where(weights > 0, targets, 0)
    soft_targets = F.one_hot(safe, vocab_size).to(work) * (confidence - low_confidence)
    soft_targets = soft_targets + low_confidence
    loss = F.cross_entropy(logits, soft_targets, reduction="none") - normalizing_constant
    log_z = torch.logsumexp(logits, dim=-1)
    loss = loss + Z_LOSS * log_z**2
    w = weights.to(work)
    return (loss * w).sum() / w.sum().clamp(min=1.0)


def causal_lm_loss(logits, input_ids, attention_mask=None):
    if logits.dim() != 3 or input_ids.shape != logits.shape[:2]:
        raise ValueError("input_ids must be (B, T) matching logits (B, T, V)")
    if attention_mask is not None and attention_mask.shape != input_ids.shape:
        raise ValueError("attention_mask must match input_ids")
    V = logits.size(-1)
    targets = input_ids[:, 1:].long()
    if attention_mask is None:
        weights = torch.ones_like(targets, dtype=torch.bool)
    else:
        weights = attention_mask[:, 1:] != 0
    return _weighted_cross_entropy(
        logits[:, :-1].reshape(-1, V), targets.reshape(-1), weights.reshape(-1)
    )


def masked_lm_loss(logits, labels):
    if labels.shape != logits.shape[:-1]:
        raise ValueError("labels must match logits[..., 0]")
    V = logits.size(-1)
    labels = labels.reshape(-1).long()
    return _weighted_cross_entropy(logits.reshape(-1, V), labels, labels != -100)
