"""TinyLM (exercises/tinylm.py) and the grader's trusted copy (grader/sandbox/models.py)."""

from __future__ import annotations

import json

import pytest
import torch

import exercises.masks
from exercises.tinylm import TinyLM, TinyLMConfig
from grader import trusted_tinylm as trusted
from solutions import masks as ref

CFG = TinyLMConfig(vocab_size=24, max_seq_len=12, d_model=32, n_heads=2, n_layers=2, causal=True)
BIDI = TinyLMConfig(**{**CFG.__dict__, "causal": False})
IDS = torch.tensor([[3, 17, 8, 20, 1, 0, 9, 9, 14, 2], [5, 5, 2, 20, 11, 0, 7, 14, 23, 6]])


def _ref_model(config: TinyLMConfig = CFG, seed: int = 0) -> TinyLM:
    return TinyLM(
        config, mask_fn=ref.build_attention_mask, attention_fn=ref.masked_attention, seed=seed
    )


def _same_weights(a: torch.nn.Module, b: torch.nn.Module) -> bool:
    sa, sb = a.state_dict(), b.state_dict()
    return sa.keys() == sb.keys() and all(torch.equal(sa[k], sb[k]) for k in sa)


# ----------------------------------------------------------------------------- config, init


@pytest.mark.parametrize(
    "change",
    [
        {"d_model": 30, "n_heads": 4},
        {"vocab_size": 0},
        {"n_layers": 0},
        {"dropout": 1.0},
        {"max_seq_len": 2.5},
        {"causal": 1},
    ],
)
def test_config_rejects_bad_values(change: dict) -> None:
    with pytest.raises(ValueError):
        TinyLMConfig(**{**CFG.__dict__, **change})


def test_config_is_frozen() -> None:
    with pytest.raises(AttributeError):
        CFG.causal = False  # type: ignore[misc]


def test_same_seed_same_weights_and_global_rng_untouched() -> None:
    state = torch.get_rng_state()
    a, b, c = _ref_model(seed=7), _ref_model(seed=7), _ref_model(seed=8)
    assert torch.equal(torch.get_rng_state(), state)
    assert _same_weights(a, b)
    assert not _same_weights(a, c)
    assert a.seed == 7 and a.max_seq_len == 12 and isinstance(a.max_seq_len, int)


def test_seed_none_draws_a_fresh_seed() -> None:
    state = torch.get_rng_state()
    a, b = TinyLM(CFG), TinyLM(CFG)
    assert torch.equal(torch.get_rng_state(), state)
    assert a.seed != b.seed and not _same_weights(a, b)
    assert _same_weights(TinyLM(CFG, seed=a.seed), a)


def test_forward_shape_and_order_one_logits() -> None:
    logits = _ref_model()(IDS)
    assert logits.shape == (2, 10, 24) and logits.dtype == torch.float32
    assert 0.3 < logits.std().item() < 5.0  # "order 1" at initialisation


# ----------------------------------------------------------------------------- leaks, padding


@pytest.mark.parametrize("t", [0, 4, 8])
def test_causal_model_has_no_future_leak(t: int) -> None:
    model = _ref_model().double()
    other = IDS.clone()
    other[:, t + 1 :] = (other[:, t + 1 :] + 5) % 24  # every later token changes
    a, b = model(IDS), model(other)
    torch.testing.assert_close(a[:, : t + 1], b[:, : t + 1], atol=1e-12, rtol=0)
    assert (a[:, t + 1 :] - b[:, t + 1 :]).abs().max() > 1e-3


def test_bidirectional_model_sees_the_future() -> None:
    model = _ref_model(BIDI).double()
    other = IDS.clone()
    other[:, 5:] = (other[:, 5:] + 5) % 24
    assert (model(IDS)[:, :5] - model(other)[:, :5]).abs().max() > 1e-3


@pytest.mark.parametrize("config", [CFG, BIDI], ids=["causal", "bidirectional"])
def test_padding_tokens_are_invisible(config: TinyLMConfig) -> None:
    model = _ref_model(config).double()
    mask = torch.tensor([[1] * 10, [1] * 6 + [0] * 4])
    other = IDS.clone()
    other[1, 6:] = torch.tensor([0, 1, 2, 3])  # change only the padding
    a, b = model(IDS, mask), model(other, mask)
    torch.testing.assert_close(a[:, :6], b[:, :6], atol=1e-12, rtol=0)
    torch.testing.assert_close(a[0], b[0], atol=1e-12, rtol=0)


def test_too_long_or_malformed_input_raises_value_error() -> None:
    model = _ref_model()
    with pytest.raises(ValueError, match="max_seq_len=12"):
        model(torch.zeros(1, 13, dtype=torch.long))
    with pytest.raises(ValueError):
        model(torch.zeros(12, dtype=torch.long))
    assert model(torch.zeros(1, 12, dtype=torch.long)).shape == (1, 12, 24)


# ----------------------------------------------------------------------------- student mode


def test_student_mode_uses_exercises_masks_at_call_time(monkeypatch: pytest.MonkeyPatch) -> None:
    model = TinyLM(CFG, seed=0)  # mask_fn / attention_fn resolved from exercises.masks
    with pytest.raises(NotImplementedError, match=r"^Task 1\.3"):
        model(IDS)
    monkeypatch.setattr(exercises.masks, "build_attention_mask", ref.build_attention_mask)
    with pytest.raises(NotImplementedError, match=r"^Task 1\.4"):
        model(IDS)
    monkeypatch.setattr(exercises.masks, "masked_attention", ref.masked_attention)
    torch.testing.assert_close(model(IDS), _ref_model(seed=0)(IDS), atol=0, rtol=0)


