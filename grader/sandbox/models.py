"""The grader's trusted TinyLM: correct mask and attention, (de)serialisation, a fixed zoo.

Trusted code on both sides of the sandbox: the hidden tests build models here, the wire sends
them as a *spec* (a JSON-able header plus a dict of tensors, never a pickle) and the worker
rebuilds them with `model_from_spec`, then swaps in the student's functions when a test asks
for it. This module uses torch and `exercises.tinylm` only: nothing from `solutions/` and
nothing else from `grader/`, so it can be imported inside the worker.
"""

from __future__ import annotations

import math
from dataclasses import asdict, fields
from typing import Any

import torch
from torch import Tensor

from exercises.tinylm import AttentionFn, MaskFn, TinyLM, TinyLMConfig

__all__ = [
    "SPEC_FORMAT",
    "STANDARD_CONFIGS",
    "STANDARD_HEAD_SCALE",
    "STANDARD_SEEDS",
    "build_trusted_model",
    "model_from_spec",
    "model_to_spec",
    "standard_models",
    "trusted_attention",
    "trusted_mask",
]

SPEC_FORMAT = "tinylm/1"
MAX_SPEC_PARAMS = 20_000_000  # refuse to rebuild anything bigger (a spec may be hostile)
_HALF_DTYPES = (torch.float16, torch.bfloat16)
_FLOAT_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


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


def build_trusted_model(config: TinyLMConfig, seed: int) -> TinyLM:
    """A TinyLM drawn from ``seed`` that runs on the trusted functions, in eval mode."""
    model = TinyLM(config, mask_fn=trusted_mask, attention_fn=trusted_attention, seed=seed)
    return model.eval()


# ----------------------------------------------------------------------------- specs


def model_to_spec(model: torch.nn.Module) -> tuple[dict[str, Any], dict[str, Tensor]]:
    """Split a TinyLM into a JSON-able header and its tensors (the state dict, detached copies).

    The header is ``{"format": "tinylm/1", "config": {<TinyLMConfig fields>},
    "training": bool}``. The mask and attention functions are not part of a spec.
    """
    if not isinstance(model, TinyLM):
        raise TypeError(f"only TinyLM models can be sent, got {type(model).__name__}")
    header = {
        "format": SPEC_FORMAT,
        "config": asdict(model.config),
        "training": bool(model.training),
    }
    tensors = {name: t.detach().clone() for name, t in model.state_dict().items()}
    return header, tensors


def model_from_spec(
    header: dict[str, Any],
    tensors: dict[str, Tensor],
    mask_fn: MaskFn | None = None,
    attention_fn: AttentionFn | None = None,
) -> TinyLM:
    """Rebuild the TinyLM described by ``model_to_spec``'s output, validating everything.

    The weights keep the dtype they were sent in (a float64 model stays float64) and the
    train/eval flag is restored. ``mask_fn`` / ``attention_fn`` default to the trusted ones.
    Raises ``ValueError`` for anything malformed: unknown format, bad config, too many
    parameters, missing or extra tensors, wrong shapes or dtypes.
    """
    if not isinstance(header, dict) or header.get("format") != SPEC_FORMAT:
        raise ValueError(f"not a {SPEC_FORMAT} model spec")
    raw = header.get("config")
    names = {f.name for f in fields(TinyLMConfig)}
    if not isinstance(raw, dict) or not set(raw) <= names:
        raise ValueError("model spec: malformed config")
    try:
        config = TinyLMConfig(**raw)
    except TypeError as exc:  # a required field is missing
        raise ValueError(f"model spec: {exc}") from None
    training = header.get("training")
    if not isinstance(training, bool):
        raise ValueError("model spec: 'training' must be a bool")
    if _param_count(config) > MAX_SPEC_PARAMS:
        raise ValueError(f"model spec: more than {MAX_SPEC_PARAMS} parameters")

    model = TinyLM(
        config,
        mask_fn=mask_fn or trusted_mask,
        attention_fn=attention_fn or trusted_attention,
        seed=0,  # overwritten below
    )
    expected = model.state_dict()
    if set(tensors) != set(expected):
        raise ValueError("model spec: the tensors do not match the config's parameters")
    dtypes = {t.dtype for t in tensors.values()}
    if len(dtypes) != 1 or next(iter(dtypes)) not in _FLOAT_DTYPES:
        raise ValueError(f"model spec: weights must share one float dtype, got {dtypes}")
    for name, t in tensors.items():
        if t.shape != expected[name].shape:
            raise ValueError(
                f"model spec: {name} has shape {tuple(t.shape)}, "
                f"expected {tuple(expected[name].shape)}"
            )
    state = {name: t.detach().clone().cpu() for name, t in tensors.items()}
    model.load_state_dict(state, strict=True, assign=True)  # assign keeps the sent dtype
    return model.train(training)


def _param_count(config: TinyLMConfig) -> int:
    C, V, T, L = config.d_model, config.vocab_size, config.max_seq_len, config.n_layers
    per_block = 4 * C + (3 * C * C + 3 * C) + (C * C + C) + (4 * C * C + 4 * C) + (4 * C * C + C)
    return 2 * V * C + T * C + L * per_block + 2 * C


# ----------------------------------------------------------------------------- the zoo

STANDARD_CONFIGS: dict[str, TinyLMConfig] = {
    "causal": TinyLMConfig(
        vocab_size=24, max_seq_len=12, d_model=32, n_heads=2, n_layers=2, causal=True
    ),
    "bidirectional": TinyLMConfig(
        vocab_size=24, max_seq_len=12, d_model=32, n_heads=2, n_layers=2, causal=False
    ),
}
STANDARD_SEEDS: dict[str, int] = {"causal": 1234, "bidirectional": 1234}
STANDARD_HEAD_SCALE = 4.0  # peaky logits: greedy choices are far from ties


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
