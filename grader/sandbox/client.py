"""The trusted side of the boundary: start workers, send calls, enforce time, kill.

`Zygote` (`grader.sandbox.forker`) owns the pre-warmed forker process; `SandboxSession`
grades one submission through it: one worker per part, each module loaded on first use;
calls with deadlines and request ids; every kind of student failure turned into a
`StudentError` subclass (`grader.sandbox.errors`) whose text is cleaned before it can reach a
report; a worker that hung, crashed or desynchronised replaced with a fresh one so only the affected
tests are lost. docs/security.md has the threat model.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import torch

from grader.parts import CALLS, FUNCTIONS
from grader.sandbox import wire
from grader.sandbox.errors import (
    MissingPart,
    NotAttempted,
    NotDefined,
    StudentCrash,
    StudentError,
    StudentException,
    StudentTimeout,
    _reply_error,
    not_defined,
)
from grader.sandbox.forker import SandboxUnavailable, WorkerHandle, Zygote, _running
from grader.sandbox.invoke import Effects, is_arg_path
from grader.sandbox.limits import SandboxLimits
from grader.textsafe import clean_text

__all__ = [  # the failures live in errors, Zygote, WorkerHandle and SandboxUnavailable in forker
    "CallResult",
    "MissingPart",
    "NotAttempted",
    "NotDefined",
    "SandboxSession",
    "SandboxUnavailable",
    "StudentCrash",
    "StudentError",
    "StudentException",
    "StudentTimeout",
    "WorkerHandle",
    "Zygote",
    "_running",
]

# ----------------------------------------------------------------------------- session


@dataclass
class CallResult:
    value: Any
    grads: tuple[Any, ...]
    effects: Effects
    generators: dict[str, Any] = field(default_factory=dict)


# After this many timeouts of one function, its remaining calls are not made: a function that
# hangs on every input must not spend the whole submission's time budget, which the other
# parts need.
MAX_TIMEOUTS_PER_FUNCTION = 2
# Likewise for a function that ends its worker (os._exit, a segfault, the CPU limit) on each of
# its first calls without ever returning: every further call would cost a new worker to give
# the same crash. A function that returned even once keeps being called.
MAX_CRASHES_BEFORE_FIRST_RETURN = 3


class SandboxSession:
    """All the calls of one submission. Not thread-safe: one test at a time.

    Each part (module) runs in a worker of its own, started on first use: an import-time
    monkeypatch, a background thread, a crash or a closed socket in ``masks.py`` cannot touch
    the calls made to ``losses.py``. A call that needs other modules (``needs``, e.g. the
    model forward pass that runs the student's masks) runs in the worker of the first of
    them, where they are imported together, as the student's own code would import them.
    """

    def __init__(
        self,
        zygote: Zygote,
        sources: dict[str, str],
        limits: SandboxLimits | None = None,
        *,
        slot: int = 0,
        missing: dict[str, str] | None = None,
        encoded: wire.EncodedModels | None = None,
        origins: dict[str, tuple[str, str]] | None = None,
    ) -> None:
        self.zygote = zygote
        # the models this session's calls send, encoded once (a Grader lends its own)
        self.encoded = encoded if encoded is not None else wire.EncodedModels()
        self.sources = dict(sources)
        self.limits = limits or SandboxLimits()
        self.slot = slot
        self.missing = dict(missing or {})
        # module -> (where the student wrote it, a hint): `not_defined`'s words for it
        self.origins = dict(origins or {})
        # module -> the handout's functions it does not define, as its first load found
        self.undefined: dict[str, frozenset[str]] = {}
        self.module_failures: dict[str, StudentError] = {}
        self._workers: dict[str, WorkerHandle] = {}
        self._loaded: dict[str, set[str]] = {}
        self._timeouts: dict[tuple[str, str], int] = {}
        self._crashes: dict[tuple[str, str], int] = {}  # counted until the first return
        self._returned: set[tuple[str, str]] = set()
        self._seq = 0
        # Each part (worker group) gets an equal share of the submission's time budget, counted
        # from its first call, so a part that is merely slow on every call (never timing out)
        # cannot spend the time the other parts need. Together they never exceed the budget.
        self._part_budget = self.limits.submission_timeout / max(1, len(self.sources))
        self._deadlines: dict[str, float] = {}
        self.workers_started = 0
        self.notes: list[str] = []

    # -- lifecycle
    def _ensure_worker(self, group: str) -> WorkerHandle:
        worker = self._workers.get(group)
        if worker is None:
            worker = self.zygote.spawn(self.sources, self.limits, self.slot)
            self._workers[group] = worker
            self._loaded[group] = set()
            self.workers_started += 1
        return worker

    def _discard_worker(self, group: str | None = None) -> None:
        """SIGKILL the worker(s). No waiting: a SIGKILLed process runs no more user code, the
        kernel tears its namespace down in the background, and its uid stays claimed by its
        supervisor until every process of it is gone, so the next worker never shares it."""
        groups = list(self._workers) if group is None else [group]
        for g in groups:
            worker = self._workers.pop(g, None)
            self._loaded.pop(g, None)
            if worker is not None:
                worker.kill()

    def close(self) -> None:
        for worker in list(self._workers.values()):
            try:
                wire.send_frame(worker.sock, {"op": "bye"})
            except OSError:
                pass
        self._discard_worker()

    def __enter__(self) -> SandboxSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- calls
    def _remaining(self, group: str) -> float:
        deadline = self._deadlines.setdefault(group, time.monotonic() + self._part_budget)
        return deadline - time.monotonic()

    def _exchange(
        self,
        group: str,
        header: dict[str, Any],
        buffers: list[bytes],
        what: str,
        *,
        timeout: float | None = None,
    ):
        """One request and its reply. `timeout`: this request's own limit, instead of the
        call timeout and the part's share of the submission's budget."""
        remaining = self._remaining(group) if timeout is None else timeout
        if remaining <= 0:
            raise StudentTimeout(
                f"not run: the code of this part used up its time budget "
                f"({self._part_budget:.0f} s) in earlier tests"
            )
        worker = self._ensure_worker(group)
        allowed = min(self.limits.call_timeout, remaining) if timeout is None else timeout
        deadline = time.monotonic() + allowed
        self._seq += 1
        header = dict(header, id=self._seq)
        try:
            wire.send_frame(worker.sock, header, buffers)
            reply, bufs = wire.recv_frame(
                worker.sock,
                wire.Limits(max_frame_bytes=self.limits.max_result_mb * 1024 * 1024),
                deadline,
            )
        except TimeoutError:
            self._discard_worker(group)
            if timeout is None and allowed < self.limits.call_timeout:
                raise StudentTimeout(
                    f"{what} was stopped when the code of this part ran out of its time budget "
                    f"({self._part_budget:.0f} s across its tests; far too slow)"
                ) from None
            raise StudentTimeout(
                f"{what} did not finish within {allowed:.0f} s (an infinite loop, or far too "
                "slow); it was stopped"
            ) from None
        except wire.WireError as exc:
            self._discard_worker(group)
            raise StudentException(
                f"{what} returned a value the grader cannot accept: {exc}"
            ) from None
        except (EOFError, OSError):
            self._discard_worker(group)
            raise StudentCrash(
                f"the process running {what} died (os._exit(), a crash, or it exceeded the "
                "memory/CPU limits)"
            ) from None
        if reply.get("id") != self._seq:
            self._discard_worker(group)
            raise StudentCrash(
                f"while running {what}, the grader received a message it did not ask for "
                "(student code must not write to the grader's connection); the result was "
                "discarded"
            )
        return reply, bufs

    def _load(self, group: str, module: str) -> None:
        if module in self.module_failures:
            raise self.module_failures[module]
        if module in self.missing:
            raise MissingPart(self.missing[module])
        if module not in self.sources:
            raise MissingPart(f"{module}.py was not found in your submission")
        if module in self._loaded.get(group, ()):
            return
        try:
            header, _ = self._exchange(
                group, {"op": "load", "module": module}, [], f"importing {module}.py"
            )
        except StudentError as err:
            failure = type(err)(f"importing {module}.py failed: {err.message}")
            failure.at_import = True
            self.module_failures[module] = failure
            raise failure from None
        if not header.get("ok"):
            failure = _reply_error(header, f"importing {module}.py")
            failure.at_import = True
            if not isinstance(failure, NotAttempted):
                self.module_failures[module] = failure
            raise failure
        if module not in self.undefined:
            names = header.get("undefined")
            expected = FUNCTIONS.get(module, ())
            found = frozenset(n for n in names if n in expected) if type(names) is list else ()
            if found:
                self.undefined[module] = found
        self._loaded.setdefault(group, set()).add(module)

    def call(
        self,
        module: str,
        function: str,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        *,
        grad_wrt: tuple[int | str, ...] = (),
        grad_output: Any = None,
        needs: tuple[str, ...] = (),
    ) -> CallResult:
        """Call `module.function` in the sandbox. Raises a StudentError on any student failure.

        `needs` lists other modules the call depends on (e.g. model_forward needs masks).
        """
        what = f"{function}()"
        key = (module, function)
        if self._crashes.get(key, 0) >= MAX_CRASHES_BEFORE_FIRST_RETURN:
            raise StudentCrash(
                f"not run: the process running {what} died (os._exit(), a crash, or it exceeded "
                f"the memory/CPU limits) on each of its first {self._crashes[key]} calls, so its "
                "remaining checks were skipped"
            )
        if self._timeouts.get(key, 0) >= MAX_TIMEOUTS_PER_FUNCTION:
            raise StudentTimeout(
                f"not run: {what} already timed out {self._timeouts[key]} times, so its "
                "remaining checks were skipped to keep time for your other functions"
            )
        modules = (module, *needs) if module != "__grader__" else tuple(needs)
        group = modules[0] if modules else module
        for m in modules:
            self._load(group, m)
        if self.undefined:  # a submission that defines every function pays nothing here
            failure = self._not_defined(module, function)
            if failure is not None:
                raise failure
        worker = self._workers.get(group)  # started by _load, unless nothing is loaded
        tree, buffers = wire.encode(
            {"args": list(args), "kwargs": kwargs, "grad_output": grad_output},
            models=worker.models if worker is not None else None,
            encoded=self.encoded,
        )
        header = {
            "op": "call",
            "module": module,
            "function": function,
            "values": tree,
            "grad_wrt": list(grad_wrt),
        }
        try:
            reply, bufs = self._exchange(group, header, buffers, what)
        except StudentTimeout:
            self._timeouts[key] = self._timeouts.get(key, 0) + 1
            raise
        except StudentCrash:
            if key not in self._returned:
                self._crashes[key] = self._crashes.get(key, 0) + 1
            raise
        self._returned.add(key)  # it came back (maybe with an exception): keep calling it
        if not reply.get("ok"):
            failure = _reply_error(reply, f"calling {function}()")
            if self.undefined and isinstance(failure, StudentException):
                failure = self._needs_undefined(failure, reply, module, function) or failure
            raise failure
        try:
            payload = wire.decode(reply.get("payload"), bufs, allow_models=False)
            effects = Effects.from_dict(dict(reply.get("effects") or {}))
            value = payload["value"]
            grads = tuple(payload.get("grads") or ())
            gens = {
                k: g
                for k, g in dict(payload.get("generators") or {}).items()
                if is_arg_path(k) and isinstance(g, torch.Generator)
            }
        except Exception as exc:  # noqa: BLE001 - any malformed reply is the worker's fault
            self._discard_worker(group)
            raise StudentException(
                f"{what} returned a value the grader cannot accept: {clean_text(exc, 300)}"
            ) from None
        return CallResult(value=value, grads=grads, effects=effects, generators=gens)

    def _not_defined(self, module: str, function: str) -> NotDefined | None:
        """The NotDefined for a call of `module.function` when the submission does not define
        it or (the grader's TinyLM forward) a function the call is known to use (`CALLS`)."""
        if module == "__grader__":
            for callee in CALLS.get(function, ()):
                m, _, name = callee.partition(".")
                if name in self.undefined.get(m, ()):
                    return not_defined(callee, self.origins.get(m), caller=function)
            return None
        if function in self.undefined.get(module, ()):
            return not_defined(f"{module}.{function}", self.origins.get(module))
        return None

    def _needs_undefined(
        self, failure: StudentException, reply: dict[str, Any], module: str, function: str
    ) -> NotDefined | None:
        """A call that raised NameError/AttributeError naming one of the handout's functions
        the submission does not define (`build_attention_mask` calling a missing
        `causal_mask`) failed because of that one omission: the NotDefined saying so."""
        if failure.exc_type not in ("NameError", "AttributeError"):
            return None
        text = clean_text(reply.get("message", ""), 2000)
        for m, names in self.undefined.items():
            for name in names:
                if f"'{name}'" in text:
                    caller = function if module == "__grader__" else f"{module}.{function}"
                    return not_defined(f"{m}.{name}", self.origins.get(m), caller=caller)
        return None

    def run_drill(self, source: str, argv: list[str], *, max_bytes: int) -> str | None:
        """Rerun Exercise 3: ``python drill/experiment.py *argv`` in a worker of its own
        (the student's part modules importable, no network, `limits.drill_timeout`), which is
        discarded afterwards. Returns what the script wrote to drill/results.json (None if
        nothing, or more than `max_bytes`); raises a StudentError if it failed."""
        what = "python drill/experiment.py"
        header = {"op": "drill", "source": source, "argv": list(argv), "max_bytes": max_bytes}
        try:
            reply, _ = self._exchange(
                DRILL_GROUP, header, [], what, timeout=self.limits.drill_timeout
            )
        finally:
            self._discard_worker(DRILL_GROUP)
        if reply.get("ok") is not True:
            if reply.get("kind") == "exit_status":
                code = reply.get("code")
                raise StudentException(
                    f"{what} exited with status {code if isinstance(code, int) else '?'}"
                )
            raise _reply_error(reply, "running drill/experiment.py")
        results = reply.get("results")
        size = reply.get("size")
        if isinstance(results, str) and len(results) <= max_bytes:
            return results
        if isinstance(size, int) and size > max_bytes:
            raise StudentException(
                f"{what} wrote a drill/results.json of more than {max_bytes:,} bytes, the most "
                "the grader reads"
            )
        return None


DRILL_GROUP = "__drill__"
