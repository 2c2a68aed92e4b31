"""Hidden tests, Part C: `causal_lm_loss` and `masked_lm_loss`. 25 points.

Golden values (grader/suites/golden.json, inputs rebuilt from closed-form formulas by
grader/suites/golden_inputs.py) pin the value in float64; "oracle" logits make each known
mistake cost ~10 per wrongly counted token, so the value itself names it. Comparisons with the
reference over several seeds, shapes, padding patterns and dtypes (float64, float32, float16,
bfloat16) give partial credit per dtype; gradients are compared through `.backward`, and the
empty and large-logit edge cases are checked separately.
"""

from __future__ import annotations

import json

import pytest
import torch

from grader.diagnosis.variants import matching
from grader.sandbox.client import StudentException
from grader.suite.checks import (
    check_close,
    check_effects,
    check_raises,
    check_tensor,
    collecting,
    distinct,
    fail,
)
from grader.suite.working import require_working
from grader.suites.golden_inputs import GOLDEN_PATH, build_loss_inputs

GOLDEN = json.loads(GOLDEN_PATH.read_text(encoding="utf-8")) if GOLDEN_PATH.exists() else {}
GOLDEN_LOSSES = GOLDEN.get("losses", {})
TOL64 = GOLDEN.get("tolerances", {}).get("loss_float64", {"rtol": 1e-9, "atol": 1e-12})
MATCH_RTOL, MATCH_ATOL = 1e-5, 1e-6  # a variant reproduces the mistake to float32 rounding
# A value test's tightest tolerance: float32 rounding. A float64 loss computed in float32 has
# the right value; only `test_float64_precision` charges the lost digits.
VALUE_RTOL, VALUE_ATOL = 1e-5, 1e-6
DTYPES = {"float64": torch.float64, "float32": torch.float32, "float16": torch.float16,
          "bfloat16": torch.bfloat16}  # fmt: skip
TOL = {"float64": (1e-9, 1e-12), "float32": (1e-5, 1e-6), "float16": (2e-3, 1e-3),
       "bfloat16": (2e-3, 1e-3)}  # fmt: skip
# Value tests on half logits accept a loss reduced in half precision (off by up to ~4% on
# these inputs): reducing in float32 is the precision policy `test_dtype_policy[half]` owns.
HALF_VALUE_TOL = (1e-1, 5e-2)
# Half logits upcast exactly to float32 and reduced there agree with the reference to float32
# rounding; one rounding of the loss to half precision (~4e-3 for bfloat16) does not.
HALF_PRECISION_TOL = (1e-4, 1e-5)


def _gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _expected_dtype(dtype: torch.dtype) -> torch.dtype:
    return torch.float64 if dtype == torch.float64 else torch.float32


def _scalar(got, *, what: str) -> torch.Tensor:
    """The loss as a 0-dim tensor. The 0-dim shape is `test_dtype_policy`'s clause: elsewhere a
    one-element loss (e.g. shape (1,)) is read as its value, so that slip is charged once."""
    check_tensor(got, what=what)
    if got.dim() and got.numel() == 1:
        return got.reshape(())
    return check_tensor(got, what=what, shape=())


def _check_loss(got, want, *, what, function, kwargs, rtol, atol, reveal=True):
    """A loss of the right value; a wrong value is matched against mistakes.

    The dtype and the 0-dim shape are not judged here (`test_dtype_policy` owns them), and no
    tolerance below float32 rounding is used (`test_float64_precision` owns float64
    precision): a value test charges only a wrong value.
    """
    got = _scalar(got, what=what)
    check_close(
        got, want, what=what, rtol=max(rtol, VALUE_RTOL), atol=max(atol, VALUE_ATOL),
        check_dtype=False, reveal=reveal,
        diagnose=lambda: matching(f"losses.{function}", got, (), kwargs, want=want,
                                  rtol=MATCH_RTOL, atol=MATCH_ATOL),
    )  # fmt: skip


# ============================================================================ golden values


