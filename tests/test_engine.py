"""The grading engine end to end: failures cost only their own tests, reports are stable."""

from __future__ import annotations

import json

import pytest

from grader.pipeline import GradeOptions, Grader
from grader.report import GradeReport, validate_report_dict
from grader.sandbox.client import MAX_CRASHES_BEFORE_FIRST_RETURN
from grader.sandbox.limits import SandboxLimits
from grader.testing import SOLUTIONS, reference_submission, stub_submission

CODE = ("masks", "corruption", "losses", "generation")


@pytest.fixture(scope="module")
def engine():
    options = GradeOptions(
        limits=SandboxLimits(call_timeout=1.5, submission_timeout=40),
        grade_written=False,
        grade_drill=False,
    )
    with Grader(options) as g:
        yield g


@pytest.fixture(scope="module")
def reference_report(engine) -> GradeReport:
    return engine.grade(reference_submission("ref"))


def _with_bug(module: str, old: str, new: str) -> str:
    src = (SOLUTIONS / f"{module}.py").read_text()
    assert old in src, f"{old!r} not in solutions/{module}.py"
    return src.replace(old, new, 1)


def _inject_first_line_of(module: str, function: str, statement: str) -> str:
    """The reference module with `statement` run first thing in `function`."""
    src = (SOLUTIONS / f"{module}.py").read_text()
    start = src.index(f"def {function}(")
    doc_end = src.index('"""', src.index('"""', start) + 3) + 3
    return src[:doc_end] + f"\n    {statement}" + src[doc_end:]


def _assert_only_part_lost(report: GradeReport, reference: GradeReport, part: str) -> None:
    for p in CODE:
        got, full = report.parts[p], reference.parts[p]
        if p == part:
            assert got.score < full.score, f"{part} should lose points"
        else:
            assert got.score == full.score, f"{p} lost points because of a bug in {part}"


def test_reference_gets_full_marks(reference_report):
    assert reference_report.tests
    bad = [(t.id, t.status, t.message) for t in reference_report.tests if t.status != "passed"]
    assert not bad
    for p in CODE:
        assert reference_report.parts[p].score == reference_report.parts[p].max_score > 0


def test_stubs_score_zero_as_not_attempted(engine):
    report = engine.grade(stub_submission())
    assert report.score == 0
    assert {t.status for t in report.tests} == {"missing"}
    assert all("not attempted" in t.message for t in report.tests)


def test_syntax_error_costs_only_its_part(engine, reference_report):
    broken = (
        (SOLUTIONS / "losses.py")
        .read_text()
        .replace("def causal_lm_loss(", "def causal_lm_loss((", 1)
    )
    report = engine.grade(reference_submission("syntax", {"losses.py": broken}))
    _assert_only_part_lost(report, reference_report, "losses")
    losses = [t for t in report.tests if t.part == "losses"]
    assert all(t.status == "error" for t in losses)
    assert all("syntax error in losses.py, line" in t.message for t in losses)


def test_hang_is_stopped_and_costs_only_its_part(engine, reference_report):
    src = _inject_first_line_of("masks", "masked_attention", "while True: pass")
    report = engine.grade(reference_submission("hang", {"masks.py": src}))
    _assert_only_part_lost(report, reference_report, "masks")
    statuses = {t.status for t in report.tests if t.part == "masks" and t.score == 0}
    assert "timeout" in statuses


def test_hard_crash_costs_only_its_part(engine, reference_report):
    src = _inject_first_line_of("corruption", "mask_tokens", "import os; os._exit(3)")
    report = engine.grade(reference_submission("crash", {"corruption.py": src}))
    _assert_only_part_lost(report, reference_report, "corruption")
    failed = [t for t in report.tests if t.part == "corruption" and t.score == 0]
    assert failed and all(t.status == "error" for t in failed)
    died = [t for t in failed if "died" in t.message and not t.message.startswith("not run:")]
    skipped = [t for t in failed if t.message.startswith("not run:")]
    # It crashes every time: after a few crashes its remaining checks are not run at all.
    assert len(died) >= MAX_CRASHES_BEFORE_FIRST_RETURN and len(died) + len(skipped) == len(failed)


