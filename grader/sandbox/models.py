"""The grader's trusted TinyLM: correct mask and attention, (de)serialisation, a fixed zoo.

Trusted code on both sides of the sandbox: the hidden tests build models here, the wire sends
them as a *spec* (a JSON-able header plus a dict of tensors, never a pickle) and the worker
rebuilds them with `model_from_spec`, then swaps in the student's functions when a test asks
for it. This module uses torch and `exercises.tinylm` only: nothing from `solutions/` and
nothing else from `grader/`, so it can be imported inside the worker. Importing it makes
TinyLM's forward `_fast_forward`: the same logits, bit for bit, with less Python overhead for
models on the trusted functions.
"""

from __future__ import annotations

import math
import types
from collections import OrderedDict
from dataclasses import asdict, fields, replace
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.nn.modules import module as _nn_module

from exercises.tinylm import MLP, AttentionFn, Block, MaskFn, SelfAttention, TinyLM, TinyLMConfig

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
    """A TinyLM drawn from ``seed`` that runs on the trusted functions, in eval mode.

    Every call returns a new model with its own parameters. The weights a (config, seed) pair
    draws are remembered after the first build, so later calls copy them into a structural
    copy of a template (see `_instantiate`) instead of running the constructor again.
    """
    key = _weights_key(config, seed)
    template = None if key is None else _template(config)
    if template is None:  # not reproducible by a copy: always the constructor
        model = TinyLM(config, mask_fn=trusted_mask, attention_fn=trusted_attention, seed=seed)
        return model.eval()
    cached = _WEIGHTS.get(key)
    if cached is None:
        model, cached = _first_build(config, seed)
        if cached is not None and len(_WEIGHTS) < _MAX_WEIGHTS:
            _WEIGHTS[key] = cached
        return model.eval()
    seed_attr, weights = cached
    state = {name: w.clone() for name, w in weights.items()}
    model = _instantiate(template, config, state, trusted_mask, trusted_attention, training=False)
    model.seed = seed_attr
    return model


# ----------------------------------------------------------------------------- specs


def model_to_spec(model: torch.nn.Module) -> tuple[dict[str, Any], dict[str, Tensor]]:
    """Split a TinyLM into a JSON-able header and its tensors (the state dict, detached copies).

    The header is ``{"format": "tinylm/1", "config": {<TinyLMConfig fields>},
    "training": bool}``. The mask and attention functions are not part of a spec.
    """
    header = spec_header(model)
    tensors = {name: t.detach().clone() for name, t in model.state_dict().items()}
    return header, tensors


def spec_header(model: torch.nn.Module) -> dict[str, Any]:
    """The JSON-able half of ``model_to_spec(model)`` (a new dict on every call)."""
    if not isinstance(model, TinyLM):
        raise TypeError(f"only TinyLM models can be sent, got {type(model).__name__}")
    return {
        "format": SPEC_FORMAT,
        "config": asdict(model.config),
        "training": bool(model.training),
    }


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

    template = _template(config)
    if template is None:
        model = TinyLM(
            config,
            mask_fn=mask_fn or trusted_mask,
            attention_fn=attention_fn or trusted_attention,
            seed=0,  # overwritten below
        )
        expected = {name: t.shape for name, t in model.state_dict().items()}
    else:
        model, expected = None, template.shapes
    if set(tensors) != set(expected):
        raise ValueError("model spec: the tensors do not match the config's parameters")
    dtypes = {t.dtype for t in tensors.values()}
    if len(dtypes) != 1 or next(iter(dtypes)) not in _FLOAT_DTYPES:
        raise ValueError(f"model spec: weights must share one float dtype, got {dtypes}")
    for name, t in tensors.items():
        if t.shape != expected[name]:
            raise ValueError(
                f"model spec: {name} has shape {tuple(t.shape)}, "
                f"expected {tuple(expected[name])}"
            )
    state = {name: t.detach().clone().cpu() for name, t in tensors.items()}
    if model is None:
        return _instantiate(
            template,
            config,
            state,
            mask_fn or trusted_mask,
            attention_fn or trusted_attention,
            training=training,
        )
    model.load_state_dict(state, strict=True, assign=True)  # assign keeps the sent dtype
    return model.train(training)


def _param_count(config: TinyLMConfig) -> int:
    C, V, T, L = config.d_model, config.vocab_size, config.max_seq_len, config.n_layers
    per_block = 4 * C + (3 * C * C + 3 * C) + (C * C + C) + (4 * C * C + 4 * C) + (4 * C * C + C)
    return 2 * V * C + T * C + L * per_block + 2 * C


