"""One long-lived pytest session grades many submissions: nothing may leak between them.

`student` and `reference` are session-scoped fixtures set up once per submission (see
grader/suite/plugin.py); these tests pin that every submission still sees its own student,
that caches keyed on the student's identity are rebuilt, and that pytest's own semantics
(skip/xfail marks, parametrisation, other fixtures) are unchanged in a prepared suite.
"""

from __future__ import annotations

import sys
import textwrap
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from grader.errors import InternalError
from grader.loading.model import Submission
from grader.pipeline import GradeOptions, Grader
from grader.suite import runner
from grader.suite.plugin import GradingPlugin

sys.path.insert(0, str(Path(__file__).resolve().parent))
import test_hidden_suite as hidden  # noqa: E402 - the mutant catalogue and reference sources

SUITE = """
import pytest

SEEN = {}


@pytest.fixture(scope="module")
def module_student(student):
    return student


@pytest.fixture
def doubled(student):
    return student.value * 2


def _cached(student):
    entry = SEEN.get("x")
    if entry is None or entry[0] is not student:
        entry = SEEN["x"] = (student, student.value)
    return entry[1]


@pytest.mark.points(2)
@pytest.mark.parametrize("k", [1, None, "a"])
def test_param(student, reference, k):
    assert reference == "ref" and student.value > 0 and k in (1, None, "a")


def test_cached(student):
    assert _cached(student) == student.value, "stale cache"


def test_module_fixture(student, module_student):
    assert module_student is student


def test_other_fixture(student, doubled, request):
    assert doubled == 2 * student.value and request.node.name == "test_other_fixture"


@pytest.mark.skip(reason="never")
def test_skipped(student):
    pass


@pytest.mark.skipif("True", reason="never either")
def test_skipif(student):
    pass


@pytest.mark.xfail(reason="expected to fail")
def test_xfail(student):
    assert False


def test_fails_for_odd(student):
    assert student.value % 2 == 0
"""


class _Student:
    def __init__(self, value: int) -> None:
        self._value = value

    @property
    def value(self) -> int:
        if self._value < 0:
            raise KeyboardInterrupt  # escapes pytest's protocol: aborts the submission
        return self._value


@pytest.fixture
def tiny_suite(tmp_path, monkeypatch):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "tiny").mkdir()
    (tmp_path / "tiny" / "test_tiny.py").write_text(textwrap.dedent(SUITE))
    monkeypatch.setattr(runner, "SUITES_DIR", tmp_path)
    prepared = runner.PreparedSuite("tiny", "ref")  # type: ignore[arg-type]
    try:
        yield prepared
    finally:
        prepared.close()


def test_each_submission_gets_its_own_student_and_pytest_semantics_hold(tiny_suite):
    for value in (2, 3, 4, 3):  # the same verdicts as a fresh session, every time
        run = tiny_suite.run(_Student(value))
        status = {t.id: t.status for t in run.results}
        assert len(run.results) == 10
        for tid in ("tiny.param[1]", "tiny.param[None]", "tiny.param[a]", "tiny.cached",
                    "tiny.module_fixture", "tiny.other_fixture"):  # fmt: skip
            assert status[tid] == "passed", (value, tid, run.results)
        assert status["tiny.fails_for_odd"] == ("failed" if value % 2 else "passed")
        # a hidden test must never skip quietly: skip, skipif and xfail marks are honoured by
        # pytest and each becomes an "error" result with a note for the instructors
        for tid in ("tiny.skipped", "tiny.skipif", "tiny.xfail"):
            assert status[tid] == "error"
            assert any(e.startswith(tid) for e in run.internal_errors)
        assert {t.max_score for t in run.results if t.name == "param"} == {2.0}


def test_an_aborted_submission_leaves_nothing_behind(tiny_suite):
    """A grader-side abort (here KeyboardInterrupt inside a test) is reported, and the next
    submission still gets its own `student`, not the aborted one's."""
    with pytest.raises(InternalError):
        tiny_suite.run(_Student(-1))
    run = tiny_suite.run(_Student(3))
    status = {t.id: t.status for t in run.results}
    assert status["tiny.fails_for_odd"] == "failed" and status["tiny.cached"] == "passed"
    assert status["tiny.module_fixture"] == "passed" and len(run.results) == 10


def test_a_stale_student_fixture_is_never_graded():
    plugin = GradingPlugin(None, "ref")
    plugin.start_submission(_Student(2))
    item = SimpleNamespace(nodeid="x", fixturenames=["request", "student"])
    plugin._identities["x"] = ("tiny.x", "tiny", "x", 1.0)
    call = SimpleNamespace(when="call", excinfo=None)
    with pytest.raises(RuntimeError, match="previous submission"):
        plugin._result(item, call)  # type: ignore[arg-type]
    # a set-up error before `student` was reached graded nothing: reported as usual
    setup_error = SimpleNamespace(when="setup", excinfo=SimpleNamespace(value=ValueError("x")))
    assert plugin._result(item, setup_error).status == "error"  # type: ignore[arg-type]
    plugin._served = plugin._submission  # set up in this submission: graded
    assert plugin._result(item, call).status == "passed"  # type: ignore[arg-type]


