# ALTERNATIVE megatron_logsumexp_losses: Megatron-LM's vocab-parallel cross-entropy written out
# on one device, adapted: logits_max subtracted (out of place here: Megatron's in-place sub_ would
# write into the caller's logits), predicted logits gathered with the ignored targets set to 0
# and their values zeroed, log(sum(exp)) - predicted, and the loss_mask of pretrain_gpt's
# loss_func: sum(losses * loss_mask) / loss_mask.sum(), with the loss_mask taken from the
# attention mask of the targets (Megatron's eod-id rule would break the contract: padding may
# equal eos). A valid implementation: must keep full marks.
import torch


def _vocab_cross_entropy(logits, target, loss_mask):
    work = torch.float64 if logits.dtype == torch.float64 else torch.float32
    logits = logits.to(work)
    logits_max = logits.max(dim=-1, keepdim=True).values.detach()
    logits = logits - logits_max
    masked_target = torch.where(loss_mask, target, 0)
    predicted_logits = logits.gather(-1, masked_target.unsqueeze(-1)).squeeze(-1)
    predicted_logits = predicted_logits.masked_fill(~loss_mask, 0.0)
    sum_exp_logits = logits.exp().sum(dim=-1)
    losses = torch.log(sum_exp_logits) - predicted_logits
    mask = loss_mask.to(work)
    if not bool(loss_mask.any()):
        return (losses * mask).sum()
    return torch.sum(losses * mask) / mask.sum()


def causal_lm_loss(logits, input_ids, attention_mask=None):
    B, T, V = logits.shape
    if tuple(input_ids.shape) != (B, T):
        raise ValueError("input_ids shape")
    if attention_mask is not None and tuple(attention_mask.shape) != (B, T):
        raise ValueError("attention_mask shape")
    target = input_ids[:, 1:].to(torch.int64)
    if attention_mask is None:
        loss_mask = torch.ones_like(target, dtype=torch.bool)
    else:
        loss_mask = attention_mask[:, 1:].bool()
    return _vocab_cross_entropy(
        logits[:, :-1].reshape(-1, V), target.reshape(-1), loss_mask.reshape(-1)
    )


def masked_lm_loss(logits, labels):
    if tuple(labels.shape) != tuple(logits.shape[:-1]):
        raise ValueError("labels shape")
    V = logits.size(-1)
    labels = labels.reshape(-1).to(torch.int64)
    return _vocab_cross_entropy(logits.reshape(-1, V), labels, labels != -100)
