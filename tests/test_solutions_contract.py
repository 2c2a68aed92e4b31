"""Every clause of the exercise contract holds for solutions/: Parts A and B (masks,
attention, corruption). Parts C and D are in test_solutions_contract_lm.py.

Statistical assertions use Hoeffding bands (`contract_helpers.eps`): each fails a correct
implementation with probability <= DELTA = 1e-7. This file makes 4 such assertions (in
test_mlm_proportions) plus one coverage check whose failure probability is below 1e-9 (see
test_random_replacements_cover_ordinary_ids), and test_solutions_contract_lm.py makes 2, so the
chance that a correct implementation fails any of them is below 6e-7 + 1e-9 < 1e-6. (With the
fixed seeds used here the outcome is of course deterministic; the bound says how unlucky a seed
would have to be.)
"""

from __future__ import annotations

import math

import pytest
import torch
from contract_helpers import eps as _eps
from contract_helpers import gen as _gen
from contract_helpers import randn as _randn
from torch import Tensor

from solutions import corruption, masks

# ============================================================================ Part A: masks


@pytest.mark.parametrize("n", [1, 2, 5])
def test_causal_mask_square_is_lower_triangular(n: int) -> None:
    m = masks.causal_mask(n)
    assert m.dtype == torch.bool and m.shape == (n, n)
    assert torch.equal(m, torch.ones(n, n, dtype=torch.bool).tril())


def test_causal_mask_rectangular_is_bottom_right_aligned() -> None:
    assert masks.causal_mask(1, 4).tolist() == [[True] * 4]
    assert masks.causal_mask(2, 5).tolist() == [[True] * 4 + [False], [True] * 5]
    # more queries than keys: the first rows sit at negative positions and see nothing
    assert masks.causal_mask(4, 2).tolist() == [
        [False, False],
        [False, False],
        [True, False],
        [True, True],
    ]
    assert masks.causal_mask(3, device="cpu").device.type == "cpu"
    with pytest.raises(ValueError):
        masks.causal_mask(-1)


def test_padding_mask_accepts_int_and_bool_and_masks_keys() -> None:
    am = torch.tensor([[1, 1, 0], [0, 1, 1]])
    m = masks.padding_mask(am)
    assert m.dtype == torch.bool and m.shape == (2, 1, 1, 3)
    assert torch.equal(m, masks.padding_mask(am.bool()))
    assert m[:, 0, 0].tolist() == [[True, True, False], [False, True, True]]
    with pytest.raises(ValueError):
        masks.padding_mask(torch.ones(3, dtype=torch.long))


def test_build_attention_mask_shapes_and_combinations() -> None:
    T = 4
    am = torch.tensor([[1, 1, 1, 0], [0, 1, 1, 1]])
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    keys = am.bool()[:, None, None, :]
    cases = {
        (None, True): causal.expand(1, 1, T, T),
        (None, False): torch.ones(1, 1, T, T, dtype=torch.bool),
        ("am", True): causal & keys,
        ("am", False): keys.expand(2, 1, T, T),
    }
    for (given, is_causal), want in cases.items():
        got = masks.build_attention_mask(am if given else None, T, is_causal)
        assert got.dtype == torch.bool and got.dim() == 4
        assert got.shape == want.shape and torch.equal(got, want)
    with pytest.raises(ValueError):
        masks.build_attention_mask(am, T + 1, True)


def test_padding_hides_keys_not_queries() -> None:
    m = masks.build_attention_mask(torch.tensor([[1, 1, 0]]), 3, causal=False)[0, 0]
    assert m[2].tolist() == [True, True, False]  # the padding *query* still has a row
    assert m[:, 2].tolist() == [False, False, False]  # nobody attends the padding *key*


# ============================================================================ Part A: attention


def _naive_attention(q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None) -> tuple[Tensor, Tensor]:
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    w = torch.softmax(scores, dim=-1)
    return w @ v, w


def _qkv(
    tq: int = 5, tk: int = 7, d: int = 4, dtype: torch.dtype = torch.float64, scale: float = 1.0
):
    return tuple(
        _randn(2, 3, t, d, seed=s, dtype=torch.float64).mul(scale).to(dtype)
        for s, t in enumerate((tq, tk, tk))
    )


