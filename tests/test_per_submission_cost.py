"""Work a submission need not pay for is not paid, and no answer changes.

* the working gate's reference answers (fixed probes) are computed once per `ReferenceProxy`
  (one per Grader), not once per submission; the student is still probed every time;
* a memo site (call i of a test) whose questions never repeat (inputs drawn per submission)
  stops being keyed after a few misses, and is keyed again now and then;
* a model's module flags are read without ``modules()``' generator chain, in its order.
"""

from __future__ import annotations

import torch

from grader.suite import proxy as proxy_mod
from grader.suite import working
from grader.suite.proxy import ReferenceProxy
from grader.trusted_tinylm import standard_models


class _CountingReference(ReferenceProxy):
    """The reference, counting the calls that reach it."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.calls: list[tuple[str, str]] = []

    def _call(self, module, function, args, kwargs, **kw):
        self.calls.append((module, function))
        return super()._call(module, function, args, kwargs, **kw)


class _Student(ReferenceProxy):
    """The reference playing a submission (its own `once` cache, like a StudentProxy)."""

    def __init__(self) -> None:
        super().__init__(memo=False)
        self.calls = 0

    def _call(self, module, function, args, kwargs, **kw):
        self.calls += 1
        return super()._call(module, function, args, kwargs, **kw)


def test_gate_reference_answers_are_computed_once_per_reference():
    reference = _CountingReference()
    students = [_Student(), _Student()]
    for student in students:  # two submissions graded by one Grader's reference
        for function in working.PROBES:
            working.require_working(student, reference, function)
    probes = sum(len(b) for b in working.PROBES.values())
    assert len(reference.calls) == probes  # the first submission only
    assert [s.calls for s in students] == [probes, probes]  # every student is probed


def test_gate_verdicts_are_the_same_with_kept_answers():
    # (vacuous mutants losing the gated points: tests/test_hidden_suite.py, end to end)
    kept, fresh = ReferenceProxy(), ReferenceProxy(memo=False)
    for reference in (kept, kept, fresh):
        for function in working.PROBES:
            working.require_working(_Student(), reference, function)
    assert set(kept.working_answers) == set(working.PROBES)
    assert fresh.working_answers is None


def _drawn(i: int) -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(1000 + i)
    return {"logits": torch.randn(2, 5, 7, generator=g, dtype=torch.float64),
            "input_ids": torch.randint(7, (2, 5), generator=g)}  # fmt: skip


def _fixed() -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(7)
    return {"logits": torch.randn(2, 5, 7, generator=g, dtype=torch.float64),
            "input_ids": torch.randint(7, (2, 5), generator=g)}  # fmt: skip


def test_a_site_that_never_repeats_stops_being_keyed(monkeypatch):
    ref, plain = ReferenceProxy(), ReferenceProxy(memo=False)
    keyed: list[tuple] = []
    original = proxy_mod.ReferenceMemo.key
    monkeypatch.setattr(proxy_mod.ReferenceMemo, "key",
                        lambda self, head, arguments: keyed.append(head) or original(
                            self, head, arguments))  # fmt: skip
    rounds = 40
    for i in range(rounds):  # one submission per round: a test with a drawn and a fixed call
        ref.start_test("losses.vs_reference")
        got = ref.losses.causal_lm_loss(**_drawn(i))
        assert torch.equal(got, plain.losses.causal_lm_loss(**_drawn(i)))
        got = ref.losses.causal_lm_loss(**_fixed())
        assert torch.equal(got, plain.losses.causal_lm_loss(**_fixed()))
    drawn_keyed = len(keyed) - rounds  # the fixed call is keyed (and answered) every time
    assert proxy_mod._SKIP_AFTER <= drawn_keyed <= proxy_mod._SKIP_AFTER + rounds // 16 + 1
    assert len(ref._memo) <= drawn_keyed + 1  # the drawn answers are not stored either


def test_a_skipped_site_learns_back_that_it_repeats():
    ref = ReferenceProxy()
    for i in range(proxy_mod._SKIP_AFTER):
        ref.start_test("t")
        ref.losses.causal_lm_loss(**_drawn(i))
    for _ in range(2 * proxy_mod._RECHECK):  # from now on the question repeats
        ref.start_test("t")
        ref.losses.causal_lm_loss(**_fixed())
    assert ("t", 0) not in ref._misses  # a hit on a recheck: keyed on every visit again


def test_module_flags_follow_modules_order_with_shared_and_overridden_modules():
    from grader.sandbox.invoke import module_flags, module_list

    model = standard_models()["causal"]
    model.train()
    list(model.modules())[3].eval()
    assert module_list(model) == list(model.modules())
    assert module_flags(model) == [m.training for m in model.modules()]

    shared = torch.nn.Linear(2, 2)
    tree = torch.nn.Sequential(shared, torch.nn.ReLU(), shared,
                               torch.nn.Sequential(torch.nn.Tanh(), shared))  # fmt: skip
    assert module_list(tree) == list(tree.modules())

    class OwnOrder(torch.nn.Sequential):
        def modules(self):
            return reversed(list(super().modules()))

    odd = torch.nn.Sequential(torch.nn.ReLU(), OwnOrder(torch.nn.Tanh(), torch.nn.ReLU()))
    assert module_list(odd) == list(odd.modules())
    assert module_list(odd[1]) == list(odd[1].modules())
