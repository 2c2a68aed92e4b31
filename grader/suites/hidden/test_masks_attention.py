"""Hidden tests, Part A (2 of 2): masked_attention, side effects, the TinyLM, the errors.

The second file of Part A (`test_masks.py` holds the masks and the leak tests; it is
collected first, so the report lists Part A's tests in the order of the handout). Values are
judged against the reference (`solutions/`) in float64 at `F64_RTOL` / `F64_ATOL`, the half
precisions at their own tolerances, and a failure is explained by the known mistake
(grader/diagnosis/variants.py) whose output matches the student's.
"""

from __future__ import annotations

import pytest
import torch

from grader.diagnosis.variants import matching, model_forward_matching
from grader.suite.checks import (
    check_close,
    check_effects,
    check_raises,
    check_tensor,
    collecting,
    fail,
    show,
)
from grader.suite.working import require_working
from grader.suites.hidden._masks import (
    F64_ATOL,
    F64_RTOL,
    _attention_case,
    _check_attention,
    _close_scores_bf16_qkv,
    _lengths_mask,
    _nan_gradient_cause,
    _nan_gradient_ids,
    _overflowing_f16_qkv,
    _pair,
    _points,
    _qkv,
)
from grader.trusted_tinylm import shared_standard_model as _model

# ============================================================================ masked_attention


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("no_mask", marks=_points(0.5)),
        pytest.param("causal", marks=_points(1)),
        pytest.param("padded", marks=_points(0.5)),
        pytest.param("tq_ne_tk", marks=_points(1)),
        pytest.param("seq1_batch1", marks=_points(0.5)),
    ],
)
def test_masked_attention(student, reference, cases, name):
    q, k, v, mask = _attention_case(name, cases)
    _check_attention(student, reference, q, k, v, mask, what=f"{name}, float64",
                     rtol=F64_RTOL, atol=F64_ATOL)  # fmt: skip


@pytest.mark.points(1)
def test_masked_attention_empty_rows(student, reference, cases):
    """Left padding + causal and an all-padding row: rows with no allowed key are all zero."""
    q, k, v = _qkv(3, 2, 5, 5, 4, seed=cases.seed("masks.empty_rows"))
    am = torch.tensor([[0, 0, 1, 1, 1], [1, 1, 1, 1, 1], [0, 0, 0, 0, 0]])
    mask = (am != 0)[:, None, None, :] & torch.ones(5, 5, dtype=torch.bool).tril()
    out, w = _pair(student.masks.masked_attention(q, k, v, mask), "masked_attention")
    want_out, want_w = reference.masks.masked_attention(q, k, v, mask)
    diag = lambda: matching(  # noqa: E731
        "masks.masked_attention", (out, w), (q, k, v, mask), want=(want_out, want_w), atol=1e-9
    )
    for name, got, want in (("weights", w, want_w), ("output", out, want_out)):
        check_tensor(got, what=f"attention {name}", shape=want.shape, dtype=torch.float64)
        if not torch.isfinite(got).all():
            bad = (~torch.isfinite(got)).nonzero()[0].tolist()
            fail(
                f"attention {name} contain NaN/inf at index {bad} (batch {bad[0]}, query "
                f"{bad[2]}): a query with no allowed key must give all-zero weights and a zero "
                "output, never NaN.",
                diag(),
            )
    check_close(w, want_w, what="attention weights with fully-masked rows", atol=F64_ATOL,
                rtol=F64_RTOL, diagnose=diag,
                hint="Rows with no allowed key (padding queries) must be all zero.")  # fmt: skip
    check_close(out, want_out, what="attention output with fully-masked rows", atol=F64_ATOL,
                rtol=F64_RTOL, diagnose=diag)  # fmt: skip


