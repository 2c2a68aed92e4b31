"""The grader's trusted TinyLM: correct mask and attention, the fixed test models, a fast forward.

Trusted side only. This module is outside ``grader/sandbox/``, so it is not in the jail and
no worker can import it: the correct mask and attention maths never reach student code (see
`grader.sandbox.models` for what travels instead). The hidden tests build their models here;
the reference fixture and the diagnosis variants run them in-process. `install_fast_forward`
(called by the Grader's caches) makes TinyLM's forward `_fast_forward` in this process: the
same logits, bit for bit, with less Python overhead for models on the trusted functions.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.nn.modules import module as _nn_module

from exercises.tinylm import MLP, AttentionFn, Block, MaskFn, SelfAttention, TinyLM, TinyLMConfig
from grader.sandbox import models as _spec
from grader.sandbox.invoke import module_flags
from grader.sandbox.models import STANDARD_CONFIGS, model_to_spec, spec_header

__all__ = [
    "STANDARD_CONFIGS",
    "STANDARD_HEAD_SCALE",
    "STANDARD_SEEDS",
    "TrustedModels",
    "build_trusted_model",
    "fast_forward_installed",
    "install_fast_forward",
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
        header, tensors, mask_fn or trusted_mask, attention_fn or trusted_attention,
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


# ----------------------------------------------------------------------------- fast forward
#
# Student generation code calls the trusted model ~145 times per graded submission, and much
# of a forward of the standard models is Python overhead: ~25 nn.Module calls around ~60
# small ops. `install_fast_forward` therefore makes `_fast_forward` TinyLM's forward: for a
# model on the trusted functions it runs TinyLM.forward's ops without the submodule calls,
# for anything else (the student's functions, hooks, drawing dropout, ...) it calls the
# original TinyLM.forward. It is a class attribute because a model must stay exactly what
# the constructor builds: the wire and the reference memo require ``type(model) is TinyLM``,
# and an instance attribute would show in ``model.__dict__`` (and make a reference cycle).

# the original, also when this module is reloaded
_TINYLM_FORWARD = getattr(TinyLM.forward, "__wrapped__", TinyLM.forward)
_TRUSTED_MASK = trusted_mask  # the originals, even if someone rebinds the module's names
_TRUSTED_ATTENTION = trusted_attention
# What the fast path reproduces: if any of these is patched, the ordinary path runs.
_ORIGINAL_FORWARDS = tuple(
    (cls, cls.forward)
    for cls in (Block, SelfAttention, MLP, nn.Linear, nn.LayerNorm, nn.Embedding, nn.Dropout)
)
_MODULE_CALL = (nn.Module.__call__, nn.Module._call_impl)
_FINFO_MIN = {dtype: torch.finfo(dtype).min for dtype in (torch.float32, torch.float64)}
_MAX_SHORTCUT_LEN = 64  # an all-True mask is dropped from attention up to this length
# (T, causal) -> (trusted_mask(None, T, causal), whether it is all True). Only ever read:
# torch.where does not write its condition, and these are never handed out.
_AFFINE = ("weight", "bias")
_TOP = ("tok_emb", "pos_emb", "drop", "blocks", "ln_f", "lm_head")
_BLOCK = ("ln_1", "attn", "ln_2", "mlp")
_ATTN = ("qkv", "proj", "drop")
_MLP = ("fc", "proj", "drop")
# A block's parts, as the fast path uses them: ln_1, qkv, n_heads, proj, ln_2, fc, mlp.proj
_Layer = tuple[nn.LayerNorm, nn.Linear, int, nn.Linear, nn.LayerNorm, nn.Linear, nn.Linear]


def _fast_forward(self: TinyLM, *args: Any, **kwargs: Any) -> Tensor:
    """``TinyLM.forward(self, *args, **kwargs)``, bit for bit, cheaper when it can be.

    The fast path runs only when it provably gives the same values (and, autograd on, the
    same gradients): the model is exactly a TinyLM whose functions are `trusted_mask` and
    `trusted_attention`; every submodule has TinyLM's own class, with its original forward,
    and no hooks (and there are no global module hooks; the model's own hooks run around
    this forward as usual); every dropout is the identity (eval mode or p == 0: no RNG is
    drawn); ``input_ids`` is a plain 2-D CPU tensor no longer than ``max_seq_len``; no torch
    function or dispatch mode is active. It then runs the same ops on the same shapes and
    strides in the same order (so the same floating-point reductions: BLAS picks its kernel
    from the strides) without the submodule calls, no-op casts and identity dropouts. The
    only substitutions are exact ones: a cached mask when ``attention_mask`` is None and no
    masking at all when that mask is all True, the positions' embedding as a slice when
    autograd is off. Anything else (including every error case) runs the original forward.
    """
    if len(args) == 1 and (not kwargs or kwargs.keys() == {"attention_mask"}):
        input_ids, attention_mask = args[0], kwargs.get("attention_mask")
    elif len(args) == 2 and not kwargs:
        input_ids, attention_mask = args
    else:  # input_ids by keyword, or a wrong call: TinyLM.forward binds (or rejects) it
        return _TINYLM_FORWARD(self, *args, **kwargs)
    layers = _fast_layers(self, input_ids)
    if layers is None:
        return _TINYLM_FORWARD(self, input_ids, attention_mask)
    return _run_fast(self, layers, input_ids, attention_mask)


def _fast_layers(model: TinyLM, input_ids: Any) -> list[_Layer] | None:
    """The blocks' parts if the fast path applies to ``model(input_ids)``, else None."""
    if (
        type(model) is not TinyLM
        or model.mask_fn is not _TRUSTED_MASK
        or model.attention_fn is not _TRUSTED_ATTENTION
        or type(input_ids) is not Tensor
        or input_ids.dim() != 2
        or input_ids.device.type != "cpu"
        or input_ids.shape[1] > model.max_seq_len
        or torch._C._is_torch_function_mode_enabled()  # also on in a default-device context
        or torch._C._len_torch_dispatch_stack()
        or (nn.Module.__call__, nn.Module._call_impl) != _MODULE_CALL
        or any(cls.forward is not forward for cls, forward in _ORIGINAL_FORWARDS)
        or _nn_module._global_forward_hooks
        or _nn_module._global_forward_pre_hooks
        or _nn_module._global_backward_hooks
        or _nn_module._global_backward_pre_hooks
        or not _registered(model, (), _TOP)  # the model's own hooks run around this forward
    ):
        return None
    top = model._modules
    tok_emb, pos_emb, blocks = top["tok_emb"], top["pos_emb"], top["blocks"]
    if not (
        _plain(tok_emb, nn.Embedding, ("weight",))
        and tok_emb._parameters["weight"] is not None
        and tok_emb._parameters["weight"].device.type == "cpu"
        and _plain(pos_emb, nn.Embedding, ("weight",))
        and _identity_dropout(top["drop"])
        and _plain(blocks, nn.ModuleList)
        and _plain(top["ln_f"], nn.LayerNorm, _AFFINE)
        and _plain(top["lm_head"], nn.Linear, _AFFINE)
    ):
        return None
    layers = []
    for block in blocks._modules.values():
        if not _plain(block, Block, (), _BLOCK):
            return None
        ln_1, attn, ln_2, mlp = (block._modules[name] for name in _BLOCK)
        if not (
            _plain(ln_1, nn.LayerNorm, _AFFINE)
            and _plain(attn, SelfAttention, (), _ATTN)
            and _plain(ln_2, nn.LayerNorm, _AFFINE)
            and _plain(mlp, MLP, (), _MLP)
        ):
            return None
        qkv, proj, attn_drop = (attn._modules[name] for name in _ATTN)
        fc, mlp_proj, mlp_drop = (mlp._modules[name] for name in _MLP)
        n_heads = attn.__dict__.get("n_heads")
        if not (
            type(n_heads) is int
            and _plain(qkv, nn.Linear, _AFFINE)
            and _plain(proj, nn.Linear, _AFFINE)
            and _identity_dropout(attn_drop)
            and _plain(fc, nn.Linear, _AFFINE)
            and _plain(mlp_proj, nn.Linear, _AFFINE)
            and _identity_dropout(mlp_drop)
        ):
            return None
        layers.append((ln_1, qkv, n_heads, proj, ln_2, fc, mlp_proj))
    return layers


