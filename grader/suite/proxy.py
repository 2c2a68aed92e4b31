"""The `student` and `reference` fixtures: one interface, two sides of the trust boundary.

``student.losses.causal_lm_loss(logits, ids)`` runs the submission's function in the sandbox;
``reference.losses.causal_lm_loss(logits, ids)`` runs `solutions/` here. Both return plain
values, both expose ``.backward(...)`` and ``last_effects``, and both write a generator's final
state back into the caller's generator object, so a test reads the same on either side.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import re
from collections import deque
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import torch

from grader.lru import BoundedLRU
from grader.parts import CODE_PARTS
from grader.sandbox.client import CallResult, SandboxSession
from grader.sandbox.invoke import Effects, invoke, module_flags, module_list
from grader.sandbox.models import set_module_modes
from grader.suite.cases import FIXED_CASES, Cases

PART_MODULES = CODE_PARTS
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

    def _remember(self, module: str, function: str, args, kwargs, results: tuple) -> None:
        """Keep references (no copies: rendered only if a check fails) to the last calls and
        what they returned (the value, then any gradients)."""
        if self._calls is None:
            self._calls = deque(maxlen=_REMEMBERED_CALLS)
        # a model's modes are summarised now: the call may change them (and the proxy does)
        args = tuple(_Summary(summarise(a)) if isinstance(a, torch.nn.Module) else a
                     for a in args)  # fmt: skip
        kwargs = {k: _Summary(summarise(a)) if isinstance(a, torch.nn.Module) else a
                  for k, a in kwargs.items()}  # fmt: skip
        self._calls.append((module, function, args, kwargs, results))

    def forget_calls(self) -> None:
        """Start a new test: calls of an earlier test are never named in its messages."""
        self._calls = None

    def describe_call(self, value: Any = None) -> str:
        """The call that returned `value` (or one of its items) as a student reads it, e.g.
        ``sample_next_token(logits: float32[2, 7], temperature=0.0, generator=<seeded 123>)``;
        the latest call when `value` is none of the remembered results; '' before any call."""
        if not self._calls:
            return ""
        calls = list(self._calls)
        chosen = next((c for c in reversed(calls)
                       if value is not None and any(_holds(r, value) for r in c[4])),
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
                       (res.value,))  # fmt: skip
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
            lambda: (_arguments_key(args, kwargs), _value_key(grad_output)),
        )
        if hit is not None:
            res = hit.replay(args, kwargs)
            self.last_effects = res.effects
            return res
        fn: Callable[..., Any] = getattr(self._module(module), function)
        if key is not None:
            models = _model_args(args, kwargs)
            before = {p: _module_state(m) for p, m in models.items()}
        inv = invoke(fn, args, kwargs, grad_wrt=grad_wrt, grad_output=grad_output)
        res = CallResult(value=inv.value, grads=inv.grads, effects=inv.effects)
        self.last_effects = res.effects
        if key is not None and _replayable(inv.effects, args, kwargs, models, before):
            self._memo.put(key, _Recorded.of(res, args, kwargs))
        return res

    def model_forward(
        self,
        model: torch.nn.Module,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor | None = None,
    ) -> torch.Tensor:
        key, hit = self._recall(
            ("model_forward", self.package),
            lambda: (_spec_key(model), _value_key(input_ids), _value_key(attention_mask)),
        )
        if hit is not None:
            return _fresh(hit.value)
        rng_before = torch.get_rng_state() if key is not None else None
        value = self._model_forward(model, input_ids, attention_mask)
        if key is not None and torch.equal(rng_before, torch.get_rng_state()):
            recorded = _Recorded(value=value, grads=(), effects=Effects(), generators={})
            if recorded.storable(value, (), (model, input_ids, attention_mask), {}):
                self._memo.put(key, recorded.frozen())
        return value

    def _model_forward(self, model, input_ids, attention_mask) -> torch.Tensor:
        from grader.sandbox.models import model_from_spec, model_to_spec

        masks = self._module("masks")
        header, tensors = model_to_spec(model)
        copy = model_from_spec(
            header, tensors, mask_fn=masks.build_attention_mask, attention_fn=masks.masked_attention
        )
        with torch.no_grad():
            return copy(input_ids, attention_mask=attention_mask)


# ----------------------------------------------------------------------------- naming a call

_REMEMBERED_CALLS = 8
_CALL_CHARS = 400


def _holds(result: Any, value: Any) -> bool:
    """`value` is the result itself or one of its top-level items (identity, not equality)."""
    if result is value:
        return True
    items = result.values() if isinstance(result, dict) else result
    return isinstance(items, (tuple, list, type({}.values()))) and any(v is value for v in items)


class _Summary(str):
    """An argument already rendered (a model, as it was when the call began)."""


def summarise(x: Any, depth: int = 0) -> str:
    """A compact, address-free rendering of an argument: tensors by dtype and shape
    (``float32[2, 7]``), generators by seed, models by class and mode, scalars by repr."""
    if isinstance(x, _Summary):
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


# ----------------------------------------------------------------------------- reference memo
#
# A memo entry is only made when replaying it is indistinguishable from calling again:
#
# * the key is the function plus a content digest of every argument (tensors: type, dtype,
#   shape, strides, flags and bytes; generators: their state; a TinyLM: its config, functions,
#   train flags and weights) and of the torch state a call depends on (grad mode, default
#   dtype, threads). Anything else in the arguments (an unknown object, a tensor subclass, a
#   model with hooks) makes the call unkeyable, and it simply runs.
# * the call's only side effects may be advancing generator arguments (their final state is
#   recorded and written back on a hit); a call that changed an input tensor, a model (weights
#   or any train flag) or the global RNG is not memoised.
# * results are stored as private copies and every hit returns new copies (containers
#   rebuilt, tensors cloned with their strides), so a test that edits a result in place cannot
#   change a later answer; results aliasing an input or each other are not memoised.


class _Unkeyable(Exception):
    pass


_SKIP_AFTER = 3  # misses in a row after which a site stops being keyed ...
_RECHECK = 16  # ... except on every 16th visit
_MAX_SITES = 8192  # sites tracked (a suite has a few hundred); others are always keyed
_MEMO_ENTRIES = 2048  # LRU bound: a batch's fixed questions stay, per-student ones cycle out
_MEMO_ENTRY_BYTES = 4 << 20  # larger results are recomputed rather than kept
_MEMO_BYTES = 64 << 20  # all stored results together (least recently used go first)
_SCALARS = (type(None), bool, int, str, bytes)


def _tensor_key(t: torch.Tensor) -> tuple:
    if type(t) is not torch.Tensor or t.layout != torch.strided or t.device.type != "cpu":
        raise _Unkeyable
    if t.is_conj() or t.is_neg() or t.is_quantized:
        raise _Unkeyable
    flat = t.detach().contiguous().reshape(-1)
    data = flat.view(torch.uint8) if flat.dtype != torch.bool else flat
    digest = hashlib.blake2b(data.numpy(), digest_size=20).digest()
    return ("tensor", str(t.dtype), tuple(t.shape), t.stride(), t.requires_grad, digest)


def _value_key(x: Any, depth: int = 0) -> Any:
    if depth > 16:
        raise _Unkeyable
    t = type(x)
    if t in _SCALARS:
        return (t.__name__, x)
    if t is float:
        return ("float", x.hex())
    if t is torch.Tensor:
        return _tensor_key(x)
    if t is torch.dtype:
        return ("dtype", str(x))
    if t in (tuple, list):
        return (t.__name__, tuple(_value_key(v, depth + 1) for v in x))
    if t is dict:
        return ("dict", tuple((_value_key(k, depth + 1), _value_key(v, depth + 1))
                              for k, v in x.items()))  # fmt: skip
    raise _Unkeyable


def _argument_key(x: Any) -> Any:
    """A top-level argument: also a generator (its final state is replayed) or a TinyLM."""
    if type(x) is torch.Generator:
        if x.device.type != "cpu":
            raise _Unkeyable
        return ("generator", _tensor_key(x.get_state()))
    if isinstance(x, torch.nn.Module):
        return _model_key(x)
    return _value_key(x, 1)


def _arguments_key(args, kwargs) -> tuple:
    return (
        tuple(_argument_key(a) for a in args),
        tuple((k, _argument_key(v)) for k, v in kwargs.items()),
    )


def _hooks_free(model: torch.nn.Module) -> bool:
    from torch.nn.modules import module as nn_module

    if (nn_module._global_forward_hooks or nn_module._global_forward_pre_hooks
            or nn_module._global_backward_hooks or nn_module._global_backward_pre_hooks):
        return False  # fmt: skip
    for m in module_list(model):
        if (m._forward_hooks or m._forward_pre_hooks or m._backward_hooks
                or m._backward_pre_hooks or m._buffers):
            return False  # fmt: skip
    return True


def _trusted_tinylm(model: Any) -> bool:
    """A TinyLM exactly as the grader builds them: its class, no hooks, the trusted
    mask/attention functions or None (which are then part of its key by name)."""
    from exercises.tinylm import TinyLM

    return type(model) is TinyLM and _hooks_free(model)


def _function_key(fn: Any) -> tuple:
    from grader import trusted_tinylm as trusted

    if fn is None:
        return ("none",)
    if fn is trusted.trusted_mask or fn is trusted.trusted_attention:
        return ("trusted", fn.__name__)
    raise _Unkeyable


def _weights_key(model: torch.nn.Module) -> tuple:
    return tuple(
        (name, type(p).__name__, p.requires_grad, _tensor_key(p.detach()))
        for name, p in model.named_parameters()
    )


def _model_key(model: Any) -> tuple:
    if not _trusted_tinylm(model):
        raise _Unkeyable
    config = model.config
    return (
        "tinylm",
        tuple(sorted(asdict(config).items())),
        model.max_seq_len,
        _function_key(model.mask_fn),
        _function_key(model.attention_fn),
        tuple(module_flags(model)),
        _weights_key(model),
    )


def _spec_key(model: Any) -> tuple:
    """What `model_forward` uses of the model: exactly its spec (config, train flags, weights)."""
    if not _trusted_tinylm(model):
        raise _Unkeyable
    return ("spec", tuple(sorted(asdict(model.config).items())),
            tuple(module_flags(model)), _weights_key(model))  # fmt: skip


def _context_key() -> tuple:
    return (
        torch.is_grad_enabled(),
        torch.is_inference_mode_enabled(),
        torch.is_autocast_enabled("cpu"),
        str(torch.get_default_dtype()),
        torch.get_num_threads(),
        torch.are_deterministic_algorithms_enabled(),
    )


def _model_args(args, kwargs) -> dict[str, torch.nn.Module]:
    return {p: a for p, a in _paths(args, kwargs) if isinstance(a, torch.nn.Module)}


def _paths(args, kwargs):
    for i, a in enumerate(args):
        yield f"args[{i}]", a
    for k, a in kwargs.items():
        yield f"kwargs[{k!r}]", a


def _module_state(model: torch.nn.Module) -> tuple:
    return tuple(module_flags(model)), _weights_key(model)


def _replayable(effects: Effects, args, kwargs, models, before) -> bool:
    if effects.mutated_args or effects.global_rng_changed:
        return False
    return all(_module_state(m) == before[p] for p, m in models.items())


def _tensors(x: Any, out: list[torch.Tensor], depth: int = 0) -> bool:
    """Collect the tensors in `x`; False if it holds anything a copy would not reproduce."""
    if depth > 16:
        return False
    t = type(x)
    if t in _SCALARS or t is float or t is torch.dtype:
        return True
    if t is torch.Tensor:
        out.append(x)
        return True
    if t in (tuple, list):
        return all(_tensors(v, out, depth + 1) for v in x)
    if t is dict:
        return all(type(k) in _SCALARS and _tensors(v, out, depth + 1) for k, v in x.items())
    return False


def _clone(t: torch.Tensor) -> torch.Tensor:
    c = t.clone()
    if t.requires_grad:  # never the case for invoke's detached results; kept exact anyway
        c = c.detach().requires_grad_(True)
    return c


def _fresh(x: Any) -> Any:
    """A copy of a stored result: new containers, cloned tensors, the same scalars."""
    t = type(x)
    if t is torch.Tensor:
        return _clone(x)
    if t is tuple:
        return tuple(_fresh(v) for v in x)
    if t is list:
        return [_fresh(v) for v in x]
    if t is dict:
        return {k: _fresh(v) for k, v in x.items()}
    return x


def _storage(t: torch.Tensor) -> int:
    return t.untyped_storage().data_ptr()


@dataclass(frozen=True)
class _Recorded:
    value: Any
    grads: tuple[Any, ...]
    effects: Effects
    generators: dict[str, torch.Tensor]  # path -> final state

    @classmethod
    def of(cls, res: CallResult, args, kwargs) -> _Recorded | None:
        gens = {
            p: g.get_state() for p, g in _paths(args, kwargs) if type(g) is torch.Generator
        }
        rec = cls(value=res.value, grads=tuple(res.grads), effects=res.effects, generators=gens)
        return rec.frozen() if rec.storable(res.value, res.grads, args, kwargs) else None

    def storable(self, value, grads, args, kwargs) -> bool:
        results: list[torch.Tensor] = []
        if not _tensors(value, results) or not _tensors(tuple(grads), results):
            return False
        inputs: list[torch.Tensor] = []
        for _, a in _paths(args, kwargs):
            if isinstance(a, torch.Tensor):
                inputs.append(a)
            elif isinstance(a, torch.nn.Module):
                inputs.extend(a.parameters())
            elif isinstance(a, (tuple, list, dict)):
                _tensors(a, inputs)
        seen = {_storage(t) for t in inputs if t.numel()}
        size = 0
        for t in results:
            if t.layout != torch.strided or t.device.type != "cpu" or type(t) is not torch.Tensor:
                return False
            ptr = _storage(t)
            if t.numel():
                if ptr in seen:  # aliases an input or another result
                    return False
                seen.add(ptr)
            if t.clone().stride() != t.stride():  # a copy would not keep the layout
                return False
            size += t.numel() * t.element_size()
        return size <= _MEMO_ENTRY_BYTES

    def frozen(self) -> _Recorded:
        """A private copy (the caller keeps the originals)."""
        return _Recorded(
            value=_fresh(self.value),
            grads=_fresh(self.grads),
            effects=_copy_effects(self.effects),
            generators={p: s.clone() for p, s in self.generators.items()},
        )

    def replay(self, args, kwargs) -> CallResult:
        for path, state in self.generators.items():
            _lookup(path, tuple(args), dict(kwargs)).set_state(state)
        return CallResult(
            value=_fresh(self.value), grads=_fresh(self.grads), effects=_copy_effects(self.effects)
        )


def _copy_effects(e: Effects) -> Effects:
    return Effects(
        mutated_args=tuple(e.mutated_args),
        global_rng_changed=e.global_rng_changed,
        model_modes=dict(e.model_modes),
        module_modes={k: list(v) for k, v in e.module_modes.items()},
        result_requires_grad=e.result_requires_grad,
        model_forward_with_grad=dict(e.model_forward_with_grad),
    )


def _nbytes(rec: _Recorded) -> int:
    tensors: list[torch.Tensor] = []
    _tensors((rec.value, rec.grads, tuple(rec.generators.values())), tensors)
    return sum(t.numel() * t.element_size() for t in tensors)


class ReferenceMemo:
    """A thread-safe LRU of reference answers, bounded in entries and in bytes (see the
    notes above)."""

    def __init__(self, max_entries: int = _MEMO_ENTRIES, max_bytes: int = _MEMO_BYTES) -> None:
        self._lru = BoundedLRU(max_entries, max_bytes)

    def key(self, head: tuple, arguments: Callable[[], tuple]) -> Any:
        """The memo key of a call (`arguments()` digests them), or None when the call must
        simply run."""
        try:
            return (head, _context_key(), arguments())
        except _Unkeyable:
            return None

    def get(self, key: Any) -> _Recorded | None:
        return None if key is None else self._lru.get(key)

    def put(self, key: Any, rec: _Recorded | None) -> None:
        if key is None or rec is None:
            return
        self._lru.put(key, rec, _nbytes(rec))

    def __len__(self) -> int:
        return len(self._lru)
