"""Every clause of the exercise contract (shared/design/exercises.md) holds for solutions/.

Statistical assertions use Hoeffding bands: for n independent draws of a probability p,
P(|freq - p| >= eps) <= 2 exp(-2 n eps^2), so eps(n) = sqrt(ln(2 / DELTA) / (2 n)) fails a
correct implementation with probability <= DELTA = 1e-7. This file makes 6 such assertions
(4 in test_mlm_proportions, 2 in test_temperature_frequencies) plus one coverage check whose
failure probability is below 1e-9 (see test_random_replacements_cover_ordinary_ids), so
the chance that a correct implementation fails any of them is below 6e-7 + 1e-9 < 1e-6. (With
the fixed seeds used here the outcome is of course deterministic; the bound says how unlucky
a seed would have to be.)
"""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from exercises.tinylm import TinyLM, TinyLMConfig
from grader.trusted_tinylm import standard_models
from solutions import corruption, generation, losses, masks

DELTA = 1e-7


def _eps(n: int) -> float:
    return math.sqrt(math.log(2 / DELTA) / (2 * n))


def _gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _randn(*shape: int, seed: int = 0, dtype: torch.dtype = torch.float64) -> Tensor:
    return torch.randn(*shape, generator=_gen(seed), dtype=torch.float64).to(dtype)


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


# ============================================================================ Part C: losses


def _naive_ce(logits: Tensor, target: int) -> Tensor:
    m = logits.max()
    return m + (logits - m).exp().sum().log() - logits[target]


def _naive_clm(logits: Tensor, ids: Tensor, mask: Tensor | None = None) -> Tensor:
    terms = [
        _naive_ce(logits[b, t].double(), int(ids[b, t + 1]))
        for b in range(ids.size(0))
        for t in range(ids.size(1) - 1)
        if mask is None or mask[b, t + 1]
    ]
    return torch.stack(terms).mean()


def _naive_mlm(logits: Tensor, labels: Tensor) -> Tensor:
    terms = [
        _naive_ce(logits[b, t].double(), int(labels[b, t]))
        for b in range(labels.size(0))
        for t in range(labels.size(1))
        if labels[b, t] != -100
    ]
    return torch.stack(terms).mean()


B, T, V = 3, 6, 7
IDS = (1 + 2 * torch.arange(B)[:, None] + 3 * torch.arange(T)[None]) % V
RIGHT = torch.tensor([[1] * 6, [1] * 4 + [0] * 2, [1] * 2 + [0] * 4])
LEFT = RIGHT.flip(1)


@pytest.mark.parametrize(
    "mask", [None, RIGHT, LEFT, RIGHT.bool()], ids=["none", "right", "left", "bool"]
)
def test_clm_matches_the_definition(mask: Tensor | None) -> None:
    logits = _randn(B, T, V, seed=1) * 3
    got = losses.causal_lm_loss(logits, IDS, mask)
    assert got.dim() == 0 and got.dtype == torch.float64
    torch.testing.assert_close(got, _naive_clm(logits, IDS, mask), rtol=1e-12, atol=1e-12)


def test_clm_is_a_token_level_mean_judged_on_targets() -> None:
    logits = _randn(B, T, V, seed=2)
    per_token = [
        [_naive_ce(logits[b, t], int(IDS[b, t + 1])) for t in range(T - 1)] for b in range(B)
    ]
    # row 1 has 4 real tokens: targets 1..3 count, the pair (token 3 -> padding 4) does not
    counted = per_token[0] + per_token[1][:3] + per_token[2][:1]
    got = losses.causal_lm_loss(logits, IDS, RIGHT)
    torch.testing.assert_close(got, torch.stack(counted).mean(), rtol=1e-12, atol=1e-12)
    per_sequence = torch.stack(
        [torch.stack(per_token[0]).mean(), torch.stack(per_token[1][:3]).mean(), per_token[2][0]]
    ).mean()
    assert not torch.isclose(got, per_sequence)