@pytest.mark.parametrize("with_mask", [False, True])
def test_attention_matches_the_formula(with_mask: bool) -> None:
    q, k, v = _qkv()
    mask = masks.causal_mask(5, 7) if with_mask else None
    out, w = masks.masked_attention(q, k, v, mask)
    want_out, want_w = _naive_attention(q, k, v, mask)
    assert out.shape == (2, 3, 5, 4) and w.shape == (2, 3, 5, 7)
    torch.testing.assert_close(out, want_out, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(w, want_w, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(w.sum(-1), torch.ones(2, 3, 5, dtype=torch.float64))
    if with_mask:
        assert (w.masked_select(~mask.expand_as(w)) == 0).all()  # exactly zero


def test_rectangular_queries_match_the_last_rows_of_full_attention() -> None:
    q, k, v = _qkv(tq=7, tk=7)
    full_out, full_w = masks.masked_attention(q, k, v, masks.causal_mask(7))
    out, w = masks.masked_attention(q[:, :, -3:], k, v, masks.causal_mask(3, 7))
    torch.testing.assert_close(out, full_out[:, :, -3:], rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(w, full_w[:, :, -3:], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.float16, torch.bfloat16])
def test_fully_masked_rows_are_zero_with_finite_gradients(dtype: torch.dtype) -> None:
    q, k, v = (t.requires_grad_() for t in _qkv(tq=3, tk=3, dtype=dtype))
    # left padding + causal: query 0 of sequence 1 has no allowed key
    mask = masks.build_attention_mask(torch.tensor([[1, 1, 1], [0, 1, 1]]), 3, causal=True)
    out, w = masks.masked_attention(q, k, v, mask)
    assert out.dtype == w.dtype == dtype
    assert (out[1, :, 0] == 0).all() and (w[1, :, 0] == 0).all()
    assert torch.isfinite(out).all() and torch.isfinite(w).all()
    (out.float().sum() + w.float().sum()).backward()
    for t in (q, k, v):
        assert torch.isfinite(t.grad).all()


def test_all_padding_batch_row_is_finite() -> None:
    q, k, v = _qkv(tq=3, tk=3)
    mask = masks.build_attention_mask(torch.tensor([[0, 0, 0], [1, 1, 0]]), 3, causal=False)
    out, w = masks.masked_attention(q, k, v, mask)
    assert (out[0] == 0).all() and (w[0] == 0).all() and torch.isfinite(out).all()


@pytest.mark.parametrize(("dtype", "tol"), [(torch.float16, 1e-2), (torch.bfloat16, 5e-2)])
@pytest.mark.parametrize("scale", [1.0, 60.0])
def test_half_precision_is_finite_and_close_to_float32(
    dtype: torch.dtype, tol: float, scale: float
) -> None:
    # scale 60 makes |q.k| reach ~1e5: far beyond float16's 65504 if computed in half
    q, k, v = _qkv(d=16, dtype=dtype, scale=scale)
    v = v / scale
    mask = masks.causal_mask(5, 7)
    out, w = masks.masked_attention(q, k, v, mask)
    assert out.dtype == w.dtype == dtype
    assert torch.isfinite(out).all() and torch.isfinite(w).all()
    want_out, want_w = masks.masked_attention(q.float(), k.float(), v.float(), mask)
    torch.testing.assert_close(out.float(), want_out, atol=tol, rtol=tol)
    torch.testing.assert_close(w.float(), want_w, atol=tol, rtol=tol)


def test_padded_keys_have_no_influence() -> None:
    q, k, v = _qkv(tq=4, tk=4)
    mask = masks.build_attention_mask(torch.tensor([[1, 1, 1, 0], [1, 1, 1, 1]]), 4, causal=False)
    k2, v2 = k.clone(), v.clone()
    k2[0, :, 3] += 100.0
    v2[0, :, 3] -= 100.0
    torch.testing.assert_close(
        masks.masked_attention(q, k, v, mask)[0],
        masks.masked_attention(q, k2, v2, mask)[0],
        rtol=0,
        atol=0,
    )


def test_attention_does_not_modify_inputs_and_rejects_additive_masks() -> None:
    q, k, v = _qkv()
    mask = masks.causal_mask(5, 7)
    copies = [t.clone() for t in (q, k, v, mask)]
    masks.masked_attention(q, k, v, mask)
    for before, after in zip(copies, (q, k, v, mask), strict=True):
        assert torch.equal(before, after)
    with pytest.raises(TypeError):
        masks.masked_attention(q, k, v, mask.float())


# ============================================================================ Part B: corruption

PAD, CLS, SEP, MASK = 0, 1, 2, 3
SPECIALS = [PAD, CLS, SEP, MASK]


def _sentences(batch: int, length: int, vocab: int) -> Tensor:
    """[CLS] ordinary ids ... [SEP] [PAD] ..., with unequal lengths."""
    ids = 4 + (torch.arange(batch * length).reshape(batch, length) * 7919 % (vocab - 4))
    lengths = length - (torch.arange(batch) * 13 % (length // 4))  # (B,)
    pos = torch.arange(length).unsqueeze(0)
    ids[:, 0] = CLS
    ids = torch.where(pos == lengths[:, None] - 1, SEP, ids)
    return torch.where(pos >= lengths[:, None], PAD, ids)


def _corrupt(ids: Tensor, seed: int, vocab: int, p: float = 0.15) -> tuple[Tensor, Tensor]:
    return corruption.mask_tokens(
        ids,
        mask_token_id=MASK,
        vocab_size=vocab,
        special_token_ids=SPECIALS,
        mlm_probability=p,
        generator=_gen(seed),
    )


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mlm_invariants(seed: int) -> None:
    V = 50
    ids = _sentences(16, 32, V)
    inputs, labels = _corrupt(ids, seed, V, p=0.3)
    assert inputs.dtype == labels.dtype == torch.int64 and inputs.shape == labels.shape == ids.shape
    selected = labels != -100
    special = torch.isin(ids, torch.tensor(SPECIALS))
    assert selected.any() and not (selected & special).any()  # specials never selected
    assert torch.equal(labels[selected], ids[selected])  # original id where selected
    assert torch.equal(inputs[~selected], ids[~selected])  # untouched elsewhere
    replaced = selected & (inputs != ids) & (inputs != MASK)
    assert not torch.isin(inputs[replaced], torch.tensor(SPECIALS)).any()
    assert ((inputs >= 0) & (inputs < V)).all()


def test_mlm_does_not_modify_or_alias_its_input() -> None:
    for dtype in (torch.int64, torch.int32):
        ids = _sentences(4, 16, 30).to(dtype)
        before = ids.clone()
        inputs, labels = _corrupt(ids, 0, 30, p=1.0)
        assert torch.equal(ids, before)
        assert inputs.dtype == labels.dtype == torch.int64
        assert inputs.data_ptr() != ids.data_ptr() and labels.data_ptr() != ids.data_ptr()


def test_mlm_uses_only_its_generator() -> None:
    ids = _sentences(8, 32, 100)
    state = torch.get_rng_state()
    g = _gen(5)
    g_state = g.get_state()
    a = corruption.mask_tokens(
        ids, mask_token_id=MASK, vocab_size=100, special_token_ids=SPECIALS, generator=g
    )
    assert torch.equal(torch.get_rng_state(), state)
    assert not torch.equal(g.get_state(), g_state)  # it did draw from the generator
    b = _corrupt(ids, 5, 100)
    c = _corrupt(ids, 6, 100)
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])
    assert not torch.equal(a[1], c[1])
    corruption.mask_tokens(ids, mask_token_id=MASK, vocab_size=100, special_token_ids=SPECIALS)
    assert torch.equal(torch.get_rng_state(), state)  # generator=None: still not global


def test_mlm_proportions() -> None:
    V = 1000
    ids = _sentences(256, 400, V)
    inputs, labels = _corrupt(ids, 123, V)
    eligible = ~torch.isin(ids, torch.tensor(SPECIALS))
    selected = labels != -100
    n_eligible, n_selected = int(eligible.sum()), int(selected.sum())
    assert n_eligible > 80_000
    # 1. selection rate (n_eligible Bernoulli(0.15) draws)
    assert abs(n_selected / n_eligible - 0.15) < _eps(n_eligible)
    # 2-4. the 80/10/10 split among the selected; a random draw equals the original w.p. 1/996
    v_eff = V - len(SPECIALS)
    sel_in, sel_orig = inputs[selected], ids[selected]
    as_mask = (sel_in == MASK).float().mean().item()
    kept = (sel_in == sel_orig).float().mean().item()
    other = ((sel_in != MASK) & (sel_in != sel_orig)).float().mean().item()
    eps = _eps(n_selected)
    assert abs(as_mask - 0.8) < eps
    assert abs(kept - (0.1 + 0.1 / v_eff)) < eps
    assert abs(other - 0.1 * (1 - 1 / v_eff)) < eps


def test_random_replacements_cover_ordinary_ids() -> None:
    # V = 20 with 4 specials: 16 ordinary ids. With mlm_probability = 1 every one of the
    # n > 14,000 eligible tokens is selected and becomes random w.p. 0.1: fewer than 1,000
    # random draws has probability <= 2 exp(-2 n (0.1 - 1000/n)^2) < 3e-10 (Hoeffding), and one
    # of the 16 ids missing from 1,000 uniform draws has probability <= 16 (15/16)^1000 < 1e-26.
    V = 20
    ids = _sentences(128, 128, V)
    inputs, labels = _corrupt(ids, 9, V, p=1.0)
    assert int((labels != -100).sum()) > 14_000
    replaced = (labels != -100) & (inputs != MASK) & (inputs != ids)
    assert set(inputs[replaced].tolist()) == set(range(4, V))


def test_mlm_probability_edges_and_errors() -> None:
    ids = _sentences(4, 16, 30)
    inputs, labels = _corrupt(ids, 0, 30, p=0.0)
    assert torch.equal(inputs, ids) and (labels == -100).all()
    inputs, labels = _corrupt(ids, 0, 30, p=1.0)
    assert torch.equal(labels != -100, ~torch.isin(ids, torch.tensor(SPECIALS)))
    for p in (-0.1, 1.5):
        with pytest.raises(ValueError):
            _corrupt(ids, 0, 30, p=p)
    with pytest.raises(ValueError):
        corruption.mask_tokens(ids, mask_token_id=MASK, vocab_size=4, special_token_ids=SPECIALS)
