"""Settings shared by every test.

Hypothesis runs the profile named by HYPOTHESIS_PROFILE, else "ci" when the CI variable is
set (CI=true in `.ci/run`), else "dev". "ci" is derandomized (the examples are a function of
the test alone) and keeps no example database, so a fresh clone runs exactly the same examples
every time; "dev" draws new examples on each run (and remembers failures) to find new bugs.
"""

from __future__ import annotations

import os
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, settings

# Hypothesis has a built-in "ci" profile too (auto-loaded when CI is set); this one is pinned
# here so the guarantee does not depend on the Hypothesis version, and timing never decides a
# CI result (no deadline, no too-slow health check: the machine may be loaded).
settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev")
settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
)


@pytest.fixture(scope="session")
def shared_grader():
    """One warm `Grader(GradeOptions(grade_written=False, grade_drill=False))` for every module
    that grades code submissions with those options and needs nothing of its own (no
    environment set before the sandbox starts, no fresh caches). Starting a Grader costs ~4
    CPU-seconds (torch imported in the zygote, the suite collected, the reference warmed), so
    each module that shares this one saves that much; a batch worker grades many submissions
    with one Grader in just the same way. A test that changes `options` restores them."""
    from grader.pipeline import GradeOptions, Grader

    options = GradeOptions(grade_written=False, grade_drill=False)
    with Grader(options) as g:
        yield g
        assert g.options == options, "a test left the shared grader's options changed"


@pytest.fixture(scope="session")
def grader_as(shared_grader):
    """`with grader_as(options) as g:` is the shared grader grading with `options` until the
    block ends, then with its own again: a module's own options (a keyword, other limits, the
    public suite, the drill) at no start-up cost. The sandbox zygote is the same, so `options`
    must keep the shared one's `jail` setting."""

    @contextmanager
    def use(options):
        assert options.jail == shared_grader.options.jail, "the zygote's jail mode is fixed"
        before = shared_grader.options
        shared_grader.options = options
        try:
            yield shared_grader
        finally:
            shared_grader.options = before

    return use
