# MUTANT labels_after_corruption: labels read from the corrupted inputs.
# One misconception written into solutions/corruption.py; expected diagnosis: labels_after_corruption.
"""Reference for Part B (Task 2.1). The contract is in ``exercises/corruption.py``."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor


def mask_tokens(
    input_ids: Tensor,
    *,
    mask_token_id: int,
    vocab_size: int,
    special_token_ids: Sequence[int],
    mlm_probability: float = 0.15,
    generator: torch.Generator | None = None,
) -> tuple[Tensor, Tensor]:
    """Task 2.1: BERT corruption -> ``(inputs, labels)``, int64, drawing only from ``generator``."""
    if not 0.0 <= mlm_probability <= 1.0:
        raise ValueError(f"mlm_probability must be in [0, 1], got {mlm_probability}")
    if input_ids.is_floating_point() or input_ids.is_complex():
        raise TypeError(f"input_ids must hold integer ids, got {input_ids.dtype}")
    device = input_ids.device
    if generator is None:  # a private generator: the global RNG is never touched
        generator = torch.Generator(device=device)
        generator.seed()

    ids = input_ids.to(torch.int64)  # (B, T), a new tensor unless already int64
    specials = torch.tensor(list(special_token_ids), dtype=torch.int64, device=device)
    ordinary = torch.arange(vocab_size, device=device)  # candidate replacement ids
    ordinary = ordinary[~torch.isin(ordinary, specials)]
    if ordinary.numel() == 0:
        raise ValueError("every id in [0, vocab_size) is special: nothing to draw from")

    # 1. select each non-special position with probability mlm_probability
    eligible = ~torch.isin(ids, specials)
    u = torch.rand(ids.shape, generator=generator, device=device)
    selected = eligible & (u < mlm_probability)

    # 2. split the selected positions 80 / 10 / 10 with one more uniform per position
    r = torch.rand(ids.shape, generator=generator, device=device)
    to_mask = selected & (r < 0.8)
    to_random = selected & (r >= 0.8) & (r < 0.9)  # the remaining 10% keep their id

    # 3. random replacements are drawn uniformly from the ordinary ids
    pick = torch.randint(len(ordinary), ids.shape, generator=generator, device=device)
    random_ids = ordinary[pick]

    inputs = torch.where(to_mask, mask_token_id, ids)
    inputs = torch.where(to_random, random_ids, inputs)
    labels = torch.where(selected, inputs, -100)
    return inputs, labels
