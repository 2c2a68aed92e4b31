"""Part D: left-to-right generation and the train/generation mismatch (Tasks 4.1-4.4).

A "model" here is anything callable as ``model(input_ids) -> logits (B, T, V)`` that has an
int attribute ``max_seq_len`` (the longest context it accepts), for example ``TinyLM`` from
``exercises/tinylm.py``. If it is an ``nn.Module``, generation runs it in eval mode (no
dropout) and then puts every submodule back in the mode it was in.
"""

from __future__ import annotations

from typing import Protocol

import torch
from torch import Tensor


class LanguageModel(Protocol):
    """What generation needs from a model."""

    max_seq_len: int

    def __call__(self, input_ids: Tensor) -> Tensor: ...


def greedy_generate(
    model: LanguageModel,
    input_ids: Tensor,
    max_new_tokens: int,
    *,
    eos_token_id: int | None = None,
) -> Tensor:
    """Task 4.1: append the most likely next token, one step at a time.

    Each step: crop the context to its last ``model.max_seq_len`` tokens, run the model, take
    the argmax of the logits at the *last* position (ties go to the lowest id, as
    ``torch.argmax`` does), append it.

    Args:
        model: see the module docstring.
        input_ids: ``(B, T0)`` integer prompt, ``T0 >= 1``; it may be longer than
            ``model.max_seq_len`` (only the last ``max_seq_len`` tokens are ever fed).
        max_new_tokens: n >= 0, the most tokens to append.
        eos_token_id: optional end-of-sequence id. Once a row has *generated* it, the row is
            finished and is continued with ``eos_token_id``; an eos inside the prompt does not
            count. Generation stops early when every row has finished.

    Returns:
        ``(B, T0 + n')`` with ``n' <= max_new_tokens`` (``n' < max_new_tokens`` only when
        every row finished early), same dtype and device as ``input_ids``; the first T0
        columns are the prompt.

    Edge cases:
        * ``max_new_tokens == 0`` returns a copy of ``input_ids`` (a new tensor).
        * Runs under ``torch.no_grad()`` and leaves the model's train/eval mode as it found it.
        * ``input_ids`` is not modified. A negative ``max_new_tokens`` or a prompt that is not
          ``(B, T0)`` with ``T0 >= 1`` raises ``ValueError``.

    Example (a toy model that always predicts "last token + 1"):
        >>> class Counter:
        ...     max_seq_len = 4
        ...     def __call__(self, ids):
        ...         return torch.nn.functional.one_hot((ids + 1) % 5, 5).float()
        >>> greedy_generate(Counter(), torch.tensor([[1, 2]]), 4)
        tensor([[1, 2, 3, 4, 0, 1]])
        >>> greedy_generate(Counter(), torch.tensor([[1, 2]]), 4, eos_token_id=4)
        tensor([[1, 2, 3, 4]])
    """
    raise NotImplementedError(
        "Task 4.1: repeatedly crop to model.max_seq_len, append the argmax of the last "
        "position's logits, keep finished rows on eos and stop when all rows have finished."
    )


def sample_next_token(
    logits: Tensor,
    *,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    generator: torch.Generator | None = None,
) -> Tensor:
    """Task 4.2: draw one next token per row with temperature, top-k and top-p (nucleus).

    In this order:
        1. divide the logits by ``temperature``;
        2. top-k: keep the ``top_k`` highest logits (ties with the k-th value are kept),
           set the rest to ``-inf``;
        3. top-p: sort the remaining probabilities in decreasing order and keep the smallest
           prefix whose cumulative probability reaches ``top_p``, the token that crosses
           ``top_p`` included (so at least one token always survives);
        4. renormalise and draw with ``torch.multinomial(probs, 1, generator=generator)``.

    Args:
        logits: ``(B, V)`` float scores for the next token (any float dtype; work in at
            least float32).
        temperature: >= 0. Below 1 sharpens the distribution, above 1 flattens it.
        top_k: None (off) or >= 1.
        top_p: None (off) or > 0.
        generator: the only source of randomness (see ``mask_tokens``). When None, the
            result is not reproducible (the reference then seeds a private generator).

    Returns:
        ``(B,)`` int64 token ids on the logits' device, one independent draw per row.

    Edge cases:
        * ``temperature == 0`` is greedy: the argmax (ties -> lowest id), no draw at all.
        * ``top_k >= V`` and ``top_p >= 1`` change nothing; ``top_k=1`` is greedy when the
          largest logit is unique (tokens tied with the k-th largest are all kept).
        * A tiny ``top_p`` still keeps the most likely token.
        * ``temperature < 0``, ``top_k < 1`` or ``top_p <= 0`` raises ``ValueError``.
        * ``logits`` is not modified.

    Example (with probabilities [0.5, 0.3, 0.15, 0.05], ``top_p=0.6`` keeps ids 0 and 1:
    0.5 alone does not reach 0.6, and id 1 is the token that crosses it):
        >>> logits = torch.tensor([[0.5, 0.3, 0.15, 0.05]]).log()
        >>> sample_next_token(logits, temperature=0.0)
        tensor([0])
        >>> g = torch.Generator().manual_seed(0)
        >>> ids = sample_next_token(logits.expand(1000, 4), top_p=0.6, generator=g)
        >>> sorted(set(ids.tolist()))
        [0, 1]
    """
    raise NotImplementedError(
        "Task 4.2: apply temperature, then top-k, then top-p to the logits, renormalise and "
        "draw one id per row with torch.multinomial(probs, 1, generator=generator)."
    )


