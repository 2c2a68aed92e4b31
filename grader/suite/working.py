"""Property points are paid only to a working function.

A property test (no future leak, no padding leak, no input mutation, only the generator's
randomness, a zero loss when nothing counts, a ~0 gap for a causal model, the documented
errors ...) checks something a vacuous answer satisfies too: a mask that hides everything
never leaks, a stub that always raises ValueError raises the documented error, a constant
zero is the right gap of a causal model. So before a property test reads a function, it asks
`require_working(student, reference, "part.function")`.

A function *works* when, on a few valid probe inputs (fixed, small, built here), its output

1. has the reference's structure (a tensor, or a tuple of tensors of the same length),
2. is not the same for two probes whose reference outputs differ (a constant),
3. is not one of its own input tensors where the reference's is not (an identity),
4. is not one value everywhere where the reference's output holds several (all False, all
   True, all zeros ...).

Where the reference's answer is a float, "the same" and "one value" are judged against it,
not exactly: outputs that differ by less than a thousandth of what the reference's answers
differ by are the same, and values that all lie within a thousandth of the reference's spread
are one value. A vacuous answer nudged by a hair (a zero loss plus 1e-12 x a logit, a gap of
zeros with one 1e-9) passed the exact checks and kept every property point the vacuous
answer loses. Bools and integers are compared exactly: a mask that is wrong in a structured
way (only the diagonal, a flipped padding polarity) is a wrong answer that works.

It need not be *right* on the probes: a mask with the diagonal excluded, a loss that forgot
the shift, a sampler that takes the argmax all work. The verdict is computed once per
function per submission (`StudentProxy.once`) and reused by every test that asks; a stub's
NotImplementedError, a timeout or a crash propagate as themselves. Probe inputs are fixed:
the failure message says why the function does not work, never what the reference returned.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext
from typing import Any

import torch

from grader.suite.checks import check_tensor, check_tuple, fail

Probe = tuple[tuple[Any, ...], dict[str, Any]]


def _gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _randn(*shape: int, seed: int, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    return torch.randn(*shape, generator=_gen(seed), dtype=dtype)


def _padded(lengths: list[int], seq_len: int) -> torch.Tensor:
    return (torch.arange(seq_len)[None, :] < torch.tensor(lengths)[:, None]).long()


def _model(name: str) -> Any:
    from grader.trusted_tinylm import shared_standard_model

    return shared_standard_model(name)


_SPECIALS = [0, 1, 2, 3]  # pad, cls, sep, mask
_CORRUPT = {"mask_token_id": 3, "vocab_size": 20, "special_token_ids": _SPECIALS,
            "mlm_probability": 0.5}  # fmt: skip


def _ids(seed: int) -> torch.Tensor:
    ids = 4 + torch.randint(16, (4, 24), generator=_gen(seed))
    ids[:, 0], ids[:, -1] = 1, 2
    return ids


def _mask_tokens_probe(seed: int) -> Probe:
    return (_ids(seed),), {**_CORRUPT, "generator": _gen(seed + 1)}


def _causal_loss_probe(seed: int) -> Probe:
    g = _gen(seed)
    logits = torch.randn(2, 5, 7, generator=g, dtype=torch.float64) * 2
    return (logits, torch.randint(7, (2, 5), generator=g), _padded([5, 3], 5)), {}


def _masked_loss_probe(seed: int) -> Probe:
    g = _gen(seed)
    logits = torch.randn(2, 5, 7, generator=g, dtype=torch.float64) * 2
    labels = torch.where(torch.rand(2, 5, generator=g) < 0.5, torch.randint(7, (2, 5),
                         generator=g), -100)  # fmt: skip
    labels[0, 0] = 3
    return (logits, labels), {}


def _sampler_probe(seed: int) -> Probe:
    logits = _randn(32, 6, seed=seed, dtype=torch.float32) * 2
    return (logits,), {"temperature": 1.0, "generator": _gen(seed + 1)}


def _attention_probe(seed: int) -> Probe:
    q, k, v = (_randn(2, 2, 4, 3, seed=seed + i) for i in range(3))
    return (q, k, v, torch.ones(4, 4, dtype=torch.bool).tril()), {}


# function -> builders of its probe inputs (fresh tensors and generators on every call)
PROBES: dict[str, tuple[Callable[[], Probe], ...]] = {
    "masks.causal_mask": (lambda: ((4,), {}), lambda: ((3, 5), {})),
    "masks.padding_mask": (
        lambda: ((_padded([4, 2], 4),), {}),
        lambda: ((_padded([1, 3], 4),), {}),
    ),  # fmt: skip
    "masks.build_attention_mask": (
        lambda: ((_padded([4, 2], 4), 4, True), {}),
        lambda: ((_padded([3, 4], 4), 4, False), {}),
    ),  # fmt: skip
    "masks.masked_attention": (lambda: _attention_probe(1), lambda: _attention_probe(5)),
    "corruption.mask_tokens": (lambda: _mask_tokens_probe(1), lambda: _mask_tokens_probe(7)),
    "losses.causal_lm_loss": (lambda: _causal_loss_probe(1), lambda: _causal_loss_probe(2)),
    "losses.masked_lm_loss": (lambda: _masked_loss_probe(1), lambda: _masked_loss_probe(2)),
    "generation.greedy_generate": (
        lambda: ((_model("causal"), torch.tensor([[5, 9, 2]]), 2), {}),
        lambda: ((_model("causal"), torch.tensor([[11, 0, 7], [3, 17, 8]]), 2), {}),
    ),
    "generation.sample_generate": (
        lambda: ((_model("causal"), torch.tensor([[5, 9, 2]]), 3), {"generator": _gen(1)}),
        lambda: ((_model("causal"), torch.tensor([[11, 0, 7]]), 3), {"generator": _gen(2)}),
    ),
    "generation.sample_next_token": (lambda: _sampler_probe(1), lambda: _sampler_probe(3)),
    "generation.prefix_consistency_gap": (
        lambda: ((_model("bidirectional"), torch.tensor([[5, 9, 2, 20, 13, 1]])), {}),
        lambda: ((_model("bidirectional"), torch.tensor([[11, 0, 7, 14, 3, 8]])), {}),
    ),
}


def _call(side: Any, function: str, probe: Probe) -> Any:
    module, name = function.split(".")
    args, kwargs = probe
    return getattr(getattr(side, module), name)(*args, **kwargs)


def _components(got: Any, want: Any, what: str) -> tuple[torch.Tensor, ...]:
    """The student's output as tensors, shaped like the reference's (tensor or tuple)."""
    if isinstance(want, tuple):
        items = check_tuple(got, len(want), what=what)
        return tuple(check_tensor(x, what=f"{what} (item {i})") for i, x in enumerate(items))
    return (check_tensor(got, what=what),)


def _same(a: torch.Tensor, b: torch.Tensor) -> bool:
    if tuple(a.shape) != tuple(b.shape):
        return False
    if a.dtype == torch.bool or b.dtype == torch.bool:
        return torch.equal(a.bool(), b.bool()) if a.dtype == b.dtype else False
    return torch.equal(a.double(), b.double())


NEAR = 1e-3  # a float difference under this share of the reference's is no difference


def _one_value(t: torch.Tensor) -> bool:
    return t.numel() > 1 and bool((t == t.reshape(-1)[0]).all())


def _several(t: torch.Tensor) -> bool:
    return t.numel() > 1 and not _one_value(t)


def _floating(t: torch.Tensor) -> bool:
    return t.is_floating_point() or t.is_complex()


def _spread(t: torch.Tensor) -> float:
    x = t.reshape(-1).double()
    x = x[x.isfinite()]
    return float(x.max() - x.min()) if x.numel() else 0.0


def _nearly_one_value(student: torch.Tensor, reference: torch.Tensor) -> bool:
    """`student` is one value where `reference` holds several; for a float reference, all of
    `student`'s entries lie within `NEAR` of the reference's spread of each other."""
    if not _several(reference):
        return False
    if _one_value(student) or not _floating(reference) or student.numel() <= 1:
        return _one_value(student)
    x = student.reshape(-1).double()
    return bool(x.isfinite().all()) and _spread(x) <= NEAR * _spread(reference)


def _nearly_same(a: torch.Tensor, b: torch.Tensor, ra: torch.Tensor, rb: torch.Tensor) -> bool:
    """`a` and `b` (the student's) are the same: exactly, or, where `ra` and `rb` (the
    reference's answers to the same inputs) are floats of the same shape, by less than
    `NEAR` of how much those differ."""
    if _same(a, b):
        return True
    if len({tuple(t.shape) for t in (a, b, ra, rb)}) > 1 or not _floating(ra):
        return False
    gap = (a.double() - b.double()).abs().max()
    return bool(gap.isfinite()) and float(gap) <= NEAR * float(
        (ra.double() - rb.double()).abs().max()
    )


def _inputs(probe: Probe) -> list[torch.Tensor]:
    args, kwargs = probe
    return [x for x in (*args, *kwargs.values()) if isinstance(x, torch.Tensor)]


def _reference_answers(reference: Any, function: str) -> tuple[Any, ...]:
    """The reference's outputs on the probes of `function`. The probes are fixed, so a
    reference that keeps `working_answers` (a `ReferenceProxy`, one per `Grader`) computes
    them once and every later submission reads them (the verdict never changes them); calls
    with side effects beyond their result are never kept."""
    kept = getattr(reference, "working_answers", None)
    if kept is not None and function in kept:
        return kept[function]
    answers, pure = [], True
    for build in PROBES[function]:
        answers.append(_call(reference, function, build()))
        effects = getattr(reference, "last_effects", None)
        pure = pure and effects is not None and not effects.mutated_args
        pure = pure and not effects.global_rng_changed
    if kept is not None and pure:
        kept[function] = tuple(answers)
    return tuple(answers)


def _verdict(student: Any, reference: Any, function: str) -> None:
    what = f"{function.split('.')[1]} on a valid input"
    got, want = [], []
    for build, r in zip(PROBES[function], _reference_answers(reference, function), strict=True):
        probe = build()
        inputs = [x.clone() for x in _inputs(probe)]
        s = _call(student, function, probe)
        r_parts = r if isinstance(r, tuple) else (r,)
        s_parts = _components(s, r, what)
        for i, (sp, rp) in enumerate(zip(s_parts, r_parts, strict=True)):
            if _nearly_one_value(sp, rp):
                exact = _one_value(sp)
                value = (sp.reshape(-1)[0] if exact else sp.double().reshape(-1).median()).item()
                kind = {True: "all True", False: "all False"}.get(value, f"{value:g} everywhere")
                _not_working(function, f"it returned {kind if exact else 'almost ' + kind}"
                             + _item(r, i))  # fmt: skip
            for x in inputs:
                if _nearly_same(sp, x, rp, x) and not _same(rp, x):
                    what = "unchanged" if _same(sp, x) else "almost unchanged"
                    _not_working(function, f"it returned its input {what}" + _item(r, i))
        got.append(s_parts)
        want.append(r_parts)
    for i in range(len(want)):
        for j in range(i + 1, len(want)):
            for c, (ri, rj) in enumerate(zip(want[i], want[j], strict=True)):
                if not _same(ri, rj) and _nearly_same(got[i][c], got[j][c], ri, rj):
                    where = _item(want[i], c, tuple_of=len(want[i]) > 1)
                    _not_working(function, f"it returned one value for two inputs{where}")


def _item(r: Any, i: int, *, tuple_of: bool | None = None) -> str:
    many = isinstance(r, tuple) if tuple_of is None else tuple_of
    return f" (item {i} of its result)" if many else ""


def _not_working(function: str, why: str) -> None:
    name = function.split(".")[1]
    fail(f"{name} does not work yet: on a few valid inputs {why}, so it cannot earn the points "
         "of this property (a function must first compute something from its input; it "
         "need not be right everywhere).")  # fmt: skip


def require_working(student: Any, reference: Any, *functions: str) -> None:
    """Fail the current test unless every one of `functions` ("masks.causal_mask", ...) works
    (see the module docstring). Call it before the test's own calls of the student."""
    for function in functions:
        if function not in PROBES:
            raise KeyError(f"no working probes for {function}")
        once = getattr(student, "once", None)
        quiet = getattr(student, "uncounted", nullcontext)
        with quiet():  # the probes are not the calls the test is about
            if once is None:  # an object without the per-submission cache: check every time
                _verdict(student, reference, function)
            else:
                once(("working", function), lambda f=function: _verdict(student, reference, f))
