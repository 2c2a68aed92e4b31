"""Hidden-suite configuration and fixtures.

Failure tracebacks: the grading plugin reads the exception itself (student-facing message and
diagnoses), never pytest's formatted traceback, yet pytest builds a "long" traceback for every
failing test by re-parsing the test files with `ast` (~50-100 ms per failure, most of a
failing submission's grading time). `pytest_configure` below turns that formatting off.

The reference solutions and the trusted TinyLM run in the grader's own process. Their tensors
are tiny, and with torch's default intra-op thread pool every small op pays an OpenMP
fork/join (~0.7 ms on a busy 2-core machine instead of ~20 us). The sandboxed worker already
runs single-threaded (OMP_NUM_THREADS=1); this fixture does the same for the trusted side for
the duration of the suite, which also makes both sides reduce in the same order.
"""

from __future__ import annotations

import pytest
import torch


def pytest_configure(config: pytest.Config) -> None:
    config.option.tbstyle = "no"


@pytest.fixture(scope="session", autouse=True)
def _single_threaded_torch():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)
