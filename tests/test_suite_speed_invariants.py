"""The suite's speed-ups change no answer.

The reference memo (grader/suite/proxy.py) must be indistinguishable from calling the
reference again: same values, fresh copies a test may edit, generator arguments advanced
exactly as a real call advances them, and calls with other side effects never memoised.
"""

from __future__ import annotations

import textwrap

import pytest
import torch

from grader.suite.proxy import ReferenceProxy
from grader.trusted_tinylm import standard_models


def _memo_len(proxy: ReferenceProxy) -> int:
    return len(proxy._memo)


def _causal_inputs(seed: int = 0) -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return {"logits": torch.randn(2, 5, 7, generator=g, dtype=torch.float64),
            "input_ids": torch.randint(7, (2, 5), generator=g)}  # fmt: skip


def test_repeated_call_is_a_fresh_copy_of_the_same_answer():
    ref, plain = ReferenceProxy(), ReferenceProxy(memo=False)
    first = ref.losses.causal_lm_loss(**_causal_inputs())
    second = ref.losses.causal_lm_loss(**_causal_inputs())
    assert _memo_len(ref) == 1
    want = plain.losses.causal_lm_loss(**_causal_inputs())
    for got in (first, second):
        assert got.dtype == want.dtype and got.shape == want.shape and torch.equal(got, want)
    assert second is not first
    second.add_(1.0)  # a test editing its answer cannot change the next one
    assert torch.equal(ref.losses.causal_lm_loss(**_causal_inputs()), want)
    assert ref.last_effects == plain.last_effects


def test_different_inputs_are_different_questions():
    ref, plain = ReferenceProxy(), ReferenceProxy(memo=False)
    for kwargs in (_causal_inputs(0), _causal_inputs(1),
                   {k: v.float() if v.is_floating_point() else v
                    for k, v in _causal_inputs(0).items()}):  # fmt: skip
        got = ref.losses.causal_lm_loss(**kwargs)
        want = plain.losses.causal_lm_loss(**kwargs)
        assert got.dtype == want.dtype and torch.equal(got, want)
    assert _memo_len(ref) == 3


def test_backward_results_and_gradients_are_replayed():
    ref, plain = ReferenceProxy(), ReferenceProxy(memo=False)
    kwargs = _causal_inputs(2)
    want_value, (want_grad,) = plain.losses.causal_lm_loss.backward(grad_wrt=("logits",), **kwargs)
    for _ in range(3):
        value, (grad,) = ref.losses.causal_lm_loss.backward(grad_wrt=("logits",), **kwargs)
        assert torch.equal(value, want_value) and torch.equal(grad, want_grad)
        assert not value.requires_grad and not grad.requires_grad
        grad.zero_()
    assert ref.last_effects == plain.last_effects


def test_generator_arguments_advance_exactly_as_in_a_real_call():
    ref, plain = ReferenceProxy(), ReferenceProxy(memo=False)
    logits = torch.randn(16, 9, generator=torch.Generator().manual_seed(3))
    kw = {"temperature": 0.9, "top_k": 5, "top_p": 0.9}
    g_ref, g_plain = torch.Generator().manual_seed(7), torch.Generator().manual_seed(7)
    for _ in range(3):  # the 2nd and 3rd calls are different questions (the state moved on)
        got = ref.generation.sample_next_token(logits, generator=g_ref, **kw)
        want = plain.generation.sample_next_token(logits, generator=g_plain, **kw)
        assert torch.equal(got, want)
        assert torch.equal(g_ref.get_state(), g_plain.get_state())
    hits_before = _memo_len(ref)
    g = torch.Generator().manual_seed(7)  # the first question again: answered from the memo
    got = ref.generation.sample_next_token(logits, generator=g, **kw)
    assert _memo_len(ref) == hits_before
    g_check = torch.Generator().manual_seed(7)
    want = plain.generation.sample_next_token(logits, generator=g_check, **kw)
    assert torch.equal(got, want) and torch.equal(g.get_state(), g_check.get_state())


def test_model_forward_memo_matches_a_fresh_forward():
    ref, plain = ReferenceProxy(), ReferenceProxy(memo=False)
    model = standard_models()["bidirectional"].double().eval()
    ids = torch.tensor([[3, 17, 8, 20, 0, 0], [0, 0, 0, 5, 9, 2]])
    am = torch.tensor([[1, 1, 1, 1, 0, 0], [0, 0, 0, 1, 1, 1]])
    want = plain.model_forward(model, ids, am)
    for _ in range(2):
        got = ref.model_forward(model, ids, am)
        assert got.dtype == want.dtype and torch.equal(got, want)
        got.zero_()
    assert _memo_len(ref) == 1
    with torch.no_grad():  # other weights: another question
        model.lm_head.weight.mul_(2.0)
    assert torch.equal(ref.model_forward(model, ids, am), plain.model_forward(model, ids, am))
    assert _memo_len(ref) == 2


def test_model_forward_with_active_dropout_is_not_memoised():
    from dataclasses import replace

    from grader.sandbox.models import STANDARD_CONFIGS
    from grader.trusted_tinylm import build_trusted_model

    ref = ReferenceProxy()
    model = build_trusted_model(replace(STANDARD_CONFIGS["causal"], dropout=0.3), 0).train()
    ref.model_forward(model, torch.tensor([[1, 2, 3]]))
    assert _memo_len(ref) == 0


