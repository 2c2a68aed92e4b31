"""Helpers of the Part A hidden tests (test_masks.py): inputs, leak probes, mask checks."""

from __future__ import annotations

import pytest
import torch

from grader.diagnosis import evidence
from grader.diagnosis.variants import matching
from grader.suite.checks import (
    check_close,
    check_tensor,
    check_tuple,
    fail,
    show,
)

LEAK_ATOL = 1e-9  # rows of one call: a correct implementation moves by ~1e-16


# a leak test pays only working functions: a mask that hides everything never leaks
LEAK_FUNCTIONS = {
    "mask": ("masks.build_attention_mask",),
    "attention": ("masks.masked_attention",),
    "attention_large_scores": ("masks.masked_attention",),
    "model": ("masks.build_attention_mask", "masks.masked_attention"),
}


# float64 values vs the reference: loose enough for an implementation that computes in float32
# internally (the contract only fixes the output dtype); every mistake differs by >= 1e-3
F64_RTOL, F64_ATOL = 1e-5, 1e-6


def _points(n: float):
    return pytest.mark.points(n)


def _gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _qkv(batch, heads, q_len, k_len, dim, *, seed, dtype=torch.float64, scale=1.0):
    B, H, Tq, Tk, D = batch, heads, q_len, k_len, dim
    g = _gen(seed)
    q = torch.randn(B, H, Tq, D, generator=g, dtype=torch.float64) * scale
    k = torch.randn(B, H, Tk, D, generator=g, dtype=torch.float64) * scale
    v = torch.randn(B, H, Tk, D, generator=g, dtype=torch.float64)
    return q.to(dtype), k.to(dtype), v.to(dtype)


def _lengths_mask(lengths: list[int], seq_len: int, side: str, dtype=torch.int64) -> torch.Tensor:
    T = seq_len
    t = torch.arange(T)[None, :]
    n = torch.tensor(lengths)[:, None]
    real = t < n if side == "right" else t >= T - n
    return real.to(dtype)


def _first_mask_difference(got: torch.Tensor, want: torch.Tensor) -> tuple[int, ...]:
    return tuple((got != want).nonzero()[0].tolist())


def _check_mask(got, want, *, what, function, args, project=None, full_shape=None, reveal=True):
    """A bool mask equal to the reference (after `project`), explained in query/key terms
    (``reveal=False``: the message names the first wrong (query, key) entry but never shows
    the expected mask - the masks' small size space could repeat for a later submission)."""
    check_tensor(got, what=what, dtype=torch.bool)
    project = project or (lambda x: x)
    try:
        g = project(got)
    except (RuntimeError, ValueError):
        fail(
            f"{what} returned shape {tuple(got.shape)}, which does not broadcast to "
            f"{tuple(full_shape or want.shape)}: {show(got)}",
            matching(function, got, args, want=want, project=project),
        )
    w = project(want)
    if tuple(g.shape) != tuple(w.shape):
        fail(
            f"{what} returned shape {tuple(got.shape)}; expected {tuple(want.shape)}: {show(got)}",
            matching(function, got, args, want=want),
        )
    if torch.equal(g, w):  # a passing comparison refutes the models that differ here
        evidence.defer(lambda: matching(function, got, args, want=want, project=project))
        return
    idx = _first_mask_difference(g, w)
    qi, kj = idx[-2], idx[-1]
    where = f" in batch row {idx[0]}" if len(idx) == 4 else ""
    counts = f"{int((g != w).sum())} of {g.numel()} entries differ"
    if len(idx) == 4 and w.shape[-2] == 1:  # a key-padding mask (B, 1, 1, T)
        kind = "a real token (True)" if bool(w[idx]) else "padding (False)"
        msg = (f"{what} is wrong: key {kj} of sequence {idx[0]} is {kind}, but your mask says "
               f"{bool(g[idx])} ({counts}).")  # fmt: skip
    else:
        expect = "may attend" if bool(w[idx]) else "must NOT attend"
        msg = (f"{what} is wrong{where}: query {qi} {expect} key {kj} ({counts}).")  # fmt: skip
    if reveal and w.numel() <= 64:
        msg += f"\n  expected: {show(want)}\n  got:      {show(got)}"
    elif w.numel() <= 64:
        msg += f"\n  got: {show(got)}"
    fail(msg, matching(function, got, args, want=want, project=project))


def _causal_mask_args(case: str, cases) -> tuple[int, ...]:
    """The sizes of a causal_mask case, drawn per submission (the id names the kind: square,
    a KV cache with Tq < Tk, one query, more queries than keys); 1x1 is the one fixed case."""
    draw = lambda what, lo, hi: cases.integer(f"masks.causal_mask/{case}/{what}", lo, hi)  # noqa: E731
    if case == "1x1":
        return (1,)
    if case == "5x5":
        return (draw("T", 4, 9),)
    if case == "kv_cache_2x5":
        q = draw("Tq", 2, 4)
        return (q, q + draw("extra", 2, 5))
    if case == "kv_cache_1x6":
        return (1, draw("Tk", 4, 9))
    q = draw("Tq", 4, 7)
    return (q, draw("Tk", 2, q))


