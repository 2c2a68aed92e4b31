"""Settings shared by every test.

Hypothesis runs the profile named by HYPOTHESIS_PROFILE, else "ci" when the CI variable is
set (CI=true in `.ci/run`), else "dev". "ci" is derandomized (the examples are a function of
the test alone) and keeps no example database, so a fresh clone runs exactly the same examples
every time; "dev" draws new examples on each run (and remembers failures) to find new bugs.
"""

from __future__ import annotations

import os

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