@pytest.mark.points(0.5)
@pytest.mark.parametrize("case", sorted(GOLDEN_LOSSES))
def test_golden(student, case):
    entry = GOLDEN_LOSSES[case]
    params = entry["params"]
    function = params["function"]
    kwargs = build_loss_inputs(params)
    got = getattr(student.losses, function)(**kwargs)
    want = torch.tensor(entry["expected"], dtype=torch.float64)
    what = f"{function} on the fixed case '{case}' ({_inputs(params, kwargs)})"
    # fixed inputs: the message never shows the golden value (grader/suite/cases.py)
    _check_loss(got, want, what=what, function=function, kwargs=kwargs, rtol=VALUE_RTOL,
                atol=VALUE_ATOL, reveal=False)  # fmt: skip


def _inputs(params: dict, kwargs: dict) -> str:
    """A golden case's inputs, so the student can rebuild it: the ids, the mask or labels, and
    how the float64 logits were made."""
    B, T, V = kwargs["logits"].shape
    spec = params["logits"]
    if spec["form"] == "oracle":
        how = (
            f"one-hot x {spec['margin']:g} on the id each counted position should predict "
            "(on the next id elsewhere, so counting a position that must not count costs)"
        )
    else:
        how = (
            f"{spec['scale']:g} * sin({spec['freq']:g} * n + {spec['phase']:g}) over the "
            "flattened index n"
        )
    shown = [f"logits ({B}, {T}, {V}) = {how}"]
    for name in ("input_ids", "attention_mask", "labels"):
        if name in kwargs:
            shown.append(f"{name}={kwargs[name].int().tolist()}")
    return "float64; " + "; ".join(shown)


# ============================================================================ vs the reference


def _mask(kind: str, batch: int, seq_len: int, g: torch.Generator):
    B, T = batch, seq_len
    if kind == "none":
        return None
    if kind == "right_int":
        n = torch.randint(1, T + 1, (B,), generator=g)
        n[0] = T
        return (torch.arange(T)[None] < n[:, None]).long()
    if kind == "left_bool":
        n = torch.randint(1, T + 1, (B,), generator=g)
        n[-1] = 1
        return torch.arange(T)[None] >= T - n[:, None]
    m = (torch.rand(B, T, generator=g) < 0.7).long()  # holes anywhere, one row empty
    m[-1] = 0
    return m


# The values of these cases are shown on failure, so their inputs are drawn per submission
# (`cases`, grader/suite/cases.py): the same shapes and padding patterns, new numbers.
CAUSAL_CONFIGS = [  # (B, T, V, padding)
    (2, 5, 7, "none"),
    (3, 6, 11, "right_int"),
    (3, 6, 11, "left_bool"),
    (4, 9, 5, "holes"),
]
MASKED_CONFIGS = [(2, 5, 7), (3, 8, 11), (1, 4, 3)]  # (B, T, V)


def _causal_case(cases, i: int, dtype, scale: float = 2.0):
    return _causal_inputs(cases.seed(f"losses.causal/{i}"), *CAUSAL_CONFIGS[i], dtype, scale)


def _masked_case(cases, i: int, dtype, scale: float = 2.0):
    return _masked_inputs(cases.seed(f"losses.masked/{i}"), *MASKED_CONFIGS[i], dtype, scale)


def _causal_inputs(seed, batch, seq_len, vocab, padding, dtype, scale=2.0):
    B, T, V = batch, seq_len, vocab
    g = _gen(seed)
    logits = (torch.randn(B, T, V, generator=g, dtype=torch.float64) * scale).to(dtype)
    ids = torch.randint(V, (B, T), generator=g)
    kwargs = {"logits": logits, "input_ids": ids}
    am = _mask(padding, B, T, g)
    if am is not None:
        kwargs["attention_mask"] = am
    return kwargs


