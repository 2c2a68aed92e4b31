"""Public self-check for Part D: sample_next_token with temperature 0 is argmax."""

import pytest
import torch

from grader.suite.checks import assert_equal


@pytest.mark.points(1)
def test_temperature_zero_is_argmax(student):
    logits = torch.tensor([[0.1, 2.0, -1.0, 0.5], [3.0, 0.0, 1.0, 2.5]])
    got = student.generation.sample_next_token(logits, temperature=0.0)
    assert_equal(got, torch.tensor([1, 0]), what="sample_next_token(temperature=0)")
