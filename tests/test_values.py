"""grader/values.py (walk, digest, copy, size) and who owns the state it keys."""

from __future__ import annotations

import subprocess
import sys

import pytest
import torch

from grader import values
from grader.values import Undigestable


def test_digest_sees_every_bit_and_every_structural_detail():
    base = values.digest(torch.tensor([0.0, 1.0]), {"k": 3}, 1.5)
    assert base == values.digest(torch.tensor([0.0, 1.0]), {"k": 3}, 1.5)
    others = [
        (torch.tensor([-0.0, 1.0]), {"k": 3}, 1.5),  # sign bit
        (torch.tensor([0.0, 1.0], dtype=torch.float64), {"k": 3}, 1.5),
        (torch.tensor([[0.0, 1.0]]), {"k": 3}, 1.5),  # shape
        (torch.tensor([0.0, 1.0]).requires_grad_(), {"k": 3}, 1.5),
        (torch.tensor([0.0, 1.0]), {"k": 3.0}, 1.5),  # 3 vs 3.0
        (torch.tensor([0.0, 1.0]), {"j": 3}, 1.5),
        (torch.tensor([0.0, 1.0]), {"k": 3}, 1.5000000000000002),
        (torch.tensor([0.0, 1.0]), [("k", 3)], 1.5),
    ]
    assert len({values.digest(*o) for o in others} | {base}) == len(others) + 1
    strided = torch.arange(6.0).reshape(2, 3).t()
    assert values.digest(strided) != values.digest(strided.contiguous())  # same values, strides
    nan_a = torch.tensor([float("nan")])
    nan_b = nan_a.view(torch.int32).add(1).view(torch.float32)  # another NaN payload
    assert values.digest(nan_a) != values.digest(nan_b)
    g1, g2 = torch.Generator().manual_seed(1), torch.Generator().manual_seed(2)
    assert values.digest(g1) != values.digest(g2)
    assert values.digest({"a": 1, "b": 2}) != values.digest({"b": 2, "a": 1})  # order counts


@pytest.mark.parametrize(
    "value",
    [
        object(),
        torch.nn.Parameter(torch.zeros(1)),
        torch.nn.Linear(2, 2),
        {1, 2},
        torch.zeros(2).to_sparse(),
    ],  # fmt: skip
)
def test_digest_refuses_what_it_cannot_vouch_for(value):
    with pytest.raises(Undigestable):
        values.digest(value)


def test_digest_refuses_values_nested_past_the_limit():
    deep: object = 1
    for _ in range(values.MAX_DEPTH - 1):  # digest(*values) is one level itself
        deep = [deep]
    values.digest(deep)
    with pytest.raises(Undigestable):
        values.digest([deep])


def test_model_digest_sees_weights_and_modes_and_refuses_hooks_and_unknown_functions():
    from grader import trusted_tinylm as trusted

    functions = (trusted.trusted_mask, trusted.trusted_attention)
    model = trusted.standard_models()["causal"]
    key = values.model_digest(model, functions)
    with pytest.raises(Undigestable):
        values.model_digest(model)  # its trusted functions were not vouched for
    with torch.no_grad():
        model.lm_head.weight[0, 0] += 1.0
    assert values.model_digest(model, functions) != key
    with torch.no_grad():
        model.lm_head.weight[0, 0] -= 1.0
    assert values.model_digest(model, functions) == key
    model.blocks[1].train()
    assert values.model_digest(model, functions) != key
    model.eval()
    handle = model.blocks[0].register_forward_pre_hook(lambda *a: None)
    with pytest.raises(Undigestable):
        values.model_digest(model, functions)
    handle.remove()
    assert values.digest((model,), functions=functions) == values.digest(
        (model,), functions=functions
    )


def test_copy_is_private_and_keeps_layout():
    t = torch.arange(6.0).reshape(2, 3).t()
    g = torch.Generator().manual_seed(3)
    original = (t, [g, {"x": t}], "s")
    c = values.copy(original)
    assert c[0].stride() == t.stride() and torch.equal(c[0], t)
    c[0].add_(1)
    c[1][1]["x"].add_(1)
    assert torch.equal(t, torch.arange(6.0).reshape(2, 3).t())
    assert c[1][0] is not g and torch.equal(c[1][0].get_state(), g.get_state())
    assert c[2] == "s" and type(c[1]) is list and type(c[1][1]) is dict


def test_leaves_open_containers_to_a_depth_and_exactly_when_asked():
    class Pair(tuple):
        pass

    nested = (1, [2, {"a": 3}], Pair((4, 5)))
    assert list(values.leaves(nested)) == [1, 2, 3, 4, 5]
    assert list(values.leaves(nested, exact=True))[-1] == Pair((4, 5))
    assert list(values.leaves({1.5: "x", (1,): "y"}, exact=True)) == [{1.5: "x", (1,): "y"}]
    assert list(values.leaves([[1]], max_depth=0)) == [[1]]
    assert values.nbytes((torch.zeros(3), [torch.zeros(2, dtype=torch.int64)])) == 28
    assert [p for p, _ in values.arg_paths((1,), {"labels": 2})] == ["args[0]", "kwargs['labels']"]


def test_values_imports_nothing_but_the_standard_library_and_torch():
    """It is imported in the jail, where neither trusted code nor solutions may be."""
    code = (
        "import sys, grader.values; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('grader', 'exercises', 'solutions')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['grader', 'grader.values']"
