"""Hidden tests, Part A: causal / padding masks, masked attention, and a TinyLM built on them.

25 points. Future leaks are detected by perturbation in float64: batch row j + 1 changes only
key (token) j, row 0 is the baseline, and every output at a position i < j must stay equal
(|diff| <= 1e-9, where a correct implementation gives ~1e-16). The first leaking (query, key)
pair is reported. Correctness otherwise is judged against the reference (`solutions/`), and
a failure is explained by the known mistake (grader/diagnosis/variants.py) whose output
matches the student's.
"""

from __future__ import annotations

import pytest
import torch

from grader.diagnosis.variants import matching, model_forward_matching
from grader.suite.checks import (
    check_broadcasts,
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
    LEAK_FUNCTIONS,
    _attention_case,
    _causal_mask_args,
    _check_attention,
    _check_mask,
    _close_scores_bf16_qkv,
    _leak_pairs,
    _lengths_mask,
    _nan_gradient_cause,
    _nan_gradient_ids,
    _overflowing_f16_qkv,
    _pad_perturbed,
    _padding_changes,
    _pair,
    _perturbed_qkv,
    _points,
    _qkv,
    _report_leaks,
)
from grader.trusted_tinylm import shared_standard_model as _model

# ============================================================================ causal_mask


@pytest.mark.parametrize(
    "case",
    [
        pytest.param("1x1", marks=_points(0.5)),
        pytest.param("5x5", marks=_points(1)),
        pytest.param("kv_cache_2x5", marks=_points(1)),
        pytest.param("kv_cache_1x6", marks=_points(0.5)),
        pytest.param("more_queries_5x3", marks=_points(0.5)),
    ],
)
def test_causal_mask(student, reference, cases, case):
    args = _causal_mask_args(case, cases)
    got = student.masks.causal_mask(*args)
    want = reference.masks.causal_mask(*args)
    _check_mask(got, want, what=f"causal_mask{args}".replace(",)", ")"),
                function="masks.causal_mask", args=args, reveal=False)  # fmt: skip
    if case == "more_queries_5x3":  # the extreme of Tk < Tq: no key at all (k_len=0 is not None)
        args = (args[0], 0)
        _check_mask(student.masks.causal_mask(*args), reference.masks.causal_mask(*args),
                    what=f"causal_mask{args}", function="masks.causal_mask", args=args,
                    reveal=False)  # fmt: skip


# ============================================================================ padding_mask


@pytest.mark.points(0.5)
@pytest.mark.parametrize(
    "name",
    ["right_padding_int", "left_padding_bool", "all_padding_row"],
)
def test_padding_mask(student, reference, cases, name):
    draw = lambda what, lo, hi: cases.integer(f"masks.padding_mask/{name}/{what}", lo, hi)  # noqa: E731
    T = draw("T", 4, 7)
    am = {
        "right_padding_int": lambda: _lengths_mask([T, draw("n", 2, T), 1], T, "right"),
        "left_padding_bool": lambda: _lengths_mask([draw("n", 1, T), T], T, "left", torch.bool),
        "all_padding_row": lambda: _lengths_mask([draw("n", 1, T + 1), 0], T, "right"),
    }[name]()
    got = student.masks.padding_mask(am)
    want = reference.masks.padding_mask(am)
    _check_mask(got, want, what=f"padding_mask({am.tolist()})", function="masks.padding_mask",
                args=(am,), reveal=False)  # fmt: skip


