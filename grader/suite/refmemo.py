"""The reference memo: a `ReferenceProxy`'s answers kept across the submissions of one Grader.

A memo entry is only made when replaying it is indistinguishable from calling again:

* the key is the function plus `grader.values.digest` of every argument (tensors: dtype,
  shape, strides, flags and bytes; generators: their state; a TinyLM: its config, functions,
  train flags and weights) and of the torch state a call depends on (grad mode, default
  dtype, threads). Anything else in the arguments (an unknown object, a tensor subclass, a
  model with hooks, a generator or model inside a container) makes the call unkeyable, and
  it simply runs.
* the call's only side effects may be advancing generator arguments (their final state is
  recorded and written back on a hit); a call that changed an input tensor, a model (weights
  or any train flag) or the global RNG is not memoised.
* results are stored as private copies and every hit returns new copies (containers
  rebuilt, tensors cloned with their strides), so a test that edits a result in place cannot
  change a later answer; results aliasing an input or each other are not memoised.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from grader import values
from grader.lru import BoundedLRU
from grader.sandbox.client import CallResult
from grader.sandbox.invoke import Effects
from grader.values import Undigestable, arg_paths

MEMO_ENTRIES = 2048  # LRU bound: a batch's fixed questions stay, per-student ones cycle out
MEMO_ENTRY_BYTES = 4 << 20  # larger results are recomputed rather than kept
MEMO_BYTES = 64 << 20  # all stored results together (least recently used go first)
_PLAIN = (*values.SCALARS, torch.Tensor)


def _trusted_functions() -> tuple[Any, ...]:
    """The mask / attention functions a keyable TinyLM may carry (none in the student handout,
    which has no trusted model)."""
    try:
        from grader import trusted_tinylm as trusted
    except ImportError:
        return ()
    return (trusted.trusted_mask, trusted.trusted_attention)


def context() -> tuple:
    """The torch settings a reference call's result can depend on."""
    return (
        torch.is_grad_enabled(),
        torch.is_inference_mode_enabled(),
        torch.is_autocast_enabled("cpu"),
        str(torch.get_default_dtype()),
        torch.get_num_threads(),
        torch.are_deterministic_algorithms_enabled(),
    )


def arguments_digest(args: Sequence[Any], kwargs: Mapping[str, Any], *extra: Any) -> bytes:
    """`values.digest` of a call's arguments (and `extra`); a generator or model may only be
    an argument itself (its replay is written back by path). Raises `Undigestable`."""
    for _, a in arg_paths(args, kwargs):
        if type(a) in (tuple, list, dict) and any(
            isinstance(x, (torch.Generator, torch.nn.Module)) for x in values.leaves(a)
        ):
            raise Undigestable
    return values.digest(tuple(args), dict(kwargs), *extra, functions=_trusted_functions())


def model_state(model: torch.nn.Module) -> bytes:
    """A TinyLM's digest (train flags and weights included), to see a call change it."""
    return values.model_digest(model, _trusted_functions())


def model_args(args: Sequence[Any], kwargs: Mapping[str, Any]) -> dict[str, torch.nn.Module]:
    """The model arguments of a call, by path (``args[0]``, ``kwargs['model']``)."""
    return {p: a for p, a in arg_paths(args, kwargs) if isinstance(a, torch.nn.Module)}


def replayable(
    effects: Effects, models: dict[str, torch.nn.Module], before: dict[str, bytes]
) -> bool:
    """Whether a reference call can be answered again from its record: it changed no input,
    not the global RNG, and no model (`before`: each model's `model_state` before the call)."""
    if effects.mutated_args or effects.global_rng_changed:
        return False
    return all(model_state(m) == before[p] for p, m in models.items())


def _storage(t: torch.Tensor) -> int:
    return t.untyped_storage().data_ptr()


def _copy_effects(e: Effects) -> Effects:
    return Effects(
        mutated_args=tuple(e.mutated_args),
        global_rng_changed=e.global_rng_changed,
        model_modes=dict(e.model_modes),
        module_modes={k: list(v) for k, v in e.module_modes.items()},
        result_requires_grad=e.result_requires_grad,
        model_forward_with_grad=dict(e.model_forward_with_grad),
        model_forward_dropout=dict(e.model_forward_dropout),
    )