def _masked_inputs(seed, batch, seq_len, vocab, dtype, scale=2.0):
    B, T, V = batch, seq_len, vocab
    g = _gen(seed)
    logits = (torch.randn(B, T, V, generator=g, dtype=torch.float64) * scale).to(dtype)
    ids = torch.randint(V, (B, T), generator=g)
    chosen = torch.rand(B, T, generator=g) < 0.4
    chosen[0, 0] = True
    return {"logits": logits, "labels": torch.where(chosen, ids, -100)}


def _describe(kwargs) -> str:
    B, T, V = kwargs["logits"].shape
    pad = kwargs.get("attention_mask")
    extra = "" if pad is None else f", attention_mask={pad.int().tolist()}"
    return f"B={B}, T={T}, V={V}, {str(kwargs['logits'].dtype).removeprefix('torch.')}{extra}"


@pytest.mark.points(1.25)
@pytest.mark.parametrize("dtype", list(DTYPES))
def test_causal_lm_loss_vs_reference(student, reference, cases, dtype):
    rtol, atol = HALF_VALUE_TOL if dtype in ("float16", "bfloat16") else TOL[dtype]
    for i in range(len(CAUSAL_CONFIGS)):
        kwargs = _causal_case(cases, i, DTYPES[dtype])
        got = student.losses.causal_lm_loss(**kwargs)
        want = reference.losses.causal_lm_loss(**kwargs)
        _check_loss(got, want, what=f"causal_lm_loss ({_describe(kwargs)})",
                    function="causal_lm_loss", kwargs=kwargs, rtol=rtol, atol=atol)  # fmt: skip


@pytest.mark.points(0.5)
@pytest.mark.parametrize("dtype", list(DTYPES))
def test_masked_lm_loss_vs_reference(student, reference, cases, dtype):
    rtol, atol = HALF_VALUE_TOL if dtype in ("float16", "bfloat16") else TOL[dtype]
    for i in range(len(MASKED_CONFIGS)):
        kwargs = _masked_case(cases, i, DTYPES[dtype])
        got = student.losses.masked_lm_loss(**kwargs)
        want = reference.losses.masked_lm_loss(**kwargs)
        _check_loss(got, want, what=f"masked_lm_loss ({_describe(kwargs)}, labels="
                    f"{kwargs['labels'].tolist()})", function="masked_lm_loss", kwargs=kwargs,
                    rtol=rtol, atol=atol)  # fmt: skip


# ============================================================================ gradients


def _check_gradient(student, reference, function: str, kwargs, *, rtol, atol, what: str,
                    value_tol: tuple[float, float]):  # fmt: skip
    fn_s = getattr(student.losses, function)
    fn_r = getattr(reference.losses, function)
    value, (grad,) = fn_s.backward(grad_wrt=("logits",), **kwargs)
    want_value, (want_grad,) = fn_r.backward(grad_wrt=("logits",), **kwargs)
    _check_loss(value, want_value.detach(), what=f"{function} ({what})", function=function,
                kwargs=kwargs, rtol=value_tol[0], atol=value_tol[1])  # fmt: skip
    if grad is None:
        fail(
            f"{function} ({what}): no gradient reached the logits. The loss must stay connected "
            "to the logits (no .item(), .detach(), torch.tensor(...) or numpy).",
            ["loss_not_differentiable"],
        )
    check_tensor(grad, what=f"gradient of {function} w.r.t. the logits ({what})", finite=True)
    check_close(grad, want_grad, what=f"gradient of {function} w.r.t. the logits ({what})",
                rtol=rtol, atol=atol)  # fmt: skip


@pytest.mark.points(1)
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("function", ["causal_lm_loss", "masked_lm_loss"])
def test_gradient(student, reference, cases, function, dtype):
    """d loss / d logits matches the reference (and is finite)."""
    rtol, atol = (1e-4, 1e-6) if dtype == "float32" else (2e-2, 1e-3)
    if function == "causal_lm_loss":
        kwargs = _causal_case(cases, 1, DTYPES[dtype])
    else:
        kwargs = _masked_case(cases, 1, DTYPES[dtype])
    _check_gradient(student, reference, function, kwargs, rtol=rtol, atol=atol,
                    what=_describe(kwargs),
                    value_tol=HALF_VALUE_TOL if dtype == "bfloat16" else TOL[dtype])  # fmt: skip


