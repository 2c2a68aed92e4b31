"""Failure messages a student can act on (issue 16): they name the call that failed with its
settings, show the difference and the tolerance when values print alike, and never give a
hint whose premise the observation contradicts."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import torch

from grader.diagnosis import explain_ids
from grader.loading.model import Submission
from grader.pipeline import GradeOptions, Grader
from grader.suite.checks import GradeFailure, assert_close

ROOT = Path(__file__).resolve().parents[1]
PARTS = ("masks", "corruption", "losses", "generation")
OPTIONS = GradeOptions(grade_written=False)


def _edited(module: str, old: str, new: str) -> dict[str, str]:
    sources = {m: (ROOT / "solutions" / f"{m}.py").read_text(encoding="utf-8") for m in PARTS}
    assert sources[module].count(old) == 1, old
    sources[module] = sources[module].replace(old, new)
    return sources


@pytest.fixture(scope="module")
def grader(grader_as):
    with grader_as(OPTIONS) as g:  # the session's warm grader (tests/conftest.py)
        yield g


def _grade(grader: Grader, sources: dict[str, str], keyword: str) -> dict[str, object]:
    grader.options = replace(OPTIONS, keyword=keyword)
    try:
        report = grader.grade(Submission(name="probe", origin="tests", sources=sources, missing={}))
    finally:
        grader.options = OPTIONS
    assert not report.errors, report.errors
    return {t.id: t for t in report.tests}


# ----------------------------------------------------------------------------- values


def test_values_that_differ_never_print_alike():
    with pytest.raises(GradeFailure) as info:
        got, want = (torch.tensor(x, dtype=torch.float64) for x in (3.028921, 3.028920))
        assert_close(got, want, what="loss", rtol=0, atol=1e-7)
    msg = info.value.message
    assert "expected 3.02892, got 3.02892" not in msg, msg
    assert "expected 3.028920, got 3.028921" in msg, msg
    assert "max abs diff 1e-06" in msg and "rtol=0, atol=1e-07" in msg, msg
    from grader.suite.checks import distinct

    for a, b in [(1.0, 1.0 + 2**-52), (-0.0, 1e-300), (1e20, 1e20 * (1 + 1e-15))]:
        sa, sb = distinct(a, b)
        assert sa != sb, (a, b)


def test_a_wrong_bool_mask_is_shown_as_true_and_false():
    """A mask's first difference said "expected 0, got 1": the float copy compared, not what
    the student's bool tensor holds (its full print says True/False)."""
    want = torch.ones(3, 3, dtype=torch.bool).tril()
    with pytest.raises(GradeFailure) as info:
        assert_close(want.T.clone(), want, what="causal_mask(3)")
    assert "at index [0, 1] expected False, got True (6 of 9 values differ)" in info.value.message
    with pytest.raises(GradeFailure) as info:
        assert_close(torch.tensor(False), torch.tensor(True), what="flag")
    assert "expected True, got False." in info.value.message
    with pytest.raises(GradeFailure) as info:  # integers stay numbers
        assert_close(torch.tensor([1, 5]), torch.tensor([1, 3]), what="ids")
    assert "expected 3, got 5" in info.value.message


def test_tensor_message_has_max_differences_and_tolerance():
    want = torch.tensor([0.0, 1.0, 2.0, 4.0])
    got = torch.tensor([0.0, 1.5, 2.0, float("nan")])
    with pytest.raises(GradeFailure) as info:
        assert_close(got, want, what="weights", rtol=1e-5, atol=1e-6)
    msg = info.value.message
    assert "max abs diff 0.5, max rel diff 0.5" in msg, msg
    assert "rtol=1e-05, atol=1e-06" in msg and "1 more differ by being NaN/inf" in msg, msg


def test_call_is_rendered_compactly():
    from grader.suite.proxy import format_call

    logits = torch.zeros(2, 7)
    text = format_call("generation", "sample_next_token", (logits,),
                       {"temperature": 0.0, "top_k": 3,
                        "generator": torch.Generator().manual_seed(123)})  # fmt: skip
    assert text == ("sample_next_token(logits: float32[2, 7], temperature=0.0, top_k=3, "
                    "generator=<seeded 123>)")  # fmt: skip
    assert " at 0x" not in format_call("masks", "causal_mask", (object(),), {})


