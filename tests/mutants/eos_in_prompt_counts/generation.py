# MUTANT eos_in_prompt_counts: an eos in the prompt finishes the row.
# One misconception written into solutions/generation.py; expected diagnosis: eos_in_prompt_counts.
"""Reference for Part D (Tasks 4.1-4.4). The contract is in ``exercises/generation.py``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Protocol

import torch
from torch import Tensor


class LanguageModel(Protocol):
    """What generation needs from a model."""

    max_seq_len: int

    def __call__(self, input_ids: Tensor) -> Tensor: ...


@contextmanager
def _inference(model: LanguageModel) -> Iterator[None]:
    """No autograd and eval mode inside; every submodule's own mode restored on exit."""
    modules = list(model.modules()) if isinstance(model, torch.nn.Module) else []
    modes = [m.training for m in modules]
    try:
        for m in modules:
            m.training = False
        with torch.no_grad():
            yield
    finally:
        for m, mode in zip(modules, modes, strict=True):
            m.training = mode


def _check_prompt(input_ids: Tensor, max_new_tokens: int) -> None:
    if input_ids.dim() != 2 or input_ids.size(1) < 1:
        raise ValueError(f"input_ids must be (B, T0) with T0 >= 1, got {tuple(input_ids.shape)}")
    if max_new_tokens < 0:
        raise ValueError(f"max_new_tokens must be >= 0, got {max_new_tokens}")


def _generate(
    model: LanguageModel,
    input_ids: Tensor,
    max_new_tokens: int,
    choose: Callable[[Tensor], Tensor],
    eos_token_id: int | None,
) -> Tensor:
    """The loop shared by greedy and sampled generation; ``choose`` maps (B, V) -> (B,)."""
    _check_prompt(input_ids, max_new_tokens)
    ids = input_ids.clone()  # (B, T0)
    finished = (ids == eos_token_id).any(dim=1) if eos_token_id is not None else torch.zeros(
        ids.size(0), dtype=torch.bool, device=ids.device)
    with _inference(model):
        for _ in range(max_new_tokens):
            context = ids[:, -model.max_seq_len :]  # crop to what the model accepts
            logits = model(context)  # (B, T, V)
            next_id = choose(logits[:, -1, :]).to(ids.device, ids.dtype)  # (B,)
            if eos_token_id is not None:
                next_id = torch.where(finished, eos_token_id, next_id)  # eos is sticky
                finished = finished | (next_id == eos_token_id)
            ids = torch.cat([ids, next_id[:, None]], dim=1)  # (B, T + 1)
            if eos_token_id is not None and bool(finished.all()):
                break
    return ids


def greedy_generate(
    model: LanguageModel,
    input_ids: Tensor,
    max_new_tokens: int,
    *,
    eos_token_id: int | None = None,
) -> Tensor:
    """Task 4.1: append the argmax token each step -> ``(B, T0 + n')``."""
    return _generate(model, input_ids, max_new_tokens, lambda x: x.argmax(dim=-1), eos_token_id)


def sample_next_token(
    logits: Tensor,
    *,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    generator: torch.Generator | None = None,
) -> Tensor:
    """Task 4.2: temperature -> top-k -> top-p -> renormalise -> multinomial; ``(B,)`` int64."""
    if temperature < 0:
        raise ValueError(f"temperature must be >= 0, got {temperature}")
    if top_k is not None and top_k < 1:
        raise ValueError(f"top_k must be >= 1 (or None), got {top_k}")
    if top_p is not None and not top_p > 0:
        raise ValueError(f"top_p must be > 0 (or None), got {top_p}")
    logits = logits.to(torch.promote_types(logits.dtype, torch.float32))  # (B, V)
    if temperature == 0:
        return logits.argmax(dim=-1)  # greedy; ties -> lowest id
    V = logits.size(-1)

    logits = logits / temperature
    if top_k is not None and top_k < V:
        kth = torch.topk(logits, top_k, dim=-1).values[:, -1:]  # (B, 1), the k-th largest
        logits = logits.masked_fill(logits < kth, float("-inf"))
    probs = torch.softmax(logits, dim=-1)  # (B, V)

    if top_p is not None and top_p < 1:
        sorted_probs, order = torch.sort(probs, dim=-1, descending=True, stable=True)
        cumulative = sorted_probs.cumsum(dim=-1)  # (B, V)
        mass_before = torch.cat([torch.zeros_like(cumulative[:, :1]), cumulative[:, :-1]], -1)
        drop_sorted = mass_before >= top_p  # keeps the crossing token and always the first
        drop = drop_sorted.scatter(-1, order, drop_sorted)  # back to vocabulary order
        probs = probs.masked_fill(drop, 0.0)
        probs = probs / probs.sum(dim=-1, keepdim=True)

    if generator is None:  # a private generator: the global RNG is never touched
        generator = torch.Generator(device=probs.device)
        generator.seed()
    return torch.multinomial(probs, 1, generator=generator).squeeze(-1)  # (B,)


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
    """Task 4.3: ``greedy_generate`` with each token drawn by ``sample_next_token``."""
    if generator is None and temperature != 0:
        generator = torch.Generator(device=input_ids.device)
        generator.seed()

    def choose(last_logits: Tensor) -> Tensor:
        return sample_next_token(
            last_logits, temperature=temperature, top_k=top_k, top_p=top_p, generator=generator
        )

    return _generate(model, input_ids, max_new_tokens, choose, eos_token_id)


def prefix_consistency_gap(model: LanguageModel, input_ids: Tensor) -> Tensor:
    """Task 4.4: ``gap[t] = max_v |logits(full)[t] - logits(prefix to t)[t]|``, float32 (T,)."""
    if input_ids.dim() != 2 or input_ids.size(0) != 1 or input_ids.size(1) < 1:
        raise ValueError(f"input_ids must be (1, T) with T >= 1, got {tuple(input_ids.shape)}")
    T = input_ids.size(1)
    if T > model.max_seq_len:
        raise ValueError(f"T={T} exceeds model.max_seq_len={model.max_seq_len}")
    with _inference(model):
        full = model(input_ids)[0].double()  # (T, V), every position sees the whole input
        gaps = []
        for t in range(T):
            prefix = model(input_ids[:, : t + 1])[0, t].double()  # (V,), the sequence ends at t
            gaps.append((full[t] - prefix).abs().max())
    return torch.stack(gaps).to(torch.float32)  # (T,)