def _leak_pairs(out: torch.Tensor, pos_axis: int, *, atol: float = LEAK_ATOL):
    """(query, key) pairs that leak: row j+1 changed key j; outputs at i < j must not move.

    ``out`` has the perturbation batch first (row 0 = baseline) and positions on ``pos_axis``.
    """
    T = out.shape[pos_axis]
    pairs = []
    base = out[0]
    for j in range(1, T):
        diff = (out[j + 1] - base).abs()
        other = [d for d in range(diff.dim()) if d != pos_axis - 1]
        per_pos = diff.amax(dim=other) if other else diff
        for i in range(j):
            if not bool(per_pos[i] <= atol):  # NaN counts as a leak
                pairs.append((i, j, float(per_pos[i])))
    return sorted(pairs)


def _report_leaks(pairs, what: str, diagnoses=()):
    if not pairs:
        return
    i, j, size = pairs[0]
    more = f" ({len(pairs)} leaking pairs in all)" if len(pairs) > 1 else ""
    fail(
        f"{what}: future information leaks. Changing only the token at position {j} changed "
        f"the output at position {i} (by {size:.3g}); a causal model at position {i} must not "
        f"see position {j} > {i}. First leaking (query, key) pair: ({i}, {j}){more}.",
        diagnoses,
    )


def _perturbed_qkv(seq_len: int, *, dim: int = 4, heads: int = 2, seed: int = 11,
                   designed: bool = False):  # fmt: skip
    """(T + 1, H, T, D) float64 q, k, v; row j + 1 differs from row 0 only at key j."""
    T, D, H = seq_len, dim, heads
    if designed:  # future keys score far higher (~ +1e5) than allowed ones (~ -1e5)
        pos = torch.arange(T, dtype=torch.float64)
        c = 2e5**0.5
        q1 = torch.stack([torch.ones(T, dtype=torch.float64), -(pos + 0.5)], -1) * c
        k1 = torch.stack([pos, torch.ones(T, dtype=torch.float64)], -1) * c
        q = q1.expand(1, H, T, 2).clone()
        k = k1.expand(1, H, T, 2).clone()
        v = torch.randn(1, H, T, 2, generator=_gen(seed), dtype=torch.float64)
    else:
        q, k, v = _qkv(1, H, T, T, D, seed=seed)
    q, k, v = (x.repeat(T + 1, 1, 1, 1) for x in (q, k, v))
    g = _gen(seed + 1)
    for j in range(T):
        k[j + 1, :, j] += torch.randn(k.shape[1], k.shape[-1], generator=g, dtype=torch.float64)
        shift = torch.rand(v.shape[1], v.shape[-1], generator=g, dtype=torch.float64)
        v[j + 1, :, j] += 10.0 + shift
    return q, k, v


def _pad_perturbed(am: torch.Tensor, seq_len: int):
    T = seq_len
    """For each pad key (b, j): one extra batch row that differs from row b only at key j."""
    rows, pads = [], []
    for b in range(am.shape[0]):
        for j in range(T):
            if not bool(am[b, j]):
                rows.append(b)
                pads.append(j)
    return rows, pads


def _padding_changes(am: torch.Tensor, rows: list[int], pads: list[int], delta) -> list:
    """(query, padding key, sequence) of every real query whose output moved when its row's
    copy (`rows[r]`, padding position `pads[r]` changed) was run: `delta(r, b, q)` is the
    difference of the two outputs at query `q`."""
    return [
        (qi, j, b)
        for r, (b, j) in enumerate(zip(rows, pads, strict=True))
        for qi in range(am.shape[1])
        if bool(am[b, qi]) and not bool(delta(r, b, qi).abs().max() <= 1e-9)
    ]


def _attention_case(name: str, cases, dtype=torch.float64):
    """q, k, v drawn per submission (their values are shown on failure), designed masks."""
    seed = cases.seed(f"masks.attention/{name}")
    if name == "no_mask":
        q, k, v = _qkv(2, 2, 3, 5, 4, seed=seed, dtype=dtype)
        return q, k, v, None
    if name == "causal":
        q, k, v = _qkv(2, 2, 5, 5, 3, seed=seed, dtype=dtype)
        return q, k, v, torch.ones(5, 5, dtype=torch.bool).tril()[None, None]
    if name == "padded":
        q, k, v = _qkv(3, 2, 6, 6, 4, seed=seed, dtype=dtype)
        am = _lengths_mask([6, 4, 2], 6, "right")
        keys = (am != 0)[:, None, None, :]
        return q, k, v, keys & torch.ones(6, 6, dtype=torch.bool).tril()
    if name == "tq_ne_tk":
        q, k, v = _qkv(2, 3, 2, 5, 4, seed=seed, dtype=dtype)
        i, j = torch.arange(2)[:, None], torch.arange(5)[None, :]
        return q, k, v, (j <= i + 3)  # 2-D mask, bottom-right aligned
    if name == "seq1_batch1":
        q, k, v = _qkv(1, 1, 1, 1, 2, seed=seed, dtype=dtype)
        return q, k, v, torch.ones(1, 1, dtype=torch.bool)
    raise ValueError(name)


