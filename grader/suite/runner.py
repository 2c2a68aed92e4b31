"""Run the public or hidden suite against one submission's proxies, in this process."""

from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pytest

from grader.errors import InternalError
from grader.report import TestResult
from grader.suite.plugin import GradingPlugin

SUITES_DIR = Path(__file__).resolve().parent.parent / "suites"
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
    return SUITES_DIR / suite


def run_suite(
    suite: Suite,
    student: Any,
    reference: Any,
    *,
    parts: set[str] | None = None,
    keyword: str | None = None,
) -> SuiteRun:
    """Run every test of `suite` (optionally only `parts`, or a pytest -k expression)."""
    plugin = GradingPlugin(student, reference, parts)
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
    if keyword:
        args += ["-k", keyword]
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        code = pytest.main(args, plugins=[plugin])
    broken = code in (pytest.ExitCode.INTERNAL_ERROR, pytest.ExitCode.USAGE_ERROR) or (
        code == pytest.ExitCode.NO_TESTS_COLLECTED and keyword is None and parts is None
    )
    if broken or plugin.collection_errors:
        # Never a student's fault, and a grade without the tests would be silently wrong.
        detail = "; ".join(plugin.collection_errors) or sink.getvalue()[-1500:]
        raise InternalError(
            f"the {suite} test suite could not run (pytest exit {int(code)}): {detail}"
        )
    errors = list(plugin.internal_errors)
    return SuiteRun(results=tuple(plugin.results), internal_errors=tuple(errors))
