"""TinyLM across the sandbox: (de)serialisation, fast rebuilds, and the sandbox's own forward.

Imported on both sides of the sandbox, and visible inside the jail, so it holds no correct
mask or attention (a test, tests/test_no_answers_in_jail.py, tries every callable visible in
the jail as every exercise function). The hidden tests build models with the grader's trusted
functions (`grader.trusted_tinylm`, trusted side only); the wire sends them as a *spec* (a
JSON-able header plus a dict of tensors, never a pickle and never the functions) and the
worker rebuilds them with `model_from_spec`. A rebuilt model runs on `sandbox_mask` /
`sandbox_attention`: torch's own ``scaled_dot_product_attention`` told only whether the model
is causal - no mask tensor is built and no attention weights exist, so nothing a model carries
into the worker answers an exercise. (`student.model_forward` swaps in the student's `masks`
functions instead.) This module uses torch and `exercises.tinylm` only.
"""

from __future__ import annotations

import types
from collections import OrderedDict
from dataclasses import asdict, fields, replace
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from exercises.tinylm import AttentionFn, MaskFn, TinyLM, TinyLMConfig
from grader.sandbox.invoke import module_flags, module_list

__all__ = [
    "SPEC_FORMAT",
    "STANDARD_CONFIGS",
    "model_from_spec",
    "model_to_spec",
    "sandbox_attention",
    "sandbox_mask",
    "Templates",
    "spec_header",
]

SPEC_FORMAT = "tinylm/1"
MAX_SPEC_PARAMS = 20_000_000  # refuse to rebuild anything bigger (a spec may be hostile)
_FLOAT_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)

# The test models' shapes (data, not maths): the zygote builds their templates ahead of time.
STANDARD_CONFIGS: dict[str, TinyLMConfig] = {
    "causal": TinyLMConfig(
        vocab_size=24, max_seq_len=12, d_model=32, n_heads=2, n_layers=2, causal=True
    ),
    "bidirectional": TinyLMConfig(
        vocab_size=24, max_seq_len=12, d_model=32, n_heads=2, n_layers=2, causal=False
    ),
}


# ----------------------------------------------------------------------- the sandbox's forward


class _Structure:
    """What a rebuilt model's attention needs besides q, k, v: only whether it is causal.
    Deliberately not a mask: nothing in the jail computes one."""

    __slots__ = ("causal",)

    def __init__(self, causal: bool) -> None:
        self.causal = causal

    def __repr__(self) -> str:
        return f"<attention structure: {'causal' if self.causal else 'bidirectional'}>"


_CAUSAL, _BIDIRECTIONAL = _Structure(True), _Structure(False)


def sandbox_mask(attention_mask: Tensor | None, seq_len: int, causal: bool) -> _Structure:
    """A rebuilt model's ``mask_fn``: the attention's structure, never a mask tensor.

    Models reach the worker to be called as ``model(input_ids)`` (the generation contract), so
    an ``attention_mask`` is accepted only when it masks nothing (all non-zero); padding raises
    a ``ValueError`` saying so.
    """
    if attention_mask is not None:
        if not isinstance(attention_mask, Tensor) or not bool((attention_mask != 0).all()):
            raise ValueError(
                "the grader's model is called as model(input_ids) while grading; it takes no "
                "attention_mask with padding"
            )
    return _CAUSAL if causal else _BIDIRECTIONAL


def sandbox_attention(
    q: Tensor, k: Tensor, v: Tensor, structure: _Structure
) -> tuple[Tensor, None]:
    """A rebuilt model's ``attention_fn``: torch's ``scaled_dot_product_attention`` (its
    causal flag from `sandbox_mask`), and no weights (None)."""
    if type(structure) is not _Structure:
        raise TypeError("sandbox_attention takes the structure sandbox_mask returns")
    return F.scaled_dot_product_attention(q, k, v, is_causal=structure.causal), None


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
    header = {
        "format": SPEC_FORMAT,
        "config": asdict(model.config),
        "training": bool(model.training),
    }
    modes = module_modes(model)
    if len(set(modes)) > 1:  # only a model in mixed modes carries every module's flag
        header["modes"] = modes
    return header


def module_modes(model: torch.nn.Module) -> list[bool]:
    """The ``training`` flag of every module, in ``model.modules()`` order."""
    return module_flags(model)


