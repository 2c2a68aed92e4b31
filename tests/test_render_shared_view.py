"""A batch renders each report as .md and .html from one format-free view (`report_view`'s
`shared`): the same bytes as rendering each format on its own, and a shared view never
reaches another report."""

from __future__ import annotations

import pytest

from grader.render import render_report
from grader.report import (
    CriterionResult,
    GradeReport,
    ScoreAdjustment,
    WrittenResult,
)
from grader.report import (
    TestResult as _Result,
)


def _report(name: str, failing: str) -> GradeReport:
    tests = (
        _Result("masks.causal[3]", "masks", "causal", 1.0, 1.0, "passed"),
        _Result(
            "losses.shift", "losses", "shift", 0.0, 2.0, "failed",
            f"{failing}: expected 1.5, got 2.5\nsecond line with `code`", ("forgot_shift",),
        ),
        _Result(
            "generation.greedy", "generation", "greedy", 0.0, 1.0, "missing",
            "not attempted: calling greedy_generate() raised NotImplementedError",
        ),
    )  # fmt: skip
    written = WrittenResult(
        score=1.0,
        max_score=2.0,
        needs_review=False,
        criteria=(CriterionResult("C1", "met", "quoted <b>evidence</b>", "well said"),),
        summary="one of two",
    )
    return GradeReport("0.1.0", name, tests, {"explanation": written}, ("a note",))


@pytest.mark.parametrize("adjustment", [None, ScoreAdjustment(0.5, "late", "1 day late")])
def test_a_shared_view_renders_the_same_bytes_in_every_format(adjustment):
    report = _report("ada", "causal_lm_loss <off by one>")
    shared: dict = {}
    for fmt in ("md", "html", "text", "md"):
        alone = render_report(report, fmt, adjustment=adjustment)
        assert render_report(report, fmt, adjustment=adjustment, shared=shared) == alone


def test_a_shared_view_cannot_carry_one_report_into_another():
    ada, bob = _report("ada", "ada's own failure"), _report("bob", "bob's own failure")
    shared: dict = {}
    assert "ada's own failure" in render_report(ada, "md", shared=shared)
    with pytest.raises(ValueError, match="one report"):
        render_report(bob, "md", shared=shared)
    assert "ada's" not in render_report(bob, "md", shared={})


def test_batch_feedback_files_are_rendered_from_one_view_per_report(tmp_path, monkeypatch):
    """`_feedback` makes each report's view once for both formats, and each file is what
    `render_report` makes of that report alone."""
    from grader.batch import outputs
    from grader.render import view

    made: list[str] = []
    parts_view = view._parts_view

    def counting(report):
        made.append(report.submission)
        return parts_view(report)

    monkeypatch.setattr(view, "_parts_view", counting)
    graded = [
        outputs.EntryOutcome(n, n, n, [], False, "graded", report=_report(n, f"{n} failed"))
        for n in ("ada", "bob")
    ]
    files: dict = {}
    result = outputs.WriteResult()
    wanted = outputs._feedback(tmp_path, graded, None, result, files, {})
    assert not result.errors and wanted == {"ada.md", "ada.html", "bob.md", "bob.html"}
    assert made == ["ada", "bob"]
    monkeypatch.setattr(view, "_parts_view", parts_view)
    for o in graded:
        for fmt in ("md", "html"):
            assert files[tmp_path / f"{o.key}.{fmt}"] == render_report(o.report, fmt)


def test_a_check_without_a_message_gets_the_general_views_values():
    from grader.render import view

    quiet = _Result("masks.causal[3]", "masks", "causal", 1.0, 1.0, "passed", "", ("x",))
    got = view._test_view(quiet)
    # the general case, spelled out for an empty message
    assert got == {
        "id": "masks.causal[3]", "name": "causal", "status": "passed", "tag": "PASS",
        "score": "1", "max_score": "1", "message": "", "message_lines": [""], "summary": "",
        "more": False, "fence": "```", "diagnoses": ["x"],
    }  # fmt: skip
    assert list(got) == list(view._test_view(_report("ada", "m").tests[1]))  # same keys, order
