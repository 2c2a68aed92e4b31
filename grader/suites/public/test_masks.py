"""Public self-check for Part A: shapes, one exact mask, one future-leak check."""

import pytest
import torch

from grader.suite.checks import assert_close, assert_equal, check_tensor


def _known_mask_mistakes(got, want):
    """The catalogue's mistakes whose mask is exactly `got` (`want`: the right causal mask)."""
    if not isinstance(got, torch.Tensor) or got.dtype != torch.bool or got.shape != want.shape:
        return []
    eye = torch.eye(len(want), dtype=torch.bool)
    next_token = torch.diag(torch.ones(len(want) - 1), 1).bool()
    mistakes = {
        "triu_tril_swapped": want.T,
        "diagonal_excluded": want & ~eye,
        "mask_off_by_one_future": want | next_token,
    }
    return [name for name, mask in mistakes.items() if torch.equal(got, mask)]


@pytest.mark.points(1)
def test_causal_mask_small(student, reference):
    got = student.masks.causal_mask(4)
    want = reference.masks.causal_mask(4)
    assert_equal(got, want, what="causal_mask(4)", diagnoses=_known_mask_mistakes(got, want))


@pytest.mark.points(1)
def test_attention_shapes(student):
    q = torch.linspace(-1, 1, 2 * 2 * 3 * 4).reshape(2, 2, 3, 4)
    out, weights = student.masks.masked_attention(q, q, q)
    check_tensor(out, what="masked_attention output", shape=(2, 2, 3, 4), dtype=torch.float32)
    check_tensor(weights, what="masked_attention weights", shape=(2, 2, 3, 3), finite=True)


@pytest.mark.points(1)
def test_no_future_leak(student, reference):
    T = 5
    q = torch.linspace(-2, 2, T * 4, dtype=torch.float64).reshape(1, 1, T, 4)
    v = torch.arange(T * 4, dtype=torch.float64).reshape(1, 1, T, 4)
    mask = reference.masks.causal_mask(T)[None, None]
    base, _ = student.masks.masked_attention(q, q, v, mask)
    v2 = v.clone()
    v2[..., 3:, :] += 100.0  # change only the future of positions 0..2
    out, _ = student.masks.masked_attention(q, q, v2, mask)
    assert_close(
        out[..., :3, :],
        base[..., :3, :],
        what="attention output at positions 0-2 after changing later tokens (it must not change)",
    )
