"""Session fixtures: one wheel venv and one handout venv, built once for every test here."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .venvs import REPO, make_venv, pip_install

_SOURCE_IGNORE = shutil.ignore_patterns(
    ".venv", ".git", "build", "dist", "__pycache__", "*.egg-info", ".hypothesis", "tests",
    "benchmarks", ".ruff_cache", ".pytest_cache",
)  # fmt: skip


@pytest.fixture(scope="session")
def wheel_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The python of a fresh venv with the instructor package installed from its wheel."""
    root = tmp_path_factory.mktemp("wheel")
    source = root / "source"  # building in place would leave build/ in the checkout
    shutil.copytree(REPO, source, ignore=_SOURCE_IGNORE)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-index",
         "--no-build-isolation", "-w", str(root / "dist"), str(source)],
        check=True,
    )  # fmt: skip
    (wheel,) = (root / "dist").glob("objectives_grader-*.whl")
    python = make_venv(root / "venv")
    pip_install(python, wheel)
    return python


@pytest.fixture(scope="session")
def handout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A freshly released handout folder (never installed from: see `handout_python`)."""
    from grader.release import build_handout

    return build_handout(tmp_path_factory.mktemp("release") / "handout")


@pytest.fixture(scope="session")
def handout_python(handout: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The python of a fresh venv where ``pip install DIR`` installed the handout."""
    root = tmp_path_factory.mktemp("handout-venv")
    copy = root / "handout"  # pip builds in place: keep the audited folder as released
    shutil.copytree(handout, copy)
    python = make_venv(root / "venv")
    pip_install(python, copy)
    return python
