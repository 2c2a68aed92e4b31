# ALTERNATIVE fairseq_nll_losses: fairseq's cross_entropy criterion: lprobs =
# F.log_softmax(logits, dim=-1, dtype=float32) (float64 kept), F.nll_loss(reduction="sum",
# ignore_index=padding) and the sum divided by the sample size (the number of counted tokens),
# a zero tied to the graph when nothing counts. A valid implementation: must keep full marks.
import torch
import torch.nn.functional as F

IGNORE = -100


def _nll_mean(logits, target):
    V = logits.size(-1)
    acc = torch.float64 if logits.dtype == torch.float64 else torch.float32
    lprobs = F.log_softmax(logits.reshape(-1, V), dim=-1, dtype=acc)
    target = target.reshape(-1)
    sample_size = int((target != IGNORE).sum())
    if sample_size == 0:
        return lprobs.sum() * 0.0
    loss = F.nll_loss(lprobs, target, ignore_index=IGNORE, reduction="sum")
    return loss / sample_size


def causal_lm_loss(logits, input_ids, attention_mask=None):
    if logits.dim() != 3 or tuple(input_ids.shape) != tuple(logits.shape[:2]):
        raise ValueError("input_ids must be (B, T) like logits[..., 0]")
    target = input_ids[:, 1:].long()
    if attention_mask is not None:
        if tuple(attention_mask.shape) != tuple(input_ids.shape):
            raise ValueError("attention_mask must be (B, T)")
        target = target.masked_fill(attention_mask[:, 1:] == 0, IGNORE)
    return _nll_mean(logits[:, :-1], target)


def masked_lm_loss(logits, labels):
    if tuple(labels.shape) != tuple(logits.shape[:-1]):
        raise ValueError("labels must be (B, T)")
    return _nll_mean(logits, labels.long())
