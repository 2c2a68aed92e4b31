"""The `student` and `reference` fixtures: one interface, two sides of the trust boundary.

``student.losses.causal_lm_loss(logits, ids)`` runs the submission's function in the sandbox;
``reference.losses.causal_lm_loss(logits, ids)`` runs `solutions/` here. Both return plain
values, both expose ``.backward(...)`` and ``last_effects``, and both write a generator's final
state back into the caller's generator object, so a test reads the same on either side.
"""

from __future__ import annotations

import importlib
import re
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import torch

from grader import values
from grader.parts import CODE_PARTS
from grader.sandbox.client import CallResult, SandboxSession
from grader.sandbox.invoke import Effects, invoke, module_flags
from grader.sandbox.models import Templates, set_module_modes
from grader.suite import refmemo
from grader.suite.cases import FIXED_CASES, Cases
from grader.suite.naming import REMEMBERED_CALLS, Summary, format_call, holds, summarise
from grader.suite.refmemo import Recorded, ReferenceMemo
from grader.values import Undigestable

__all__ = ["PART_MODULES", "ReferenceMemo", "ReferenceProxy", "StudentProxy", "format_call",
           "summarise"]  # fmt: skip

PART_MODULES = CODE_PARTS
_SKIP_AFTER = 3  # misses in a row after which a memo site stops being keyed ...
_RECHECK = 16  # ... except on every 16th visit
_MAX_SITES = 8192  # sites tracked (a suite has a few hundred); others are always keyed
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
    cases: Cases = FIXED_CASES
    _calls: deque | None = None  # the last few (module, function, args, kwargs, value)
    _called: set[tuple[str, bool]] | None = None  # this test's (function, given a generator)

    def _remember(self, module: str, function: str, args, kwargs, results: tuple,
                  key: str | None = None) -> None:  # fmt: skip
        """Keep references (no copies: rendered only if a check fails) to the last calls and
        what they returned (the value, then any gradients), and which functions the test
        called (`key`, default "module.function"), each with whether it got a generator."""
        if self._calls is None:
            self._calls = deque(maxlen=REMEMBERED_CALLS)
        if self._called is None:
            self._called = set()
        seeded = any(isinstance(a, torch.Generator) for a in (*args, *kwargs.values()))
        self._called.add((key or f"{module}.{function}", seeded))
        # a model's modes are summarised now: the call may change them (and the proxy does)
        args = tuple(Summary(summarise(a)) if isinstance(a, torch.nn.Module) else a
                     for a in args)  # fmt: skip
        kwargs = {k: Summary(summarise(a)) if isinstance(a, torch.nn.Module) else a
                  for k, a in kwargs.items()}  # fmt: skip
        self._calls.append((module, function, args, kwargs, results))

    def forget_calls(self) -> None:
        """Start a new test: calls of an earlier test are never named in its messages."""
        self._calls = self._called = None

    def functions_called(self) -> frozenset[tuple[str, bool]]:
        """The running test's calls: ("generation.sample_generate", given a generator) pairs
        (for `grader.diagnosis.downstream`)."""
        return frozenset(self._called or ())

    @contextmanager
    def uncounted(self) -> Iterator[None]:
        """Calls made inside are not the running test's own `functions_called` (a gate's
        probes, `grader.suite.working`): its failure is not about them."""
        saved = set(self._called or ())
        try:
            yield
        finally:
            self._called = saved

    def describe_call(self, value: Any = None) -> str:
        """The call that returned `value` (or one of its items) as a student reads it, e.g.
        ``sample_next_token(logits: float32[2, 7], temperature=0.0, generator=<seeded 123>)``;
        the latest call when `value` is none of the remembered results; '' before any call."""
        if not self._calls:
            return ""
        calls = list(self._calls)
        chosen = next((c for c in reversed(calls)
                       if value is not None and any(holds(r, value) for r in c[4])),
                      None)  # fmt: skip
        label = "the call" if chosen is not None else "your code's last call"
        module, function, args, kwargs, _ = chosen or calls[-1]
        return f"{label}: {format_call(module, function, args, kwargs)}"

    def once(self, key: Any, compute: Callable[[], Any]) -> Any:
        """``compute()`` at most once per proxy (a StudentProxy is one submission): later
        calls with the same key return its result, or raise its exception again. For verdicts
        several tests share (`grader.suite.working`)."""
        memo = self.__dict__.setdefault("_once", {})
        if key not in memo:
            try:
                memo[key] = (True, compute())
            except Exception as exc:  # noqa: BLE001 - re-raised in every reader
                memo[key] = (False, exc)
        ok, value = memo[key]
        if ok:
            return value
        raise value

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
            if not isinstance(target, torch.nn.Module):
                continue
            flags = res.effects.module_modes.get(path)
            if flags is not None and set_module_modes(target, flags):
                continue  # the modules ended in mixed modes: each gets its own flag back
            if any(f != training for f in module_flags(target)):
                target.train(training)
        self.last_effects = res.effects
        return res