@pytest.mark.points(1)
def test_masked_attention_gradients(student, reference, cases):
    """Gradients w.r.t. q, k, v match the reference and are finite, empty rows included."""
    q, k, v = _qkv(2, 2, 4, 4, 3, seed=cases.seed("masks.gradients/qkv"))
    am = torch.tensor([[0, 1, 1, 1], [1, 1, 1, 0]])
    mask = (am != 0)[:, None, None, :] & torch.ones(4, 4, dtype=torch.bool).tril()
    go = torch.randn(2, 2, 4, 3, generator=cases.generator("masks.gradients/go"),
                     dtype=torch.float64)  # fmt: skip
    value, grads = student.masks.masked_attention.backward(
        q, k, v, mask, grad_wrt=(0, 1, 2), grad_output=go
    )
    out, w = _pair(value, "masked_attention")
    _, want = reference.masks.masked_attention.backward(
        q, k, v, mask, grad_wrt=(0, 1, 2), grad_output=go
    )
    diag = lambda: matching(  # noqa: E731
        "masks.masked_attention",
        (out, w),
        (q, k, v, mask),
        want=reference.masks.masked_attention(q, k, v, mask),
        atol=1e-9,
    )
    for name, g, wg in zip("qkv", grads, want, strict=True):
        if g is None:
            fail(
                f"no gradient reached {name}: masked_attention must be differentiable "
                "(do not detach, use .item() or rebuild tensors from numbers)"
            )
        if not torch.isfinite(g).all():
            fail(
                f"the gradient w.r.t. {name} contains NaN/inf (a fully-masked query row "
                "must not produce NaN gradients)" + _nan_gradient_cause(student, q, k, v, go),
                diag() or _nan_gradient_ids(student, q, k, v, go, out, w),
                subject=g,
            )
        check_close(g, wg, what=f"gradient of the attention output w.r.t. {name}",
                    rtol=F64_RTOL, atol=F64_ATOL, diagnose=diag)  # fmt: skip


@pytest.mark.points(0.5)
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=["float16", "bfloat16"])
def test_masked_attention_half(student, reference, cases, dtype):
    """Half inputs: the values (computed in float32) and the output dtype, which is this
    test's clause (the other half-precision tests judge values and finiteness only)."""
    q, k, v, mask = _attention_case("padded", cases, dtype)
    tol = 1e-2 if dtype == torch.float16 else 5e-2
    _check_attention(student, reference, q, k, v, mask, what=f"padded, {dtype}".replace(
        "torch.", ""), rtol=tol, atol=tol)  # fmt: skip


@pytest.mark.points(0.5)
def test_masked_attention_bfloat16_close_scores(student, reference):
    """bfloat16 keeps 8 significant bits: scores near 200 that differ by ~0.5 (computed
    exactly in float32 from bfloat16 q and k) collapse or swap when the scores themselves are
    rounded to bfloat16, and the weights move by ~0.1. The contract computes in float32."""
    q, k, v = _close_scores_bf16_qkv()
    _check_attention(
        student,
        reference,
        q,
        k,
        v,
        None,
        what="bfloat16, close scores",
        rtol=2e-2,
        atol=2e-2,
        reveal=False,
        check_dtype=False,  # the half output dtype is test_masked_attention_half's clause
    )  # fmt: skip  (designed, fixed inputs)


@pytest.mark.points(0.5)
def test_masked_attention_no_overflow(student, reference):
    """float16 inputs whose q k^T overflows float16 (> 65504): results must stay finite, and
    the weights sum to 1 where float16 is the cause (head 2: every score below -65504)."""
    q, k, v = _overflowing_f16_qkv()
    mask = torch.ones(4, 4, dtype=torch.bool).tril()
    out, w = _pair(student.masks.masked_attention(q, k, v, mask), "masked_attention")
    for name, got, shape in (("output", out, v.shape), ("weights", w, (1, 3, 4, 4))):
        # any float dtype: the half output dtype is test_masked_attention_half's clause
        check_tensor(
            got,
            what=f"attention {name} (float16 inputs)",
            shape=shape,
            dtype=(torch.float16, torch.bfloat16, torch.float32, torch.float64),
        )
        if not torch.isfinite(got).all():
            want = reference.masks.masked_attention(q, k, v, mask)
            fail(
                f"attention {name} for float16 inputs with large scores contain NaN/inf (first at "
                f"{(~torch.isfinite(got)).nonzero()[0].tolist()}). The scores q k^T reach ~1e3 "
                "in head 0 and ~1e5 in head 1 (float16's maximum is 65504).",
                matching("masks.masked_attention", (out, w), (q, k, v, mask), want=want,
                         rtol=1e-2, atol=1e-2),
            )  # fmt: skip
    sums = w.float().sum(-1)
    if not torch.allclose(sums, torch.ones_like(sums), atol=1e-2):
        # charged here only when float16 is the cause: wrong sums for the same inputs in
        # float32 too (e.g. a -1e4 fill) are the float tests' to charge (large_scores)
        _, w32 = _pair(student.masks.masked_attention(q.float(), k.float(), v.float(), mask),
                       "masked_attention")  # fmt: skip
        sums32 = w32.float().sum(-1) if w32.shape == w.shape else None
        if sums32 is None or not torch.allclose(sums32, torch.ones_like(sums32), atol=1e-2):
            return
        want = reference.masks.masked_attention(q, k, v, mask)
        fail(f"attention weights for float16 inputs should sum to 1 per query, got {show(sums)} "
             "(head 2's scores are all below -65504: a masked score must be filled below "
             "them, with the lowest value of the dtype the scores are computed in)",
             matching("masks.masked_attention", (out, w), (q, k, v, mask), want=want,
                      rtol=1e-2, atol=1e-2))  # fmt: skip


