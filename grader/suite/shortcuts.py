"""Where a grading run changes pytest's own machinery: every change in one place, each measured.

A prepared suite runs ~140 tests per submission through pytest's runtest protocol, and three
pieces of pytest do per-test work a grading run never uses. `PytestShortcuts` (a plugin the
suite runner registers beside `GradingPlugin`, on the grader's own session only) replaces
them; without it the same tests run with the same results, only slower:

==============================  =======================================  ====================
pytest does                     instead                                  why it is safe
==============================  =======================================  ====================
``session.gethookproxy(path)``  a dict per session (~1200 calls per      the answer depends
walks the conftests of a path   submission, ~10 per test)                only on the path and
                                                                         the conftests, fixed
                                                                         after collection
a direct ``parametrize``        the value is ``request.param`` (~100 per  what pytest's own
argument is set up through a    submission)                              function returns
FixtureDef and a signature
``Item.repr_failure`` formats   one line (~0.4 ms per failed test: a      `GradingPlugin` reads
a traceback for every failure   failing submission's ~45 ms)             the exception itself
==============================  =======================================  ====================

Measured per correct submission (cProfile of the suite thread, `benchmarks/per_submission.py
--profile`, 4 submissions, `PreparedSuite(shortcuts=False)` against the default): 334k -> 315k
Python calls and 0.81 -> 0.75 profiled s; ``gethookproxy`` 20 -> 3 ms and the fixture set-up
20 -> 1 ms of it (profiled). ``repr_failure`` costs nothing on a correct submission and ~0.4 ms
per failed test otherwise. Wall and CPU time on this shared machine vary by more than that
(+-20%), so only the profile separates them.
"""

from __future__ import annotations

import types
from typing import Any

import pytest

try:  # pytest >= 8.1; without it, direct parameters are simply set up by pytest itself
    from _pytest.python import DirectParamFixtureDef as _DirectParam
except ImportError:  # pragma: no cover
    _DirectParam = None


def _brief_failure(item: pytest.Item, excinfo: Any, style: Any = None) -> str:
    """`Item.repr_failure` for graded tests: one line instead of pytest's traceback.

    `GradingPlugin._result` reads the exception itself, and nothing else reads a failed
    call's report here (no terminal, no junit). pytest would still walk and filter the
    traceback for every failure, even with ``--tb=no``.
    """
    return f"{excinfo.typename}: {excinfo.value}"[:1000]


def memoise_hook_proxies(session: pytest.Session) -> None:
    """Make `session.gethookproxy(path)` (behind every `item.ihook`) a dict lookup."""
    compute = session.gethookproxy
    proxies: dict[Any, Any] = {}

    def gethookproxy(fspath: Any) -> Any:
        try:
            return proxies[fspath]
        except KeyError:
            proxy = proxies[fspath] = compute(fspath)
            return proxy

    session.gethookproxy = gethookproxy  # type: ignore[method-assign]


class PytestShortcuts:
    """The three replacements above, for one pytest session (see the module docstring)."""

    def pytest_configure(self, config: pytest.Config) -> None:
        # The grading plugin reads the exception itself; pytest's long traceback formatting
        # (re-parsing the test file for every failure, ~50-100 ms each) would be thrown away.
        config.option.tbstyle = "no"

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:
            if isinstance(item, pytest.Function):
                item.repr_failure = types.MethodType(_brief_failure, item)  # type: ignore[method-assign]

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        memoise_hook_proxies(session)  # the conftests are all registered by now

    @pytest.hookimpl(tryfirst=True)
    def pytest_fixture_setup(self, fixturedef: Any, request: Any) -> Any:
        """Set up a direct `@pytest.mark.parametrize` argument: its value is `request.param`.

        pytest does the same through `get_direct_param_fixture_func(request)`, resolving the
        `request` argument again (building a FixtureDef and inspecting a signature). A None
        value is left to pytest: None means "not handled" here.
        """
        if _DirectParam is None or type(fixturedef) is not _DirectParam:
            return None
        value = request.param
        fixturedef.cached_result = (value, fixturedef.cache_key(request), None)
        return value