def test_sys_exit_costs_only_its_part(engine, reference_report):
    src = _inject_first_line_of("losses", "causal_lm_loss", "import sys; sys.exit(0)")
    report = engine.grade(reference_submission("exit", {"losses.py": src}))
    _assert_only_part_lost(report, reference_report, "losses")
    failed = [t for t in report.tests if t.part == "losses" and t.score == 0]
    assert failed and all("sys.exit" in t.message for t in failed)


def test_missing_part_scores_zero_with_message(engine, reference_report):
    report = engine.grade(reference_submission("partial", {"generation.py": None}))
    _assert_only_part_lost(report, reference_report, "generation")
    gen = [t for t in report.tests if t.part == "generation"]
    assert all(t.status == "missing" and "generation.py was not found" in t.message for t in gen)


def test_exception_names_student_file_and_line(engine):
    src = _inject_first_line_of("masks", "causal_mask", "raise ValueError('boom')")
    report = engine.grade(reference_submission("raises", {"masks.py": src}))
    msgs = [t.message for t in report.tests if t.part == "masks" and t.status == "error"]
    assert msgs and any('File "masks.py", line' in m and "ValueError: boom" in m for m in msgs)


def test_json_is_deterministic_and_valid(engine, reference_report):
    again = engine.grade(reference_submission("ref"))
    assert again.to_json() == reference_report.to_json()
    validate_report_dict(json.loads(reference_report.to_json()))
    assert GradeReport.from_dict(reference_report.to_dict()).to_json() == reference_report.to_json()


def test_a_submission_drawing_from_the_global_rng_grades_the_same_in_a_fresh_grader(engine):
    """Torch seeds its global generator from the OS in every new process; the worker fixes
    it, so even a submission that (wrongly) draws from it gets the same report every run."""
    src = _with_bug(
        "corruption",
        "u = torch.rand(ids.shape, generator=generator, device=device)",
        "u = torch.rand(ids.shape, device=device)",
    )
    sub = reference_submission("global-rng", {"corruption.py": src})
    first = engine.grade(sub)
    with Grader(engine.options) as fresh:
        assert fresh.grade(sub).to_json() == first.to_json()
    part = first.parts["corruption"]
    assert part.score < part.max_score


def test_a_bad_submission_does_not_change_the_next_grade(engine, reference_report):
    src = _inject_first_line_of("masks", "causal_mask", "import torch; torch.tril = torch.triu")
    engine.grade(reference_submission("patcher", {"masks.py": src}))
    assert engine.grade(reference_submission("ref")).to_json() == reference_report.to_json()


@pytest.mark.parametrize(
    "returned",
    ["(1, 2, 3)", "None", "args[0] if args else None", "(args[0], args[0]) if args else None"],
)
def test_degenerate_functions_earn_nothing(engine, returned):
    """Property checks (no leak, no mutation, eval mode, invariants) only pay for functions
    that also compute the right thing: an identity or constant function earns no points."""
    import inspect

    overrides = {}
    for part in CODE:
        module = __import__(f"exercises.{part}", fromlist=["_"])
        names = [
            n
            for n, f in inspect.getmembers(module, inspect.isfunction)
            if f.__module__ == module.__name__ and not n.startswith("_")
        ]
        overrides[f"{part}.py"] = "".join(
            f"def {n}(*args, **kwargs):\n    return {returned}\n\n" for n in names
        )
    report = engine.grade(reference_submission("degenerate", overrides))
    earned = [(t.id, t.score) for t in report.tests if t.score > 0]
    assert not earned, earned


def test_changing_the_options_between_grades_takes_effect(engine):
    from dataclasses import replace

    before = engine.options
    try:
        engine.options = replace(before, keyword="test_masks")
        parts = {t.part for t in engine.grade(reference_submission("masks-only")).tests}
    finally:
        engine.options = before
    assert parts == {"masks"}
    assert {t.part for t in engine.grade(reference_submission("all")).tests} == set(CODE)