@pytest.mark.points(0.5)
def test_no_input_mutation(student, reference, cases):
    """Working functions leave their inputs untouched, and masked_attention and
    build_attention_mask return new tensors (padding_mask may return a view of a bool input:
    only its in-place edits are charged). Only side effects are judged (wrong values are the
    value tests'), for all three functions."""
    require_working(student, reference, "masks.masked_attention", "masks.build_attention_mask",
                    "masks.padding_mask")  # fmt: skip
    q, k, v, mask = _attention_case("padded", cases)
    am = _lengths_mask([cases.integer("masks.no_input_mutation/n", 1, 5), 5], 5, "left")
    with collecting() as check:
        with check:
            got = _pair(
                student.masks.masked_attention(q.clone(), k.clone(), v.clone(), mask.clone()),
                "masked_attention",
            )
            check_effects(student.last_effects, what="masked_attention", rng=False, subject=got)
        with check:
            got_mask = student.masks.build_attention_mask(am.clone(), 5, True)
            # a tensor, of any dtype: a non-bool mask is the mask tests' to charge, not this one's
            check_tensor(got_mask, what="build_attention_mask")
            check_effects(
                student.last_effects, what="build_attention_mask", rng=False, subject=got_mask
            )
        with check:  # a bool key mask expanded without a copy is a view of the caller's mask
            got_mask = student.masks.build_attention_mask(am.bool(), 5, False)
            check_tensor(got_mask, what="build_attention_mask")
            check_effects(student.last_effects, what="build_attention_mask(bool mask, "
                          "causal=False)", rng=False, subject=got_mask)  # fmt: skip
        with check:
            got_keys = student.masks.padding_mask(am.clone())
            check_tensor(got_keys, what="padding_mask")
            check_effects(student.last_effects, what="padding_mask", rng=False, aliasing=False,
                          subject=got_keys)  # fmt: skip


# ============================================================================ whole model


@pytest.mark.points(0.5)
@pytest.mark.parametrize("name", ["causal", "bidirectional_padded"])
def test_model_forward(student, reference, name):
    """The grader's TinyLM with your masks gives the same logits as with the reference's."""
    model = _model("causal" if name == "causal" else "bidirectional")
    ids = torch.tensor([[5, 9, 2, 20, 13, 1, 7, 4], [11, 0, 7, 14, 3, 3, 8, 21],
                        [1, 2, 3, 4, 5, 6, 7, 8]])  # fmt: skip
    am = None
    if name != "causal":
        am = torch.tensor([[1, 1, 1, 1, 1, 1, 0, 0], [0, 0, 1, 1, 1, 1, 1, 1], [0] * 8])
    got = student.model_forward(model, ids, am)
    want = reference.model_forward(model, ids, am)
    check_close(
        got, want, what=f"TinyLM logits ({name}) with your masks", rtol=1e-4, atol=1e-4,
        diagnose=lambda: model_forward_matching(model, ids, am, got, want=want, rtol=1e-4,
                                                atol=1e-4),
    )  # fmt: skip


# ============================================================================ contract errors


@_points(0.5)
def test_contract_errors(student, reference):
    """Invalid arguments raise the documented error instead of producing a mask or output."""
    require_working(
        student,
        reference,
        "masks.causal_mask",
        "masks.padding_mask",
        "masks.build_attention_mask",
        "masks.masked_attention",
    )
    m = student.masks
    q, k, v = _qkv(1, 1, 3, 3, 4, seed=11)
    additive = torch.zeros(1, 1, 3, 3, dtype=torch.float64).masked_fill(
        ~torch.ones(3, 3, dtype=torch.bool).tril(), float("-inf"))  # fmt: skip
    cases = [
        (lambda: m.masked_attention(q, k, v, additive), "TypeError",
         "masked_attention with an additive float mask (0 / -inf) instead of a bool keep-mask"),
        (lambda: m.causal_mask(-1), "ValueError", "causal_mask(-1)"),
        (lambda: m.padding_mask(torch.ones(2, 3, 4, dtype=torch.int64)), "ValueError",
         "padding_mask of a 3-D tensor (it must be (B, T))"),
        (lambda: m.build_attention_mask(torch.ones(2, 5, dtype=torch.int64), 4, True),
         "ValueError", "build_attention_mask with a (2, 5) attention_mask and seq_len=4"),
    ]  # fmt: skip
    with collecting() as check:  # every documented error is checked, not only the first
        for call, exception, what in cases:
            with check:
                check_raises(call, exception, what=what)
