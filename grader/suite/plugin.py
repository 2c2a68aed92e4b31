"""The pytest plugin that turns a suite run into `TestResult`s.

Registered per run with ``pytest.main(args, plugins=[GradingPlugin(...)])``. It provides the
`student` and `reference` fixtures, the ``points(n)`` marker, and classifies every outcome
into the report's statuses: a `StudentError` keeps its own status (timeout, missing, error), a
`GradeFailure`/`AssertionError` is "failed", and an unexpected exception in test code is
"error" with a note in `internal_errors` so a grader bug is never silent.
"""

from __future__ import annotations

import time
import types
from collections.abc import Callable
from typing import Any

import pytest

from grader.diagnosis import downstream, evidence
from grader.parts import CODE_PARTS
from grader.report import TestResult
from grader.sandbox.client import StudentError
from grader.suite.checks import GradeFailure
from grader.suite.context import SubmissionContext, as_context

_PER_SUBMISSION = frozenset({"submission", "student"})  # fixtures that are one submission's


def part_of(stem: str) -> str:
    """The part a test file judges, from its name without ``.py``: ``test_masks`` and
    ``test_masks_attention`` -> ``masks`` (one part's tests may span files named
    ``test_<part>_<topic>.py``), any other ``test_<name>`` -> ``name``."""
    name = stem.removeprefix("test_")
    for part in CODE_PARTS:
        if name == part or name.startswith(f"{part}_"):
            return part
    return name


def test_identity(item: pytest.Item) -> tuple[str, str, str]:
    """(id, part, name) of a collected test: `masks.future_leak[float64]`."""
    part = part_of(item.path.stem)
    name = getattr(item, "originalname", item.name).removeprefix("test_")
    callspec = getattr(item, "callspec", None)
    tid = f"{part}.{name}" + (f"[{callspec.id}]" if callspec is not None else "")
    return tid, part, name


def points_of(item: pytest.Item) -> float:
    """The weight of a collected test: its ``points(n)`` marker, 1 without one."""
    marker = item.get_closest_marker("points")
    if marker is None:
        return 1.0
    return float(marker.args[0] if marker.args else marker.kwargs.get("n", 1))


def _fixtures(plugin: GradingPlugin) -> types.ModuleType:
    """The fixtures of `plugin`, as a module to register: ``submission`` (this submission's
    `SubmissionContext`) and its fields ``student``, ``reference`` and ``cases``.

    Session-scoped, so pytest sets each up once per submission instead of once per test: the
    serve loop passes nextitem=None for a submission's last test, which tears the whole session
    down (these fixtures included), and the next submission sets them up afresh. A test thus
    always gets this submission's own context; `GradingPlugin._result` refuses to grade a test
    that saw an earlier one. They are plain functions in a module because pytest deprecates
    session fixtures bound to an instance.
    """
    module = types.ModuleType("grader_suite_fixtures")

    @pytest.fixture(scope="session")
    def submission() -> SubmissionContext:
        """This submission's context (`grader.suite.context.SubmissionContext`)."""
        plugin._served = plugin._submission
        return plugin._context

    @pytest.fixture(scope="session")
    def student(submission: SubmissionContext) -> Any:
        """The submission under test (a StudentProxy), new for every submission."""
        return submission.student

    @pytest.fixture(scope="session")
    def reference(submission: SubmissionContext) -> Any:
        """The trusted reference implementation (a ReferenceProxy)."""
        return submission.reference

    @pytest.fixture(scope="session")
    def cases(submission: SubmissionContext) -> Any:
        """This submission's draws of test inputs (`grader.suite.cases.Cases`)."""
        return submission.cases

    module.submission = submission  # type: ignore[attr-defined]
    module.student = student  # type: ignore[attr-defined]
    module.reference = reference  # type: ignore[attr-defined]
    module.cases = cases  # type: ignore[attr-defined]
    return module


