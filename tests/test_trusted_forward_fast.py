"""The fast forward `grader.trusted_tinylm` installs on TinyLM (`_fast_forward`) gives exactly
the original TinyLM.forward's logits (and gradients) on the trusted functions, and steps aside
whenever it could not: other mask or attention functions, dropout that draws, hooks on
submodules, unusual calls.

The ordinary path is reached with stand-ins for the trusted functions (the same maths in
another function object), so the fast path does not recognise them."""

from __future__ import annotations

import copy
import inspect

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from exercises.tinylm import TinyLM, TinyLMConfig
from grader import trusted_forward as tforward
from grader import trusted_tinylm as models
from grader.trusted_tinylm import (
    STANDARD_CONFIGS,
    build_trusted_model,
    model_from_spec,
    model_to_spec,
    standard_models,
    trusted_attention,
    trusted_mask,
)

_INT_VIEW = {
    torch.float64: torch.int64,
    torch.float32: torch.int32,
    torch.float16: torch.int16,
    torch.bfloat16: torch.int16,
}


def _same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Equal to the bit (-0.0 vs 0.0 and NaN payloads count), same dtype and shape."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    view = _INT_VIEW.get(a.dtype)
    if view is None:
        return torch.equal(a, b)
    return torch.equal(a.contiguous().view(view), b.contiguous().view(view))


def _mask(attention_mask, seq_len, causal):
    return trusted_mask(attention_mask, seq_len, causal)


def _attention(q, k, v, mask):
    return trusted_attention(q, k, v, mask)


def _plain_copy(model: TinyLM) -> TinyLM:
    """A TinyLM on the ordinary path with ``model``'s weights, dtype and modes."""
    plain = TinyLM(model.config, mask_fn=_mask, attention_fn=_attention, seed=0)
    plain.load_state_dict(model.state_dict(), assign=True)
    plain = copy.deepcopy(plain)  # weights of its own
    for a, b in zip(plain.modules(), model.modules(), strict=True):
        a.training = b.training
    return plain


