"""A model whose modules are in mixed train/eval modes crosses the sandbox boundary intact
(issue 16): the worker sees every module's flag, and what the student's code leaves is
written back per module, so a hidden test can check that generation restores each one."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from grader.loading.model import Submission
from grader.pipeline import GradeOptions, Grader
from grader.sandbox.invoke import Effects, invoke
from grader.sandbox.models import model_from_spec, model_to_spec
from grader.trusted_tinylm import build_trusted_model

ROOT = Path(__file__).resolve().parents[1]
PARTS = ("masks", "corruption", "losses", "generation")


def _mixed() -> torch.nn.Module:
    from grader.sandbox.models import STANDARD_CONFIGS
    from grader.trusted_tinylm import STANDARD_SEEDS

    model = build_trusted_model(STANDARD_CONFIGS["causal"], STANDARD_SEEDS["causal"]).eval()
    model.blocks[0].train(True)
    return model


def _modes(model: torch.nn.Module) -> list[bool]:
    return [m.training for m in model.modules()]


def test_spec_round_trip_keeps_every_module_mode():
    model = _mixed()
    header, tensors = model_to_spec(model)
    assert _modes(model_from_spec(header, tensors)) == _modes(model)
    uniform = _mixed().train(True)
    header, tensors = model_to_spec(uniform)
    assert "modes" not in header  # the common case sends what it always sent
    assert _modes(model_from_spec(header, tensors)) == _modes(uniform)


def test_spec_refuses_modes_that_do_not_fit_the_model():
    header, tensors = model_to_spec(_mixed())
    for bad in ([True], ["yes"] * len(header["modes"]), "all"):
        with pytest.raises(ValueError):
            model_from_spec({**header, "modes": bad}, tensors)


def test_effects_report_and_restore_mixed_modes():
    model = _mixed()
    effects = invoke(lambda m: m.blocks[1].train(True) and None, (model,), {}).effects
    assert effects.module_modes["args[0]"] == _modes(model)
    again = Effects.from_dict(effects.to_dict())
    assert again.module_modes == effects.module_modes
    assert "module_modes" not in Effects().to_dict()


def _restore_tests(grader: Grader, generation: str) -> dict[str, object]:
    sources = {m: (ROOT / "solutions" / f"{m}.py").read_text(encoding="utf-8") for m in PARTS}
    sources["generation"] = generation
    report = grader.grade(Submission(name="modes", origin="tests", sources=sources, missing={}))
    assert not report.errors, report.errors
    return {t.id: t for t in report.tests}


RESTORE_TESTS = ("generation.greedy_restores_model_mode",
                 "generation.prefix_consistency_gap_restores_mode[restores_mode]")  # fmt: skip


def test_mode_restoring_is_judged_per_module_through_the_sandbox():
    """The reference (restores every module's mode) keeps the points; restoring only the top
    module's mode loses them, which the worker can only show if it got every module's flag."""
    reference = (ROOT / "solutions" / "generation.py").read_text(encoding="utf-8")
    old = (
        "        for m, mode in zip(modules, modes, strict=True):\n            m.training = mode\n"
    )
    assert reference.count(old) == 1
    top_only = reference.replace(
        old, "        if modules:\n            modules[0].train(modes[0])\n"
    )
    g = Grader(GradeOptions(grade_written=False, keyword="test_generation and restores"))
    g.start()
    try:
        good, bad = _restore_tests(g, reference), _restore_tests(g, top_only)
    finally:
        g.close()
    for tid in RESTORE_TESTS:
        assert good[tid].status == "passed", good[tid].message
        assert bad[tid].status == "failed", bad[tid].message
        assert "mixed train/eval modes" in bad[tid].message
