"""The pytest plugin that turns a suite run into `TestResult`s.

Registered per run with ``pytest.main(args, plugins=[GradingPlugin(...)])``. It provides the
`student` and `reference` fixtures, the ``points(n)`` marker, and classifies every outcome
into the report's statuses: a `StudentError` keeps its own status (timeout, missing, error), a
`GradeFailure`/`AssertionError` is "failed", and an unexpected exception in test code is
"error" with a note in `internal_errors` so a grader bug is never silent.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from grader.report import TestResult
from grader.sandbox.client import StudentError
from grader.suite.checks import GradeFailure


def test_identity(item: pytest.Item) -> tuple[str, str, str]:
    """(id, part, name) of a collected test: `masks.future_leak[float64]`."""
    part = item.path.stem.removeprefix("test_")
    name = getattr(item, "originalname", item.name).removeprefix("test_")
    callspec = getattr(item, "callspec", None)
    tid = f"{part}.{name}" + (f"[{callspec.id}]" if callspec is not None else "")
    return tid, part, name


def points_of(item: pytest.Item) -> float:
    marker = item.get_closest_marker("points")
    if marker is None:
        return 1.0
    return float(marker.args[0] if marker.args else marker.kwargs.get("n", 1))


class GradingPlugin:
    """Collects graded outcomes for one submission."""

    def __init__(self, student: Any, reference: Any, parts: set[str] | None = None) -> None:
        self._student = student
        self._reference = reference
        self.parts = parts
        self.results: list[TestResult] = []
        self.internal_errors: list[str] = []
        self.collection_errors: list[str] = []
        self._started: dict[str, float] = {}
        # (id, part, name, points) per collected item: constant for the session, and asked for
        # every item of every submission.
        self._identities: dict[str, tuple[str, str, str, float]] = {}
        # Set by PreparedSuite: called with the session instead of pytest's own test loop.
        self.serve: Callable[[pytest.Session], None] | None = None

    def start_submission(self, student: Any) -> None:
        self._student = student
        self.results = []
        self.internal_errors = []
        self._started = {}

    def finish_submission(self) -> tuple[list[TestResult], list[str]]:
        out = (self.results, self.internal_errors)
        self._student = None
        self.results, self.internal_errors = [], []
        return out

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool | None:
        if self.serve is None:
            return None
        self.serve(session)
        return True

    @pytest.fixture
    def student(self) -> Any:
        return self._student

    @pytest.fixture
    def reference(self) -> Any:
        return self._reference

    def pytest_configure(self, config: pytest.Config) -> None:
        config.addinivalue_line("markers", "points(n): weight of this test in the grade")
        # This plugin reads the exception itself; pytest's long traceback formatting (re-parsing
        # the test file for every failure, ~50-100 ms each) would only be thrown away.
        config.option.tbstyle = "no"

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        if self.parts is not None:
            items[:] = [i for i in items if test_identity(i)[1] in self.parts]

    def _identity(self, item: pytest.Item) -> tuple[str, str, str, float]:
        """`test_identity(item)` and `points_of(item)`, computed once per item."""
        known = self._identities.get(item.nodeid)
        if known is None:
            known = self._identities[item.nodeid] = (*test_identity(item), points_of(item))
        return known

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.collection_errors.append(f"{report.nodeid}: {str(report.longrepr)[-500:]}")

    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        self._started[item.nodeid] = time.perf_counter()

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo):
        report = yield
        self._record(item, call, report)
        return report

    def _record(self, item: pytest.Item, call: pytest.CallInfo, report: pytest.TestReport) -> None:
        if report.skipped and call.when != "teardown":
            # A hidden test must never skip: its points would silently vanish from max_score.
            tid, part, name, pts = self._identity(item)
            self.internal_errors.append(f"{tid}: skipped ({str(report.longrepr)[-200:]})")
            self.results.append(
                TestResult(
                    id=tid,
                    part=part,
                    name=name,
                    score=0.0,
                    max_score=pts,
                    status="error",
                    message="this check could not run (an instructor will look)",
                )
            )
            return
        if report.skipped or (call.when != "call" and not report.failed):
            return
        if call.when == "teardown" and any(r.id == self._identity(item)[0] for r in self.results):
            return
        self.results.append(self._result(item, call))

    def _result(self, item: pytest.Item, call: pytest.CallInfo) -> TestResult:
        tid, part, name, pts = self._identity(item)
        duration = time.perf_counter() - self._started.get(item.nodeid, time.perf_counter())
        exc = call.excinfo.value if call.excinfo is not None else None
        common = {"id": tid, "part": part, "name": name, "max_score": pts, "duration": duration}
        if exc is None:
            return TestResult(score=pts, status="passed", **common)
        if isinstance(exc, StudentError):
            return TestResult(score=0.0, status=exc.status, message=exc.message, **common)
        if isinstance(exc, GradeFailure):
            return TestResult(
                score=0.0, status="failed", message=exc.message, diagnoses=exc.diagnoses, **common
            )
        if isinstance(exc, AssertionError):
            return TestResult(score=0.0, status="failed", message=str(exc)[:2000], **common)
        self.internal_errors.append(f"{tid}: {type(exc).__name__}: {exc}"[:500])
        return TestResult(
            score=0.0,
            status="error",
            message=(
                "the grader could not check this result "
                f"({type(exc).__name__}: {str(exc)[:300]}); an instructor will look at it"
            ),
            **common,
        )
