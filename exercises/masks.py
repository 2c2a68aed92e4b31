"""Part A: attention masks and masked attention (Tasks 1.1-1.4).

Conventions used throughout this file:

* A boolean mask is a *keep* mask: ``True`` means "this query may attend this key", the
  convention of the boolean ``attn_mask`` of ``torch.nn.functional.scaled_dot_product_attention``.
  (``nn.MultiheadAttention``'s ``key_padding_mask`` uses the opposite polarity: do not mix them.)
* Shapes: B batch, H heads, T sequence length (Tq queries, Tk keys), D head size.
* Inputs are never modified in place. Every output is a new tensor on the input's device,
  with one exception: ``padding_mask`` may return a view of a bool ``attention_mask`` (e.g.
  ``attention_mask[:, None, None, :]``, no copy). So treat every returned mask as read-only:
  never write into it (``clone()`` it first if you must edit it). ``build_attention_mask``
  returns a new tensor even when it only expands the key mask.

Implement the functions in order: 1.1 and 1.2 are building blocks of 1.3, and ``TinyLM``
(``exercises/tinylm.py``) calls 1.3 and 1.4 in every forward pass.
"""

from __future__ import annotations

import torch
from torch import Tensor


def causal_mask(
    q_len: int, k_len: int | None = None, device: torch.device | str | None = None
) -> Tensor:
    """Task 1.1: the causal ("no peeking ahead") keep-mask.

    Args:
        q_len: Tq, the number of queries (>= 0).
        k_len: Tk, the number of keys (>= 0); defaults to ``q_len``.
        device: where to create the mask (default: torch's default device).

    Returns:
        bool tensor of shape ``(Tq, Tk)``. The queries are the *last* Tq positions of the
        sequence (bottom-right alignment, as when decoding with a KV cache): query i sits at
        absolute position ``Tk - Tq + i`` and may attend key j iff ``j <= Tk - Tq + i``.
        The diagonal is included, so every query may attend itself.

    Edge cases:
        * ``q_len == k_len`` gives the usual lower-triangular mask.
        * ``q_len == 1`` (one decoding step) may attend every key: a single all-True row.
        * ``k_len < q_len``: the first ``q_len - k_len`` rows have a negative position and no
          allowed key (all False); ``masked_attention`` turns such rows into zeros.
        * A negative length raises ``ValueError``.

    Example:
        >>> causal_mask(3)
        tensor([[ True, False, False],
                [ True,  True, False],
                [ True,  True,  True]])
        >>> causal_mask(2, 4)  # 2 new queries at positions 2 and 3 of a 4-token sequence
        tensor([[ True,  True,  True, False],
                [ True,  True,  True,  True]])
    """
    raise NotImplementedError(
        "Task 1.1: return the (q_len, k_len) bool mask that lets query i attend key j "
        "iff j <= k_len - q_len + i."
    )


def padding_mask(attention_mask: Tensor) -> Tensor:
    """Task 1.2: turn a per-token attention mask into a key-padding keep-mask.

    Args:
        attention_mask: ``(B, T)``, integer (0/1) or bool; nonzero / True marks a real token,
            0 / False a padding token. Padding may sit on the right or on the left.

    Returns:
        bool tensor of shape ``(B, 1, 1, T)``: entry ``[b, 0, 0, j]`` is True iff key j of
        sequence b is a real token. The two singleton axes (heads, queries) let it broadcast
        against ``(B, H, Tq, T)`` scores: padding hides *keys*, never queries. A padding
        query still gets an output row (it is simply ignored by the loss).

    Edge cases:
        * The result does not depend on the token ids, so a padding id of 0 or a real token
          with id 0 cannot confuse it.
        * For a bool ``attention_mask`` the result may be a view of it (``attention_mask[:,
          None, None, :]``); a new tensor is fine too. Callers must not write into it.
          ``attention_mask`` itself is never modified.
        * A tensor that is not 2-D raises ``ValueError``.

    Example:
        >>> padding_mask(torch.tensor([[1, 1, 0], [1, 1, 1]]))
        tensor([[[[ True,  True, False]]],
        <BLANKLINE>
        <BLANKLINE>
                [[[ True,  True,  True]]]])
    """
    raise NotImplementedError(
        "Task 1.2: return attention_mask != 0 reshaped to a (B, 1, 1, T) bool key mask."
    )