# ============================================================================ edge cases


@pytest.mark.points(0.5)
@pytest.mark.parametrize("case", ["causal_single_token", "causal_all_targets_padding",
                                  "masked_no_label"])  # fmt: skip
def test_empty_targets(student, reference, case):
    """Nothing counts: the loss is a zero that is still differentiable (zero gradients)."""
    g = _gen(11)
    if case == "causal_single_token":
        function, kwargs = "causal_lm_loss", {"logits": torch.randn(2, 1, 5, generator=g),
                                              "input_ids": torch.tensor([[1], [3]])}  # fmt: skip
    elif case == "causal_all_targets_padding":
        function, kwargs = (
            "causal_lm_loss",
            {
                "logits": torch.randn(2, 4, 5, generator=g),
                "input_ids": torch.tensor([[1, 2, 3, 4], [4, 0, 0, 0]]),
                "attention_mask": torch.tensor([[1, 0, 0, 0], [1, 0, 0, 0]]),
            },
        )
    else:
        function, kwargs = "masked_lm_loss", {"logits": torch.randn(2, 3, 5, generator=g),
                                              "labels": torch.full((2, 3), -100)}  # fmt: skip
    require_working(student, reference, f"losses.{function}")  # a constant 0 is no loss
    value, (grad,) = getattr(student.losses, function).backward(grad_wrt=("logits",), **kwargs)
    want = torch.tensor(0.0)
    what = f"{function} when no target counts ({case.replace('_', ' ')})"
    value = _scalar(value, what=what)
    if torch.isnan(value).any():
        fail(f"{what} is NaN; it must be 0 (a mean over nothing).", ["nan_on_empty_loss"])
    check_close(value, want, what=what, check_dtype=False,
                diagnose=lambda: matching(f"losses.{function}", value, (), kwargs,
                                          want=want))  # fmt: skip
    if grad is None:
        fail(f"{what}: backward() did not reach the logits. Return a zero connected to the "
             "graph, e.g. logits.float().sum() * 0.0.",
             ["empty_loss_not_differentiable"])  # fmt: skip
    check_close(grad, torch.zeros_like(kwargs["logits"]), what=f"gradient of {what}",
                check_dtype=False)  # fmt: skip


@pytest.mark.points(0.5)
def test_integer_id_dtypes(student, reference, cases):
    """Ids and labels may come in any integer dtype (int32 here, as a tokenizer may give): the
    loss is the same as with int64 ones. Compared with the student's own int64 result, so
    this test charges only the integer dtype, never a wrong value (the value tests do)."""
    require_working(student, reference, "losses.causal_lm_loss", "losses.masked_lm_loss")
    with collecting() as check:
        for name, kwargs in (
            ("causal_lm_loss", _causal_case(cases, 1, torch.float32)),
            ("masked_lm_loss", _masked_case(cases, 1, torch.float32)),
        ):
            ints = {k: v.int() if not v.is_floating_point() and v.dtype != torch.bool else v
                    for k, v in kwargs.items()}  # fmt: skip
            what = f"{name} with int32 {'input_ids' if name == 'causal_lm_loss' else 'labels'}"
            with check:
                got = _scalar(getattr(student.losses, name)(**ints), what=what)
                same = getattr(student.losses, name)(**kwargs)
                same = _scalar(same, what=f"{name} with int64 ids")
                check_close(
                    got,
                    same,
                    check_dtype=False,
                    rtol=1e-5,
                    atol=1e-6,
                    what=f"{what} (compared with your own result for int64 ids)",
                )


@pytest.mark.points(0.5)
@pytest.mark.parametrize("function", ["causal_lm_loss", "masked_lm_loss"])
def test_large_logits(student, reference, cases, function):
    """Logits of magnitude ~1e4 (float32): finite value and gradients equal to the reference
    (no padding in the causal case: this test judges stability, not the mask)."""
    if function == "causal_lm_loss":
        kwargs = _causal_case(cases, 0, torch.float32, scale=1e4)
    else:
        kwargs = _masked_case(cases, 1, torch.float32, scale=1e4)
    _check_gradient(student, reference, function, kwargs, rtol=1e-5, atol=1e-6,
                    what="logits ~1e4, float32", value_tol=TOL["float32"])  # fmt: skip


