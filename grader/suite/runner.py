"""Run the public or hidden suite against one submission's proxies, in this process."""

from __future__ import annotations

import contextlib
import io
import queue
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pytest

from grader.errors import InternalError
from grader.report import TestResult
from grader.resources import data_path
from grader.suite.context import SubmissionContext, as_context
from grader.suite.plugin import GradingPlugin
from grader.suite.shortcuts import PytestShortcuts

SUITES_DIR = data_path("grader", "suites")
Suite = Literal["public", "hidden"]
# Built-in plugins a grading run does not need. unraisableexception and threadexception run
# gc.collect() several times per session (~100 ms), the rest only cost start-up time.
NO_PLUGINS = tuple(
    arg
    for name in (
        "stepwise",
        "unraisableexception",
        "threadexception",
        "doctest",
        "junitxml",
        "pastebin",
        "nose",
        "legacypath",
        "logging",
        "warnings",
        "faulthandler",
        "debugging",
        "setuponly",
        "setupplan",
        "tmpdir",
        "monkeypatch",
        "recwarn",
        "capture",
    )
    for arg in ("-p", f"no:{name}")
)


@dataclass(frozen=True)
class SuiteRun:
    results: tuple[TestResult, ...]
    internal_errors: tuple[str, ...]


def suite_path(suite: Suite) -> Path:
    """The folder of the packaged test suite `suite`."""
    return SUITES_DIR / suite


def _pytest_args(suite: Suite, keyword: str | None) -> list[str]:
    args = [
        str(suite_path(suite)),
        "-c",
        str(SUITES_DIR / "pytest.ini"),
        "--rootdir",
        str(SUITES_DIR),
        "-p",
        "no:cacheprovider",
        "-p",
        "no:terminal",
        *NO_PLUGINS,
        "--import-mode=importlib",
    ]
    if pytest.version_tuple >= (8, 4):
        # Third-party plugins installed beside the grader (hypothesis, ...) wrap every test's
        # call and report hooks; a grading run uses none of them.
        args.append("--disable-plugin-autoload")
    if keyword:
        args += ["-k", keyword]
    return args


class PreparedSuite:
    """A suite configured and collected once, then run against many submissions.

    Configuring pytest and collecting ~120 parametrised tests costs more than running them, so a
    long-lived grader keeps one pytest session open: `pytest.main` runs in a helper thread whose
    `pytest_runtestloop` serves one submission per request (pytest's own runtest protocol,
    fixtures set up and torn down per submission), until `close()`.
    """

    def __init__(
        self,
        suite: Suite,
        reference: Any,
        *,
        parts: set[str] | None = None,
        keyword: str | None = None,
        shortcuts: bool = True,
    ) -> None:
        self.suite = suite
        self.keyword = keyword
        self.reference = reference
        self.plugin = GradingPlugin(None, reference, parts)
        # pytest's per-test work a grading run never uses (`grader.suite.shortcuts`)
        self._plugins = [self.plugin, *([PytestShortcuts()] if shortcuts else [])]
        self._jobs: queue.Queue[Any] = queue.Queue()
        self._done: queue.Queue[Any] = queue.Queue()
        self.plugin.serve = self._serve
        self._sink = io.StringIO()
        self._exit_code: int | None = None
        self._thread = threading.Thread(target=self._main, name=f"suite-{suite}", daemon=True)
        with contextlib.redirect_stdout(self._sink), contextlib.redirect_stderr(self._sink):
            self._thread.start()
            ready = self._done.get()
        if ready is not True:
            self._fail(ready)

    def _main(self) -> None:
        try:
            self._exit_code = int(
                pytest.main(_pytest_args(self.suite, self.keyword), plugins=self._plugins)
            )
        except BaseException as exc:  # noqa: BLE001 - reported to the waiting caller
            self._done.put(exc)
            return
        self._done.put(self._exit_code)  # only reached if the loop never started or ended

    def _serve(self, session: pytest.Session) -> None:
        """Runs inside pytest_runtestloop, in the helper thread."""
        items = session.items
        if self.plugin.collection_errors or (
            not items and self.keyword is None and self.plugin.parts is None
        ):
            self._done.put("; ".join(self.plugin.collection_errors) or "no tests collected")
            return
        self._done.put(True)
        hook = session.config.hook
        while (job := self._jobs.get()) is not None:
            outcome = self._run_one(items, hook, job)
            del job  # nothing of a graded submission outlives its run
            self._done.put(outcome)

    def _run_one(self, items: list[pytest.Item], hook: Any, job: Any) -> Any:
        """One submission through every item: (results, internal errors), or the exception
        of a grader bug."""
        context = as_context(job, self.reference)
        self.plugin.start_submission(context)
        try:
            with context.in_use():  # the grader's caches, for this thread, this submission
                for i, item in enumerate(items):
                    nextitem = items[i + 1] if i + 1 < len(items) else None
                    hook.pytest_runtest_protocol(item=item, nextitem=nextitem)
                return self.plugin.finish_submission()
        except BaseException as exc:  # noqa: BLE001 - a grader bug: surface it
            if items:
                # Tear down everything still set up (session-scoped `submission` included),
                # so the next submission starts from a clean session.
                with contextlib.suppress(BaseException):
                    hook.pytest_runtest_teardown(item=items[-1], nextitem=None)
            return exc

    def _fail(self, why: Any) -> None:
        if isinstance(why, str):
            detail = why
        elif isinstance(why, int):
            detail = f"pytest exit code {why}"
        else:
            detail = f"{type(why).__name__}: {why}"
        raise InternalError(
            f"the {self.suite} test suite could not run ({detail}) "
            f"{self._sink.getvalue()[-1500:]}".strip()
        )

    def run(self, submission: SubmissionContext | Any) -> SuiteRun:
        """Run every collected test against `submission` (a `SubmissionContext`; a bare
        StudentProxy is run with this suite's reference and no caches)."""
        if not self._thread.is_alive():
            self._fail(f"the test session ended (exit code {self._exit_code})")
        self._jobs.put(submission)
        outcome = self._done.get()
        if isinstance(outcome, BaseException):
            raise InternalError(f"the {self.suite} test suite failed: {outcome!r}") from outcome
        results, internal_errors = outcome
        return SuiteRun(results=tuple(results), internal_errors=tuple(internal_errors))

    def close(self) -> None:
        if self._thread.is_alive():
            self._jobs.put(None)
            self._thread.join(timeout=30)


def run_suite(
    suite: Suite,
    student: Any,
    reference: Any,
    *,
    parts: set[str] | None = None,
    keyword: str | None = None,
) -> SuiteRun:
    """Run every test of `suite` once (optionally only `parts`, or a pytest -k expression)."""
    prepared = PreparedSuite(suite, reference, parts=parts, keyword=keyword)
    try:
        return prepared.run(student)
    finally:
        prepared.close()