def test_greedy_generation_on_a_model_is_memoised_with_its_effects():
    ref, plain = ReferenceProxy(), ReferenceProxy(memo=False)
    model = standard_models()["causal"].eval()
    ids = torch.tensor([[13, 5, 9, 2, 20], [11, 0, 13, 7, 14]])
    want = plain.generation.greedy_generate(model, ids, 4, eos_token_id=13)
    for _ in range(2):
        got = ref.generation.greedy_generate(model, ids, 4, eos_token_id=13)
        assert torch.equal(got, want) and ref.last_effects == plain.last_effects
    assert _memo_len(ref) == 1
    model.train()  # another train flag: another question
    ref.generation.greedy_generate(model, ids, 4, eos_token_id=13)
    assert _memo_len(ref) == 2


@pytest.fixture
def side_effect_package(tmp_path, monkeypatch):
    pkg = tmp_path / "sideref"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "losses.py").write_text(
        textwrap.dedent("""
        import torch

        def mutates(x):
            x.add_(1)
            return x.sum()

        def global_rng(x):
            return x + torch.rand(1)

        def returns_input(x):
            return x

        def pure(x):
            return x * 2
    """)
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    return "sideref"


def test_calls_with_other_side_effects_are_never_memoised(side_effect_package):
    ref = ReferenceProxy(side_effect_package)
    x = torch.zeros(3)
    assert float(ref.losses.mutates(x)) == 3.0
    assert float(ref.losses.mutates(torch.zeros(3))) == 3.0
    assert ref.last_effects.mutated_args == ("args[0]",)
    torch.manual_seed(0)
    a = ref.losses.global_rng(torch.zeros(1))
    b = ref.losses.global_rng(torch.zeros(1))
    assert not torch.equal(a, b) and ref.last_effects.global_rng_changed
    y = torch.ones(2)
    for _ in range(2):  # the answer aliases the input (a view of it): never stored
        assert ref.losses.returns_input(y).data_ptr() == y.data_ptr()
    assert _memo_len(ref) == 0
    ref.losses.pure(torch.ones(2))
    assert _memo_len(ref) == 1


def test_unkeyable_arguments_simply_run(side_effect_package):
    ref = ReferenceProxy(side_effect_package)

    class Box:
        def __mul__(self, other):
            return other

    assert ref.losses.pure(Box()) == 2
    assert _memo_len(ref) == 0


def test_memo_is_bounded_in_entries_and_bytes():
    from grader.sandbox.invoke import Effects
    from grader.suite.refmemo import Recorded as _Recorded
    from grader.suite.refmemo import ReferenceMemo

    def rec(n: int) -> _Recorded:
        return _Recorded(value=torch.zeros(n, dtype=torch.uint8), grads=(), effects=Effects(),
                         generators={})  # fmt: skip

    memo = ReferenceMemo(max_entries=2)
    for i in range(5):
        memo.put(("k", i), rec(1))
    assert len(memo) == 2 and memo.get(("k", 0)) is None and memo.get(("k", 4)) is not None
    memo = ReferenceMemo(max_entries=100, max_bytes=250)
    for i in range(5):
        memo.put(("k", i), rec(100))
    assert len(memo) == 2 and memo.get(("k", 2)) is None and memo.get(("k", 4)) is not None
    memo.put(("k", 4), rec(100))  # replacing an entry does not count it twice
    assert len(memo) == 2 and memo.get(("k", 3)) is not None


def test_constant_eligible_masks_are_fresh_and_right():
    from grader.suites.hidden import _corruption as tc

    for case in (tc.BIG, tc.SMALL):
        want = ~torch.isin(case["ids"], torch.tensor(tc.SPECIALS))
        got = tc._eligible(case["ids"])
        assert torch.equal(got, want)
        got.zero_()
        assert torch.equal(tc._eligible(case["ids"]), want)


@pytest.mark.parametrize(
    "got,want,kwargs",
    [
        (torch.tensor([1.0, float("nan"), -0.0]), torch.tensor([1.0, float("nan"), 0.0]), {}),
        (
            torch.tensor([float("inf"), 2.0]),
            torch.tensor([float("inf"), 2.0]),
            {"rtol": 0, "atol": 0},
        ),
        (torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0 + 1e-3]), {}),
        (
            torch.tensor([1.0, 2.0], dtype=torch.float64),
            torch.tensor([1.0, 2.0]),
            {"check_dtype": False},
        ),
        (torch.tensor([True, False]), torch.tensor([True, True]), {}),
        (torch.tensor([3, 4]), torch.tensor([3, 4]), {}),
    ],
)
def test_assert_close_shortcut_keeps_every_verdict(got, want, kwargs):
    """The bit-equal shortcut gives the verdict and message of the full comparison."""
    from grader.suite import checks

    def verdict(fn):
        try:
            fn(got, want, what="x", **kwargs)
        except checks.GradeFailure as exc:
            return exc.message
        return None

    def full(g, w, **kw):  # the comparison without the shortcut: never bit-equal in dtype
        checks.check_tensor(g, what="x", shape=tuple(w.shape),
                            dtype=w.dtype if kw.get("check_dtype", True) else None)  # fmt: skip
        gd, wd = g.double(), w.double()
        if w.dtype == torch.bool or not w.is_floating_point():
            bad = gd != wd
        else:
            bad = ~(torch.isclose(gd, wd, rtol=kw.get("rtol", 1e-5), atol=kw.get("atol", 1e-6))
                    | (torch.isnan(gd) & torch.isnan(wd)))  # fmt: skip
        if bad.any():
            raise checks.GradeFailure("differs")

    fast = verdict(checks.assert_close)
    slow = verdict(lambda g, w, what, **kw: full(g, w, **kw))
    assert (fast is None) == (slow is None)
