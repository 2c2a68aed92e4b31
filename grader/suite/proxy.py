"""The `student` and `reference` fixtures: one interface, two sides of the trust boundary.

``student.losses.causal_lm_loss(logits, ids)`` runs the submission's function in the sandbox;
``reference.losses.causal_lm_loss(logits, ids)`` runs `solutions/` here. Both return plain
values, both expose ``.backward(...)`` and ``last_effects``, and both write a generator's final
state back into the caller's generator object, so a test reads the same on either side.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from typing import Any

import torch

from grader.sandbox.client import CallResult, SandboxSession
from grader.sandbox.invoke import Effects, invoke

PART_MODULES = ("masks", "corruption", "losses", "generation")
_PATH = re.compile(r"^(args)\[(\d+)\]$|^(kwargs)\['(.+)'\]$")


def _lookup(path: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    m = _PATH.match(path)
    if not m:
        return None
    if m.group(1):
        i = int(m.group(2))
        return args[i] if i < len(args) else None
    return kwargs.get(m.group(4))


class _Function:
    def __init__(self, side: _Side, module: str, name: str) -> None:
        self._side, self._module, self._name = side, module, name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._side._call(self._module, self._name, args, kwargs).value

    def backward(
        self,
        *args: Any,
        grad_wrt: tuple[int | str, ...] = (0,),
        grad_output: torch.Tensor | None = None,
        **kwargs: Any,
    ) -> tuple[Any, tuple[torch.Tensor | None, ...]]:
        """Call, then backpropagate `(first_output.float() * grad_output).sum()`.

        Returns ``(value, grads)`` with one gradient (or None) per entry of `grad_wrt`.
        """
        res = self._side._call(
            self._module,
            self._name,
            args,
            kwargs,
            grad_wrt=tuple(grad_wrt),
            grad_output=grad_output,
        )
        return res.value, tuple(res.grads)

    def __repr__(self) -> str:
        return f"<{type(self._side).__name__} {self._module}.{self._name}>"


class _Module:
    def __init__(self, side: _Side, name: str) -> None:
        self._side, self._name = side, name

    def __getattr__(self, fn: str) -> _Function:
        if fn.startswith("_"):
            raise AttributeError(fn)
        return _Function(self._side, self._name, fn)


class _Side:
    """Common surface of both proxies."""

    last_effects: Effects | None = None

    def __getattr__(self, name: str) -> _Module:
        if name in PART_MODULES:
            return _Module(self, name)
        raise AttributeError(name)

    def _call(self, module, function, args, kwargs, *, grad_wrt=(), grad_output=None) -> CallResult:
        raise NotImplementedError

    def _finish(self, res: CallResult, args, kwargs) -> CallResult:
        for path, gen in res.generators.items():
            target = _lookup(path, args, kwargs)
            if isinstance(target, torch.Generator) and isinstance(gen, torch.Generator):
                target.set_state(gen.get_state())
        for path, training in res.effects.model_modes.items():
            target = _lookup(path, args, kwargs)
            if isinstance(target, torch.nn.Module) and target.training != training:
                target.train(training)
        self.last_effects = res.effects
        return res


class StudentProxy(_Side):
    """Calls into the sandboxed submission. Raises `StudentError`s on student failures."""

    def __init__(self, session: SandboxSession) -> None:
        self.session = session

    def _call(self, module, function, args, kwargs, *, grad_wrt=(), grad_output=None) -> CallResult:
        res = self.session.call(
            module, function, tuple(args), dict(kwargs), grad_wrt=grad_wrt, grad_output=grad_output
        )
        return self._finish(res, args, kwargs)

    def model_forward(
        self,
        model: torch.nn.Module,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """The grader's TinyLM (same weights) run with the student's mask and attention."""
        res = self.session.call(
            "__grader__", "model_forward", (model, input_ids, attention_mask), {}, needs=("masks",)
        )
        return self._finish(res, (model, input_ids, attention_mask), {}).value

    def has_part(self, module: str) -> bool:
        return module in self.session.sources and module not in self.session.missing


class ReferenceProxy(_Side):
    """Calls `solutions/` in this (trusted) process, with the same semantics as StudentProxy."""

    def __init__(self, package: str = "solutions") -> None:
        self.package = package

    def _module(self, name: str):
        return importlib.import_module(f"{self.package}.{name}")

    def _call(self, module, function, args, kwargs, *, grad_wrt=(), grad_output=None) -> CallResult:
        fn: Callable[..., Any] = getattr(self._module(module), function)
        inv = invoke(fn, args, kwargs, grad_wrt=grad_wrt, grad_output=grad_output)
        res = CallResult(value=inv.value, grads=inv.grads, effects=inv.effects)
        self.last_effects = res.effects
        return res

    def model_forward(
        self,
        model: torch.nn.Module,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor | None = None,
    ) -> torch.Tensor:
        from grader.sandbox.models import model_from_spec, model_to_spec

        masks = self._module("masks")
        header, tensors = model_to_spec(model)
        copy = model_from_spec(
            header, tensors, mask_fn=masks.build_attention_mask, attention_fn=masks.masked_attention
        )
        with torch.no_grad():
            return copy(input_ids, attention_mask=attention_mask)
