"""Assertions for hidden tests that fail with a message a student can act on.

Order of checks, as in PrairieLearn's `code_feedback`: the value is a tensor -> its shape ->
its dtype -> finiteness -> values. The first failing check stops, with expected vs got (small
tensors shown in full) and, where the test knows one, the misconception it points to.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import torch

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
# A failure message quotes student values; however it was built, a report carries at most
# this much of it (the values that matter come first).
MAX_MESSAGE_CHARS = 4000


class GradeFailure(AssertionError):
    """A failed check: `message` is for the student, `diagnoses` are misconception ids.

    ``evidence`` is what the diagnosis behind those ids rests on (the models it evaluated,
    `grader.diagnosis.evidence.Evidence`); it travels with the failure to the plugin, which
    prunes diagnoses the rest of the submission refutes. The catalogue's explanation and hint
    are not part of `message`: a renderer adds them once, from the ids."""

    def __init__(self, message: str, diagnoses: Sequence[str] = (), subject: Any = None,
                 evidence: Any = None) -> None:  # fmt: skip
        if len(message) > MAX_MESSAGE_CHARS:
            message = message[: MAX_MESSAGE_CHARS - 20] + " ... (message cut)"
        super().__init__(message)
        self.message = message
        self.diagnoses = tuple(diagnoses)
        self.subject = subject  # the student value the check looked at (names its call)
        self.evidence = evidence if evidence is not None else getattr(diagnoses, "evidence", None)

    def naming(self, call: str) -> str:
        """The message with `call` (which call of the student's code this was) after its
        first line, so settings such as ``temperature=0.0`` are visible."""
        if not call:
            return self.message
        head, sep, rest = self.message.partition("\n")
        return f"{head}\n  ({call}){sep}{rest}"


def fail(message: str, diagnoses: Iterable[str] = (), *, subject: Any = None) -> None:
    """Fail the current test with a student-facing message and optional misconception ids.

    ``diagnoses``: ids, or what `grader.diagnosis.variants.matching` returned (its evidence
    goes with the failure). A renderer shows each id's catalogue explanation and hint.
    `subject`: the student value that failed; the report names the call that returned it.
    """
    ids = tuple(dict.fromkeys(diagnoses))
    raise GradeFailure(message, ids, subject, getattr(diagnoses, "evidence", None))


class Collector:
    """The `with check:` blocks of one `collecting()`: a block that fails is remembered and the
    next one still runs, so one failing check does not hide an independent one."""

    def __init__(self) -> None:
        self.failures: list[GradeFailure] = []

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, exc: BaseException | None, tb: Any) -> bool:
        if isinstance(exc, GradeFailure):
            self.failures.append(exc)
            return True
        return False  # a StudentError or a grader error ends the test as itself


@contextmanager
def collecting() -> Iterator[Collector]:
    """Run independent checks to the end and fail once with all their failures::

        with collecting() as check:
            for name in ("greedy_generate", "sample_generate"):
                with check:
                    check_effects(..., what=name)

    The failure's message lists each one (first line first), its diagnoses are the union, its
    subject the first failure's, its evidence merged."""
    collector = Collector()
    yield collector
    failures = collector.failures
    if len(failures) == 1:
        raise failures[0]
    if failures:
        from grader.diagnosis.evidence import merged

        message = "\n".join(f.message for f in failures)
        ids = tuple(dict.fromkeys(d for f in failures for d in f.diagnoses))
        raise GradeFailure(message, ids, failures[0].subject, merged(f.evidence for f in failures))


def check_raises(call: Callable[[], Any], exception: str, *, what: str) -> None:
    """Fail unless ``call()`` (one call of the student's code) raises the built-in
    ``exception`` (e.g. "ValueError") or a subclass of it, as the contract documents.

    Returning a value is a failure. Another exception is an error, as in every other test,
    with a message that names the documented one. A stub's NotImplementedError, a timeout, a
    crash or a module that fails to import propagate unchanged."""
    from grader.sandbox.client import StudentError, StudentException

    try:
        result = call()
    except StudentException as exc:  # the sandbox's report of what the student's code raised
        if exc.at_import or not exc.exc_type:
            raise
        if exc.raised(exception):
            return
        raise StudentException(
            f"{what} must raise {exception} (the contract says so); your code raised "
            f"{exc.exc_type} instead:\n{exc.message}",
            exc_type=exc.exc_type,
            exc_bases=exc.exc_bases,
        ) from None
    except StudentError:
        raise
    except Exception as exc:  # an in-process proxy (the reference, benchmarks) raises it as is
        if any(c.__name__ == exception for c in type(exc).__mro__):
            return
        raise
    fail(
        f"{what} must raise {exception} (the contract says so); your code accepted it and "
        f"returned {show(result)}"
    )


def check_broadcasts(t: torch.Tensor, shape: tuple[int, ...], *, what: str) -> torch.Tensor:
    """``t`` broadcast to ``shape``, failing unless it broadcasts without new dimensions
    (at most ``len(shape)`` dimensions, each of size 1 or the target's).

    Student tensors are checked this way before trusted code (the reference, a variant)
    combines them with its own: broadcasting alone could otherwise turn a small reply into
    a huge trusted-side computation, or raise a bare RuntimeError."""
    ok = t.dim() <= len(shape) and all(
        n in (1, want) for n, want in zip(reversed(t.shape), reversed(shape), strict=False)
    )
    if not ok:
        fail(f"{what} returned shape {tuple(t.shape)}, which does not broadcast to "
             f"{tuple(shape)}")  # fmt: skip
    return torch.broadcast_to(t, shape)


def show(t: Any, limit: int = 64) -> str:
    """A tensor as text: in full when small, else shape, dtype and a few statistics."""
    if not isinstance(t, torch.Tensor):
        text = repr(t)
        # "<torch._C.Generator object at 0x7f...>": the address says nothing to a student
        return _ADDRESS.sub("", text[:300])
    if t.numel() == 0:  # tolist() of a (10^6, 10^6, 0) tensor would build 10^12 lists
        return f"an empty tensor of shape {tuple(t.shape)}, {str(t.dtype).removeprefix('torch.')}"
    if t.numel() <= limit:
        body = repr(t.detach().cpu().tolist())
        return f"{body} (shape {tuple(t.shape)}, {str(t.dtype).removeprefix('torch.')})"
    ft = t.detach().float()
    return (
        f"tensor of shape {tuple(t.shape)}, {str(t.dtype).removeprefix('torch.')}, "
        f"min {ft.min().item():.4g}, max {ft.max().item():.4g}"
    )


def check_tensor(
    got: Any,
    *,
    what: str,
    shape: Sequence[int] | None = None,
    dtype: torch.dtype | Sequence[torch.dtype] | None = None,
    finite: bool = False,
    dim: int | None = None,
) -> torch.Tensor:
    """Fail unless `got` is a tensor with the given shape / number of dimensions / dtype (and
    finite values). Every student value a hidden test reads goes through this (or
    `check_tuple`) first, so an odd return is the student's failed test, never a grader error.
    """
    if not isinstance(got, torch.Tensor):
        kind = type(got).__name__
        fail(f"{what} should return a torch.Tensor, but returned {kind}: {show(got)}", subject=got)
    if shape is not None and tuple(got.shape) != tuple(shape):
        fail(f"{what} returned shape {tuple(got.shape)}; expected {tuple(shape)}", subject=got)
    if dim is not None and got.dim() != dim:
        fail(f"{what} must return a {dim}-D tensor, got shape {tuple(got.shape)}", subject=got)
    if dtype is not None:
        allowed = (dtype,) if isinstance(dtype, torch.dtype) else tuple(dtype)
        if got.dtype not in allowed:
            names = " or ".join(str(d).removeprefix("torch.") for d in allowed)
            have = str(got.dtype).removeprefix("torch.")
            fail(f"{what} returned dtype {have}; expected {names}", subject=got)
    if finite and got.is_floating_point() and not torch.isfinite(got).all():
        bad = (~torch.isfinite(got)).nonzero()[0].tolist()
        fail(f"{what} contains NaN or inf (first at index {bad}): {show(got)}", subject=got)
    return got


def check_tuple(got: Any, length: int, *, what: str, names: str = "") -> tuple[Any, ...]:
    """``got`` as a tuple, failing unless it is a tuple or list of exactly ``length`` items
    (``names``: how the contract calls them, e.g. "(output, weights)"). The items still need
    their own `check_tensor`."""
    if not isinstance(got, (tuple, list)) or len(got) != length:
        kind = f"a {length}-tuple {names}".rstrip() if length != 2 else f"a pair {names}".rstrip()
        fail(f"{what} must return {kind}, got {type(got).__name__}: {show(got)}")
    return tuple(got)


def assert_close(
    got: Any,
    want: torch.Tensor,
    *,
    what: str,
    rtol: float = 1e-5,
    atol: float = 1e-6,
    check_dtype: bool = True,
    diagnoses: Iterable[str] = (),
    hint: str = "",
    reveal: bool = True,
) -> None:
    """Fail unless `got` matches `want` in shape, dtype (optionally) and value.

    ``reveal=False`` for a pinned case (fixed inputs, `grader.suite.cases`): the message says
    where the value is wrong and what came back, never the expected value."""
    check_tensor(got, what=what, shape=tuple(want.shape), dtype=want.dtype if check_dtype else None)
    if got.dtype == want.dtype and torch.equal(got, want):
        return  # bit-for-bit equal (never the case with a NaN): close under any tolerance
    g, w = got.detach().double(), want.detach().double()
    if want.dtype == torch.bool or not want.is_floating_point():
        bad = g != w
    else:
        both_nan = torch.isnan(g) & torch.isnan(w)
        bad = ~(torch.isclose(g, w, rtol=rtol, atol=atol) | both_nan)
    if bad.any():
        idx = tuple(bad.nonzero()[0].tolist())
        if not reveal:
            msg = _concealed(what, got, g, idx, bad)
        elif want.dim() == 0:
            ws, gs = _shown(w.item(), g.item(), want.dtype)
            msg = f"{what} is wrong: expected {ws}, got {gs}."
        else:
            ws, gs = _shown(w[idx].item(), g[idx].item(), want.dtype)
            msg = (
                f"{what} is wrong: at index {list(idx)} expected {ws}, "
                f"got {gs} ({int(bad.sum())} of {bad.numel()} values differ)."
            )
        if reveal and want.is_floating_point():
            msg += _differences(g, w, bad, rtol, atol)
        if reveal and 1 < want.numel() <= 64:
            msg += f"\n  expected: {show(want)}\n  got:      {show(got)}"
        if hint:
            msg += f"\n  {hint}"
        fail(msg, diagnoses, subject=got)


def _shown(want: float, got: float, dtype: torch.dtype) -> tuple[str, str]:
    """Two differing values as the student's tensor holds them: True/False for a bool mask
    (not the 1/0 of the float64 copy compared), else `distinct`."""
    if dtype == torch.bool:
        return str(bool(want)), str(bool(got))
    return distinct(want, got)


def distinct(a: float, b: float) -> tuple[str, str]:
    """``a`` and ``b`` with 6 significant digits, or as many more as it takes for different
    values never to print alike (3.02892 vs 3.02892 becomes 3.028920 vs 3.028921)."""
    sa, sb = f"{a:.6g}", f"{b:.6g}"
    if sa != sb or a == b or (math.isnan(a) and math.isnan(b)):
        return sa, sb
    for digits in range(7, 18):  # '#' keeps trailing zeros: both show the same digit count
        sa, sb = f"{a:#.{digits}g}", f"{b:#.{digits}g}"
        if sa != sb:
            return sa, sb
    return repr(a), repr(b)


def _differences(g: torch.Tensor, w: torch.Tensor, bad: torch.Tensor, rtol: float,
                 atol: float) -> str:  # fmt: skip
    """Max abs / rel difference over the finite pairs, and the tolerance used."""
    finite = torch.isfinite(g) & torch.isfinite(w)
    nonfinite = bad & ~finite
    if not bool((bad & finite).any()):  # only NaN/inf differ: a finite difference says nothing
        return (
            f"\n  {int(nonfinite.sum())} value(s) differ by being NaN/inf where the other is "
            f"not (tolerance: rtol={rtol:g}, atol={atol:g})"
        )
    diff = (g - w).abs()[finite]
    scale = w.abs()[finite]
    nonzero = scale > 0  # a relative difference to an expected 0 means nothing
    rel = (f", max rel diff {(diff[nonzero] / scale[nonzero]).max().item():.3g}"
           if bool(nonzero.any()) else "")  # fmt: skip
    text = (f"\n  max abs diff {diff.max().item():.3g}{rel}; tolerance: |got - expected| <= "
            f"atol + rtol * |expected| with rtol={rtol:g}, atol={atol:g}")  # fmt: skip
    if bool(nonfinite.any()):
        text += f" ({int(nonfinite.sum())} more differ by being NaN/inf)"
    return text


def _concealed(what: str, got: torch.Tensor, g: torch.Tensor, idx: tuple, bad: torch.Tensor) -> str:
    """A wrong value of a pinned case, without the expected one."""
    if g.dim() == 0:
        return f"{what} is wrong: got {g.item():.6g} (a fixed case: its value is not shown)."
    return (
        f"{what} is wrong at index {list(idx)} ({int(bad.sum())} of {bad.numel()} values "
        f"differ; a fixed case: the expected values are not shown).\n  got: {show(got)}"
    )


def assert_equal(got: Any, want: Any, *, what: str, diagnoses: Iterable[str] = ()) -> None:
    """Exact equality for tensors (shape, dtype, values) or plain values."""
    if isinstance(want, torch.Tensor):
        assert_close(got, want, what=what, rtol=0, atol=0, diagnoses=diagnoses)
    elif got != want:
        fail(f"{what}: expected {show(want)}, got {show(got)}", diagnoses, subject=got)


# ----------------------------------------------------------------------------- added helpers


def check_close(
    got: Any,
    want: torch.Tensor,
    *,
    what: str,
    rtol: float = 1e-5,
    atol: float = 1e-6,
    check_dtype: bool = True,
    diagnose: Callable[[], Iterable[str]] | None = None,
    hint: str = "",
    reveal: bool = True,
) -> None:
    """`assert_close`, but misconception ids are computed only on failure by ``diagnose()``.

    Use it with `grader.diagnosis.variants.matching` to name the known mistake whose output
    equals what came back. When the check passes, ``diagnose`` is kept for later
    (`grader.diagnosis.evidence.defer`): a model that differs here would have failed it.
    """
    try:
        assert_close(got, want, what=what, rtol=rtol, atol=atol, check_dtype=check_dtype,
                     hint=hint, reveal=reveal)  # fmt: skip
    except GradeFailure as exc:
        ids: Iterable[str] = ()
        if diagnose is not None:
            try:
                ids = diagnose()
            except Exception:  # noqa: BLE001 - diagnosis is best effort, the failure stands
                ids = ()
        fail(exc.message, ids, subject=exc.subject)
    if diagnose is not None:
        from grader.diagnosis import evidence

        evidence.defer(diagnose)


def check_effects(
    effects: Any,
    *,
    what: str,
    mutation: bool = True,
    rng: bool = True,
    subject: Any = None,
    aliasing: bool = True,
) -> None:
    """Fail if the last call changed an input in place, returned (a view of) an input where
    the contract asks for a new tensor, or used the global RNG. `mutation=False` skips both
    input clauses; `aliasing=False` only the second, for a function whose contract allows a
    view of its input (``padding_mask``). `subject`: what that call returned, so the message
    names that call even when later calls of the same test follow (in a `collecting()` block
    the test's latest call may be another one)."""
    if effects is None:
        return
    with collecting() as check:  # each effect is its own finding: one does not hide another
        if mutation and effects.mutated_args:
            with check:
                fail(f"{what} modified its input(s) {', '.join(effects.mutated_args)} in place; "
                     "inputs must be left untouched.", ["in_place_edit"],
                     subject=subject)  # fmt: skip
        if mutation and aliasing and getattr(effects, "result_aliases", ()):
            with check:
                fail(f"{what} returned its input {', '.join(effects.result_aliases)} itself (or a "
                     "view of it): every output must be a new tensor, or editing the result "
                     "edits the caller's data.", ["result_aliases_input"],
                     subject=subject)  # fmt: skip
        if rng and effects.global_rng_changed:
            with check:
                fail(
                    f"{what} changed torch's global random state.", ["global_rng"], subject=subject
                )


def _log_binom_pmf(n: int, p: float) -> torch.Tensor:
    k = torch.arange(n + 1, dtype=torch.float64)
    lg = torch.lgamma
    n_t = torch.tensor(float(n), dtype=torch.float64)
    return (lg(n_t + 1) - lg(k + 1) - lg(n_t - k + 1)
            + k * math.log(p) + (n_t - k) * math.log1p(-p))  # fmt: skip


@functools.lru_cache(maxsize=4096)  # the same (n, p, alpha) recurs for every correct submission
def binomial_band(n: int, p: float, alpha: float) -> tuple[int, int]:
    """Exact acceptance band [lo, hi] for X ~ Binomial(n, p): P(X < lo) + P(X > hi) <= alpha.

    Each tail gets at most alpha / 2, computed from the exact pmf (log-gamma, float64).
    """
    if p <= 0.0:
        return 0, 0
    if p >= 1.0:
        return n, n
    pmf = _log_binom_pmf(n, p).exp()
    cdf = pmf.cumsum(0)
    sf = pmf.flip(0).cumsum(0).flip(0)  # P(X >= k)
    lo = int((cdf <= alpha / 2).sum().item())  # P(X <= lo - 1) <= alpha / 2
    hi = n - int((sf <= alpha / 2).sum().item())  # P(X >= hi + 1) <= alpha / 2
    return lo, hi


@functools.lru_cache(maxsize=64)  # one tuple of chances per constant batch
def poisson_binomial_upper(chances: tuple[float, ...], alpha: float) -> int:
    """The smallest h with P(X > h) <= alpha, for X the number of successes among independent
    trials with these success chances (exact: the distribution is built trial by trial)."""
    pmf = torch.zeros(len(chances) + 1, dtype=torch.float64)
    pmf[0] = 1.0
    for q in chances:
        pmf[1:] = pmf[1:] * (1 - q) + pmf[:-1] * q
        pmf[0] = pmf[0] * (1 - q)
    tail = pmf.flip(0).cumsum(0).flip(0)  # P(X >= k)
    for h in range(len(chances) + 1):
        if h + 1 > len(chances) or float(tail[h + 1]) <= alpha:
            return h
    return len(chances)


def check_proportion(
    count: int,
    n: int,
    p: float,
    *,
    what: str,
    alpha: float,
    diagnoses: Iterable[str] = (),
    detail: str = "",
) -> None:
    """Fail unless ``count`` successes out of ``n`` are within the exact binomial band of p."""
    lo, hi = binomial_band(n, p, alpha)
    if not lo <= count <= hi:
        frac = count / n if n else float("nan")
        fail(
            f"{what}: expected a fraction of about {p:.4f} (accepted {lo / n:.4f} to {hi / n:.4f}, "
            f"i.e. {lo}..{hi} of {n}), got {frac:.4f} ({count} of {n}). The band is wide enough "
            f"that a correct implementation fails with probability below {alpha:.0e}.{detail}",
            diagnoses,
        )
