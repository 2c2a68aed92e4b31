"""What a known-bug variant outputs on a test's inputs, remembered across submissions.

Diagnosis runs every variant of a function on the inputs of a failed check and compares the
outputs with the student's (`variants.matching`). Those outputs depend only on the variant and
the inputs, which a hidden test fixes, so in a batch the same hundreds of variant runs were
repeated for every student with the same bug (up to ~50 ms each). A `VariantOutputs` owned by
the `Grader` keeps them: keyed on `grader.values.digest` of every input (tensors, generator
states, a TinyLM's config, modes and weights), the torch settings that change results, and
the global RNG state (some variants model a student drawing from it); copies are handed out.
Inputs that cannot be digested are simply not remembered.

The suite runner makes a grader's memo the one in use while a submission's tests run
(`remembering`); with none in use (a test calling `matching` directly), variants just run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import torch

from grader import values
from grader.diagnosis.variant_registry import NotApplicable
from grader.lru import BoundedLRU

MAX_ENTRIES = 4096
MAX_BYTES = 64 * 1024 * 1024


class _Raised:
    """A variant that raised on these inputs (it will again: it is deterministic)."""


_RAISED = _Raised()
_INVISIBLE = _Raised()  # the variant's `applies` said no: its mistake cannot show on these inputs
_MISSING = object()


def _trusted_functions() -> tuple[Any, ...]:
    from grader import trusted_tinylm as trusted

    return (trusted.trusted_mask, trusted.trusted_attention)


def inputs_key(*parts: Any) -> bytes | None:
    """A digest of `parts` and of the torch state that can change a variant's output, or None
    when some part cannot be digested (then nothing is remembered)."""
    context = (torch.is_grad_enabled(), str(torch.get_default_dtype()), torch.get_num_threads(),
               torch.are_deterministic_algorithms_enabled())  # fmt: skip
    try:
        return values.digest(parts, context, torch.get_rng_state(), functions=_trusted_functions())
    except values.Undigestable:
        return None


copy_value = values.copy  # a variant's arguments are copies: it can never disturb the test's


class VariantOutputs:
    """A thread-safe LRU of variant outputs, bounded in entries and bytes."""

    def __init__(self, max_entries: int = MAX_ENTRIES, max_bytes: int = MAX_BYTES) -> None:
        self._lru = BoundedLRU(max_entries, max_bytes)

    def output(self, key: bytes | None, variant: tuple, run: Callable[[], Any]) -> Any:
        """`run()`'s result for `variant` on the inputs digested as `key` (a copy of the one
        remembered, when there is one). Raises RuntimeError if the variant raised, and
        `NotApplicable` again if it did (its mistake is invisible on these inputs)."""
        if key is None:
            return run()
        full = (variant, key)
        value = self._lru.get(full, _MISSING)
        if value is _MISSING:
            try:
                value = run()
            except NotApplicable:
                value = _INVISIBLE
            except Exception:
                value = _RAISED
            stored = value if isinstance(value, _Raised) else values.copy(value)
            size = values.nbytes(stored)
            if size <= self._lru.max_bytes // 16:  # no single output crowds out the rest
                self._lru.put(full, stored, size)
        elif not isinstance(value, _Raised):
            value = values.copy(value)
        if value is _INVISIBLE:
            raise NotApplicable(variant[1] if len(variant) > 1 else "")
        if value is _RAISED:
            raise RuntimeError("this variant fails on these inputs")
        return value

    def clear(self) -> None:
        self._lru.clear()

    def __len__(self) -> int:
        return len(self._lru)


_IN_USE: ContextVar[VariantOutputs | None] = ContextVar("variant_outputs", default=None)


@contextmanager
def remembering(outputs: VariantOutputs | None) -> Iterator[None]:
    """Use `outputs` for the variant runs in this context (the suite thread, one submission)."""
    token = _IN_USE.set(outputs)
    try:
        yield
    finally:
        _IN_USE.reset(token)


def output(key: bytes | None, variant: tuple, run: Callable[[], Any]) -> Any:
    """`VariantOutputs.output` of the memo in use; without one, ``run()``."""
    outputs = _IN_USE.get()
    if outputs is None:
        return run()
    return outputs.output(key, variant, run)