class GradingPlugin:
    """Collects graded outcomes for one submission."""

    def __init__(self, student: Any, reference: Any, parts: set[str] | None = None) -> None:
        self._reference = reference
        self._context = as_context(student, reference)
        self.parts = parts
        self.results: list[TestResult] = []
        self.internal_errors: list[str] = []
        self.collection_errors: list[str] = []
        self._started: dict[str, float] = {}
        self._evidence: dict[str, evidence.Evidence] = {}  # per test id, this submission
        self._calls: dict[str, frozenset] = {}  # per failed test id: the functions it called
        self._deferred = evidence.Evidence()  # the running test's deferred diagnoses
        # Counts submissions; `_served` is the count at which the session-scoped
        # `submission` fixture was last set up (see `_result`).
        self._submission = 0
        self._served = -1
        # (id, part, name, points) per collected item: constant for the session, and asked for
        # every item of every submission.
        self._identities: dict[str, tuple[str, str, str, float]] = {}
        # Set by PreparedSuite: called with the session instead of pytest's own test loop.
        self.serve: Callable[[pytest.Session], None] | None = None

    @property
    def _student(self) -> Any:
        return self._context.student

    def start_submission(self, job: SubmissionContext | Any) -> None:
        """Grade `job` next: a `SubmissionContext`, or a bare student proxy (then with this
        plugin's reference and no caches)."""
        self._context = as_context(job, self._reference)
        self._submission += 1
        self.results = []
        self.internal_errors = []
        self._started = {}
        self._evidence = {}
        self._calls = {}

    def finish_submission(self) -> tuple[list[TestResult], list[str]]:
        """This submission's results, with diagnoses the rest of its evidence contradicts
        removed (`grader.diagnosis.evidence.prune`), then the failures a surviving diagnosis
        causes downstream explained by it (`grader.diagnosis.downstream`)."""
        pruned = evidence.prune(self.results, self._evidence)
        out = (list(downstream.explain(pruned, self._calls, self._evidence)), self.internal_errors)
        self._context = as_context(None, self._reference)
        self.results, self.internal_errors, self._evidence, self._calls = [], [], {}, {}
        return out

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool | None:
        if self.serve is None:
            return None
        self.serve(session)
        return True

    def pytest_configure(self, config: pytest.Config) -> None:
        config.pluginmanager.register(_fixtures(self), f"grader-fixtures-{id(self)}")
        config.addinivalue_line("markers", "points(n): weight of this test in the grade")

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
        """Start the test's clock and clear the per-test call records of the student and the
        reference."""
        self._started[item.nodeid] = time.perf_counter()
        forget = getattr(self._student, "forget_calls", None)
        if forget is not None:
            forget()
        start = getattr(self._context.reference, "start_test", None)
        if start is not None:  # the reference memo keeps per-call-site statistics
            start(item.nodeid)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item):
        """Run the test body with a fresh record for the diagnoses its passing checks defer."""
        self._deferred = evidence.Evidence()
        with evidence.deferring_to(self._deferred):
            return (yield)

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
        result = self._result(item, call)
        if call.when == "call":
            self._evidence[result.id] = self._test_evidence(call)
            called = getattr(self._student, "functions_called", None)
            if result.status == "failed" and called is not None:
                self._calls[result.id] = called()
        self.results.append(result)

    def _test_evidence(self, call: pytest.CallInfo) -> evidence.Evidence:
        """What the test's diagnoses rest on: its failure's evidence (carried by the
        exception) and the diagnoses its passing checks deferred."""
        record, self._deferred = self._deferred, evidence.Evidence()
        exc = call.excinfo.value if call.excinfo is not None else None
        raised = getattr(exc, "evidence", None) if isinstance(exc, GradeFailure) else None
        return evidence.merged([record, raised]) or record

    def _result(self, item: pytest.Item, call: pytest.CallInfo) -> TestResult:
        tid, part, name, pts = self._identity(item)
        stale = self._served != self._submission
        if stale and call.when == "call" and not _PER_SUBMISSION.isdisjoint(item.fixturenames):
            # The test body ran, but `submission` was not set up in this submission: it saw an
            # earlier one's context. Never grade that; the serve loop reports it and tears down.
            raise RuntimeError(f"{tid} ran with a previous submission's student fixture")
        duration = time.perf_counter() - self._started.get(item.nodeid, time.perf_counter())
        exc = call.excinfo.value if call.excinfo is not None else None
        common = {"id": tid, "part": part, "name": name, "max_score": pts, "duration": duration}
        if exc is None:
            return TestResult(score=pts, status="passed", **common)
        if isinstance(exc, StudentError):
            return TestResult(score=0.0, status=exc.status, message=exc.message, **common)
        if isinstance(exc, GradeFailure):
            describe = getattr(self._student, "describe_call", None)
            message = exc.naming(describe(exc.subject)) if describe is not None else exc.message
            return TestResult(
                score=0.0, status="failed", message=message, diagnoses=exc.diagnoses, **common
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