class StudentProxy(_Side):
    """Calls into the sandboxed submission. Raises `StudentError`s on student failures.

    `cases`: this submission's draws of test inputs (`grader.suite.cases`; the `cases`
    fixture). It stays on the trusted side."""

    def __init__(self, session: SandboxSession, *, cases: Cases = FIXED_CASES) -> None:
        self.session = session
        self.cases = cases

    def _call(self, module, function, args, kwargs, *, grad_wrt=(), grad_output=None) -> CallResult:
        res = self.session.call(
            module, function, tuple(args), dict(kwargs), grad_wrt=grad_wrt, grad_output=grad_output
        )
        self._remember(module, function, args, kwargs, (res.value, *res.grads))
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
        self._remember("__grader__", "TinyLM forward with your masks", (model,),
                       {"input_ids": input_ids, "attention_mask": attention_mask},
                       (res.value,), key="model_forward")  # fmt: skip
        return self._finish(res, (model, input_ids, attention_mask), {}).value

    def has_part(self, module: str) -> bool:
        return module in self.session.sources and module not in self.session.missing


class ReferenceProxy(_Side):
    """Calls `solutions/` in this (trusted) process, with the same semantics as StudentProxy.

    Results are memoised across submissions (`ReferenceMemo`): the hidden suite asks the
    reference the same questions for every submission (fixed seeds, fixed inputs), and the
    reference is deterministic, so a repeated question is answered with fresh copies of the
    first answer and its side effects replayed.
    """

    def __init__(self, package: str = "solutions", *, memo: bool = True) -> None:
        self.package = package
        self._memo = ReferenceMemo() if memo else None
        # function -> the reference's answers on its fixed working-gate probes
        # (`grader.suite.working`), kept as long as this proxy (one per Grader)
        self.working_answers: dict[str, tuple[Any, ...]] | None = {} if memo else None
        self._test: str | None = None  # the running test (`start_test`), and its next site
        self._site = 0
        self._misses: dict[tuple[str, int], int] = {}  # site -> memo misses since its last hit
        # structural copies for the models `model_forward` rebuilds (kept only with the memo)
        self._templates = Templates() if memo else None

    def _module(self, name: str):
        return importlib.import_module(f"{self.package}.{name}")

    def start_test(self, test_id: str) -> None:
        """A new test begins (the plugin says so): its calls are counted from 0, and call
        ``i`` of a test is one *site* of the memo's bookkeeping (`_recall`)."""
        self._test, self._site = test_id, 0

    def _recall(self, head: tuple, arguments: Callable[[], tuple]) -> tuple[Any, Any]:
        """(memo key, recorded answer or None); the key is None when the call must just run.

        A site whose questions never repeat (inputs drawn per submission: `cases`) is not
        keyed at all once it missed `_SKIP_AFTER` times in a row: digesting its arguments and
        storing its answers is pure cost. Every `_RECHECK`-th visit it is keyed again, so a
        site whose inputs do repeat (a draw from a small range) learns that back."""
        if self._memo is None:
            return None, None
        site = None
        if self._test is not None:
            site = (self._test, self._site)
            self._site += 1
            misses = self._misses.get(site, 0)
            if misses >= _SKIP_AFTER and (misses - _SKIP_AFTER + 1) % _RECHECK:
                self._misses[site] = misses + 1
                return None, None
        key = self._memo.key(head, arguments)
        hit = self._memo.get(key)
        if site is not None and key is not None:
            if hit is not None:
                self._misses.pop(site, None)
            elif len(self._misses) < _MAX_SITES or site in self._misses:
                self._misses[site] = self._misses.get(site, 0) + 1
        return key, hit

    def _call(self, module, function, args, kwargs, *, grad_wrt=(), grad_output=None) -> CallResult:
        key, hit = self._recall(
            ("call", self.package, module, function, tuple(grad_wrt)),
            lambda: refmemo.arguments_digest(args, kwargs, grad_output),
        )
        if hit is not None:
            res = hit.replay(args, kwargs)
            self.last_effects = res.effects
            return res
        fn: Callable[..., Any] = getattr(self._module(module), function)
        if key is not None:
            models = refmemo.model_args(args, kwargs)
            try:
                before = {p: refmemo.model_state(m) for p, m in models.items()}
            except Undigestable:
                key = None
        inv = invoke(fn, args, kwargs, grad_wrt=grad_wrt, grad_output=grad_output)
        res = CallResult(value=inv.value, grads=inv.grads, effects=inv.effects)
        self.last_effects = res.effects
        if key is not None and refmemo.replayable(inv.effects, models, before):
            self._memo.put(key, Recorded.of(res, args, kwargs))
        return res

    def model_forward(
        self,
        model: torch.nn.Module,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """The reference model's logits for `input_ids` (and `attention_mask`), memoised across
        calls and submissions by the arguments' digest when the forward is replayable (consumes no
        global RNG); a hit returns a copy."""
        key, hit = self._recall(
            ("model_forward", self.package),
            lambda: refmemo.arguments_digest((model, input_ids, attention_mask), {}),
        )
        if hit is not None:
            return values.copy(hit.value)
        rng_before = torch.get_rng_state() if key is not None else None
        value = self._model_forward(model, input_ids, attention_mask)
        if key is not None and torch.equal(rng_before, torch.get_rng_state()):
            recorded = Recorded(value=value, grads=(), effects=Effects(), generators={})
            if recorded.storable(value, (), (model, input_ids, attention_mask), {}):
                self._memo.put(key, recorded.frozen())
        return value

    def _model_forward(self, model, input_ids, attention_mask) -> torch.Tensor:
        from grader.sandbox.models import model_from_spec, model_to_spec

        masks = self._module("masks")
        header, tensors = model_to_spec(model)
        copy = model_from_spec(
            header,
            tensors,
            mask_fn=masks.build_attention_mask,
            attention_fn=masks.masked_attention,
            templates=self._templates,
        )
        with torch.no_grad():
            return copy(input_ids, attention_mask=attention_mask)