# ============================================================================ build_attention_mask


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("causal_no_padding", marks=_points(0.5)),
        pytest.param("bidirectional_no_padding", marks=_points(0.5)),
        pytest.param("causal_padded", marks=_points(1)),
        pytest.param("bidirectional_padded", marks=_points(1)),
    ],
)
def test_build_attention_mask(student, reference, cases, name):
    draw = lambda what, lo, hi: cases.integer(f"masks.build_attention_mask/{name}/{what}", lo, hi)  # noqa: E731
    T = draw("T", 4, 7)
    am = None
    if name == "causal_padded":
        am = _lengths_mask([T, draw("n1", 2, T), draw("n2", 1, T)], T, "right")
    if name == "bidirectional_padded":
        am = _lengths_mask([draw("n0", 1, T), T, draw("n2", 1, T)], T, "left", torch.bool)
    causal = name.startswith("causal")
    args = (am, T, causal)
    got = student.masks.build_attention_mask(*args)
    want = reference.masks.build_attention_mask(*args)
    full = (1 if am is None else am.shape[0], 1, T, T)
    check_tensor(got, what="build_attention_mask", dtype=torch.bool)
    if got.dim() != 4 or tuple(got.shape) != full:  # documented, not merely broadcastable
        fail(f"build_attention_mask must return a 4-D mask of shape {full}, got shape "
             f"{tuple(got.shape)} (expand the key mask over the queries)")  # fmt: skip
    pad = "no attention_mask" if am is None else f"attention_mask={am.int().tolist()}"
    _check_mask(got, want, what=f"build_attention_mask({pad}, seq_len={T}, causal={causal})",
                function="masks.build_attention_mask", args=args,
                project=lambda x: torch.broadcast_to(x, full), full_shape=full,
                reveal=False)  # fmt: skip


# ============================================================================ future leaks


@pytest.mark.parametrize(
    "where",
    [
        pytest.param("mask", marks=_points(1.5)),
        pytest.param("attention", marks=_points(1.5)),
        pytest.param("attention_large_scores", marks=_points(0.5)),
        pytest.param("model", marks=_points(1.5)),
    ],
)
def test_no_future_leak(student, reference, cases, where):
    T = 6
    require_working(student, reference, *LEAK_FUNCTIONS[where])
    if where == "mask":
        mask = student.masks.build_attention_mask(None, T, True)
        what = "build_attention_mask(None, 6, causal=True)"
        check_tensor(mask, what=what, dtype=torch.bool)
        q, k, v = _perturbed_qkv(T, seed=cases.seed("masks.future_leak/mask"))
        full = check_broadcasts(mask, (q.shape[0], q.shape[1], T, T), what=what)
        out, _ = reference.masks.masked_attention(q, k, v, full)
        pairs = _leak_pairs(out, 2)
        diag = lambda: matching("masks.build_attention_mask", mask, (None, T, True),  # noqa: E731
                                want=reference.masks.build_attention_mask(None, T, True),
                                project=lambda x: torch.broadcast_to(x, (1, 1, T, T)))  # fmt: skip
        _report_leaks(pairs, "your causal mask (reference attention)", diag() if pairs else ())
        return
    if where.startswith("attention"):
        q, k, v = _perturbed_qkv(T, designed=where.endswith("large_scores"),
                                 seed=cases.seed(f"masks.future_leak/{where}"))  # fmt: skip
        mask = reference.masks.causal_mask(T)
        got = _pair(student.masks.masked_attention(q, k, v, mask), "masked_attention")
        out = got[0]
        check_tensor(out, what="masked_attention output", shape=q.shape, dtype=q.dtype)
        pairs = _leak_pairs(out, 2)
        want = reference.masks.masked_attention(q, k, v, mask)
        diag = lambda: matching(  # noqa: E731
            "masks.masked_attention", got, (q, k, v, mask), want=want, atol=1e-8
        )
        _report_leaks(pairs, "masked_attention with the reference causal mask",
                      diag() if pairs else ())  # fmt: skip
        if where.endswith("large_scores"):  # scores of +-1e5: a weak fill constant shows here
            check_close(out, want[0], what="attention output with scores of magnitude ~1e5 "
                        "(allowed keys ~ -1e5, future keys ~ +1e5)", rtol=F64_RTOL, atol=F64_ATOL,
                        diagnose=diag)  # fmt: skip
        # No leak is only worth points for an attention that attends: the values must be right.
        check_close(out, want[0], what="masked_attention output (checked after the leak test)",
                    rtol=F64_RTOL, atol=F64_ATOL, diagnose=diag)  # fmt: skip
        return
    # a whole TinyLM (float64) running on the student's build_attention_mask + masked_attention
    model = _model("causal", torch.float64)
    base = torch.tensor([[3, 17, 8, 20, 5, 11]])
    ids = base.repeat(T + 1, 1)
    for j in range(T):
        ids[j + 1, j] = (ids[j + 1, j] + 7) % 24
    got = student.model_forward(model, ids)
    check_tensor(got, what="TinyLM logits on your attention", shape=(T + 1, T, 24))
    pairs = _leak_pairs(got, 1)
    want = reference.model_forward(model, ids)
    if pairs:
        what = "a causal TinyLM built on your build_attention_mask and masked_attention"
        _report_leaks(pairs, what, model_forward_matching(model, ids, None, got, want=want))
    # No leak is only worth points when the model's logits are right too.
    check_close(got, want, what="TinyLM logits on your attention (checked after the leak test)",
                rtol=F64_RTOL, atol=F64_ATOL, diagnose=lambda: model_forward_matching(
                    model, ids, None, got, want=want))  # fmt: skip


