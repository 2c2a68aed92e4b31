"""Fresh virtual environments for install tests, cheap and offline.

A venv made with ``--without-pip`` gets one ``.pth`` line naming the running interpreter's
site-packages, so torch and the other dependencies are reused, not installed (~0.1 s instead
of ~30 s). A ``.pth`` line only adds that folder to ``sys.path``: the ``.pth`` files inside it
(the editable install's finder) are not run, so neither the instructor's `grader` nor
`solutions` is importable there unless the venv installs them itself. Packages are installed
with the running interpreter's pip (``pip --python``), with no index and no build isolation.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def make_venv(root: Path) -> Path:
    """A new venv at `root` that sees this interpreter's dependencies; returns its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    python = root / "bin" / "python"
    site = subprocess.check_output(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        text=True,
    ).strip()
    Path(site, "_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python


def pip_install(python: Path, target: Path | str) -> None:
    """Install `target` (a wheel or a project folder) into the venv of `python`, offline."""
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
         "--no-index", "--no-build-isolation", str(target)],
        check=True, env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
    )  # fmt: skip


def run(python: Path, *args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run the venv's `grader` command (or `python -c` when args[0] == "-c") in `cwd`."""
    exe = python if args[0] == "-c" else python.parent / "grader"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run(
        [str(exe), *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env
    )