def _close_scores_bf16_qkv() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Designed, fixed bfloat16 q, k, v (1, 1, T, 2) whose scores near 200 differ by ~0.5."""
    q = torch.tensor([[20.0, 1.0], [20.0, -1.0]], dtype=torch.bfloat16)  # (Tq=2, D=2)
    k = torch.tensor(
        [[15.0, 0.0], [15.0, 0.75], [15.0, -0.75], [14.9375, 0.5]], dtype=torch.bfloat16
    )  # (Tk=4, D=2); every value exact in bfloat16
    # (Tk=4, D=2) like q and k, as the contract requires; distinct rows, exact in bfloat16
    v = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 2.0]], dtype=torch.bfloat16)
    return q[None, None], k[None, None], v[None, None]


def _overflowing_f16_qkv() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Fixed float16 q, k, v (1, 3, 4, 16) whose scores q k^T are too large for float16."""
    g = _gen(9)
    # head 0: q.k in [6e2, 1.6e3] (fine in float16, but exp() of the scores overflows float32);
    # head 1: q.k in [5.7e4, 1.6e5] (overflows float16 itself)
    size = torch.tensor([10.0, 100.0]).view(1, 2, 1, 1)
    q = (size * (0.6 + 0.4 * torch.rand(1, 2, 4, 16, generator=g))).half()
    k = (size * (0.6 + 0.4 * torch.rand(1, 2, 4, 16, generator=g))).half()
    v = torch.randn(1, 2, 4, 16, generator=g).half()
    # head 2: head 1 x 2.5 with q negated, so every scaled score (q.k / 4) lies in [-2.5e5,
    # -8.9e4], below -65504: a masked score filled with float16's lowest value (-65504) in a
    # float32 computation outscores every allowed key
    q = torch.cat([q, (-2.5 * q[:, 1:2].float()).half()], dim=1)
    k = torch.cat([k, (2.5 * k[:, 1:2].float()).half()], dim=1)
    v = torch.cat([v, v[:, 1:2]], dim=1)
    return q, k, v


def _check_attention(student, reference, q, k, v, mask, *, what, rtol, atol, reveal=True,
                     check_dtype=True):  # fmt: skip
    got = _pair(student.masks.masked_attention(q, k, v, mask), "masked_attention")
    want = reference.masks.masked_attention(q, k, v, mask)
    args = (q, k, v, mask)
    diag = lambda: matching(  # noqa: E731
        "masks.masked_attention", got, args, want=want, rtol=rtol, atol=atol
    )
    check_close(got[1], want[1], what=f"attention weights ({what})", rtol=rtol, atol=atol,
                diagnose=diag, reveal=reveal, check_dtype=check_dtype)  # fmt: skip
    check_close(got[0], want[0], what=f"attention output ({what})", rtol=rtol, atol=atol,
                diagnose=diag, reveal=reveal, check_dtype=check_dtype)  # fmt: skip
    return got


def _nan_without_empty_rows(student, q, k, v, go) -> bool:
    """Whether the gradients are NaN/inf even under a causal mask alone (every query keeps
    its own key): then the NaN does not come from fully-masked rows, and a hint about them
    would contradict what was observed. One extra call, made only after a NaN gradient."""
    from grader.sandbox.client import StudentError

    causal = torch.ones(q.size(-2), k.size(-2), dtype=torch.bool).tril()
    try:
        _, grads = student.masks.masked_attention.backward(
            q, k, v, causal, grad_wrt=(0, 1, 2), grad_output=go
        )
    except StudentError:
        return False  # nothing observed: the failing call's own message stands
    return any(g is not None and not torch.isfinite(g).all() for g in grads)


def _nan_gradient_cause(student, q, k, v, go) -> str:
    if student.once(("masks.nan_without_empty_rows",),
                    lambda: _nan_without_empty_rows(student, q, k, v, go)):  # fmt: skip
        return (
            ". They are NaN/inf even with a plain causal mask, where every query has an "
            "allowed key: look for an operation whose derivative is infinite (sqrt or "
            "log of 0, a division by 0) rather than at the fully-masked rows"
        )
    return ""


def _nan_gradient_ids(student, q, k, v, go, out, w) -> list[str]:
    """The misconception a NaN gradient points to, only where its premise was observed."""
    if student.once(("masks.nan_without_empty_rows",),
                    lambda: _nan_without_empty_rows(student, q, k, v, go)):  # fmt: skip
        return []
    if bool(torch.isfinite(out).all() and torch.isfinite(w).all()):
        return ["nan_gradient_on_empty_rows"]  # the forward NaN was removed afterwards
    return ["nan_on_empty_rows"]


def _pair(out, what: str):
    """A (output, weights) pair, or a clear failure (never an unpacking error)."""
    return check_tuple(out, 2, what=what, names="(output, weights)")
