"""Every clause of the exercise contract holds for solutions/: Parts C and D (losses,
generation). Parts A and B are in test_solutions_contract.py.

Statistical assertions use Hoeffding bands (`contract_helpers.eps`, failure probability <=
DELTA = 1e-7 each): 2 here, in test_temperature_frequencies; the budget of both files together
is in test_solutions_contract.py's docstring.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from contract_helpers import eps as _eps
from contract_helpers import gen as _gen
from contract_helpers import randn as _randn
from torch import Tensor, nn

from exercises.tinylm import TinyLM, TinyLMConfig
from grader.trusted_tinylm import standard_models
from solutions import generation, losses, masks

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