@pytest.fixture
def fast_runs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the calls that took the fast path (installed, as a Grader installs it)."""
    tforward.install_fast_forward()
    runs: list[int] = []
    real = tforward._run_fast

    def spy(*args, **kwargs):
        runs.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(tforward, "_run_fast", spy)
    return runs


def _inputs(config: TinyLMConfig, batch: int, length: int, seed: int, padded: bool):
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, config.vocab_size, (batch, length), generator=g)
    if not padded:
        return ids, None
    mask = (torch.rand(batch, length, generator=g) < 0.7).long()
    mask[0] = 0  # an all-zero row
    if batch > 1:  # right padding
        mask[1] = (torch.arange(length) < (length + 1) // 2).long()
    if batch > 2:  # left padding
        mask[2] = (torch.arange(length) >= length // 2).long()
    return ids, mask


def _check_same(fast: TinyLM, plain: TinyLM, ids, mask) -> None:
    want = plain(ids, attention_mask=mask)
    for got in (
        fast(ids, attention_mask=mask),
        fast(ids, mask),
        fast.forward(ids, mask),
        tforward._TINYLM_FORWARD(fast, ids, mask),  # the original, on the trusted functions
    ):
        assert _same_bits(got, want)
    if mask is None:
        assert _same_bits(fast(ids), want)


# ----------------------------------------------------------------------------- the same logits


@pytest.mark.parametrize("name", sorted(STANDARD_CONFIGS))
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_standard_models_every_shape(name, dtype, fast_runs):
    fast = standard_models()[name].to(dtype)
    plain = _plain_copy(fast)
    config = fast.config
    with torch.no_grad():
        for batch in (1, 2, 3):
            for length in range(1, config.max_seq_len + 1):
                for padded in (False, True):
                    ids, mask = _inputs(config, batch, length, 7 * batch + length, padded)
                    _check_same(fast, plain, ids, mask)
    assert fast_runs  # the comparison above did exercise the fast path


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_models(dtype, fast_runs):
    fast = standard_models()["causal"].to(dtype)
    plain = _plain_copy(fast)
    with torch.no_grad():
        for padded in (False, True):
            ids, mask = _inputs(fast.config, 3, 9, 1, padded)
            _check_same(fast, plain, ids, mask)
    assert fast_runs


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    vocab=st.integers(1, 30),
    max_seq_len=st.integers(1, 10),
    n_heads=st.integers(1, 3),
    head_dim=st.integers(1, 6),
    n_layers=st.integers(1, 3),
    causal=st.booleans(),
    seed=st.integers(0, 2**31 - 1),
    batch=st.integers(1, 3),
    length_frac=st.floats(0.0, 1.0),
    padded=st.booleans(),
    double=st.booleans(),
    grad=st.booleans(),
)
def test_random_configs(
    vocab, max_seq_len, n_heads, head_dim, n_layers, causal, seed, batch, length_frac, padded,
    double, grad,
):  # fmt: skip
    config = TinyLMConfig(vocab, max_seq_len, n_heads * head_dim, n_heads, n_layers, causal)
    # built directly (not by build_trusted_model) so as not to fill its caches
    fast = TinyLM(config, mask_fn=trusted_mask, attention_fn=trusted_attention, seed=seed)
    fast = fast.to(torch.float64 if double else torch.float32).eval()
    plain = _plain_copy(fast)
    length = 1 + round(length_frac * (max_seq_len - 1))
    ids, mask = _inputs(config, batch, length, seed, padded)
    with torch.set_grad_enabled(grad):
        _check_same(fast, plain, ids, mask)


def test_gradients_are_the_same(fast_runs):
    fast = standard_models()["causal"]
    plain = _plain_copy(fast)
    for padded in (False, True):
        ids, mask = _inputs(fast.config, 3, 10, 3, padded)
        go = torch.randn(3, 10, fast.config.vocab_size, generator=torch.Generator().manual_seed(0))
        outs = []
        for model in (fast, plain):
            model.zero_grad(set_to_none=True)
            out = model(ids, attention_mask=mask)
            assert out.requires_grad
            (out * go).sum().backward()
            outs.append(out.detach())
        assert _same_bits(*outs)
        for (name, a), (_, b) in zip(
            fast.named_parameters(), plain.named_parameters(), strict=True
        ):
            assert _same_bits(a.grad, b.grad), name
    assert fast_runs


def test_inference_mode_then_autograd(fast_runs):
    """A forward under inference mode, then one with autograd on (the mask of the first
    must never be an inference tensor the second saves for backward)."""
    fast = standard_models()["bidirectional"]
    plain = _plain_copy(fast)
    ids = torch.randint(0, 24, (2, 5), generator=torch.Generator().manual_seed(5))
    with torch.inference_mode():
        assert _same_bits(fast(ids), plain(ids))
    out = fast(ids)
    out.sum().backward()
    assert _same_bits(out.detach(), plain(ids).detach())
    assert len(fast_runs) == 2


def _layout(t: torch.Tensor) -> tuple:
    return (tuple(t.shape), t.stride(), t.storage_offset(), t.dtype)


@pytest.mark.parametrize("batch,length", [(1, 1), (3, 1), (2, 1), (1, 5), (3, 7)])
@pytest.mark.parametrize("n_heads,head_dim", [(2, 1), (1, 1), (2, 3)])
def test_reductions_see_the_same_layouts(batch, length, n_heads, head_dim, monkeypatch, fast_runs):
    """Bit-identity needs more than equal values: BLAS picks its kernel (and so its rounding,
    e.g. fused multiply-add or not) from the strides, also on size-1 dims. Every tensor that
    enters a reduction must have the same shape, strides and offset on both paths."""
    seen: dict[str, list[tuple]] = {"fast": [], "plain": []}
    where = ["fast"]
    real_linear, real_ln = torch.nn.functional.linear, torch.nn.functional.layer_norm

    def linear(x, w, b=None):
        seen[where[0]].append(("linear", _layout(x), _layout(w)))
        return real_linear(x, w, b)

    def layer_norm(x, *args, **kwargs):
        seen[where[0]].append(("layer_norm", _layout(x)))
        return real_ln(x, *args, **kwargs)

    real_fast_attention = tforward._attention

    def fast_attention(q, k, v, mask):
        seen["fast"].append(("attention", *map(_layout, (q, k, v))))
        return real_fast_attention(q, k, v, mask)

    def plain_attention(q, k, v, mask):
        seen["plain"].append(("attention", *map(_layout, (q, k, v))))
        return trusted_attention(q, k, v, mask)

    monkeypatch.setattr(torch.nn.functional, "linear", linear)
    monkeypatch.setattr(torch.nn.functional, "layer_norm", layer_norm)
    monkeypatch.setattr(tforward, "_attention", fast_attention)
    config = TinyLMConfig(5, 8, n_heads * head_dim, n_heads, 2, False)
    fast = TinyLM(config, mask_fn=trusted_mask, attention_fn=trusted_attention, seed=3).eval()
    plain = _plain_copy(fast)
    plain.attention_fn = plain_attention
    for padded in (False, True):
        ids, mask = _inputs(config, batch, length, 1, padded)
        seen["fast"].clear(), seen["plain"].clear()
        with torch.no_grad():
            where[0] = "fast"
            got = fast(ids, attention_mask=mask)
            where[0] = "plain"
            want = plain(ids, attention_mask=mask)
        assert seen["fast"] == seen["plain"]
        assert _same_bits(got, want)
    assert len(fast_runs) == 2


# ----------------------------------------------------------------------------- what the model is


def test_every_builder_gives_a_plain_tinylm_on_the_fast_path(fast_runs):
    tforward.install_fast_forward()
    assert TinyLM.forward is tforward._fast_forward
    assert inspect.signature(TinyLM.forward) == inspect.signature(tforward._TINYLM_FORWARD)
    spec = model_to_spec(standard_models()["causal"])
    built = [
        *standard_models().values(),
        build_trusted_model(STANDARD_CONFIGS["bidirectional"], 99),
        model_from_spec(*spec),
        models.shared_standard_model("causal", torch.float64),
    ]
    ids = torch.tensor([[1, 2, 3]])
    for i, model in enumerate(built):
        assert type(model) is TinyLM and "forward" not in model.__dict__
        assert list(model.state_dict()) == list(_plain_copy(model).state_dict())
        assert model.mask_fn is trusted_mask and model.attention_fn is trusted_attention
        with torch.no_grad():
            assert _same_bits(model(ids), _plain_copy(model)(ids))
        assert len(fast_runs) == i + 1


def test_a_copy_with_other_functions_takes_the_ordinary_path(fast_runs):
    fast = standard_models()["causal"]
    twin = copy.deepcopy(fast)
    calls: list[int] = []

    def attention(q, k, v, mask):
        calls.append(1)
        return trusted_attention(q, k, v, mask)

    twin.attention_fn = attention  # only the copy: the original stays on the fast path
    ids = torch.randint(0, 24, (1, 6), generator=torch.Generator().manual_seed(2))
    with torch.no_grad():
        assert _same_bits(twin(ids), fast(ids))
    assert len(calls) == 2 and len(fast_runs) == 1


# ----------------------------------------------------------------------------- the ordinary path


def test_other_functions_take_the_ordinary_path(fast_runs):
    fast = standard_models()["causal"]
    plain = _plain_copy(fast)
    seen: list[str] = []

    def mask_fn(attention_mask, seq_len, causal):
        seen.append("mask")
        return trusted_mask(attention_mask, seq_len, causal)

    def attention_fn(q, k, v, mask):
        seen.append("attention")
        return trusted_attention(q, k, v, mask)

    ids, mask = _inputs(fast.config, 2, 7, 4, True)
    with torch.no_grad():
        want = plain(ids, attention_mask=mask)
        fast.mask_fn = mask_fn
        assert _same_bits(fast(ids, attention_mask=mask), want)
        assert seen == ["mask"]
        fast.mask_fn, fast.attention_fn = trusted_mask, attention_fn
        assert _same_bits(fast(ids, attention_mask=mask), want)
        assert seen == ["mask", "attention", "attention"]
    fast.mask_fn = fast.attention_fn = plain.mask_fn = plain.attention_fn = None
    with torch.no_grad():  # exercises.masks, looked up at the call (stubs raise)
        try:
            want_default = plain(ids)
        except Exception as exc:  # noqa: BLE001
            with pytest.raises(type(exc)):
                fast(ids)
        else:
            assert _same_bits(fast(ids), want_default)
    assert not fast_runs
    fast.mask_fn, fast.attention_fn = trusted_mask, trusted_attention
    with torch.no_grad():
        assert _same_bits(fast(ids, attention_mask=mask), want)
    assert len(fast_runs) == 1


def test_train_mode_dropout_draws_as_before(fast_runs):
    config = TinyLMConfig(24, 12, 32, 2, 2, True, dropout=0.3)
    fast = build_trusted_model(config, 1234).train()
    plain = _plain_copy(fast)
    ids, mask = _inputs(config, 2, 12, 0, True)
    results = []
    for model in (fast, plain):
        torch.manual_seed(17)
        start = torch.get_rng_state()
        out = model(ids, attention_mask=mask)
        results.append((out.detach(), torch.get_rng_state()))
        assert not torch.equal(start, results[-1][1])  # dropout drew
    assert _same_bits(results[0][0], results[1][0])
    assert torch.equal(results[0][1], results[1][1])
    assert not fast_runs
    fast.eval()  # the same model in eval mode: no RNG, fast path
    start = torch.get_rng_state()
    with torch.no_grad():
        assert _same_bits(fast(ids), plain.eval()(ids))
    assert torch.equal(start, torch.get_rng_state()) and len(fast_runs) == 1


def test_train_mode_without_dropout_is_fast_and_draws_nothing(fast_runs):
    fast = standard_models()["causal"].train()
    plain = _plain_copy(fast)
    ids, _ = _inputs(fast.config, 2, 8, 9, False)
    start = torch.get_rng_state()
    with torch.no_grad():
        assert _same_bits(fast(ids), plain(ids))
    assert torch.equal(start, torch.get_rng_state()) and fast_runs


def test_hooks(fast_runs):
    fast = standard_models()["bidirectional"]
    plain = _plain_copy(fast)
    ids, _ = _inputs(fast.config, 2, 8, 11, False)
    grad_seen: list[bool] = []
    handle = fast.register_forward_pre_hook(
        lambda _m, _i: grad_seen.append(torch.is_grad_enabled())
    )  # what grader.sandbox.invoke records on a model argument
    with torch.no_grad():
        assert _same_bits(fast(ids), plain(ids))
    assert _same_bits(fast(ids).detach(), plain(ids).detach())
    assert grad_seen == [False, True] and len(fast_runs) == 2
    handle.remove()

    sub_calls: list[int] = []
    handle = fast.blocks[1].mlp.fc.register_forward_hook(lambda *_: sub_calls.append(1))
    with torch.no_grad():
        assert _same_bits(fast(ids), plain(ids))
    assert sub_calls == [1] and len(fast_runs) == 2  # ordinary path: the hook ran
    handle.remove()
    handle = torch.nn.modules.module.register_module_forward_pre_hook(
        lambda *_: sub_calls.append(2)
    )
    try:
        with torch.no_grad():
            fast(ids)
    finally:
        handle.remove()
    assert sub_calls.count(2) > 1 and len(fast_runs) == 2


def test_overridden_submodule_forward_takes_the_ordinary_path(fast_runs):
    fast = standard_models()["causal"]
    plain = _plain_copy(fast)
    for model in (fast, plain):
        ln = model.blocks[1].ln_2
        ln.forward = lambda x, ln=ln: torch.nn.LayerNorm.forward(ln, x) * 2.0
    ids, _ = _inputs(fast.config, 2, 6, 13, False)
    with torch.no_grad():
        assert _same_bits(fast(ids), plain(ids))
    assert not fast_runs


def test_replaced_submodule_takes_the_ordinary_path(fast_runs):
    fast = standard_models()["causal"]
    plain = _plain_copy(fast)

    class Linear(torch.nn.Linear):
        def forward(self, x):
            return super().forward(x) + 1.0

    for model in (fast, plain):
        old = model.blocks[0].mlp.proj
        new = Linear(old.in_features, old.out_features)
        new.load_state_dict(old.state_dict())
        model.blocks[0].mlp.proj = new
    ids, _ = _inputs(fast.config, 1, 5, 12, False)
    with torch.no_grad():
        assert _same_bits(fast(ids), plain(ids))
    assert not fast_runs


def test_errors_and_unusual_calls_are_the_ordinary_ones(fast_runs):
    fast = standard_models()["causal"]
    plain = _plain_copy(fast)
    ids = torch.randint(0, 24, (2, 5), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        assert _same_bits(fast(input_ids=ids), plain(input_ids=ids))
        for bad_args, bad_kwargs in [
            ((torch.zeros(2, 13, dtype=torch.long),), {}),  # longer than max_seq_len
            ((torch.zeros(5, dtype=torch.long),), {}),  # not 2-D
            ((ids,), {"mask": None}),  # no such argument
            ((ids, None, None), {}),
            ((ids,), {"attention_mask": torch.ones(2, 4)}),  # wrong length
            ((ids + 30,), {}),  # ids out of range
        ]:
            with pytest.raises(Exception) as want:
                plain(*bad_args, **bad_kwargs)
            with pytest.raises(want.type) as got:
                fast(*bad_args, **bad_kwargs)
            assert str(got.value) == str(want.value)


def test_the_fast_forward_is_installed_by_the_graders_caches_not_by_an_import():
    import subprocess
    import sys

    probe = (
        "from exercises.tinylm import TinyLM\n"
        "from grader import trusted_forward, trusted_tinylm\n"
        "print(trusted_forward.fast_forward_installed())\n"
        "from grader.suite.context import SuiteCaches\n"
        "SuiteCaches()\n"
        "print(TinyLM.forward is trusted_forward._fast_forward)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]
