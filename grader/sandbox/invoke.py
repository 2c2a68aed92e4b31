"""Call one function and record what it did besides returning a value.

Shared by the sandboxed worker (student code) and the in-process reference fixture (solutions),
so `student.x(...)` and `reference.x(...)` have exactly the same semantics. Torch-only.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from grader.values import arg_paths, module_flags, module_list, tensors

__all__ = ["Effects", "Invocation", "invoke", "is_arg_path", "module_flags", "module_list"]

# Bound at import. In the worker this module is imported before any student code runs, so a
# submission that monkeypatches torch (torch.equal, Tensor.clone, ...) cannot change how its
# own side effects are observed.
_equal = torch.equal
_get_rng_state = torch.get_rng_state
_is_grad_enabled = torch.is_grad_enabled
_Dropout = torch.nn.modules.dropout._DropoutNd
_tensor_detach = torch.Tensor.detach
_clone = torch.Tensor.clone
_contiguous = torch.Tensor.contiguous
_view = torch.Tensor.view
_reshape = torch.Tensor.reshape
_untyped_storage = torch.Tensor.untyped_storage
_storage_ptr = torch.UntypedStorage.data_ptr


@dataclass(frozen=True)
class Effects:
    """Side effects observed during one call.

    mutated_args: paths (``"args[0]"``, ``"kwargs['labels']"``) of input tensors changed in place.
    global_rng_changed: the global torch RNG state differs after the call.
    model_modes: the ``training`` flag of each model argument after the call, by path.
    module_modes: for a model argument whose modules end the call in mixed modes, every
        module's flag (``model.modules()`` order), by path.
    result_requires_grad: some tensor in the result requires grad (autograd was on).
    model_forward_with_grad: per model argument, whether any forward pass ran with autograd on.
    model_forward_dropout: per model argument, whether any forward pass ran with one of its
        dropout layers (p > 0) in train mode: dropout was active, whatever else drew randoms.
    result_aliases: paths of input tensors whose memory a tensor of the result shares (the
        input itself, or a view of it, returned where a new tensor is due).
    """

    mutated_args: tuple[str, ...] = ()
    global_rng_changed: bool = False
    model_modes: dict[str, bool] = field(default_factory=dict)
    module_modes: dict[str, list[bool]] = field(default_factory=dict)
    result_requires_grad: bool = False
    model_forward_with_grad: dict[str, bool] = field(default_factory=dict)
    result_aliases: tuple[str, ...] = ()
    model_forward_dropout: dict[str, bool] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out = {
            "mutated_args": list(self.mutated_args),
            "global_rng_changed": self.global_rng_changed,
            "model_modes": dict(self.model_modes),
            "result_requires_grad": self.result_requires_grad,
            "model_forward_with_grad": dict(self.model_forward_with_grad),
            "result_aliases": list(self.result_aliases),
            "model_forward_dropout": dict(self.model_forward_dropout),
        }
        if self.module_modes:  # only models that ended in mixed modes (rare) add the key
            out["module_modes"] = {k: list(v) for k, v in self.module_modes.items()}
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Effects:
        """Rebuild from a worker's reply: only well-formed argument paths, bounded in number."""

        def paths(x: Any) -> list[str]:
            return [p for p in list(x)[:_MAX_PATHS] if is_arg_path(p)]

        def flags(x: Any) -> dict[str, bool]:
            return {k: bool(v) for k, v in list(dict(x).items())[:_MAX_PATHS] if is_arg_path(k)}

        def module_flags(x: Any) -> dict[str, list[bool]]:
            items = list(dict(x).items())[:_MAX_PATHS]
            ok = lambda k, v: is_arg_path(k) and isinstance(v, list) and len(v) <= _MAX_MODULES  # noqa: E731
            return {k: [bool(f) for f in v] for k, v in items if ok(k, v)}

        return cls(
            mutated_args=tuple(paths(d.get("mutated_args", []))),
            global_rng_changed=bool(d.get("global_rng_changed", False)),
            model_modes=flags(d.get("model_modes", {})),
            module_modes=module_flags(d.get("module_modes", {})),
            result_requires_grad=bool(d.get("result_requires_grad", False)),
            model_forward_with_grad=flags(d.get("model_forward_with_grad", {})),
            result_aliases=tuple(paths(d.get("result_aliases", []))),
            model_forward_dropout=flags(d.get("model_forward_dropout", {})),
        )


_MAX_PATHS = 64
_MAX_MODULES = 4096
_ARG_PATH = re.compile(r"args\[\d{1,3}\]|kwargs\['[A-Za-z_][A-Za-z0-9_]{0,63}'\]")


def is_arg_path(p: Any) -> bool:
    """Whether `p` is a path like ``args[0]`` or ``kwargs['labels']`` as `invoke` writes them
    (a worker's reply is checked against this before the trusted side looks anything up)."""
    return type(p) is str and _ARG_PATH.fullmatch(p) is not None


@dataclass
class Invocation:
    value: Any
    grads: tuple[torch.Tensor | None, ...]
    effects: Effects


def _bits(t: torch.Tensor) -> torch.Tensor:
    """A copy of `t`'s exact bits (NaN payloads and -0.0 included), for mutation checks.
    A 0-dim tensor is taken as shape (1,): it cannot be viewed as bytes of another size."""
    t = _tensor_detach(t)
    if t.dtype == torch.bool:
        return _clone(t)
    copy = _contiguous(_clone(t))
    return _view(_reshape(copy, (1,)) if copy.dim() == 0 else copy, torch.uint8)