def build_attention_mask(attention_mask: Tensor | None, seq_len: int, causal: bool) -> Tensor:
    """Task 1.3: the full keep-mask a transformer layer uses.

    Combines the causal mask (when ``causal`` is True) with the key-padding mask (when
    ``attention_mask`` is given) by logical AND: a key is visible only if both allow it.

    Args:
        attention_mask: ``(B, T)`` 0/1 or bool, or None when no token is padding.
        seq_len: T, the sequence length (must equal ``attention_mask.shape[1]`` if given).
        causal: True for a decoder / causal LM, False for an encoder / masked LM
            (bidirectional: every real token sees every real token).

    Returns:
        bool tensor of shape ``(B, 1, T, T)`` when ``attention_mask`` is given, otherwise
        ``(1, 1, T, T)``; always 4-D, so it broadcasts against ``(B, H, T, T)`` scores. It is
        on ``attention_mask``'s device (or torch's default device when that is None). A new
        tensor, never a view of ``attention_mask`` (``padding_mask`` may return one: copy it,
        e.g. ``.expand(...).clone()``, when it is all the result needs).

    Edge cases:
        * ``attention_mask=None, causal=False``: all True (nothing is hidden).
        * ``attention_mask=None, causal=True``: equals ``causal_mask(T)`` with two leading axes.
        * ``seq_len`` different from the mask's length raises ``ValueError``.

    Example:
        >>> build_attention_mask(torch.tensor([[1, 1, 0]]), 3, causal=True)
        tensor([[[[ True, False, False],
                  [ True,  True, False],
                  [ True,  True, False]]]])
        >>> build_attention_mask(None, 2, causal=False).shape
        torch.Size([1, 1, 2, 2])
    """
    raise NotImplementedError(
        "Task 1.3: AND the causal mask (if causal) with the padding mask (if given) into a "
        "4-D (B or 1, 1, T, T) bool mask."
    )


def masked_attention(
    q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None = None
) -> tuple[Tensor, Tensor]:
    """Task 1.4: scaled dot-product attention with a boolean keep-mask.

    ``weights = softmax(q @ k^T / sqrt(D))`` over the keys, restricted to allowed keys, and
    ``output = weights @ v``.

    Args:
        q: ``(B, H, Tq, D)`` queries, floating point (float16, bfloat16, float32 or float64).
        k: ``(B, H, Tk, D)`` keys, same dtype as ``q``.
        v: ``(B, H, Tk, D)`` values, same dtype as ``q``.
        mask: bool, broadcastable to ``(B, H, Tq, Tk)`` (e.g. the output of
            ``build_attention_mask`` or ``causal_mask``), True = may attend; None = all keys.

    Returns:
        ``(output, weights)``: output ``(B, H, Tq, D)`` and weights ``(B, H, Tq, Tk)``, both
        in ``q``'s dtype. Each weight row sums to 1 over its allowed keys, and a masked key
        gets a weight of exactly 0 (not merely a tiny number).

    Edge cases:
        * A query row with no allowed key (e.g. a padding query under left padding) gets
          all-zero weights and an all-zero output, never NaN, and its gradients are finite.
          Filling with ``-inf`` and calling softmax gives NaN here: use ``torch.where``.
        * float16 / bfloat16 inputs: the scores can overflow the half range, so compute the
          scores and the softmax in float32 and cast the results back to ``q``'s dtype.
        * A non-bool mask (e.g. an additive 0/-inf mask) raises ``TypeError``.

    Example (all scores equal, so the weights are uniform over the allowed keys):
        >>> q = k = torch.zeros(1, 1, 2, 1)
        >>> v = torch.tensor([2.0, 4.0]).view(1, 1, 2, 1)
        >>> out, w = masked_attention(q, k, v, causal_mask(2))
        >>> w
        tensor([[[[1.0000, 0.0000],
                  [0.5000, 0.5000]]]])
        >>> out.flatten()
        tensor([2., 3.])
    """
    raise NotImplementedError(
        "Task 1.4: compute softmax(q k^T / sqrt(D)) over the allowed keys (masked weights "
        "exactly 0, empty rows all 0), return (weights @ v, weights)."
    )