def test_clm_padding_id_equal_to_eos_still_counts_real_eos() -> None:
    eos = 6
    ids = IDS.clone()
    ids[1, 3] = eos  # the real last token of row 1 is eos, followed by eos-as-padding
    ids[1, 4:] = eos
    logits = _randn(B, T, V, seed=3)
    got = losses.causal_lm_loss(logits, ids, RIGHT)
    torch.testing.assert_close(got, _naive_clm(logits, ids, RIGHT), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_clm_nothing_to_count_gives_a_differentiable_zero(dtype: torch.dtype) -> None:
    for logits, ids, mask in [
        (torch.zeros(2, 1, V, dtype=dtype), IDS[:2, :1], None),  # T == 1
        (
            torch.zeros(2, 4, V, dtype=dtype),
            IDS[:2, :4],
            torch.tensor([[1, 0, 0, 0], [0, 0, 0, 0]]),
        ),
    ]:
        logits.requires_grad_()
        got = losses.causal_lm_loss(logits, ids, mask)
        assert got.item() == 0.0 and got.dtype == torch.float32 and got.requires_grad
        got.backward()
        assert (logits.grad == 0).all()


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_logits_are_reduced_in_float32(dtype: torch.dtype) -> None:
    logits = (_randn(B, T, V, seed=4) * 3).to(dtype)
    got = losses.causal_lm_loss(logits, IDS, RIGHT)
    assert got.dtype == torch.float32
    torch.testing.assert_close(
        got, losses.causal_lm_loss(logits.float(), IDS, RIGHT), rtol=1e-6, atol=1e-6
    )
    labels = torch.where(RIGHT.bool(), IDS, -100)
    got = losses.masked_lm_loss(logits, labels)
    assert got.dtype == torch.float32
    torch.testing.assert_close(
        got, losses.masked_lm_loss(logits.float(), labels), rtol=1e-6, atol=1e-6
    )


def test_large_logits_are_stable() -> None:
    logits64 = _randn(B, T, V, seed=5) * 1e4
    for fn, args in [
        (losses.causal_lm_loss, (IDS, RIGHT)),
        (losses.masked_lm_loss, (torch.where(RIGHT.bool(), IDS, -100),)),
    ]:
        got = fn(logits64.float(), *args)
        assert torch.isfinite(got)
        torch.testing.assert_close(got.double(), fn(logits64, *args), rtol=1e-6, atol=0)


def test_clm_gradients_match_the_definition() -> None:
    logits = (_randn(B, T, V, seed=6) * 2).requires_grad_()
    losses.causal_lm_loss(logits, IDS, LEFT).backward()
    want = logits.detach().clone().requires_grad_()
    _naive_clm(want, IDS, LEFT).backward()
    torch.testing.assert_close(logits.grad, want.grad, rtol=1e-10, atol=1e-12)


def test_losses_are_invariant_to_duplicating_the_batch() -> None:
    logits = _randn(B, T, V, seed=7)
    once = losses.causal_lm_loss(logits, IDS, RIGHT)
    twice = losses.causal_lm_loss(logits.repeat(2, 1, 1), IDS.repeat(2, 1), RIGHT.repeat(2, 1))
    torch.testing.assert_close(once, twice)


def test_losses_do_not_modify_inputs_and_check_shapes() -> None:
    logits, ids, mask = _randn(B, T, V, seed=8), IDS.clone(), RIGHT.clone()
    labels = torch.where(RIGHT.bool(), IDS, -100)
    copies = [t.clone() for t in (logits, ids, mask, labels)]
    losses.causal_lm_loss(logits, ids, mask)
    losses.masked_lm_loss(logits, labels)
    for before, after in zip(copies, (logits, ids, mask, labels), strict=True):
        assert torch.equal(before, after)
    with pytest.raises(ValueError):
        losses.causal_lm_loss(logits, ids[:, :-1])
    with pytest.raises(ValueError):
        losses.causal_lm_loss(logits, ids, mask[:, :-1])
    with pytest.raises(ValueError):
        losses.masked_lm_loss(logits, labels[:, :-1])


def test_mlm_loss_matches_the_definition_with_gradients() -> None:
    labels = torch.where((torch.arange(B * T).reshape(B, T) % 3) == 0, IDS, -100)
    logits = (_randn(B, T, V, seed=9) * 2).requires_grad_()
    got = losses.masked_lm_loss(logits, labels)
    got.backward()
    want_logits = logits.detach().clone().requires_grad_()
    want = _naive_mlm(want_logits, labels)
    want.backward()
    torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(logits.grad, want_logits.grad, rtol=1e-10, atol=1e-12)


def test_mlm_no_label_gives_a_differentiable_zero() -> None:
    logits = torch.zeros(B, T, V, requires_grad=True)
    got = losses.masked_lm_loss(logits, torch.full((B, T), -100))
    assert got.item() == 0.0 and got.dtype == torch.float32 and got.requires_grad
    got.backward()
    assert (logits.grad == 0).all()


# ============================================================================ Part D: generation


class Counter(nn.Module):
    """Predicts (last token + 1) mod V; refuses contexts longer than max_seq_len.

    Records, at each call, whether autograd was on and whether it was in train mode.
    """

    def __init__(self, vocab: int = 10, max_seq_len: int = 4) -> None:
        super().__init__()
        self.vocab, self.max_seq_len = vocab, max_seq_len
        self.drop = nn.Dropout(0.5)
        self.calls: list[tuple[int, bool, bool]] = []

    def forward(self, ids: Tensor) -> Tensor:
        if ids.size(1) > self.max_seq_len:
            raise IndexError("position table too small: the context was not cropped")
        self.calls.append((ids.size(1), torch.is_grad_enabled(), self.training))
        return 5.0 * F.one_hot((ids.long() + 1) % self.vocab, self.vocab).float()


class FirstPlusLast:
    """Not an nn.Module: predicts (first + last token of the context) mod V."""

    max_seq_len = 3

    def __call__(self, ids: Tensor) -> Tensor:
        nxt = (ids[:, :1] + ids[:, -1:]) % 10  # (B, 1)
        return F.one_hot(nxt, 10).float().expand(-1, ids.size(1), -1)


def test_greedy_known_output_batch_and_copy() -> None:
    prompt = torch.tensor([[1, 2], [7, 8]])
    out = generation.greedy_generate(Counter(), prompt, 5)
    assert out.tolist() == [[1, 2, 3, 4, 5, 6, 7], [7, 8, 9, 0, 1, 2, 3]]
    assert generation.greedy_generate(Counter(), torch.tensor([[4]]), 2).tolist() == [[4, 5, 6]]
    same = generation.greedy_generate(Counter(), prompt, 0)
    assert torch.equal(same, prompt) and same.data_ptr() != prompt.data_ptr()


def test_greedy_crops_the_context_to_its_last_max_seq_len_tokens() -> None:
    prompt = [[1, 2, 3, 4, 5]]  # longer than max_seq_len = 3
    ids = list(prompt[0])
    for _ in range(4):  # what cropping to the *last* 3 tokens must give
        ctx = ids[-3:]
        ids.append((ctx[0] + ctx[-1]) % 10)
    out = generation.greedy_generate(FirstPlusLast(), torch.tensor(prompt), 4)
    assert out.tolist() == [ids]
    model = Counter(max_seq_len=4)
    generation.greedy_generate(model, torch.tensor([[1, 2, 3, 4, 5, 6]]), 3)
    assert [length for length, _, _ in model.calls] == [4, 4, 4]


def test_greedy_on_a_tinylm_with_a_prompt_longer_than_max_seq_len() -> None:
    model = standard_models()["causal"]
    out = generation.greedy_generate(model, torch.arange(15)[None] % 24, 4)
    assert out.shape == (1, 19)


def test_eos_is_sticky_and_generation_stops_when_all_rows_finish() -> None:
    prompt = torch.tensor([[1, 2], [5, 6]])
    out = generation.greedy_generate(Counter(), prompt, 8, eos_token_id=4)
    # row 0 reaches 4 after two steps and stays there; row 1 reaches it after 8 steps
    assert out.tolist() == [[1, 2, 3, 4, 4, 4, 4, 4, 4, 4], [5, 6, 7, 8, 9, 0, 1, 2, 3, 4]]
    out = generation.greedy_generate(Counter(), prompt, 20, eos_token_id=4)
    assert out.shape == (2, 10)  # stopped early, once every row had produced eos
    out = generation.greedy_generate(Counter(), torch.tensor([[3, 4]]), 3, eos_token_id=4)
    assert out.tolist() == [[3, 4, 5, 6, 7]]  # an eos inside the prompt does not finish a row


@pytest.mark.parametrize("training", [True, False])
def test_generation_runs_in_eval_without_grad_and_restores_modes(training: bool) -> None:
    model = Counter().train(training)
    model.drop.train(not training)  # a mixed state must come back exactly
    prompt = torch.tensor([[1, 2]])
    for run in (
        lambda: generation.greedy_generate(model, prompt, 2),
        lambda: generation.sample_generate(model, prompt, 2, generator=_gen(0)),
        lambda: generation.prefix_consistency_gap(model, prompt),
    ):
        model.calls.clear()
        out = run()
        assert not out.requires_grad
        assert all(not grad and not train for _, grad, train in model.calls)
        assert model.training is training and model.drop.training is (not training)


def test_generation_keeps_prompt_dtype_and_does_not_modify_it() -> None:
    prompt = torch.tensor([[1, 2]], dtype=torch.int32)
    before = prompt.clone()
    out = generation.greedy_generate(Counter(), prompt, 3)
    assert out.dtype == torch.int32 and torch.equal(prompt, before)
    with pytest.raises(ValueError):
        generation.greedy_generate(Counter(), prompt, -1)
    with pytest.raises(ValueError):
        generation.greedy_generate(Counter(), torch.tensor([1, 2]), 1)


PROBS = torch.tensor([0.5, 0.3, 0.15, 0.05])
PERM = torch.tensor([2, 0, 3, 1])  # unsorted vocabulary order: id PERM[i] has PROBS[i]


def _unsorted_logits(rows: int) -> Tensor:
    logits = torch.empty(4)
    logits[PERM] = PROBS.log()
    return logits.expand(rows, 4)


def _support(**kwargs: object) -> set[int]:
    ids = generation.sample_next_token(_unsorted_logits(4000), generator=_gen(0), **kwargs)
    return set(ids.tolist())


def test_sampling_support_top_k_then_top_p() -> None:
    best, second, third = (int(PERM[i]) for i in range(3))
    assert _support() == set(PERM.tolist())
    assert _support(top_k=1) == {best}
    assert _support(top_k=2) == {best, second}
    assert _support(top_p=0.45) == {best}  # 0.5 alone reaches 0.45
    assert _support(top_p=0.6) == {best, second}  # the crossing token is kept
    assert _support(top_p=0.85) == {best, second, third}
    assert _support(top_p=1e-4) == {best}  # never empty
    # top-k first (renormalised 0.526, 0.316, 0.158), then top-p: 0.842 reaches 0.83
    assert _support(top_k=3, top_p=0.83) == {best, second}


def test_greedy_sampling_and_ties() -> None:
    logits = torch.tensor([[0.0, 2.0, 2.0, 1.0], [3.0, 1.0, 3.0, 0.0]])
    assert generation.sample_next_token(logits, temperature=0.0).tolist() == [1, 0]
    # top-k keeps every token tied with the k-th largest logit (as nanoGPT does)
    tied = generation.sample_next_token(logits[:1].expand(2000, 4), top_k=1, generator=_gen(0))
    assert set(tied.tolist()) == {1, 2}


def test_no_op_filters_draw_exactly_like_no_filter() -> None:
    logits = _unsorted_logits(500)
    plain = generation.sample_next_token(logits, generator=_gen(3))
    for kwargs in ({"top_k": 4}, {"top_k": 10}, {"top_p": 1.0}, {"top_p": 1.5}):
        assert torch.equal(generation.sample_next_token(logits, generator=_gen(3), **kwargs), plain)


def test_temperature_frequencies() -> None:
    n = 20_000
    ids = generation.sample_next_token(_unsorted_logits(n), temperature=2.0, generator=_gen(11))
    want = PROBS.sqrt() / PROBS.sqrt().sum()  # softmax(log p / 2) is proportional to sqrt(p)
    for i in (0, 2):  # 2 statistical assertions
        freq = (ids == PERM[i]).float().mean().item()
        assert abs(freq - want[i].item()) < _eps(n)


def test_sampling_uses_only_its_generator_and_validates() -> None:
    logits = _randn(8, 6, seed=1).float()
    before, state = logits.clone(), torch.get_rng_state()
    a = generation.sample_next_token(logits, top_k=3, top_p=0.9, generator=_gen(4))
    b = generation.sample_next_token(logits, top_k=3, top_p=0.9, generator=_gen(4))
    generation.sample_next_token(logits)  # generator=None must not use the global RNG either
    assert torch.equal(torch.get_rng_state(), state) and torch.equal(logits, before)
    assert torch.equal(a, b) and a.dtype == torch.int64 and a.shape == (8,)
    assert generation.sample_next_token(logits.half(), generator=_gen(4)).shape == (8,)
    for bad in ({"temperature": -1.0}, {"top_k": 0}, {"top_p": 0.0}, {"top_p": -0.5}):
        with pytest.raises(ValueError):
            generation.sample_next_token(logits, **bad)


def test_sample_generate_is_greedy_at_top_k_1_and_reproducible() -> None:
    model = standard_models()["causal"]
    prompt = torch.tensor([[5, 9, 2, 20], [11, 0, 7, 14]])
    greedy = generation.greedy_generate(model, prompt, 10)
    assert torch.equal(
        generation.sample_generate(model, prompt, 10, top_k=1, generator=_gen(0)), greedy
    )
    assert torch.equal(generation.sample_generate(model, prompt, 10, temperature=0.0), greedy)
    state = torch.get_rng_state()
    a = generation.sample_generate(model, prompt, 10, generator=_gen(1))
    b = generation.sample_generate(model, prompt, 10, generator=_gen(1))
    assert torch.equal(a, b) and torch.equal(torch.get_rng_state(), state)
    out = generation.sample_generate(
        Counter(), torch.tensor([[1, 2], [5, 6]]), 20, top_k=1, eos_token_id=4, generator=_gen(0)
    )
    assert out.tolist() == [[1, 2, 3, 4, 4, 4, 4, 4, 4, 4], [5, 6, 7, 8, 9, 0, 1, 2, 3, 4]]


def test_prefix_consistency_gap_separates_causal_from_bidirectional() -> None:
    zoo = standard_models()
    ids = torch.tensor([[(5 * i + 2) % 24 for i in range(12)]])
    causal = generation.prefix_consistency_gap(zoo["causal"], ids)
    bidirectional = generation.prefix_consistency_gap(zoo["bidirectional"], ids)
    assert causal.shape == bidirectional.shape == (12,)
    assert causal.dtype == bidirectional.dtype == torch.float32
    assert causal.max() < 1e-5
    assert bidirectional.max() > 1e-2 and bidirectional[-1] < 1e-5
    assert generation.prefix_consistency_gap(zoo["causal"].double(), ids).max() < 1e-10


def test_prefix_consistency_gap_with_dropout_in_train_mode() -> None:
    config = TinyLMConfig(
        vocab_size=24, max_seq_len=12, d_model=32, n_heads=2, n_layers=2, causal=True, dropout=0.3
    )
    model = TinyLM(
        config, mask_fn=masks.build_attention_mask, attention_fn=masks.masked_attention, seed=0
    ).train()
    gap = generation.prefix_consistency_gap(model, torch.arange(10)[None])
    assert gap.max() < 1e-5 and model.training  # measured in eval mode, mode restored


def test_prefix_consistency_gap_rejects_bad_input() -> None:
    model = standard_models()["causal"]
    with pytest.raises(ValueError):
        generation.prefix_consistency_gap(model, torch.zeros(2, 4, dtype=torch.long))
    with pytest.raises(ValueError):
        generation.prefix_consistency_gap(model, torch.zeros(1, 13, dtype=torch.long))