def test_failed_comparison_names_the_call_and_its_settings(grader):
    """temperature=0 with ties broken towards the highest id: the report shows the call, so
    the student sees temperature=0.0 was passed."""
    sources = _edited(
        "generation",
        "        return logits.argmax(dim=-1)",
        "        return logits.size(-1) - 1 - logits.flip(-1).argmax(dim=-1)",
    )
    t = _grade(grader, sources, "test_generation and temperature_zero_is_argmax")[
        "generation.temperature_zero_is_argmax"]  # fmt: skip
    assert t.status == "failed"
    assert "(the call: sample_next_token(logits: float32[3, 12], temperature=0.0, " \
           "generator=<seeded 0>))" in t.message, t.message  # fmt: skip


# ----------------------------------------------------------------------------- hints


def test_nan_gradient_hint_needs_fully_masked_rows(grader):
    """Gradients that are NaN under any mask (an infinite derivative, not the empty rows) get
    no hint about fully-masked rows: the observation contradicts its premise."""
    sources = _edited(
        "masks",
        "    out = weights @ v  # (B, H, Tq, D)\n",
        "    out = weights @ v\n    out = out + 0.0 * torch.sqrt(out - out)\n",
    )
    t = _grade(grader, sources, "test_masks and masked_attention_gradients")[
        "masks.masked_attention_gradients"]  # fmt: skip
    assert t.status == "failed"
    assert not {"nan_on_empty_rows", "nan_gradient_on_empty_rows"} & set(t.diagnoses)
    assert "even with a plain causal mask" in t.message, t.message


def test_nan_gradient_after_a_finite_forward_gets_its_own_hint(grader):
    """An additive -inf bias then nan_to_num: the outputs are already finite, so the hint speaks of
    repairing NaN after the softmax, not of outputs that are NaN."""
    sources = _edited(
        "masks",
        "scores = torch.where(mask, scores, torch.finfo(compute).min)",
        "scores = scores + torch.zeros_like(scores).masked_fill(~mask, -math.inf)",
    )
    sources["masks"] = sources["masks"].replace(
        "        weights = torch.where(mask, weights, 0.0)\n",
        "        weights = torch.nan_to_num(weights, nan=0.0)\n",
    )
    t = _grade(grader, sources, "test_masks and masked_attention_gradients")[
        "masks.masked_attention_gradients"]  # fmt: skip
    assert t.diagnoses == ("nan_gradient_on_empty_rows",), (t.diagnoses, t.message)
    assert "nan_to_num" in t.message + explain_ids(t.diagnoses)  # the hint, added at rendering


# ----------------------------------------------------------------------------- independent checks


def test_a_dtype_failure_does_not_hide_aliasing_nor_one_function_the_other(grader):
    """Generation that loses the prompt's dtype and returns the prompt itself for
    max_new_tokens=0: both clauses are charged, each once, and the aliasing of both functions
    is named (one failing check used to stop the test before the others ran)."""
    sources = _edited(
        "generation",
        "next_id = choose(logits[:, -1, :]).to(ids.device, ids.dtype)",
        "next_id = choose(logits[:, -1, :]).to(ids.device)",
    )
    sources["generation"] = sources["generation"].replace(
        "    _check_prompt(input_ids, max_new_tokens)\n    ids = input_ids.clone()",
        "    _check_prompt(input_ids, max_new_tokens)\n    if max_new_tokens == 0:\n"
        "        return input_ids\n    ids = input_ids.clone()",
    )
    tests = _grade(grader, sources, "test_generation and generate_output_contract")
    dtype = tests["generation.generate_output_contract[prompt_dtype]"]
    alias = tests["generation.generate_output_contract[no_new_tokens_copy]"]
    assert dtype.status == alias.status == "failed"
    for function in ("greedy_generate", "sample_generate"):
        assert f"{function}(causal model, an int32 prompt" in dtype.message, dtype.message
        assert f"{function}(causal model, [[5, 9, 2, 20]], max_new_tokens=0) must return a new" \
            in alias.message, alias.message  # fmt: skip


def test_check_effects_reports_every_effect():
    from types import SimpleNamespace

    from grader.suite.checks import check_effects

    effects = SimpleNamespace(mutated_args=("args[0]",), result_aliases=("args[0]",),
                              global_rng_changed=True)  # fmt: skip
    with pytest.raises(GradeFailure) as info:
        check_effects(effects, what="f")
    assert info.value.diagnoses == ("in_place_edit", "result_aliases_input", "global_rng")