def _sources_with(**mutants: str) -> dict[str, str]:
    sources = hidden._sources()
    for name in mutants.values():
        sources[hidden.MUTANTS[name].module] = hidden.MUTANTS[name].source
    return sources


def test_student_keyed_caches_are_rebuilt_for_every_submission():
    """The hidden suite caches one generation call and two corruption calls per student
    (`_train_mode_call`, `_cached`). Graded right after the reference, a mutant must lose what
    it loses when graded alone, and the reference graded after it must get everything back."""
    options = GradeOptions(grade_written=False, keyword="test_generation or test_corruption")
    mutant = _sources_with(generation="no_eval_mode", corruption="wrong_selection_rate")
    with Grader(options, long_lived=True) as grader:

        def grade(name, sources):
            report = grader.grade(Submission(name=name, origin="tests", sources=sources,
                                             missing={}))  # fmt: skip
            return {t.id: t.status for t in report.tests}

        alone = grade("mutant", mutant)
        first = grade("reference", hidden._sources())
        after = grade("mutant", mutant)
        again = grade("reference", hidden._sources())
    assert set(first.values()) == {"passed"} and again == first
    assert after == alone
    assert alone["generation.greedy_runs_in_eval_mode"] == "failed"
    assert alone["corruption.selection_rate"] == "failed"


def test_direct_parameters_reach_the_test_unchanged():
    options = replace(hidden.BASE_OPTIONS, keyword="test_losses")
    with Grader(options, long_lived=True) as grader:
        report = grader.grade(Submission(name="reference", origin="tests",
                                         sources=hidden._sources(), missing={}))  # fmt: skip
    ids = [t.id for t in report.tests]
    assert {t.status for t in report.tests} == {"passed"}
    assert "losses.gradient[causal_lm_loss-float32]" in ids


def test_failed_checks_skip_pytests_traceback_formatting(tmp_path, monkeypatch):
    """pytest would walk, filter and format the traceback of every failed test (even with
    --tb=no), which nothing reads here; graded items report a one-line failure instead, and
    the graded result still carries the check's own message."""
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    suite = tmp_path / "brief"
    suite.mkdir()
    (suite / "conftest.py").write_text(
        textwrap.dedent("""
        BRIEF_LONGREPRS = []

        def pytest_runtest_logreport(report):
            if report.when == "call" and report.failed:
                BRIEF_LONGREPRS.append(report.longrepr)
    """)
    )
    (suite / "test_brief.py").write_text(
        textwrap.dedent("""
        from grader.suite.checks import GradeFailure

        def test_check(student):
            raise GradeFailure("expected 1, got 2", ["forgot_shift"])

        def test_bug_in_the_test(student):
            {}["missing"]
    """)
    )
    monkeypatch.setattr(runner, "SUITES_DIR", tmp_path)
    prepared = runner.PreparedSuite("brief", "ref")  # type: ignore[arg-type]
    try:
        run = prepared.run(_Student(2))
    finally:
        prepared.close()
    by_id = {t.id: t for t in run.results}
    assert by_id["brief.check"].status == "failed"
    assert by_id["brief.check"].message == "expected 1, got 2"
    assert by_id["brief.check"].diagnoses == ("forgot_shift",)
    assert by_id["brief.bug_in_the_test"].status == "error"
    assert run.internal_errors == ("brief.bug_in_the_test: KeyError: 'missing'",)
    conftest = next(m for m in list(sys.modules.values())
                    if "BRIEF_LONGREPRS" in getattr(m, "__dict__", {}))  # fmt: skip
    assert conftest.BRIEF_LONGREPRS == ["GradeFailure: expected 1, got 2", "KeyError: 'missing'"]


def test_the_pytest_shortcuts_change_no_result(tmp_path, monkeypatch):
    """`grader.suite.shortcuts` only skips pytest work nobody reads: with and without it,
    every verdict and message is the same, and the submission fixture is there. (An xfail's
    note for the instructors quotes pytest's failure text: one line instead of the traceback.)"""
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "tiny").mkdir()
    (tmp_path / "tiny" / "test_tiny.py").write_text(
        textwrap.dedent(SUITE) + "\n\ndef test_context(submission, student):\n"
        "    assert submission.student is student\n"
        "    assert submission.once('k', lambda: student.value) == student.value\n"
    )
    monkeypatch.setattr(runner, "SUITES_DIR", tmp_path)
    outcomes, students = [], [_Student(2), _Student(3)]  # messages show their addresses
    for shortcuts in (True, False):
        prepared = runner.PreparedSuite("tiny", "ref", shortcuts=shortcuts)  # type: ignore[arg-type]
        try:
            runs = [prepared.run(student) for student in students]
        finally:
            prepared.close()
        outcomes.append([([(t.id, t.status, t.message) for t in r.results],
                          [e.split(":")[0] for e in r.internal_errors]) for r in runs])  # fmt: skip
    assert outcomes[0] == outcomes[1]
    assert all(s == "passed" for i, s, _ in outcomes[0][0][0] if i == "tiny.context")
