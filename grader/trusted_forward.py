"""The trusted TinyLM's fast forward: the same logits, bit for bit, with less Python overhead.

Trusted side only, like `grader.trusted_tinylm` (whose correct mask and attention it runs);
never importable in the jail. `install_fast_forward` makes `_fast_forward` TinyLM's forward in
this process; the Grader's caches (`grader.suite.context.SuiteCaches`) call it.
"""

from __future__ import annotations

import math
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.nn.modules import module as _nn_module

from exercises.tinylm import MLP, Block, SelfAttention, TinyLM
from grader.trusted_tinylm import trusted_attention, trusted_mask

__all__ = ["fast_forward_installed", "install_fast_forward"]

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