# ----------------------------------------------------------------------------- fast builds
#
# Constructing a TinyLM (nn.Linear / LayerNorm / Embedding objects, their default random
# init, then TinyLM's own init) and then load_state_dict cost ~1-2 ms, and every model that
# crosses the sandbox is rebuilt so (a worker rebuilds ~30 per submission), only for all of
# its weights to be replaced. Instead, one *template* per config is built with the real
# constructor (so its structure is always exactly TinyLM's) and never handed out; each model
# is then a structural copy of it: new module objects whose attribute dicts are copies of the
# template's (every container copied, so nothing mutable is shared between two models or with
# the template) and new Parameters wrapping the caller's tensors, created the way
# load_state_dict(assign=True) creates them. The result is the model the constructor plus
# load_state_dict would give: same classes, same attributes in the same order, same
# parameters, train flags set by the caller. A config whose modules hold anything this copy
# cannot reproduce (buffers, shared modules or parameters, a mutable non-container attribute,
# a non-empty hook dict) gets no template and takes the constructor path.

_MAX_TEMPLATES = 16  # configs; more are built the slow way rather than cached
_MAX_WEIGHTS = 64  # (config, seed) pairs remembered by build_trusted_model
_CONTAINERS = (dict, OrderedDict, set, list)
_SCALARS = (
    type(None), bool, int, float, complex, str, bytes, torch.dtype, torch.device,
    types.FunctionType, types.BuiltinFunctionType,
)  # fmt: skip


class _Template:
    """A never-handed-out TinyLM (its parameters moved to the meta device: no memory), the
    shapes of its state dict in state-dict order, and the plan `_build` copies it by."""

    __slots__ = ("model", "shapes", "plan")

    def __init__(self, model: TinyLM, shapes: dict[str, torch.Size]) -> None:
        self.model = model
        self.shapes = shapes
        self.plan = _plan(model, "")


# (class, attribute dict, names of its containers, (name, state key, requires_grad) of each
# parameter, (name, plan) of each child module)
_Plan = tuple[type, dict[str, Any], tuple[str, ...], tuple[tuple[str, str, bool], ...], tuple]


def _plan(module: nn.Module, prefix: str) -> _Plan:
    attrs = dict(module.__dict__)
    containers = tuple(
        k for k, v in attrs.items()
        if type(v) in _CONTAINERS and k not in ("_parameters", "_modules")
    )  # fmt: skip
    params = tuple(
        (name, prefix + name, p.requires_grad)
        for name, p in attrs["_parameters"].items()
        if p is not None
    )
    children = tuple(
        (name, _plan(child, f"{prefix}{name}.")) for name, child in attrs["_modules"].items()
    )
    return type(module), attrs, containers, params, children


_TEMPLATES: dict[tuple[Any, ...], _Template | None] = {}
_WEIGHTS: dict[tuple[Any, ...], tuple[int, dict[str, Tensor]]] = {}


def _config_key(config: TinyLMConfig) -> tuple[Any, ...]:
    # exact types too: TinyLMConfig(dropout=0) == TinyLMConfig(dropout=0.0), but nn.Dropout.p
    # would differ (0 vs 0.0) between the two models
    return tuple((type(v), v) for v in (getattr(config, f.name) for f in fields(TinyLMConfig)))


def _template(config: TinyLMConfig) -> _Template | None:
    """The template for ``config`` (built on first use), or None: use the constructor."""
    if type(config) is not TinyLMConfig or not _plain_torch_state():
        return None
    key = _config_key(config)
    if key in _TEMPLATES:
        return _TEMPLATES[key]
    if len(_TEMPLATES) >= _MAX_TEMPLATES:
        return None
    model = TinyLM(config, mask_fn=trusted_mask, attention_fn=trusted_attention, seed=0)
    template = None
    if _copyable(model):
        shapes = {name: t.shape for name, t in model.state_dict().items()}
        for module in model.modules():
            params = module._parameters
            for name, p in params.items():
                if p is not None:
                    meta = torch.empty(p.shape, dtype=p.dtype, device="meta")
                    params[name] = nn.Parameter(meta, requires_grad=p.requires_grad)
        template = _Template(model, shapes)
    _TEMPLATES[key] = template
    return template


def warm_templates() -> None:
    """Build the templates of the configs the hidden tests send (the standard models and
    their dropout variant). Called by the zygote, so every worker inherits them."""
    for config in STANDARD_CONFIGS.values():
        _template(config)
    _template(replace(STANDARD_CONFIGS["causal"], dropout=0.3))


def _plain_torch_state() -> bool:
    """No default-device context, no inference mode: the state the fast path reproduces."""
    return (
        torch.get_default_device().type == "cpu"
        and not torch.is_inference_mode_enabled()
        and not torch._C._is_torch_function_mode_enabled()
    )