def _lookup(path: str, args, kwargs) -> Any:
    return dict(arg_paths(args, kwargs)).get(path)


@dataclass(frozen=True)
class Recorded:
    value: Any
    grads: tuple[Any, ...]
    effects: Effects
    generators: dict[str, torch.Tensor]  # path -> final state

    @classmethod
    def of(cls, res: CallResult, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Recorded | None:
        """The record of `res` (frozen copies, the generators' final states), or None when
        replaying it could not reproduce the call exactly (`storable`)."""
        gens = {p: g.get_state() for p, g in arg_paths(args, kwargs) if type(g) is torch.Generator}
        rec = cls(value=res.value, grads=tuple(res.grads), effects=res.effects, generators=gens)
        return rec.frozen() if rec.storable(res.value, res.grads, args, kwargs) else None

    def storable(
        self, value: Any, grads: Sequence[Any], args: Sequence[Any], kwargs: Mapping[str, Any]
    ) -> bool:
        """Whether `values.copy` reproduces the result exactly: plain containers of scalars
        and tensors, no tensor sharing memory with an input or another result."""
        found = list(values.leaves((value, tuple(grads)), exact=True))
        if not all(type(x) in _PLAIN for x in found):
            return False
        results = [x for x in found if type(x) is torch.Tensor]
        inputs: list[torch.Tensor] = []
        for _, a in arg_paths(args, kwargs):
            if isinstance(a, torch.nn.Module):
                inputs.extend(a.parameters())
            else:
                inputs.extend(values.tensors(a))
        seen = {_storage(t) for t in inputs if t.numel()}
        size = 0
        for t in results:
            if t.layout != torch.strided or t.device.type != "cpu" or t.requires_grad:
                return False
            ptr = _storage(t)
            if t.numel():
                if ptr in seen:  # aliases an input or another result
                    return False
                seen.add(ptr)
            if t.clone().stride() != t.stride():  # a copy would not keep the layout
                return False
            size += t.numel() * t.element_size()
        return size <= MEMO_ENTRY_BYTES

    def frozen(self) -> Recorded:
        """A private copy (the caller keeps the originals)."""
        return Recorded(
            value=values.copy(self.value),
            grads=values.copy(self.grads),
            effects=_copy_effects(self.effects),
            generators={p: s.clone() for p, s in self.generators.items()},
        )

    def replay(self, args: Sequence[Any], kwargs: Mapping[str, Any]) -> CallResult:
        """The recorded answer as fresh copies, the generators in `args` / `kwargs` set to the
        states the call left them in."""
        for path, state in self.generators.items():
            _lookup(path, args, kwargs).set_state(state)
        return CallResult(
            value=values.copy(self.value),
            grads=values.copy(self.grads),
            effects=_copy_effects(self.effects),
        )


def _nbytes(rec: Recorded) -> int:
    return values.nbytes((rec.value, rec.grads, tuple(rec.generators.values())))


class ReferenceMemo:
    """A thread-safe LRU of reference answers, bounded in entries and in bytes (see the
    notes above). One per `ReferenceProxy`, which the `Grader` owns."""

    def __init__(self, max_entries: int = MEMO_ENTRIES, max_bytes: int = MEMO_BYTES) -> None:
        self._lru = BoundedLRU(max_entries, max_bytes)

    def key(self, head: tuple, arguments: Callable[[], bytes]) -> Any:
        """The memo key of a call (`arguments()` digests them), or None when the call must
        simply run."""
        try:
            return (head, values.digest(context()), arguments())
        except Undigestable:
            return None

    def get(self, key: Any) -> Recorded | None:
        return None if key is None else self._lru.get(key)

    def put(self, key: Any, rec: Recorded | None) -> None:
        if key is None or rec is None:
            return
        self._lru.put(key, rec, _nbytes(rec))

    def __len__(self) -> int:
        return len(self._lru)
