"""Part B: masked-LM input corruption, BERT style (Task 2.1).

A masked LM sees a corrupted copy of the sentence and learns to restore the hidden tokens
from the context on *both* sides. This file builds that corrupted copy and the labels.
"""

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
    """Task 2.1: choose positions to predict and corrupt them with the 80/10/10 rule.

    Args:
        input_ids: ``(B, T)`` (any shape works) integer token ids in ``[0, vocab_size)``.
        mask_token_id: the id of the ``[MASK]`` token.
        vocab_size: V; ids are in ``[0, V)``.
        special_token_ids: ids that are never selected and never drawn as a random
            replacement (``[CLS]``, ``[SEP]``, padding, ``[MASK]`` ...). Only the ids listed
            here are special, so list ``mask_token_id`` and the padding id too. Each lies in
            ``[0, V)``.
        mlm_probability: the chance that each non-special position is selected, in ``[0, 1]``.
        generator: the only source of randomness. Pass a seeded ``torch.Generator`` for a
            reproducible result; never touch the global RNG (``torch.rand(..., generator=g)``,
            ``torch.randint(..., generator=g)``, ...). When None, the result is not
            reproducible (the reference then seeds a private generator from the OS).

    Returns:
        ``(inputs, labels)``, both new int64 tensors of ``input_ids``' shape and device:

        * each non-special position is selected independently with probability
          ``mlm_probability``;
        * of the selected positions, 80% become ``mask_token_id``, 10% become a random id
          drawn uniformly from the non-special ids in ``[0, V)``, and 10% keep their id;
        * ``inputs`` equals ``input_ids`` at every position that was not selected;
        * ``labels`` holds the original id at selected positions and -100 everywhere else
          (-100 is ``ignore_index`` of ``F.cross_entropy``).

    Edge cases:
        * ``input_ids`` is left untouched (clone before writing).
        * ``mlm_probability == 0`` selects nothing (labels all -100); ``1`` selects every
          non-special position. A value outside ``[0, 1]`` raises ``ValueError``; so does a
          vocabulary with no non-special id.
        * The exact random stream is yours to choose (Bernoulli draws, one uniform with
          thresholds 0.8 / 0.9, ...): the tests check the rules and the proportions.

    Example (with ``mlm_probability=1`` every ordinary token is selected):
        >>> ids = torch.tensor([[0, 7, 8, 9, 1]])  # 0 = [CLS], 1 = [SEP]
        >>> g = torch.Generator().manual_seed(0)
        >>> inputs, labels = mask_tokens(ids, mask_token_id=3, vocab_size=10,
        ...     special_token_ids=[0, 1, 2, 3], mlm_probability=1.0, generator=g)
        >>> labels
        tensor([[-100,    7,    8,    9, -100]])
        >>> inputs[0, [0, 4]].tolist()  # special tokens are never changed
        [0, 1]
    """
    raise NotImplementedError(
        "Task 2.1: select non-special positions with probability mlm_probability using only "
        "`generator`, apply 80% [MASK] / 10% random / 10% unchanged, return (inputs, labels)."
    )
