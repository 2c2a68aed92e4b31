"""What a known-bug variant outputs on a test's inputs, remembered across submissions.

Diagnosis runs every variant of a function on the inputs of a failed check and compares the
outputs with the student's (`variants.matching`). Those outputs depend only on the variant and
the inputs, which a hidden test fixes, so in a batch the same hundreds of variant runs were
repeated for every student with the same bug (up to ~50 ms each). They are now computed once
per grading process: keyed on a digest of the exact bits of every input (tensors, generator
states, a TinyLM's config, modes and weights), the torch settings that change results, and
the global RNG state (some variants model a student drawing from it); copies are handed out.
Inputs that cannot be digested (anything else) are simply not remembered.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

import torch

from grader.lru import BoundedLRU

MAX_ENTRIES = 4096
MAX_BYTES = 64 * 1024 * 1024
_MAX_DEPTH = 8


class _Unkeyable(Exception):
    pass


class _Raised:
    """A variant that raised on these inputs (it will again: it is deterministic)."""


_RAISED = _Raised()
_MISSING = object()


def _feed(h: Any, x: Any, depth: int) -> None:
    if depth > _MAX_DEPTH:
        raise _Unkeyable
    t = type(x)
    if x is None or t in (bool, int, float, str):
        h.update(f"{t.__name__}:{x!r};".encode())
    elif t is torch.dtype:
        h.update(f"dtype:{x};".encode())
    elif t is torch.Tensor:
        if x.layout != torch.strided or x.device.type != "cpu":
            raise _Unkeyable
        c = x.detach().contiguous().reshape(-1)
        h.update(f"T:{x.dtype}:{tuple(x.shape)}:{x.requires_grad};".encode())
        h.update(c.view(torch.uint8).numpy().tobytes() if c.numel() else b"")
    elif t is torch.Generator:
        h.update(f"G:{x.device};".encode())
        h.update(x.get_state().numpy().tobytes())
    elif t in (tuple, list):
        h.update(f"{t.__name__}:{len(x)}(".encode())
        for v in x:
            _feed(h, v, depth + 1)
        h.update(b")")
    elif t is dict:
        if not all(type(k) is str for k in x):
            raise _Unkeyable
        h.update(f"dict:{len(x)}(".encode())
        for k in sorted(x):
            h.update(f"{k!r}=".encode())
            _feed(h, x[k], depth + 1)
        h.update(b")")
    elif isinstance(x, torch.nn.Module):
        _feed_model(h, x)
    else:
        raise _Unkeyable


def _feed_model(h: Any, model: torch.nn.Module) -> None:
    """A TinyLM as the grader builds them: its class exactly, trusted or no mask/attention
    functions, no hooks; anything else is not keyable."""
    from exercises.tinylm import TinyLM
    from grader import trusted_tinylm as trusted

    if type(model) is not TinyLM:
        raise _Unkeyable
    known = (None, trusted.trusted_mask, trusted.trusted_attention)
    if not all(any(fn is k for k in known) for fn in (model.mask_fn, model.attention_fn)):
        raise _Unkeyable
    for m in model.modules():
        if m._forward_hooks or m._forward_pre_hooks or m._backward_hooks:
            raise _Unkeyable
    h.update(f"M:{sorted(asdict(model.config).items())}:{model.max_seq_len}:".encode())
    h.update(f"{getattr(model.mask_fn, '__name__', None)}:"
             f"{getattr(model.attention_fn, '__name__', None)}:".encode())  # fmt: skip
    h.update(bytes(m.training for m in model.modules()))
    for name, t in [*model.named_parameters(), *model.named_buffers()]:
        h.update(f"{name}:{type(t).__name__}:{t.requires_grad}:".encode())
        _feed(h, t.detach(), 1)


def inputs_key(*parts: Any) -> bytes | None:
    """A digest of `parts` and of the torch state that can change a variant's output, or None
    when some part cannot be digested (then nothing is remembered)."""
    h = hashlib.blake2b(digest_size=20)
    try:
        _feed(h, parts, 0)
    except _Unkeyable:
        return None
    context = (torch.is_grad_enabled(), torch.get_default_dtype(), torch.get_num_threads(),
               torch.are_deterministic_algorithms_enabled())  # fmt: skip
    h.update(f"ctx:{context};".encode())
    h.update(torch.get_rng_state().numpy().tobytes())
    return h.digest()


def copy_value(value: Any, depth: int = 0) -> Any:
    """A private copy: tensors cloned (detached), generators with their own copy of the
    state, containers rebuilt; anything else as it is. Used for a variant's arguments (so it
    can never disturb the test's inputs) and for the outputs this memo stores and hands out."""
    if depth > _MAX_DEPTH:
        return value
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if isinstance(value, torch.Generator):
        g = torch.Generator(device=value.device)
        g.set_state(value.get_state())
        return g
    if isinstance(value, tuple):
        return tuple(copy_value(v, depth + 1) for v in value)
    if isinstance(value, list):
        return [copy_value(v, depth + 1) for v in value]
    if isinstance(value, dict):
        return {k: copy_value(v, depth + 1) for k, v in value.items()}
    return value


def _nbytes(value: Any, depth: int = 0) -> int:
    if depth > _MAX_DEPTH:
        return 0
    if isinstance(value, torch.Tensor):
        return value.numel() * value.element_size()
    if isinstance(value, (tuple, list)):
        return sum(_nbytes(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return sum(_nbytes(v, depth + 1) for v in value.values())
    return 0


class VariantOutputs:
    """A thread-safe LRU of variant outputs, bounded in entries and bytes."""

    def __init__(self, max_entries: int = MAX_ENTRIES, max_bytes: int = MAX_BYTES) -> None:
        self._lru = BoundedLRU(max_entries, max_bytes)

    def output(self, key: bytes | None, variant: tuple, run: Callable[[], Any]) -> Any:
        """`run()`'s result for `variant` on the inputs digested as `key` (a copy of the one
        remembered, when there is one). Raises RuntimeError if the variant raised."""
        if key is None:
            return run()
        full = (variant, key)
        value = self._lru.get(full, _MISSING)
        if value is _MISSING:
            try:
                value = run()
            except Exception:
                value = _RAISED
            stored = value if value is _RAISED else copy_value(value)
            size = _nbytes(stored)
            if size <= self._lru.max_bytes // 16:  # no single output crowds out the rest
                self._lru.put(full, stored, size)
        elif value is not _RAISED:
            value = copy_value(value)
        if value is _RAISED:
            raise RuntimeError("this variant fails on these inputs")
        return value

    def clear(self) -> None:
        self._lru.clear()

    def __len__(self) -> int:
        return len(self._lru)


OUTPUTS = VariantOutputs()
