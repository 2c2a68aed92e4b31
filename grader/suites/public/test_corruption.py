"""Public self-check for Part B: the invariants of mask_tokens on one batch."""

import pytest
import torch

from grader.suite.checks import check_tensor, fail


@pytest.mark.points(1)
def test_mask_tokens_invariants(student):
    ids = torch.arange(2 * 50).reshape(2, 50) % 20 + 3
    ids[:, 0] = 1  # a special token
    ids[1, 40:] = 0  # padding
    gen = torch.Generator().manual_seed(0)
    inputs, labels = student.corruption.mask_tokens(
        ids, mask_token_id=2, vocab_size=23, special_token_ids=[0, 1, 2], generator=gen
    )
    check_tensor(inputs, what="inputs", shape=ids.shape)
    check_tensor(labels, what="labels", shape=ids.shape)
    selected = labels != -100
    if selected[:, 0].any() or selected[1, 40:].any():
        fail(
            "special tokens (here id 1 at position 0, and padding id 0) must never be selected",
            diagnoses=["specials_selected"],
        )
    if not torch.equal(labels[selected], ids[selected]):
        fail("labels must hold the original id at every selected position")
    if not torch.equal(inputs[~selected], ids[~selected]):
        fail("positions that were not selected must keep their original id")
