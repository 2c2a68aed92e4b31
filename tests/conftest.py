"""Settings shared by every test.

Hypothesis runs the profile named by HYPOTHESIS_PROFILE, else "ci" when the CI variable is
set (CI=true in `.ci/run`), else "dev". "ci" is derandomized (the examples are a function of
the test alone) and keeps no example database, so a fresh clone runs exactly the same examples
every time; "dev" draws new examples on each run (and remembers failures) to find new bugs.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.register_profile("dev")
settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
)
