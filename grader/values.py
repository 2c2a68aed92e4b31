"""Nested values as calls pass them: walk, digest, copy and size, in one place.

A value is a scalar (None, bool, int, float, str, bytes, ``torch.dtype``), a tensor, a
``torch.Generator``, a TinyLM, or a tuple / list / dict of values. These are pure functions
of their arguments (no state, no answers computed): the trusted side keys its memos with
`digest`, copies what a memo keeps and hands out with `copy`, and both sides look at a call's
arguments through `arg_paths` and at its result through `leaves`. Stdlib and torch only: the
worker imports this in the jail.

    >>> digest((torch.zeros(2), {"k": 1})) == digest((torch.zeros(2), {"k": 1}))
    True
    >>> [p for p, _ in arg_paths((1, 2), {"labels": 3})]
    ['args[0]', 'args[1]', "kwargs['labels']"]
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import asdict
from typing import Any

import torch

# Containers nested deeper than this are not opened: `leaves` yields them whole, `copy`
# returns them as they are, `digest` refuses them.
MAX_DEPTH = 16
SCALARS = (type(None), bool, int, float, str, bytes, torch.dtype)

# Bound at import: in the worker, student code runs later in the same process and may
# monkeypatch these (a walk over its result must not call its replacements).
_Tensor = torch.Tensor
_Module = torch.nn.Module


class Undigestable(Exception):
    """A value `digest` cannot vouch for (an unknown type, a tensor subclass, a hooked model)."""


def arg_paths(args: Sequence[Any], kwargs: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """``("args[i]", arg)`` then ``("kwargs['name']", arg)`` for every argument of a call."""
    for i, a in enumerate(args):
        yield f"args[{i}]", a
    for k, a in kwargs.items():
        yield f"kwargs[{k!r}]", a


def leaves(value: Any, *, max_depth: int = MAX_DEPTH, exact: bool = False) -> Iterator[Any]:
    """Every non-container inside `value`, depth first (dict values, not keys).

    ``exact``: only plain tuples, lists and dicts with scalar keys are opened (a subclass, or
    a dict keyed by anything else, is a leaf), as needed by a caller that rebuilds them.
    A container deeper than `max_depth` is yielded unopened."""
    stack = [(value, 0)]
    while stack:
        x, depth = stack.pop()
        if depth <= max_depth and _opens(x, exact):
            items = list(x.values() if isinstance(x, dict) else x)
            stack.extend((v, depth + 1) for v in reversed(items))
        else:
            yield x


def _opens(x: Any, exact: bool) -> bool:
    if not exact:
        return isinstance(x, (tuple, list, dict))
    t = type(x)
    if t is dict:
        return all(type(k) in SCALARS for k in x)
    return t is tuple or t is list


def tensors(value: Any, *, max_depth: int = MAX_DEPTH) -> Iterator[torch.Tensor]:
    """The tensors among `leaves(value)`."""
    return (x for x in leaves(value, max_depth=max_depth) if isinstance(x, _Tensor))


def nbytes(value: Any) -> int:
    """Bytes of tensor data in `value` (its tensors' elements times their sizes)."""
    return sum(t.numel() * t.element_size() for t in tensors(value))


def copy(value: Any, depth: int = 0) -> Any:
    """A private copy: tensors detached and cloned (strides kept), generators with their own
    copy of the state, tuples / lists / dicts rebuilt; anything else as it is."""
    if depth > MAX_DEPTH:
        return value
    if isinstance(value, _Tensor):
        return value.detach().clone()
    if isinstance(value, torch.Generator):
        g = torch.Generator(device=value.device)
        g.set_state(value.get_state())
        return g
    if isinstance(value, tuple):
        return tuple(copy(v, depth + 1) for v in value)
    if isinstance(value, list):
        return [copy(v, depth + 1) for v in value]
    if isinstance(value, dict):
        return {k: copy(v, depth + 1) for k, v in value.items()}
    return value


# ----------------------------------------------------------------------------- digest


def digest(*values: Any, functions: tuple[Any, ...] = ()) -> bytes:
    """A 20-byte digest of the exact content of `values`; raises `Undigestable`.

    Tensors: dtype, shape, strides, requires_grad and every bit (-0.0 and NaN payloads count);
    generators: device and state; scalars: type and exact value; containers: type, order and
    items (dict keys too); a TinyLM as the grader builds it (`model_digest`, whose mask and
    attention functions must be None or among `functions`). Equal digests mean calls that
    cannot tell the values apart."""
    h = hashlib.blake2b(digest_size=20)
    _feed(h, values, 0, functions)
    return h.digest()


def _feed(h: Any, x: Any, depth: int, functions: tuple[Any, ...]) -> None:
    if depth > MAX_DEPTH:
        raise Undigestable
    t = type(x)
    if t is float:
        h.update(b"f" + x.hex().encode() + b";")
    elif t is bytes:
        h.update(b"b%d:" % len(x) + x)
    elif t in SCALARS:
        h.update(f"{t.__name__}:{x!r};".encode())
    elif t is torch.Tensor:
        _feed_tensor(h, x)
    elif t is torch.Generator:
        h.update(f"G:{x.device};".encode())
        _feed_tensor(h, x.get_state())
    elif t is tuple or t is list:
        h.update(f"{t.__name__}:{len(x)}(".encode())
        for v in x:
            _feed(h, v, depth + 1, functions)
        h.update(b")")
    elif t is dict:
        h.update(f"dict:{len(x)}(".encode())
        for k, v in x.items():
            _feed(h, k, depth + 1, functions)
            _feed(h, v, depth + 1, functions)
        h.update(b")")
    elif isinstance(x, _Module):
        h.update(model_digest(x, functions))
    else:
        raise Undigestable


def _feed_tensor(h: Any, t: torch.Tensor) -> None:
    if t.layout != torch.strided or t.device.type != "cpu":
        raise Undigestable
    if t.is_conj() or t.is_neg() or t.is_quantized:
        raise Undigestable
    h.update(f"T:{t.dtype}:{tuple(t.shape)}:{t.stride()}:{t.requires_grad};".encode())
    flat = t.detach().contiguous().reshape(-1)
    if flat.numel():
        h.update((flat.view(torch.uint8) if flat.dtype != torch.bool else flat).numpy())


def model_digest(model: Any, functions: tuple[Any, ...] = ()) -> bytes:
    """`digest` of one TinyLM: its class exactly, no hooks (its own or global), mask and
    attention functions that are None or among `functions` (named by ``__name__``), then its
    config, train flags and every parameter and buffer. Raises `Undigestable` otherwise."""
    from torch.nn.modules import module as nn_module

    from exercises.tinylm import TinyLM

    if type(model) is not TinyLM:
        raise Undigestable
    if (
        nn_module._global_forward_hooks
        or nn_module._global_forward_pre_hooks
        or nn_module._global_backward_hooks
        or nn_module._global_backward_pre_hooks
    ):
        raise Undigestable  # fmt: skip
    modules = module_list(model)
    for m in modules:
        if m._forward_hooks or m._forward_pre_hooks or m._backward_hooks or m._backward_pre_hooks:
            raise Undigestable
    names = []
    for fn in (model.mask_fn, model.attention_fn):
        if fn is not None and not any(fn is f for f in functions):
            raise Undigestable
        names.append(getattr(fn, "__name__", None))
    h = hashlib.blake2b(digest_size=20)
    h.update(f"M:{sorted(asdict(model.config).items())}:{model.max_seq_len}:{names}:".encode())
    h.update(bytes(bool(m.training) for m in modules))
    for name, p in [*model.named_parameters(), *model.named_buffers()]:
        h.update(f"{name}:{type(p).__name__}:{p.requires_grad}:".encode())
        _feed_tensor(h, p.detach())
    return h.digest()


# ----------------------------------------------------------------------------- modules

_named_modules = torch.nn.Module.named_modules
_modules_method = torch.nn.Module.modules


def module_list(model: torch.nn.Module) -> list[torch.nn.Module]:
    """``list(model.modules())``: pre-order, each module once, read straight from the
    ``_modules`` dicts (the generator chain of ``modules()`` costs ~4x more, and the modes of
    a model are read several times per call). A class that overrides ``modules`` or
    ``named_modules`` anywhere in the tree gets its own method's answer."""
    out: list[torch.nn.Module] = []
    seen: set[torch.nn.Module] = set()  # hashed like named_modules' memo
    stack = [model]
    while stack:
        m = stack.pop()
        if m in seen:
            continue
        cls = type(m)
        if cls.named_modules is not _named_modules or cls.modules is not _modules_method:
            return list(model.modules())
        seen.add(m)
        out.append(m)
        children = [c for c in m._modules.values() if c is not None]
        children.reverse()
        stack.extend(children)
    return out


def module_flags(model: torch.nn.Module) -> list[bool]:
    """The ``training`` flag of every module of `model`, in ``model.modules()`` order."""
    return [bool(m.training) for m in module_list(model)]