def _copyable(model: TinyLM) -> bool:
    """Whether `_instantiate` reproduces ``model`` exactly (see the comment above)."""
    modules = list(model.modules(remove_duplicate=False))
    if len({id(m) for m in modules}) != len(modules):
        return False
    params: list[str] = []
    n_objects = 0
    for prefix, module in model.named_modules(remove_duplicate=False):
        for key, value in module.__dict__.items():
            if key == "_parameters":
                for name, p in value.items():
                    if p is not None:
                        if type(p) is not nn.Parameter:
                            return False
                        params.append(f"{prefix}.{name}" if prefix else name)
                        n_objects += 1
            elif key == "_modules":
                if any(child is None for child in value.values()):
                    return False
            elif type(value) in _CONTAINERS:
                if value:
                    return False
            elif not _immutable(value):
                return False
    distinct = {id(p) for _, p in model.named_parameters(remove_duplicate=False)}
    return len(distinct) == n_objects and list(model.state_dict()) == params


def _immutable(value: Any) -> bool:
    if type(value) is tuple or type(value) is frozenset:
        return all(_immutable(v) for v in value)
    return type(value) in _SCALARS or type(value) is TinyLMConfig


def _instantiate(
    template: _Template,
    config: TinyLMConfig,
    state: dict[str, Tensor],
    mask_fn: MaskFn,
    attention_fn: AttentionFn,
    *,
    training: bool = True,
) -> TinyLM:
    """A new TinyLM shaped like ``template`` whose parameters wrap ``state``'s tensors (which
    it takes ownership of), in train mode like a freshly constructed one, or as
    ``model.train(training)`` leaves it (TinyLM and its submodules keep nn.Module.train)."""
    model = _build(template.plan, state, training)
    model.config = config
    model.mask_fn = mask_fn
    model.attention_fn = attention_fn
    return model


def _build(plan: _Plan, state: dict[str, Tensor], training: bool) -> nn.Module:
    """A new module object from ``plan``: the template's attributes in their order, every
    container copied (empty in a template), new Parameters and new children, each module's
    ``training`` flag set (what ``.train(training)`` would do, without a second walk)."""
    cls, attrs, containers, params, children = plan
    new = object.__new__(cls)
    d = new.__dict__
    d.update(attrs)
    d["training"] = training
    for key in containers:
        d[key] = attrs[key].copy()
    d["_parameters"] = parameters = attrs["_parameters"].copy()
    for name, key, requires_grad in params:
        parameters[name] = nn.Parameter(state[key], requires_grad=requires_grad)
    d["_modules"] = modules = attrs["_modules"].copy()
    for name, child in children:
        modules[name] = _build(child, state, training)
    return new


def _weights_key(config: TinyLMConfig, seed: Any) -> tuple[Any, ...] | None:
    if type(config) is not TinyLMConfig or type(seed) is not int or not _plain_torch_state():
        return None
    return (_config_key(config), seed, torch.get_default_dtype())


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
    return a.dtype == b.dtype and a.shape == b.shape and torch.equal(
        a.detach().reshape(-1).view(torch.uint8), b.detach().reshape(-1).view(torch.uint8)
    )


# ----------------------------------------------------------------------------- fast forward
#
# Student generation code calls the trusted model ~145 times per graded submission, and much
# of a forward of the standard models is Python overhead: ~25 nn.Module calls around ~60
# small ops. Importing this module therefore makes `_fast_forward` TinyLM's forward: for a
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
_MAX_CACHED_MASK_LEN = 64
# (T, causal) -> (trusted_mask(None, T, causal), whether it is all True). Only ever read:
# torch.where does not write its condition, and these are never handed out.
_MASKS: dict[tuple[int, bool], tuple[Tensor, bool]] = {}
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
    if attention_mask is None and type(causal) is bool and T <= _MAX_CACHED_MASK_LEN:
        mask, full = _cached_mask(T, causal)
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


def _cached_mask(seq_len: int, causal: bool) -> tuple[Tensor, bool]:
    """``trusted_mask(None, seq_len, causal)`` (a CPU tensor) and whether it is all True."""
    cached = _MASKS.get((seq_len, causal))
    if cached is None:
        with torch.inference_mode(False):  # an inference tensor could not be saved for backward
            mask = _TRUSTED_MASK(None, seq_len, causal)
        cached = _MASKS[(seq_len, causal)] = (mask, bool(mask.all()))
    return cached


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
TinyLM.forward = _fast_forward


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


_SHARED: dict[tuple[str, torch.dtype], TinyLM] = {}


def shared_standard_model(name: str, dtype: torch.dtype = torch.float32) -> TinyLM:
    """One standard model per (name, dtype) for this process, in eval mode, for the hidden
    tests to send. Its weights never change (students only ever get copies); its mode is
    reset because the proxy mirrors a student's mode change onto the model it passed."""
    model = _SHARED.get((name, dtype))
    if model is None:
        model = _SHARED[(name, dtype)] = standard_models()[name].to(dtype)
    if any(m.training for m in model.modules()):  # cheaper to ask than to set every time
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
