"""Variant outputs remembered across submissions (grader/diagnosis/memo.py)."""

from __future__ import annotations

import torch

from grader.diagnosis import memo, variants
from grader.trusted_tinylm import shared_standard_model


def test_the_key_sees_every_bit_of_every_input():
    base = (torch.tensor([0.0, 1.0]), {"k": 3})
    key = memo.inputs_key(*base)
    assert key == memo.inputs_key(torch.tensor([0.0, 1.0]), {"k": 3})
    assert key != memo.inputs_key(torch.tensor([-0.0, 1.0]), {"k": 3})  # sign bit
    assert key != memo.inputs_key(torch.tensor([0.0, 1.0], dtype=torch.float64), {"k": 3})
    assert key != memo.inputs_key(torch.tensor([[0.0, 1.0]]), {"k": 3})  # shape
    assert key != memo.inputs_key(torch.tensor([0.0, 1.0]), {"k": 4})
    assert key != memo.inputs_key(torch.tensor([0.0, 1.0]), {"j": 3})
    g1, g2 = torch.Generator().manual_seed(1), torch.Generator().manual_seed(2)
    assert memo.inputs_key(g1) != memo.inputs_key(g2)


def test_the_key_sees_the_global_rng_and_grad_mode():
    key = memo.inputs_key(1)
    torch.rand(1)  # advances the global generator
    assert memo.inputs_key(1) != key
    state = torch.get_rng_state()
    key = memo.inputs_key(1)
    with torch.no_grad():
        assert memo.inputs_key(1) != key
    torch.set_rng_state(state)
    assert memo.inputs_key(1) == key


def test_the_key_sees_a_models_weights_and_modes_and_refuses_unknown_models():
    model = shared_standard_model("causal")
    other = shared_standard_model("bidirectional")
    key = memo.inputs_key(model)
    assert key is not None and key != memo.inputs_key(other)
    with torch.no_grad():
        model.lm_head.weight[0, 0] += 1.0
    try:
        assert memo.inputs_key(model) != key
    finally:
        with torch.no_grad():
            model.lm_head.weight[0, 0] -= 1.0
    assert memo.inputs_key(model) == key
    model.blocks[0].train()
    try:
        assert memo.inputs_key(model) != key
    finally:
        model.eval()
    handle = model.register_forward_hook(lambda *a: None)
    try:
        assert memo.inputs_key(model) is None
    finally:
        handle.remove()
    assert memo.inputs_key(torch.nn.Linear(2, 2)) is None
    assert memo.inputs_key(object()) is None


def test_outputs_are_computed_once_and_handed_out_as_copies():
    outputs = memo.VariantOutputs()
    runs = []

    def run():
        runs.append(1)
        return (torch.ones(3), [torch.zeros(2)])

    key = memo.inputs_key("f", torch.ones(3))
    first = outputs.output(key, ("f", "bug", 0), run)
    first[0].add_(5)  # a caller that mutates its copy
    second = outputs.output(key, ("f", "bug", 0), run)
    assert runs == [1]
    assert torch.equal(second[0], torch.ones(3))
    assert outputs.output(None, ("f", "bug", 0), run) is not None and runs == [1, 1]


def test_a_variant_that_raised_is_remembered_as_raising():
    outputs = memo.VariantOutputs()
    runs = []

    def run():
        runs.append(1)
        raise ValueError("not for these inputs")

    key = memo.inputs_key("f")
    for _ in range(2):
        try:
            outputs.output(key, ("f", "bug", 0), run)
        except RuntimeError:
            pass
        else:
            raise AssertionError("expected the remembered failure")
    assert runs == [1]


def test_the_memo_is_bounded():
    outputs = memo.VariantOutputs(max_entries=3, max_bytes=10_000)
    for i in range(10):
        outputs.output(memo.inputs_key(i), ("f", "bug", 0), lambda: torch.zeros(10))
    assert len(outputs) == 3
    outputs = memo.VariantOutputs(max_entries=100, max_bytes=6400)
    for i in range(20):  # 400 bytes each: sixteen fit
        outputs.output(memo.inputs_key(i), ("f", "bug", 0), lambda: torch.zeros(100))
    assert len(outputs) == 16
    outputs.output(memo.inputs_key(99), ("f", "bug", 0), lambda: torch.zeros(1000))
    assert len(outputs) == 16  # one entry may not take more than a sixteenth


def test_matching_gives_the_same_ids_from_the_memo():
    logits = torch.randn(2, 5, 7, generator=torch.Generator().manual_seed(0))
    ids = torch.randint(0, 7, (2, 5), generator=torch.Generator().manual_seed(1))
    want = variants.causal_loss(logits, ids)
    got = variants.causal_loss(logits, ids, shift=0)  # the "no shift" bug
    outputs = memo.VariantOutputs()
    plain = variants.matching("losses.causal_lm_loss", got, (logits, ids), want=want)
    with memo.remembering(outputs):
        cold = variants.matching("losses.causal_lm_loss", got, (logits, ids), want=want)
        warm = variants.matching("losses.causal_lm_loss", got, (logits, ids), want=want)
    assert cold == warm == plain and cold
    assert len(outputs) > 0  # the memo in use was the one filled, none is process-wide


def test_a_graders_caches_are_its_own():
    """Each Grader's variant outputs and trusted models are kept on it, not in the process."""
    from grader import trusted_tinylm
    from grader.suite.context import SuiteCaches

    first, second = SuiteCaches(), SuiteCaches()
    with first.in_use():
        model = trusted_tinylm.shared_standard_model("causal")
        assert trusted_tinylm.shared_standard_model("causal") is model
    with second.in_use():
        assert trusted_tinylm.shared_standard_model("causal") is not model
    assert trusted_tinylm.shared_standard_model("causal") is not model  # none in use
    assert list(first.models.shared) == [("causal", torch.float32)]
