"""Hidden tests, Part A (1 of 2): the causal and padding masks, and the future / padding leaks.

Part A has 25 points over two files (`test_masks_attention.py` counts for `masks` too:
`grader.suite.plugin.part_of`); this one judges causal_mask, padding_mask and
build_attention_mask, then the leaks. Future leaks are detected by perturbation in float64:
batch row j + 1 changes only key (token) j, row 0 is the baseline, and every output at a
position i < j must stay equal (|diff| <= 1e-9, where a correct implementation gives
~1e-16). The first leaking (query, key) pair is reported. Correctness otherwise is judged
against the reference (`solutions/`), and a failure is explained by the known mistake
(grader/diagnosis/variants.py) whose output matches the student's.
"""

from __future__ import annotations

import pytest
import torch

from grader.diagnosis.variants import matching, model_forward_matching
from grader.suite.checks import (
    check_broadcasts,
    check_close,
    check_tensor,
    fail,
)
from grader.suite.working import require_working
from grader.suites.hidden._masks import (
    F64_ATOL,
    F64_RTOL,
    LEAK_FUNCTIONS,
    _causal_mask_args,
    _check_mask,
    _leak_pairs,
    _lengths_mask,
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