@pytest.mark.parametrize(
    "where", [pytest.param("mask", marks=_points(1)), pytest.param("model", marks=_points(1.5))]
)
def test_no_padding_leak(student, reference, where):
    """Changing a padding token (or its key/value) must not change any real position."""
    T = 6
    require_working(student, reference, *LEAK_FUNCTIONS[where])
    am = torch.cat([_lengths_mask([4], T, "right"), _lengths_mask([3], T, "left")])  # (2, T)
    rows, pads = _pad_perturbed(am, T)
    n = len(rows)
    if where == "mask":
        causal = False
        mask = student.masks.build_attention_mask(am, T, causal)
        check_tensor(mask, what="build_attention_mask", dtype=torch.bool)
        if mask.dim() != 4:
            fail(f"build_attention_mask returned shape {tuple(mask.shape)}; expected (2, 1, 6, 6)")
        q, k, v = _qkv(2, 2, T, T, 4, seed=21)
        idx = torch.tensor([0, 1] + rows)
        q, k, v = q[idx].clone(), k[idx].clone(), v[idx].clone()
        full_mask = check_broadcasts(mask, (2, 1, T, T), what="build_attention_mask")[idx]
        for r, j in enumerate(pads):
            k[2 + r, :, j] += 1.0
            v[2 + r, :, j] += 25.0
        out, _ = reference.masks.masked_attention(q, k, v, full_mask)
        changed = _padding_changes(am, rows, pads, lambda r, b, q: out[2 + r, :, q] - out[b, :, q])
        what = "your padding mask (bidirectional, reference attention)"
        diag = lambda: matching(  # noqa: E731
            "masks.build_attention_mask",
            mask,
            (am, T, causal),
            want=reference.masks.build_attention_mask(am, T, causal),
            project=lambda x: torch.broadcast_to(x, (2, 1, T, T)),
        )
    else:
        model = _model("bidirectional", torch.float64)
        base = torch.tensor([[3, 17, 8, 20, 0, 0], [0, 0, 0, 5, 9, 2]])
        ids = torch.cat([base, base[rows].clone()])
        for r, j in enumerate(pads):
            ids[2 + r, j] = (ids[2 + r, j] + 11) % 24
        mask_rows = torch.cat([am, am[rows]])
        got = student.model_forward(model, ids, mask_rows)
        check_tensor(got, what="TinyLM logits on your attention", shape=(2 + n, T, 24))
        changed = _padding_changes(am, rows, pads, lambda r, b, q: got[2 + r, q] - got[b, q])
        what = "a bidirectional TinyLM built on your masks (padded batch)"
        diag = lambda: model_forward_matching(  # noqa: E731
            model, ids, mask_rows, got, want=reference.model_forward(model, ids, mask_rows)
        )
    if changed:
        qi, j, b = changed[0]
        fail(
            f"{what}: padding leaks. In sequence {b} (attention_mask {am[b].tolist()}), "
            f"changing the padding token at position {j} changed the output of the real token at "
            f"position {qi}. Padding keys must get zero attention. First leaking (query, key) "
            f"pair: ({qi}, {j}).",
            diag(),
        )
    if where != "mask":
        want = reference.model_forward(model, ids, mask_rows)
        real = torch.cat([am, am[rows]]).bool()[:, :, None].expand_as(got)  # rows of real queries
        check_close(got[real], want[real], rtol=F64_RTOL, atol=F64_ATOL,
                    what=f"{what}: logits at real tokens (checked after the leak test)",
                    diagnose=diag)  # fmt: skip


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