def sample_generate(
    model: LanguageModel,
    input_ids: Tensor,
    max_new_tokens: int,
    *,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    generator: torch.Generator | None = None,
    eos_token_id: int | None = None,
) -> Tensor:
    """Task 4.3: like ``greedy_generate``, but each new token comes from ``sample_next_token``.

    Args:
        model, input_ids, max_new_tokens, eos_token_id: as in ``greedy_generate``.
        temperature, top_k, top_p, generator: passed to ``sample_next_token`` at every step.

    Returns:
        ``(B, T0 + n')`` as in ``greedy_generate``. With ``temperature=0`` or ``top_k=1`` the
        result equals ``greedy_generate``'s. The same seeded generator gives the same tokens.

    Edge cases:
        * As in ``greedy_generate`` (crop, eos, early stop, no autograd, mode restored).
        * Every step draws for every row, finished rows included (their draw is then replaced
          by eos), so the random stream does not depend on which rows have finished.

    Example:
        >>> class Counter:
        ...     max_seq_len = 4
        ...     def __call__(self, ids):
        ...         return 50.0 * torch.nn.functional.one_hot((ids + 1) % 5, 5).float()
        >>> g = torch.Generator().manual_seed(0)
        >>> sample_generate(Counter(), torch.tensor([[1, 2]]), 3, top_k=1, generator=g)
        tensor([[1, 2, 3, 4, 0]])
    """
    raise NotImplementedError(
        "Task 4.3: run the greedy_generate loop, choosing each token with sample_next_token "
        "and the given temperature / top_k / top_p / generator."
    )


def prefix_consistency_gap(model: LanguageModel, input_ids: Tensor) -> Tensor:
    """Task 4.4: measure how much each position's prediction depends on later tokens.

    ``gap[t] = max_v |model(input_ids)[0, t, v] - model(input_ids[:, :t + 1])[0, t, v]|``:
    the logits at position t computed with the whole sequence present, against the logits at
    t when the sequence ends at t, which is all that left-to-right generation ever has.

    Args:
        model: see the module docstring.
        input_ids: ``(1, T)`` integer ids, ``1 <= T <= model.max_seq_len``.

    Returns:
        float32 tensor ``(T,)`` on the device of the model's logits. About 0 (float rounding
        only) for a causal model: position t never sees t + 1, ... . Clearly above 0 for a
        bidirectional (masked-LM) model, which at training time used right context that
        generation never has. ``gap[T - 1]`` is ~0 for any model (both runs see the same
        tokens).

    Edge cases:
        * Runs under ``torch.no_grad()``, in eval mode, and restores the model's modes.
        * A batch other than 1, or ``T > model.max_seq_len``, raises ``ValueError``.

    Example (a toy model whose every position peeks at the last token, like a
    bidirectional one):
        >>> class PeekLast:
        ...     max_seq_len = 4
        ...     def __call__(self, ids):
        ...         last = torch.nn.functional.one_hot(ids[:, -1:], 5).float()
        ...         return last.expand(-1, ids.shape[1], -1)
        >>> prefix_consistency_gap(PeekLast(), torch.tensor([[1, 2, 3]]))
        tensor([1., 1., 0.])
    """
    raise NotImplementedError(
        "Task 4.4: for every t compare the logits at t of the full sequence with those of the "
        "prefix input_ids[:, :t + 1] and return the max absolute difference per t."
    )