@pytest.mark.points(0.5)
def test_no_input_mutation(student, reference, cases):
    """A working loss leaves its inputs untouched (both functions are checked)."""
    require_working(student, reference, "losses.causal_lm_loss", "losses.masked_lm_loss")
    with collecting() as check:
        for name, kwargs in (
            ("causal_lm_loss", _causal_case(cases, 2, torch.float32)),
            ("masked_lm_loss", _masked_case(cases, 0, torch.float32)),
        ):
            with check:
                got = getattr(student.losses, name)(**{k: v.clone() for k, v in kwargs.items()})
                check_effects(student.last_effects, what=name, subject=got)


# ============================================================================ dtype policy


@pytest.mark.points(0.5)
@pytest.mark.parametrize("dtype", ["float64", "half"])
def test_dtype_policy(student, reference, cases, dtype):
    """The loss is float64 for float64 logits and float32 for float16 / bfloat16 / float32 ones
    (half logits reduced in float32). Only the dtype and the 0-dim shape are judged here."""
    require_working(student, reference, "losses.causal_lm_loss", "losses.masked_lm_loss")
    dtypes = [torch.float64] if dtype == "float64" else [torch.float16, torch.bfloat16]
    with collecting() as check:
        for dt in dtypes:
            for name, kwargs in (("causal_lm_loss", _causal_case(cases, 0, dt)),
                                 ("masked_lm_loss", _masked_case(cases, 0, dt))):  # fmt: skip
                with check:
                    got = getattr(student.losses, name)(**kwargs)
                    want = _expected_dtype(dt)
                    check_tensor(got, what=f"{name} ({_describe(kwargs)})", shape=())
                    if got.dtype != want:
                        fail(f"{name} ({_describe(kwargs)}) returned dtype "
                             f"{str(got.dtype).removeprefix('torch.')}; expected "
                             f"{str(want).removeprefix('torch.')}", ["loss_wrong_dtype"],
                             subject=got)  # fmt: skip
                    if dt in (torch.float16, torch.bfloat16):
                        _check_half_precision(student, reference, name, kwargs, got)


def _check_empty_float64(student, function: str, kwargs) -> None:
    """The same float64 logits with nothing to count: the zero keeps float64 too (the
    docstring's logits.sum().float() * 0.0 turns it into float32). Judged only on a zero tied
    to the graph: a constant is `test_empty_targets`' to charge."""
    kwargs = dict(kwargs)
    if function == "causal_lm_loss":
        kwargs["attention_mask"] = torch.zeros_like(kwargs["input_ids"])
    else:
        kwargs["labels"] = torch.full_like(kwargs["labels"], -100)
    try:
        got, (grad,) = getattr(student.losses, function).backward(grad_wrt=("logits",), **kwargs)
    except StudentException:  # e.g. an in-place edit of logits that require grad: charged by
        return  # the side-effect and gradient tests, not by this dtype clause
    if grad is None:
        return
    what = f"{function} when no target counts ({_describe(kwargs)})"
    got = _scalar(got, what=what)
    if got.dtype != torch.float64:
        fail(f"{what} returned dtype {str(got.dtype).removeprefix('torch.')}; expected float64: "
             "the zero of the empty case keeps float64 as float64", ["loss_wrong_dtype"],
             subject=got)  # fmt: skip


