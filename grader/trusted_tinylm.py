"""The grader's trusted TinyLM: correct mask and attention, the fixed test models, a fast forward.

Trusted side only. This module is outside ``grader/sandbox/``, so it is not in the jail and
no worker can import it: the correct mask and attention maths never reach student code (see
`grader.sandbox.models` for what travels instead). The hidden tests build their models here;
the reference fixture and the diagnosis variants run them in-process. Their cheaper forward is
`grader.trusted_forward`'s, installed by the Grader's caches.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import torch
from torch import Tensor

from exercises.tinylm import AttentionFn, MaskFn, TinyLM, TinyLMConfig
from grader.sandbox import models as _spec
from grader.sandbox.invoke import module_flags
from grader.sandbox.models import STANDARD_CONFIGS, model_to_spec, spec_header

__all__ = [
    "STANDARD_CONFIGS",
    "STANDARD_HEAD_SCALE",
    "STANDARD_SEEDS",
    "TrustedModels",
    "build_trusted_model",
    "model_from_spec",
    "model_to_spec",
    "shared_standard_model",
    "spec_header",
    "standard_models",
    "templates_in_use",
    "trusted_attention",
    "trusted_mask",
    "using",
]

_HALF_DTYPES = (torch.float16, torch.bfloat16)
_MAX_WEIGHTS = 64  # (config, seed) pairs remembered by build_trusted_model


class TrustedModels:
    """The models a `Grader` keeps for its submissions' hidden tests: the weights each
    (config, seed) draws (`build_trusted_model`) and one standard model per (name, dtype)
    (`shared_standard_model`). The suite runner puts a grader's in use while a submission's
    tests run (`using`); with none in use, every call builds afresh (same values)."""

    def __init__(self) -> None:
        self.weights: dict[tuple[Any, ...], tuple[int, dict[str, Tensor]]] = {}
        self.shared: dict[tuple[str, torch.dtype], TinyLM] = {}
        # structural copies to rebuild models from (`grader.sandbox.models.Templates`)
        self.templates = _spec.Templates()


def templates_in_use() -> _spec.Templates | None:
    """The `Templates` of the `TrustedModels` in use in this context, or None (then a
    rebuilt model runs the constructor: same model, slower)."""
    models = _IN_USE.get()
    return None if models is None else models.templates


_IN_USE: ContextVar[TrustedModels | None] = ContextVar("trusted_models", default=None)


@contextmanager
def using(models: TrustedModels | None) -> Iterator[None]:
    """Keep and reuse models in `models` in this context (the suite thread, one submission)."""
    token = _IN_USE.set(models)
    try:
        yield
    finally:
        _IN_USE.reset(token)


# ----------------------------------------------------------------------------- trusted maths


def trusted_mask(attention_mask: Tensor | None, seq_len: int, causal: bool) -> Tensor:
    """Correct ``build_attention_mask``: bool ``(B or 1, 1, T, T)``, True = may attend."""
    if attention_mask is None:
        if causal:
            return torch.ones(seq_len, seq_len, dtype=torch.bool).tril()[None, None]
        return torch.ones(1, 1, seq_len, seq_len, dtype=torch.bool)
    B, T = attention_mask.shape
    if T != seq_len:
        raise ValueError(f"attention_mask has length {T} but seq_len is {seq_len}")
    keep = (attention_mask != 0)[:, None, None, :].expand(B, 1, T, T)  # (B, 1, T, T)
    if not causal:
        return keep.clone()
    future = torch.ones(T, T, dtype=torch.bool, device=attention_mask.device).tril()
    return keep & future


def trusted_attention(
    q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None = None
) -> tuple[Tensor, Tensor]:
    """Correct ``masked_attention``: float32 maths for half inputs, empty rows all zero."""
    dtype = q.dtype
    compute = torch.float32 if dtype in _HALF_DTYPES else dtype
    q, k, v = q.to(compute), k.to(compute), v.to(compute)
    scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(q.size(-1)))  # (B, H, Tq, Tk)
    if mask is not None:
        if mask.dtype != torch.bool:
            raise TypeError(f"mask must be a bool keep-mask (True = attend), got {mask.dtype}")
        mask = mask.to(scores.device)
        scores = torch.where(mask, scores, torch.finfo(compute).min)
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        weights = torch.where(mask, weights, 0.0)
    out = weights @ v  # (B, H, Tq, D)
    return out.to(dtype), weights.to(dtype)


def model_from_spec(
    header: dict[str, Any],
    tensors: dict[str, Tensor],
    mask_fn: MaskFn | None = None,
    attention_fn: AttentionFn | None = None,
) -> TinyLM:
    """`grader.sandbox.models.model_from_spec` for the trusted side: the functions default to
    `trusted_mask` / `trusted_attention` (the worker's default is torch's attention)."""
    return _spec.model_from_spec(
        header,
        tensors,
        mask_fn or trusted_mask,
        attention_fn or trusted_attention,
        templates=templates_in_use(),
    )


def build_trusted_model(config: TinyLMConfig, seed: int) -> TinyLM:
    """A TinyLM drawn from ``seed`` that runs on the trusted functions, in eval mode.

    Every call returns a new model with its own parameters. With `TrustedModels` in use, the
    weights a (config, seed) pair draws are remembered after the first build, so later calls
    copy them into a structural copy of a template (see `_instantiate`) instead of running
    the constructor again.
    """
    memo = _IN_USE.get()
    key = None if memo is None else _weights_key(config, seed)
    template = None if key is None else memo.templates.get(config)
    if template is None:  # not reproducible by a copy: always the constructor
        model = TinyLM(config, mask_fn=trusted_mask, attention_fn=trusted_attention, seed=seed)
        return model.eval()
    cached = memo.weights.get(key)
    if cached is None:
        model, cached = _first_build(config, seed)
        if cached is not None and len(memo.weights) < _MAX_WEIGHTS:
            memo.weights[key] = cached
        return model.eval()
    seed_attr, weights = cached
    state = {name: w.clone() for name, w in weights.items()}
    model = _spec._instantiate(
        template, config, state, trusted_mask, trusted_attention, training=False
    )
    model.seed = seed_attr
    return model


def _weights_key(config: TinyLMConfig, seed: Any) -> tuple[Any, ...] | None:
    if type(config) is not TinyLMConfig or type(seed) is not int or not _spec._plain_torch_state():
        return None
    return (_spec._config_key(config), seed, torch.get_default_dtype())


def _first_build(
    config: TinyLMConfig, seed: int
) -> tuple[TinyLM, tuple[int, dict[str, Tensor]] | None]:
    """Build with the constructor; also return what later builds may copy, or None when the
    weights are not a function of (config, seed) alone or the build touched the global RNG
    (then every build runs the constructor)."""
    rng = torch.get_rng_state()
    model = TinyLM(config, mask_fn=trusted_mask, attention_fn=trusted_attention, seed=seed)
    if not torch.equal(rng, torch.get_rng_state()):
        return model, None
    weights = {name: t.detach().clone() for name, t in model.state_dict().items()}
    with torch.random.fork_rng(devices=[]):
        torch.randint(2, (1,))  # another global RNG state must not change the weights
        again = TinyLM(config, mask_fn=trusted_mask, attention_fn=trusted_attention, seed=seed)
    if list(again.state_dict()) != list(weights) or any(
        not _same_bits(t, weights[name]) for name, t in again.state_dict().items()
    ):
        return model, None
    return model, (model.seed, weights)


def _same_bits(a: Tensor, b: Tensor) -> bool:
    return (
        a.dtype == b.dtype
        and a.shape == b.shape
        and torch.equal(
            a.detach().reshape(-1).view(torch.uint8), b.detach().reshape(-1).view(torch.uint8)
        )
    )


# ----------------------------------------------------------------------------- the zoo

STANDARD_SEEDS: dict[str, int] = {"causal": 1234, "bidirectional": 1234}
STANDARD_HEAD_SCALE = 4.0  # peaky logits: greedy choices are far from ties


def shared_standard_model(name: str, dtype: torch.dtype = torch.float32) -> TinyLM:
    """One standard model per (name, dtype) of the `TrustedModels` in use (a new one when
    none is), in eval mode, for the hidden tests to send. Its weights never change (students
    only ever get copies); its mode is reset because the proxy mirrors a student's mode
    change onto the model it passed."""
    memo = _IN_USE.get()
    model = None if memo is None else memo.shared.get((name, dtype))
    if model is None:
        model = standard_models()[name].to(dtype)
        if memo is not None:
            memo.shared[(name, dtype)] = model
    if any(module_flags(model)):  # cheaper to ask than to set every time
        model.eval()
    return model


def standard_models() -> dict[str, TinyLM]:
    """Fresh copies of the fixed test models, identical on every call and every run.

    ``"causal"`` and ``"bidirectional"``: vocab 24, max_seq_len 12, d_model 32, 2 heads,
    2 layers, the same weights (same seed) and only the mask differs. The LM head is scaled
    by ``STANDARD_HEAD_SCALE`` so the logits are peaky. Trusted functions, eval mode, float32.
    """
    models = {}
    for name, config in STANDARD_CONFIGS.items():
        model = build_trusted_model(config, STANDARD_SEEDS[name])
        with torch.no_grad():
            model.lm_head.weight.mul_(STANDARD_HEAD_SCALE)
        models[name] = model
    return models
