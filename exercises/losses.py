"""Part C: the two training objectives (Tasks 3.1-3.2).

Both losses are a token-level mean cross-entropy: every counted token has the same weight,
however the tokens are spread over the batch. Use ``F.cross_entropy`` (it works on logits via
a stable log-sum-exp), never a hand-made ``softmax`` followed by ``log``.
"""

from __future__ import annotations

import torch  # noqa: F401  (the examples, and your code, use it)
from torch import Tensor


def causal_lm_loss(
    logits: Tensor, input_ids: Tensor, attention_mask: Tensor | None = None
) -> Tensor:
    """Task 3.1: next-token cross-entropy of a causal LM.

    The logits at position t predict the token at position t + 1, so shift by one: compare
    ``logits[:, :-1]`` with ``input_ids[:, 1:]``.

    Args:
        logits: ``(B, T, V)`` float (float16, bfloat16, float32 or float64).
        input_ids: ``(B, T)`` integer ids in ``[0, V)`` (padding ids may be anything in range).
        attention_mask: ``(B, T)`` 0/1 or bool, 1 / True at real tokens; None = all real.

    Returns:
        a 0-dim tensor: the mean of ``CE(logits[b, t], input_ids[b, t + 1])`` over every pair
        (b, t) with t < T - 1 whose *target* is real (``attention_mask[b, t + 1] == 1``).
        The mean is over tokens, not per sequence first. Its dtype is float32 for
        float16 / bfloat16 / float32 logits (half logits are reduced in float32) and float64
        for float64 logits.

    Edge cases:
        * No target counts (T == 1, or every target is padding): return a zero that is still
          connected to the graph, in the dtype above, e.g. ``logits.sum().float() * 0.0`` (keep
          float64 as float64), so ``backward()`` works
          and gives zero gradients. ``F.cross_entropy(..., reduction="mean")`` would give NaN.
        * Padding decided by ``attention_mask``, not by an id: the padding id may equal the
          end-of-sequence id, and a real end-of-sequence target must still count.
        * Large logits (around 1e4) must not overflow: stay with log-sum-exp.
        * Mismatched shapes raise ``ValueError``.

    Example (uniform logits give a loss of ln V):
        >>> logits = torch.zeros(1, 3, 4)
        >>> round(causal_lm_loss(logits, torch.tensor([[0, 1, 2]])).item(), 4)  # ln 4
        1.3863
        >>> causal_lm_loss(logits, torch.tensor([[0, 1, 2]]), torch.tensor([[1, 0, 0]]))
        tensor(0.)
    """
    raise NotImplementedError(
        "Task 3.1: shift by one (logits[:, :-1] predict input_ids[:, 1:]) and average the "
        "cross-entropy over targets whose attention_mask is 1, in float32 or float64."
    )


def masked_lm_loss(logits: Tensor, labels: Tensor) -> Tensor:
    """Task 3.2: cross-entropy of a masked LM at the selected positions only.

    Args:
        logits: ``(B, T, V)`` float. No shift: position t predicts the original token at t.
        labels: ``(B, T)`` integer (int64 from ``mask_tokens``; any integer dtype, e.g.
            int32, is accepted), the original id where the position was selected by
            ``mask_tokens`` and -100 everywhere else.

    Returns:
        a 0-dim tensor: the mean of ``CE(logits[b, t], labels[b, t])`` over every position with
        ``labels[b, t] != -100`` (all of the [MASK], random and unchanged positions), token
        level across the batch. dtype as in ``causal_lm_loss`` (float32, or float64 for
        float64 logits).

    Edge cases:
        * No label is set: return a differentiable zero (as in ``causal_lm_loss``).
        * Large logits must not overflow; half logits are reduced in float32.
        * Mismatched shapes raise ``ValueError``.

    Example:
        >>> logits = torch.zeros(1, 3, 4)
        >>> round(masked_lm_loss(logits, torch.tensor([[-100, 2, -100]])).item(), 4)  # ln 4
        1.3863
    """
    raise NotImplementedError(
        "Task 3.2: average the cross-entropy over the positions whose label is not -100 "
        "(a differentiable zero when there are none)."
    )