def _check_half_precision(student, reference, name: str, kwargs, got) -> None:
    """A loss of half logits is reduced in float32: as close to the reference as
    HALF_PRECISION_TOL allows. Judged only where the student's loss of the same logits upcast
    to float32 is right (a wrong value is the value tests' to charge, not this clause's)."""
    want = getattr(reference.losses, name)(**kwargs)
    rtol, atol = HALF_PRECISION_TOL
    g, w = got.detach().double(), want.double()
    if bool(torch.isclose(g, w, rtol=rtol, atol=atol)):
        return  # a correct submission stops here: no second call
    up = {k: v.float() if v.is_floating_point() else v for k, v in kwargs.items()}
    own = getattr(student.losses, name)(**up)
    own = _scalar(own, what=f"{name} on float32 logits")
    if not torch.isclose(own.detach().double(), w, rtol=1e-4, atol=1e-5):
        return
    ws, gs = distinct(w.item(), g.item())
    fail(f"{name} ({_describe(kwargs)}) was reduced in half precision: expected {ws}, got "
         f"{gs} (tolerance rtol={rtol:g}, atol={atol:g}); reduce half logits in float32.",
         ["loss_wrong_dtype"], subject=got)  # fmt: skip


@pytest.mark.points(0.5)
@pytest.mark.parametrize("function", ["causal_lm_loss", "masked_lm_loss"])
def test_float64_precision(student, reference, cases, function):
    """A float64 loss keeps float64 precision (rtol 1e-9), and float64 when nothing counts.
    Only the precision is judged: a value wrong already at float32 rounding is the value
    tests' failure, not this one's."""
    require_working(student, reference, f"losses.{function}")
    if function == "causal_lm_loss":
        kwargs = _causal_case(cases, 0, torch.float64, scale=8.0)
    else:
        kwargs = _masked_case(cases, 1, torch.float64, scale=8.0)
    got = getattr(student.losses, function)(**kwargs)
    want = getattr(reference.losses, function)(**kwargs)
    what = f"{function} ({_describe(kwargs)})"
    got = _scalar(got, what=what)
    g, w = got.detach().double(), want.double()
    if not torch.isclose(g, w, rtol=VALUE_RTOL, atol=VALUE_ATOL):
        return  # a wrong value, charged by the value tests
    if not torch.isclose(g, w, rtol=TOL64["rtol"], atol=TOL64["atol"]):
        ws, gs = distinct(w.item(), g.item())
        fail(
            f"{what} has float32 precision, not float64: expected {ws}, got {gs} (|difference| "
            f"{(g - w).abs().item():.3g}; tolerance rtol={TOL64['rtol']:g}, "
            f"atol={TOL64['atol']:g})",
            ["float64_computed_in_float32"],
            subject=got,
        )
    _check_empty_float64(student, function, kwargs)


# ============================================================================ contract errors


@pytest.mark.points(0.5)
def test_contract_errors(student, reference):
    """Mismatched shapes raise the documented ValueError instead of a loss."""
    require_working(student, reference, "losses.causal_lm_loss", "losses.masked_lm_loss")
    g = torch.Generator().manual_seed(5)
    logits = torch.randn(2, 4, 7, generator=g)
    cases = [
        (lambda: student.losses.causal_lm_loss(logits, torch.zeros(2, 5, dtype=torch.int64)),
         "causal_lm_loss with logits (2, 4, 7) and input_ids (2, 5)"),
        (lambda: student.losses.causal_lm_loss(logits, torch.zeros(2, 4, dtype=torch.int64),
                                               torch.ones(2, 3, dtype=torch.int64)),
         "causal_lm_loss with logits (2, 4, 7) and an attention_mask (2, 3)"),
        (lambda: student.losses.masked_lm_loss(logits, torch.zeros(2, 3, dtype=torch.int64)),
         "masked_lm_loss with logits (2, 4, 7) and labels (2, 3)"),
        # as many labels as positions, in the wrong shape: flattening alone would accept it
        (lambda: student.losses.masked_lm_loss(logits, torch.zeros(4, 2, dtype=torch.int64)),
         "masked_lm_loss with logits (2, 4, 7) and labels (4, 2)"),
    ]  # fmt: skip
    with collecting() as check:  # every documented error is checked, not only the first
        for call, what in cases:
            with check:
                check_raises(call, "ValueError", what=what)