def invoke(
    fn: Callable[..., Any],
    args: Sequence[Any],
    kwargs: dict[str, Any],
    *,
    grad_wrt: Sequence[int | str] = (),
    grad_output: torch.Tensor | None = None,
) -> Invocation:
    """Call ``fn(*args, **kwargs)`` and observe it.

    With ``grad_wrt``, the named floating-point inputs become fresh leaves with
    ``requires_grad``; the first tensor of the result is reduced as
    ``(out.float() * grad_output).sum()`` (ones when absent) and backpropagated, and their
    gradients are returned in ``grad_wrt`` order (None where no gradient reached them, or when
    the result does not require grad).
    """
    args = list(args)
    kwargs = dict(kwargs)
    leaves: list[torch.Tensor | None] = []
    for key in grad_wrt:
        target = args[key] if isinstance(key, int) else kwargs[key]
        if isinstance(target, torch.Tensor) and target.is_floating_point():
            leaf = target.detach().clone().requires_grad_(True)
            if isinstance(key, int):
                args[key] = leaf
            else:
                kwargs[key] = leaf
            leaves.append(leaf)
        else:
            leaves.append(None)

    before = {p: _bits(a) for p, a in arg_paths(args, kwargs) if isinstance(a, torch.Tensor)}
    grad_seen: dict[str, bool] = {}
    dropout_seen: dict[str, bool] = {}
    hooks = []
    for p, a in arg_paths(args, kwargs):
        if isinstance(a, torch.nn.Module):
            grad_seen[p] = False
            dropout_seen[p] = False
            # found at registration: the hook then only reads flags (no tree walk per forward)
            drops = [m for m in module_list(a) if isinstance(m, _Dropout) and m.p > 0]

            def _hook(_module, _inputs, _p=p, _drops=drops):
                grad_seen[_p] = grad_seen[_p] or _is_grad_enabled()
                if not dropout_seen[_p]:
                    dropout_seen[_p] = any(m.training for m in _drops)

            hooks.append(a.register_forward_pre_hook(_hook))
    rng_before = _get_rng_state()
    try:
        value = fn(*args, **kwargs)
    finally:
        for h in hooks:
            h.remove()
    rng_changed = not _equal(rng_before, _get_rng_state())

    mutated = []
    for p, a in arg_paths(args, kwargs):
        if isinstance(a, torch.Tensor):
            now = _bits(a)
            old = before[p]
            if now.shape != old.shape or not _equal(now, old):
                mutated.append(p)
    models = [(p, a) for p, a in arg_paths(args, kwargs) if isinstance(a, torch.nn.Module)]
    modes = {p: bool(a.training) for p, a in models}
    per_module = {}
    for p, a in models:
        flags = module_flags(a)
        if len(set(flags)) > 1:
            per_module[p] = flags

    first = _first_tensor(value)
    grads: tuple[torch.Tensor | None, ...] = ()
    if grad_wrt:
        if first is not None and first.requires_grad and first.is_floating_point():
            go = torch.ones_like(first, dtype=torch.float32) if grad_output is None else grad_output
            (first.float() * go.float()).sum().backward()
            grads = tuple(None if leaf is None else leaf.grad for leaf in leaves)
        else:
            grads = tuple(None for _ in leaves)

    effects = Effects(
        mutated_args=tuple(mutated),
        global_rng_changed=rng_changed,
        model_modes=modes,
        module_modes=per_module,
        result_requires_grad=_any_requires_grad(value),
        model_forward_with_grad=grad_seen,
        result_aliases=_aliases(value, args, kwargs),
        model_forward_dropout=dropout_seen,
    )
    return Invocation(value=_detach(value), grads=grads, effects=effects)


def _storage(t: torch.Tensor) -> int | None:
    """The address of `t`'s memory, or None when it has none to share (empty, or no storage:
    sparse, nested or meta tensors)."""
    try:
        ptr = _storage_ptr(_untyped_storage(t))
    except (RuntimeError, NotImplementedError, TypeError):
        return None
    return ptr or None


def _aliases(value: Any, args: Sequence[Any], kwargs: dict[str, Any]) -> tuple[str, ...]:
    """Paths of the input tensors whose memory some tensor of the result shares."""
    inputs = {}
    for p, a in arg_paths(args, kwargs):
        if isinstance(a, torch.Tensor) and (ptr := _storage(a)) is not None:
            inputs.setdefault(ptr, []).append(p)
    if not inputs:
        return ()
    found: list[str] = []
    for t in tensors(value, max_depth=_MAX_WALK_DEPTH):
        for p in inputs.get(_storage(t), ()):
            if p not in found:
                found.append(p)
    return tuple(found)


def _first_tensor(value: Any) -> torch.Tensor | None:
    if isinstance(value, torch.Tensor):
        return value
    if isinstance(value, (tuple, list)):
        for v in value:
            if isinstance(v, torch.Tensor):
                return v
    return None


# Results nested deeper than this are left as they are here; the wire refuses them anyway
# (wire.MAX_DEPTH), and walking them must not blow the interpreter's stack first.
_MAX_WALK_DEPTH = 32


def _any_requires_grad(value: Any) -> bool:
    return any(bool(t.requires_grad) for t in tensors(value, max_depth=_MAX_WALK_DEPTH))


def _detach(value: Any, depth: int = 0) -> Any:
    if depth > _MAX_WALK_DEPTH:
        return value
    if isinstance(value, torch.Tensor):
        return _tensor_detach(value)
    if isinstance(value, tuple):
        return tuple(_detach(v, depth + 1) for v in value)
    if isinstance(value, list):
        return [_detach(v, depth + 1) for v in value]
    if isinstance(value, dict):
        return {k: _detach(v, depth + 1) for k, v in value.items()}
    return value
