"""Baseline for benchmarks/engine_vs_pytest.py: the hidden suite in ONE plain pytest process,
student code imported in-process (no sandbox) from the folder in $BENCH_SUBMISSION."""

from __future__ import annotations

import os
import sys

import pytest

from grader.suite.proxy import ReferenceProxy


class _Plugin:
    @pytest.fixture
    def student(self):
        sys.path.insert(0, os.environ["BENCH_SUBMISSION"])
        import types

        pkg = types.ModuleType("benchsub")
        pkg.__path__ = [os.environ["BENCH_SUBMISSION"]]
        sys.modules["benchsub"] = pkg
        proxy = ReferenceProxy(package="benchsub")
        proxy.model_forward = ReferenceProxy().model_forward
        return proxy

    @pytest.fixture
    def reference(self):
        return ReferenceProxy()

    def pytest_configure(self, config):
        config.addinivalue_line("markers", "points(n): weight")


def pytest_configure(config):
    config.pluginmanager.register(_Plugin(), "bench-inprocess")
