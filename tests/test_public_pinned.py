"""The public tests answer from pinned reference values, kept equal to what solutions/ says."""

from __future__ import annotations

import json

import pytest
import torch

from grader.errors import InternalError
from grader.suite.pinned import (
    PINNED_PATH,
    PinnedReference,
    decode,
    encode,
    record_public_expected,
    render_expected,
)
from grader.suite.proxy import ReferenceProxy


def test_the_pinned_file_is_what_solutions_answer_today():
    fresh = render_expected(record_public_expected())
    assert PINNED_PATH.read_text(encoding="utf-8") == fresh, "run python scripts/pin_public.py"


def test_a_pinned_answer_equals_the_reference_and_an_unpinned_question_is_an_error():
    pinned, reference = PinnedReference(), ReferenceProxy(memo=False)
    logits = torch.linspace(-3, 3, 2 * 4 * 5).reshape(2, 4, 5)
    ids = torch.tensor([[1, 2, 3, 4], [4, 3, 2, 0]])
    got = pinned.losses.causal_lm_loss(logits, ids)
    want = reference.losses.causal_lm_loss(logits, ids)
    assert got.dtype == want.dtype and torch.equal(got, want)
    with pytest.raises(InternalError, match="not pinned"):
        pinned.losses.causal_lm_loss(logits + 1, ids)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.bool,
                                   torch.int64, torch.float16])  # fmt: skip
def test_values_round_trip_exactly(dtype):
    t = (torch.linspace(-2, 2, 12) * 1.37).reshape(3, 4).to(dtype)
    value = (t, [1, 2.5, None, "x"], {"k": t[0]}, torch.zeros(0, 3, dtype=dtype))
    back = decode(json.loads(json.dumps(encode(value))))
    assert type(back) is tuple and torch.equal(back[0], t) and back[0].dtype == dtype
    assert back[1] == [1, 2.5, None, "x"] and torch.equal(back[2]["k"], t[0])
    assert back[3].shape == (0, 3) and back[3].dtype == dtype


MISTAKES = {
    "triu_tril_swapped": ("masks", "return j <= i + (k_len - q_len)", "return j >= i"),
    "diagonal_excluded": ("masks", "return j <= i + (k_len - q_len)", "return j < i"),
    "mask_off_by_one_future": ("masks", "return j <= i + (k_len - q_len)", "return j <= i + 1"),
    "forgot_shift": (
        "losses",
        "return _mean_cross_entropy(logits[:, :-1].reshape(-1, V), targets.reshape(-1))",
        "return _mean_cross_entropy(logits.reshape(-1, V), input_ids.reshape(-1))",
    ),
}


@pytest.fixture(scope="module")
def public_grader(grader_as):
    from grader.pipeline import GradeOptions

    options = GradeOptions(suite="public", grade_written=False, grade_drill=False)
    with grader_as(options) as g:  # the session's warm grader (tests/conftest.py)
        yield g


@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_the_self_check_names_the_commonest_mask_and_loss_mistakes(public_grader, mistake):
    """`grader check` said "Failures no known mistake explains" for a torch.triu mask and an
    unshifted loss (the handout has no trusted models of mistakes): its public tests now
    recognise these from the pinned answer itself, so the student gets the catalogue's hint."""
    from grader.testing import SOLUTIONS, reference_submission

    part, old, new = MISTAKES[mistake]
    source = (SOLUTIONS / f"{part}.py").read_text()
    assert old in source
    report = public_grader.grade(
        reference_submission("m", {f"{part}.py": source.replace(old, new)})
    )
    failed = [t for t in report.tests if t.status != "passed"]
    assert failed and all(t.diagnoses == (mistake,) for t in failed), failed
