# ALTERNATIVE ignore_index_losses: HF style. Padding targets become -100 *before* the shift,
# labels are shifted with F.pad, F.cross_entropy(reduction="mean", ignore_index=-100) on the
# transposed logits (B, V, T), with an explicit guard for the empty case.
# A valid implementation: must keep full marks.
import torch
import torch.nn.functional as F


def _ce(logits, labels):
    logits = logits.float() if logits.dtype != torch.float64 else logits
    if (labels != -100).sum() == 0:
        return logits.sum() * 0.0
    return F.cross_entropy(logits.transpose(1, 2), labels, ignore_index=-100)


def causal_lm_loss(logits, input_ids, attention_mask=None):
    if logits.dim() != 3 or input_ids.shape != logits.shape[:2]:
        raise ValueError("shape mismatch")
    if attention_mask is not None and attention_mask.shape != input_ids.shape:
        raise ValueError("attention_mask shape mismatch")
    labels = input_ids.long().clone()
    if attention_mask is not None:
        labels[attention_mask == 0] = -100
    # shift left by one and pad the end: labels[:, t] is the token at t + 1
    shifted = F.pad(labels[:, 1:], (0, 1), value=-100)
    return _ce(logits, shifted)


def masked_lm_loss(logits, labels):
    if labels.shape != logits.shape[:-1]:
        raise ValueError("labels must match logits[..., 0]")
    return _ce(logits, labels.long())