def _registered(module: nn.Module, params: tuple[str, ...], children: tuple[str, ...]) -> bool:
    """``params`` / ``children`` are registered in ``module`` and no instance attribute hides
    them: reading them from its ``_parameters`` / ``_modules`` gives what ``getattr`` would."""
    d = module.__dict__
    for name in params:
        if name in d or name not in module._parameters:
            return False
    for name in children:
        if name in d or name not in module._modules:
            return False
    return True


def _plain(
    module: Any, cls: type, params: tuple[str, ...] = (), children: tuple[str, ...] = ()
) -> bool:
    """``module`` is exactly a ``cls`` with no hooks, its forward not overridden, and
    ``params`` / ``children`` `_registered`."""
    return (
        type(module) is cls
        and not (
            module._forward_hooks
            or module._forward_pre_hooks
            or module._backward_hooks
            or module._backward_pre_hooks
        )
        and "forward" not in module.__dict__
        and _registered(module, params, children)
    )


def _identity_dropout(module: Any) -> bool:
    """An nn.Dropout whose forward returns its input, draws no RNG and raises nothing."""
    if not _plain(module, nn.Dropout):
        return False
    p = module.p
    return type(p) in (float, int) and 0 <= p <= 1 and (p == 0 or not module.training)


def _run_fast(
    model: TinyLM, layers: list[_Layer], input_ids: Tensor, attention_mask: Any
) -> Tensor:
    """TinyLM.forward's ops (see `_fast_forward`), for a model `_fast_layers` accepted."""
    top = model._modules
    T = input_ids.shape[1]
    tok_x = _embedding(top["tok_emb"], input_ids)  # (B, T, C)
    pos_emb = top["pos_emb"]
    pos_weight = pos_emb._parameters["weight"]
    if (
        torch.is_grad_enabled()  # the slice's backward would differ (-0.0 stays -0.0)
        or pos_emb.max_norm is not None
        or type(pos_weight) is not nn.Parameter
        or pos_weight.dim() != 2
        or T > pos_weight.shape[0]  # F.embedding raises its out-of-range error
    ):
        pos_x = _embedding(pos_emb, torch.arange(T, device=input_ids.device))
    else:
        pos_x = pos_weight[:T]  # the rows F.embedding(arange(T), weight) would gather
    x = tok_x + pos_x  # (B, T, C); the dropout after it is the identity
    causal = model.config.causal
    if attention_mask is None and type(causal) is bool and T <= _MAX_SHORTCUT_LEN:
        mask, full = _causal_mask(T, causal)
    else:
        mask, full = _TRUSTED_MASK(attention_mask, T, causal), False
        if isinstance(mask, Tensor):
            mask = mask.to(x.device)
    for ln_1, qkv, n_heads, proj, ln_2, fc, mlp_proj in layers:
        h = _layer_norm(ln_1, x)
        B, T, C = h.shape
        qkv_x = _linear(qkv, h)  # (B, T, 3C)
        D = C // n_heads
        # SelfAttention.forward's own view ops: a shortcut (one view + permute) gives the
        # same values but other strides on size-1 dims (T == 1), and matmul picks its BLAS
        # kernel, and so its rounding, from the strides
        q, k, v = qkv_x.split(C, dim=2)
        q = q.view(B, T, n_heads, D).transpose(1, 2)
        k = k.view(B, T, n_heads, D).transpose(1, 2)
        v = v.view(B, T, n_heads, D).transpose(1, 2)
        if q.dtype in _FINFO_MIN and (
            full or (type(mask) is Tensor and mask.dtype is torch.bool and mask.device == q.device)
        ):
            y = _attention(q, k, v, None if full else mask)
        else:
            y, _ = _TRUSTED_ATTENTION(q, k, v, mask)
        y = y.transpose(1, 2).contiguous().view(B, T, C)  # as SelfAttention.forward (strides)
        x = x + _linear(proj, y)
        x = x + _linear(mlp_proj, F.gelu(_linear(fc, _layer_norm(ln_2, x))))
    return _linear(top["lm_head"], _layer_norm(top["ln_f"], x))  # (B, T, V)