def set_module_modes(model: torch.nn.Module, modes: Any) -> bool:
    """Give every module of `model` its flag from `modes` (``module_modes`` order); False,
    changing nothing, unless `modes` is a list of exactly that many bools."""
    modules = module_list(model)
    if not (isinstance(modes, list) and len(modes) == len(modules)
            and all(isinstance(f, bool) for f in modes)):  # fmt: skip
        return False
    for m, flag in zip(modules, modes, strict=True):
        m.training = flag
    return True


def model_from_spec(
    header: dict[str, Any],
    tensors: dict[str, Tensor],
    mask_fn: MaskFn | None = None,
    attention_fn: AttentionFn | None = None,
    *,
    templates: Templates | None = None,
) -> TinyLM:
    """Rebuild the TinyLM described by ``model_to_spec``'s output, validating everything.

    The weights keep the dtype they were sent in (a float64 model stays float64) and the
    train/eval flag is restored. ``mask_fn`` / ``attention_fn`` default to `sandbox_mask` /
    `sandbox_attention`. With `templates` the model is a structural copy of its config's
    template (see "fast builds" below), else it is built by the constructor: the same model.
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
    modes = header.get("modes")
    if modes is not None and not (isinstance(modes, list) and len(modes) <= _MAX_MODULES):
        raise ValueError("model spec: 'modes' must be a list of module flags")
    if _param_count(config) > MAX_SPEC_PARAMS:
        raise ValueError(f"model spec: more than {MAX_SPEC_PARAMS} parameters")

    template = None if templates is None else templates.get(config)
    if template is None:
        model = TinyLM(
            config,
            mask_fn=mask_fn or sandbox_mask,
            attention_fn=attention_fn or sandbox_attention,
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
                f"model spec: {name} has shape {tuple(t.shape)}, expected {tuple(expected[name])}"
            )
    state = {name: t.detach().clone().cpu() for name, t in tensors.items()}
    if model is None:
        model = _instantiate(
            template,
            config,
            state,
            mask_fn or sandbox_mask,
            attention_fn or sandbox_attention,
            training=training,
        )
    else:
        model.load_state_dict(state, strict=True, assign=True)  # assign keeps the sent dtype
        model.train(training)
    if modes is not None and not set_module_modes(model, modes):
        raise ValueError("model spec: 'modes' does not match the model's modules")
    return model


_MAX_MODULES = 4096


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


class Templates:
    """The templates of the configs seen so far (built on first use, at most `limit`; more
    are built the slow way), never handed out. Whoever rebuilds models owns one and passes
    it to `model_from_spec`: the zygote makes one and `warm`s it before forking, so each
    worker inherits it warm (`worker.serve` holds it in its `wire.ModelStore`)."""

    __slots__ = ("_by_config", "limit")

    def __init__(self, limit: int = _MAX_TEMPLATES) -> None:
        self._by_config: dict[tuple[Any, ...], _Template | None] = {}
        self.limit = limit

    def get(self, config: TinyLMConfig) -> _Template | None:
        """The template for ``config`` (built on first use), or None: use the constructor."""
        if type(config) is not TinyLMConfig or not _plain_torch_state():
            return None
        key = _config_key(config)
        if key in self._by_config:
            return self._by_config[key]
        if len(self._by_config) >= self.limit:
            return None
        template = _new_template(config)
        self._by_config[key] = template
        return template

    def known(self, config: TinyLMConfig) -> bool:
        """Whether ``config`` was looked up before (its template, or its lack of one, kept)."""
        return _config_key(config) in self._by_config

    def __len__(self) -> int:
        return len(self._by_config)

    def warm(self) -> Templates:
        """Build the templates of the configs the hidden tests send (the standard models and
        their dropout variant); returns self."""
        for config in STANDARD_CONFIGS.values():
            self.get(config)
        self.get(replace(STANDARD_CONFIGS["causal"], dropout=0.3))
        return self


def _config_key(config: TinyLMConfig) -> tuple[Any, ...]:
    # exact types too: TinyLMConfig(dropout=0) == TinyLMConfig(dropout=0.0), but nn.Dropout.p
    # would differ (0 vs 0.0) between the two models
    return tuple((type(v), v) for v in (getattr(config, f.name) for f in fields(TinyLMConfig)))


def _new_template(config: TinyLMConfig) -> _Template | None:
    """A template built from ``config`` by the constructor, or None if it cannot be copied."""
    model = TinyLM(config, mask_fn=sandbox_mask, attention_fn=sandbox_attention, seed=0)
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
    return template


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
