"""The report leads with what to fix: per diagnosed cause its hint and the checks it explains,
then the failures no diagnosis explains, one line per not-attempted function, and last the
evidence (one line per failed check, details folded). Checked on real graded submissions from
the demo class (cleo: one bug; ben: the untouched stubs) in every text format."""

from __future__ import annotations

import re

import pytest
from markupsafe import escape

from grader.demo import demo_submissions
from grader.pipeline import GradeOptions
from grader.render import render_report
from grader.render.view import feedback_view
from grader.report import GradeReport
from grader.report import TestResult as _Result
from grader.sandbox.limits import SandboxLimits
from grader.textsafe import md_escape

FORMATS = ("text", "md", "html")
# how a check's message (`ESCAPE`) and the catalogue's own text (`TRUSTED`) appear per format
ESCAPE = {"text": str, "md": md_escape, "html": lambda s: str(escape(s))}
TRUSTED = {"text": str, "md": str, "html": lambda s: str(escape(s))}


@pytest.fixture(scope="module")
def graded(grader_as) -> dict[str, GradeReport]:
    options = GradeOptions(limits=SandboxLimits(call_timeout=3.0, submission_timeout=30.0))
    subs = {s.name: s for s in demo_submissions() if s.name in ("ben", "cleo")}
    with grader_as(options) as grader:  # the session's warm grader (tests/conftest.py)
        return {name: grader.grade(sub) for name, sub in subs.items()}


@pytest.mark.parametrize("fmt", FORMATS)
def test_one_bug_report_starts_with_what_to_fix(graded, fmt):
    report = graded["cleo"]
    fixes = feedback_view(report)["fixes"]
    assert [f["id"] for f in fixes] == ["forgot_shift"]
    out = render_report(report, fmt)
    esc = ESCAPE[fmt]
    heading = out.index("What to fix")
    # after the header and totals, nothing about a single check comes before the section
    # (her drill was not handed in: those checks are "not attempted", listed on their own)
    failing = [t for t in report.tests if t.status not in ("passed", "missing")]
    assert len(failing) >= 10
    for t in failing:
        assert out.index(t.id) > heading, t.id  # ids are the grader's, unescaped
    fix = fixes[0]
    title = out.index(TRUSTED[fmt](fix["title"]))
    hint = out.index(TRUSTED[fmt](fix["hint"]))
    assert heading < title < hint
    # ...and the hint comes before any failure's own message
    for t in failing:
        summary = t.message.splitlines()[0][:80]
        assert out.index(esc(summary)) > hint, t.id
    # every check the diagnosis explains is listed with it, and each failure's evidence is
    # one line (no check's message is printed twice in the evidence)
    assert set(fix["tests"]) | {t["id"] for t in feedback_view(report)["unexplained"]} == {
        t.id for t in failing
    }


@pytest.mark.parametrize("fmt", FORMATS)
def test_stub_report_has_one_line_per_function_not_per_check(graded, fmt):
    report = graded["ben"]
    assert report.tests and all(t.status == "missing" for t in report.tests)
    calls = [re.search(r"calling (\w+)\(\)", t.message) for t in report.tests]
    functions = {m.group(1) for m in calls if m}  # the drill's checks name its script instead
    assert len(report.tests) > 5 * len(functions)
    out = render_report(report, fmt)
    lines = out.splitlines()
    named = [{f for f in functions if re.search(rf"\b{f}\(\)", line)} for line in lines]
    assert all(len(fs) <= 1 for fs in named)  # a line each, not run together
    for f in functions:
        assert sum(f in fs for fs in named) == 1, f
    assert "not attempted" in out.lower()
    assert not any(t.id in out for t in report.tests)  # no block per check
    assert "raised NotImplementedError" not in out


def _report(*tests: _Result) -> GradeReport:
    return GradeReport(grader_version="0", submission="s", tests=tests)


def _t(id: str, status: str = "failed", diagnoses: tuple[str, ...] = (), message: str = "bad"):
    part = id.split(".")[0]
    return _Result(id=id, part=part, name=id, score=0.0, max_score=1.0,
                      status=status, message=message, diagnoses=diagnoses)  # fmt: skip


def test_grouping_is_by_cause_and_a_check_named_by_two_causes_is_under_each():
    report = _report(
        _t("losses.a", diagnoses=("forgot_shift", "averaged_over_padding")),
        _t("losses.b", diagnoses=("forgot_shift", "averaged_over_padding")),
        _t("losses.c"),
        _t("losses.d", status="passed"),
        _t("masks.e", status="missing", message="masks.py was not found in your submission"),
        _t("masks.f", status="missing", message="masks.py was not found in your submission"),
    )
    view = feedback_view(report)
    assert {f["id"]: f["tests"] for f in view["fixes"]} == {
        "forgot_shift": ["losses.a", "losses.b"],
        "averaged_over_padding": ["losses.a", "losses.b"],
    }
    assert [t["id"] for t in view["unexplained"]] == ["losses.c"]
    [missing] = view["not_attempted"]
    assert (missing["function"], missing["count"], missing["points"]) == (
        "masks.py was not found in your submission",
        2,
        "2",
    )
    assert feedback_view(report) == view  # a pure function of the report


def test_a_one_line_entry_never_ends_on_a_colon_with_nothing_after_it():
    # "...must raise ValueError (the contract says so); your code raised RuntimeError instead:"
    # was the whole unexplained-failure line: the error it introduces was folded away.
    raised = (
        "causal_lm_loss with an attention_mask (2, 3) must raise ValueError; your code raised "
        "RuntimeError instead:\ncalling causal_lm_loss() raised RuntimeError: sizes differ\n"
        '  File "losses.py", line 58, in causal_lm_loss'
    )
    # ...and a first line whose next line only repeats it keeps its words, minus the colon
    quoted = 'a number is not in the results: 1.25 in "its loss is 1.25" (1 in all):\n'
    quoted += '  1.25 in "its loss is 1.25"'
    report = _report(_t("losses.a", message=raised), _t("drill.b", message=quoted))
    summaries = [t["summary"] for t in feedback_view(report)["unexplained"]]
    assert summaries == [
        "causal_lm_loss with an attention_mask (2, 3) must raise ValueError; your code raised "
        "RuntimeError instead: calling causal_lm_loss() raised RuntimeError: sizes differ",
        'a number is not in the results: 1.25 in "its loss is 1.25" (1 in all)',
    ]
    for fmt in FORMATS:
        out = render_report(report, fmt)
        assert ESCAPE[fmt]("instead: calling causal_lm_loss() raised RuntimeError") in out
