"""The public suite's `reference`: answers pinned in ``grader/suites/public/expected.json``.

The public self-check must run where the reference solutions are not (the student handout),
so its reference answers are recorded once from `solutions/` and looked up at run time by a
digest of the question (module, function, every argument's content). Public tests keep
calling ``reference.losses.causal_lm_loss(logits, ids)`` as before; the instructor's
``grader check`` and the handout's read the same file, and a project test keeps it equal to
what `solutions/` answers today::

    python scripts/pin_public.py            # rewrite the pinned file after changing solutions/
    python scripts/pin_public.py --check    # exit 1 when it is stale

A question that was not recorded (a public test changed since) is a grader error, never a
silent pass. Only plain calls are pinned: `model_forward` and arguments the reference memo
cannot key (see `grader.suite.proxy`) are refused.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import torch

from grader import values
from grader.errors import InternalError
from grader.resources import data_path
from grader.sandbox.client import CallResult
from grader.sandbox.invoke import Effects
from grader.suite.proxy import ReferenceProxy, _Side
from grader.suite.refmemo import arguments_digest
from grader.values import Undigestable, arg_paths

PINNED_PATH = data_path("grader", "suites", "public", "expected.json")
FORMAT = "public-expected/1"
REGENERATE = "python scripts/pin_public.py"


def call_digest(
    module: str,
    function: str,
    args: Sequence[Any],
    kwargs: Mapping[str, Any],
    grad_wrt: Sequence[int],
    grad_output: Any,
) -> str:
    """A stable digest of one reference question (the same in every process and platform)."""
    try:
        key = values.digest(module, function, tuple(grad_wrt),
                            arguments_digest(args, kwargs, grad_output))  # fmt: skip
    except Undigestable:
        raise InternalError(
            f"a public test asks reference.{module}.{function} with an argument that cannot be "
            "pinned (only tensors, numbers, strings, containers of those and generators)"
        ) from None
    return key.hex()


def encode(x: Any) -> Any:
    """A reference answer as JSON: tensors as dtype/shape/data, tuples and dicts tagged."""
    if isinstance(x, torch.Tensor):
        t = x.detach()
        return {"tensor": str(t.dtype).removeprefix("torch."), "shape": list(t.shape),
                "data": t.reshape(-1).tolist()}  # fmt: skip
    if isinstance(x, tuple):
        return {"tuple": [encode(v) for v in x]}
    if isinstance(x, list):
        return [encode(v) for v in x]
    if isinstance(x, dict):
        return {"dict": [[encode(k), encode(v)] for k, v in x.items()]}
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    raise InternalError(f"a reference answer of type {type(x).__name__} cannot be pinned")


def decode(x: Any) -> Any:
    """The inverse of `encode` (fresh tensors every time)."""
    if isinstance(x, list):
        return [decode(v) for v in x]
    if isinstance(x, dict):
        if "tensor" in x:
            dtype = getattr(torch, x["tensor"])
            return torch.tensor(x["data"], dtype=dtype).reshape(x["shape"])
        if "tuple" in x:
            return tuple(decode(v) for v in x["tuple"])
        return {decode(k): decode(v) for k, v in x["dict"]}
    return x


def _effects(d: dict[str, Any]) -> Effects:
    return Effects(
        mutated_args=tuple(d["mutated_args"]),
        global_rng_changed=d["global_rng_changed"],
        model_modes=dict(d["model_modes"]),
        result_requires_grad=d["result_requires_grad"],
        model_forward_with_grad=dict(d["model_forward_with_grad"]),
        result_aliases=tuple(d["result_aliases"]),
        model_forward_dropout=dict(d.get("model_forward_dropout", {})),
    )


@cache
def _load(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InternalError(f"the public tests' expected values could not be read: {exc}") from None
    if data.get("format") != FORMAT:
        raise InternalError(f"{path.name} is not a {FORMAT} file")
    return data["calls"]


class PinnedReference(_Side):
    """Answers the public tests' reference questions from the pinned file (no solutions)."""

    def __init__(self, path: Path = PINNED_PATH) -> None:
        self.path = path

    def _call(self, module, function, args, kwargs, *, grad_wrt=(), grad_output=None) -> CallResult:
        digest = call_digest(module, function, args, kwargs, grad_wrt, grad_output)
        entry = _load(self.path).get(digest)
        if entry is None:
            raise InternalError(
                f"reference.{module}.{function} was asked a question that is not pinned in "
                f"{self.path.name}: the public tests changed since it was made ({REGENERATE})"
            )
        for path, state in entry["generators"].items():
            target = dict(arg_paths(args, kwargs)).get(path)
            if isinstance(target, torch.Generator):
                target.set_state(decode(state))
        res = CallResult(
            value=decode(entry["value"]),
            grads=tuple(decode(entry["grads"])),
            effects=_effects(entry["effects"]),
        )
        self.last_effects = res.effects
        return res

    def model_forward(self, *args: Any, **kwargs: Any) -> Any:
        raise InternalError("public tests cannot use reference.model_forward (it is not pinned)")


class RecordingReference(_Side):
    """The real reference, recording every answer for the pinned file."""

    def __init__(self) -> None:
        self.inner = ReferenceProxy(memo=False)
        self.calls: dict[str, Any] = {}

    def _call(self, module, function, args, kwargs, *, grad_wrt=(), grad_output=None) -> CallResult:
        digest = call_digest(module, function, args, kwargs, grad_wrt, grad_output)
        res = self.inner._call(module, function, args, kwargs, grad_wrt=grad_wrt,
                               grad_output=grad_output)  # fmt: skip
        self.calls[digest] = {
            "call": f"{module}.{function}",
            "value": encode(res.value),
            "grads": encode(list(res.grads)),
            "effects": res.effects.to_dict(),
            "generators": {
                p: encode(g.get_state())
                for p, g in arg_paths(args, kwargs)
                if isinstance(g, torch.Generator)
            },  # fmt: skip
        }
        self.last_effects = res.effects
        return res

    def model_forward(self, *args: Any, **kwargs: Any) -> Any:
        raise InternalError("public tests cannot use reference.model_forward (it is not pinned)")


def record_public_expected() -> dict[str, Any]:
    """Run the public suite with `solutions/` on both sides and return the pinned file's data.

    Raises InternalError when a public test fails on the reference itself.
    """
    from grader.suite.runner import run_suite

    recorder = RecordingReference()
    run = run_suite("public", ReferenceProxy(memo=False), recorder)
    bad = [f"{r.id}: {r.status} {r.message}" for r in run.results if r.status != "passed"]
    if bad or run.internal_errors or not run.results:
        raise InternalError("the public tests do not pass on solutions/: " + "; ".join(
            bad + list(run.internal_errors) or ["no tests ran"]))  # fmt: skip
    return {"format": FORMAT, "regenerate": REGENERATE, "calls": recorder.calls}


def render_expected(data: dict[str, Any]) -> str:
    """The pinned file's exact text (stable order, floats at round-trip precision)."""
    return json.dumps(data, indent=1, sort_keys=True) + "\n"