def _causal_mask(seq_len: int, causal: bool) -> tuple[Tensor, bool]:
    """``trusted_mask(None, seq_len, causal)`` (a CPU tensor) and whether it is all True.
    Built per forward: remembering them saved under 1% of a submission."""
    with torch.inference_mode(False):  # an inference tensor could not be saved for backward
        mask = _TRUSTED_MASK(None, seq_len, causal)
    return mask, bool(mask.all())


def _attention(q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None) -> Tensor:
    """``trusted_attention(q, k, v, mask)[0]`` for float32/float64 q, k, v and a bool mask on
    their device: the same ops minus the no-op casts. ``mask=None`` stands for an all-True
    mask, where both ``torch.where`` calls would return their input's values."""
    scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(q.size(-1)))  # (B, H, Tq, Tk)
    if mask is not None:
        scores = torch.where(mask, scores, _FINFO_MIN[scores.dtype])
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        weights = torch.where(mask, weights, 0.0)
    return weights @ v  # (B, H, Tq, D)


# nn.Embedding / nn.LayerNorm / nn.Linear's forwards on the modules' registered parameters (F.*
# is looked up at each call, as there)


def _embedding(module: nn.Embedding, ids: Tensor) -> Tensor:
    return F.embedding(
        ids,
        module._parameters["weight"],
        module.padding_idx,
        module.max_norm,
        module.norm_type,
        module.scale_grad_by_freq,
        module.sparse,
    )


def _layer_norm(module: nn.LayerNorm, x: Tensor) -> Tensor:
    p = module._parameters
    return F.layer_norm(x, module.normalized_shape, p["weight"], p["bias"], module.eps)


def _linear(module: nn.Linear, x: Tensor) -> Tensor:
    p = module._parameters
    return F.linear(x, p["weight"], p["bias"])


_fast_forward.__wrapped__ = _TINYLM_FORWARD  # inspect.signature(TinyLM.forward) stays the same


def install_fast_forward() -> None:
    """Make `_fast_forward` TinyLM's forward in this (trusted) process; idempotent.

    The `Grader`'s caches (`grader.suite.context.SuiteCaches`) call it: the logits are the same
    bit for bit with or without it, so a process that never grades keeps the plain forward.
    Never called in a worker: this module is not importable in the jail."""
    TinyLM.forward = _fast_forward


def fast_forward_installed() -> bool:
    """Whether `install_fast_forward` has run in this process."""
    return TinyLM.forward is _fast_forward


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
