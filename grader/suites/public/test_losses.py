"""Public self-check for Part C: one value of each loss."""

import pytest
import torch
import torch.nn.functional as F

from grader.suite.checks import assert_close


@pytest.mark.points(1)
def test_causal_lm_loss_value(student, reference):
    logits = torch.linspace(-3, 3, 2 * 4 * 5).reshape(2, 4, 5)
    ids = torch.tensor([[1, 2, 3, 4], [4, 3, 2, 0]])
    got = student.losses.causal_lm_loss(logits, ids)
    unshifted = F.cross_entropy(logits.reshape(-1, 5), ids.reshape(-1))  # the known mistake
    forgot_shift = (
        isinstance(got, torch.Tensor)
        and got.numel() == 1
        and torch.isclose(got.detach().double().reshape(()), unshifted.double(), rtol=1e-5)
    )
    assert_close(
        got,
        reference.losses.causal_lm_loss(logits, ids),
        what="causal_lm_loss",
        diagnoses=["forgot_shift"] if forgot_shift else [],
    )


@pytest.mark.points(1)
def test_masked_lm_loss_value(student, reference):
    logits = torch.linspace(-3, 3, 2 * 4 * 5).reshape(2, 4, 5)
    labels = torch.tensor([[-100, 2, -100, 4], [1, -100, -100, -100]])
    assert_close(
        student.losses.masked_lm_loss(logits, labels),
        reference.losses.masked_lm_loss(logits, labels),
        what="masked_lm_loss",
    )