def test_functions_can_be_swapped_on_a_built_model() -> None:
    model = _ref_model()
    calls = []

    def spy(q, k, v, mask):  # noqa: ANN001, ANN202
        calls.append(tuple(q.shape))
        return ref.masked_attention(q, k, v, mask)

    model.attention_fn = spy
    model(IDS)
    assert calls == [(2, 2, 10, 16)] * CFG.n_layers


# ----------------------------------------------------------------------------- trusted side


def _random_qkv(dtype: torch.dtype, tq: int = 5, tk: int = 7) -> tuple[torch.Tensor, ...]:
    g = torch.Generator().manual_seed(0)
    q = torch.randn(2, 3, tq, 4, generator=g).to(dtype)
    k = torch.randn(2, 3, tk, 4, generator=g).to(dtype)
    v = torch.randn(2, 3, tk, 4, generator=g).to(dtype)
    return q, k, v


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.float16, torch.bfloat16])
def test_trusted_attention_equals_the_reference(dtype: torch.dtype) -> None:
    q, k, v = _random_qkv(dtype)
    mask = torch.rand(2, 1, 5, 7, generator=torch.Generator().manual_seed(1)) < 0.5
    mask[0, 0, 1] = False  # one fully-masked row
    for m in (None, mask, ref.causal_mask(5, 7)):
        for got, want in zip(
            trusted.trusted_attention(q, k, v, m), ref.masked_attention(q, k, v, m), strict=True
        ):
            assert got.dtype == want.dtype == dtype
            assert torch.equal(got, want)


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("padded", [True, False])
def test_trusted_mask_equals_the_reference(causal: bool, padded: bool) -> None:
    am = torch.tensor([[0, 1, 1, 1], [1, 1, 0, 0]]) if padded else None
    got = trusted.trusted_mask(am, 4, causal)
    want = ref.build_attention_mask(am, 4, causal)
    assert got.dtype == torch.bool and got.shape == want.shape and torch.equal(got, want)


def test_build_trusted_model_matches_a_reference_model() -> None:
    model = trusted.build_trusted_model(CFG, seed=3)
    assert not model.training
    assert torch.equal(model(IDS), _ref_model(seed=3)(IDS))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("training", [True, False])
def test_spec_round_trip(dtype: torch.dtype, training: bool) -> None:
    model = trusted.build_trusted_model(BIDI, seed=5).to(dtype).train(training)
    header, tensors = trusted.model_to_spec(model)
    header = json.loads(json.dumps(header))  # JSON-able
    rebuilt = trusted.model_from_spec(header, tensors)
    assert rebuilt.training is training and rebuilt.config == BIDI
    assert rebuilt.tok_emb.weight.dtype == dtype
    assert rebuilt.mask_fn is trusted.trusted_mask
    assert _same_weights(rebuilt, model)
    tensors["lm_head.weight"].zero_()  # the rebuilt model does not alias the spec
    assert torch.equal(rebuilt.eval()(IDS), model.eval()(IDS))


def test_spec_rebuild_with_other_functions() -> None:
    header, tensors = trusted.model_to_spec(trusted.build_trusted_model(CFG, seed=5))
    rebuilt = trusted.model_from_spec(
        header, tensors, mask_fn=ref.build_attention_mask, attention_fn=ref.masked_attention
    )
    assert rebuilt.mask_fn is ref.build_attention_mask
    assert rebuilt.attention_fn is ref.masked_attention


def test_bad_specs_are_refused() -> None:
    header, tensors = trusted.model_to_spec(trusted.build_trusted_model(CFG, seed=5))
    huge = {**header, "config": {**header["config"], "vocab_size": 10**7, "d_model": 1024}}
    bad_headers = [
        {**header, "format": "pickle"},
        {**header, "config": {**header["config"], "extra": 1}},
        {**header, "config": {**header["config"], "n_heads": 5}},
        {**header, "training": "yes"},
        huge,
    ]
    for bad in bad_headers:
        with pytest.raises(ValueError):
            trusted.model_from_spec(bad, tensors)
    for bad_tensors in [
        {k: v for k, v in tensors.items() if k != "lm_head.weight"},
        {**tensors, "lm_head.weight": torch.zeros(3, 3)},
        {**tensors, "lm_head.weight": tensors["lm_head.weight"].to(torch.float64)},
        {**tensors, "lm_head.weight": tensors["lm_head.weight"].to(torch.int64)},
    ]:
        with pytest.raises(ValueError):
            trusted.model_from_spec(header, bad_tensors)
    with pytest.raises(TypeError):
        trusted.model_to_spec(torch.nn.Linear(2, 2))


def test_standard_models_are_fixed() -> None:
    first, second = trusted.standard_models(), trusted.standard_models()
    assert sorted(first) == ["bidirectional", "causal"]
    for name, model in first.items():
        assert model is not second[name] and _same_weights(model, second[name])
        assert not model.training and model.max_seq_len == 12
        assert model.config == (CFG if name == "causal" else BIDI)
    # same weights, only the mask differs
    assert _same_weights(first["causal"], first["bidirectional"])
