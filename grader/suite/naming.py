"""Naming a student call in a failure message: ``sample_next_token(logits: float32[2, 7], ...)``.

The proxies remember their last few calls (references, no copies); a failed check names the
call that returned the value it checked, rendered here without addresses or tensor contents.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

import torch

from grader.sandbox.invoke import module_flags

REMEMBERED_CALLS = 8
_CALL_CHARS = 400


def holds(result: Any, value: Any) -> bool:
    """`value` is the result itself or one of its top-level items (identity, not equality)."""
    if result is value:
        return True
    items = result.values() if isinstance(result, dict) else result
    return isinstance(items, (tuple, list, type({}.values()))) and any(v is value for v in items)


class Summary(str):
    """An argument already rendered (a model, as it was when the call began)."""


def summarise(x: Any, depth: int = 0) -> str:
    """A compact, address-free rendering of an argument: tensors by dtype and shape
    (``float32[2, 7]``), generators by seed, models by class and mode, scalars by repr."""
    if isinstance(x, Summary):
        return str(x)
    if isinstance(x, torch.Tensor):
        return f"{str(x.dtype).removeprefix('torch.')}{list(x.shape)}"
    if isinstance(x, torch.Generator):
        return f"<seeded {x.initial_seed()}>"
    if isinstance(x, torch.nn.Module):
        modes = set(module_flags(x))
        mode = "mixed modes" if len(modes) > 1 else ("train mode" if x.training else "eval mode")
        return f"<{type(x).__name__}, {mode}>"
    if isinstance(x, (tuple, list)) and depth < 2:
        inner = ", ".join(summarise(v, depth + 1) for v in x[:8]) + (", ..." if len(x) > 8 else "")
        return f"({inner})" if isinstance(x, tuple) else f"[{inner}]"
    if isinstance(x, (bool, int, float, str, type(None), torch.dtype)):
        return repr(x)[:60]
    return f"<{type(x).__name__}>"


def _parameter_names(module: str, function: str) -> list[str]:
    """The contract's parameter names (from the handout stub), [] when unknown."""
    from grader.suite.proxy import PART_MODULES  # the one list of parts (proxy imports this)

    if module not in PART_MODULES:
        return []
    try:
        fn = getattr(importlib.import_module(f"exercises.{module}"), function)
        return [p.name for p in inspect.signature(fn).parameters.values()
                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]  # fmt: skip
    except (ImportError, AttributeError, TypeError, ValueError):
        return []


def format_call(module: str, function: str, args: tuple, kwargs: dict) -> str:
    """``function(name: summary, ..., key=summary)``, at most a few hundred characters."""
    names = _parameter_names(module, function)
    parts = [
        f"{names[i]}: {summarise(a)}" if i < len(names) and isinstance(a, torch.Tensor)
        else (f"{names[i]}={summarise(a)}" if i < len(names) else summarise(a))
        for i, a in enumerate(args)
    ]  # fmt: skip
    parts += [f"{k}={summarise(v)}" for k, v in kwargs.items()]
    text = f"{function}({', '.join(parts)})"
    return text if len(text) <= _CALL_CHARS else text[: _CALL_CHARS - 4] + " ...)"
