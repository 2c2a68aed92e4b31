"""Build the Gradescope autograder zip (`grader gradescope --out autograder.zip`).

The zip holds, at its root (Gradescope's layout):

* `setup.sh`: run once at image build, as root: installs a Python 3.11+ if the image lacks
  one, makes a venv, installs the CPU build of torch, then the grader from the wheel below
  (its other dependencies come from PyPI), and links `grader` into /usr/local/bin;
* `run_autograder`: run per submission: `grader grade /autograder/submission --format
  gradescope --output /autograder/results/results.json`, with `submission_metadata.json`
  for lateness; if the grader fails it still writes a results.json saying so, and it exits 0
  whenever results.json exists. `AUTOGRADER_ROOT` replaces /autograder (tests use it);
* `wheels/objectives_grader-<version>-py3-none-any.whl`: this project, built now with
  `pip wheel --no-deps` (or the wheel passed with `wheel=`, copied as it is).

Two builds from the same checkout give the same bytes: every zip entry has a fixed date, and
the wheel built here is built with SOURCE_DATE_EPOCH set and its entries rewritten with fixed
dates and modes (`normalise_wheel`; its contents, and so its RECORD, are untouched).

Both scripts are rendered from `grader/autograder/templates/`.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import jinja2

from grader import __version__
from grader.autograder import VISIBILITIES
from grader.errors import InternalError, UsageError
from grader.resources import data_path

TEMPLATES = data_path("grader.autograder", "templates")
PROJECT = "objectives-grader"
CPU_TORCH_INDEX = "https://download.pytorch.org/whl/cpu"
# never copied into the build tree: not part of the wheel, and some are large
_BUILD_IGNORE = (
    ".git",
    ".venv",
    "venv",
    "build",
    "dist",
    "*.egg-info",
    "__pycache__",
    ".pytest_cache",
    ".ruff_cache",
    "tests",
    "benchmarks",
)
# every zip entry (the scripts, the wheel, the wheel's own files) gets this date, and a wheel
# built here is built with SOURCE_DATE_EPOCH at the same instant: two builds from the same
# checkout are byte-identical
_FIXED_TIME = (1980, 1, 1, 0, 0, 0)
_FIXED_EPOCH = "315532800"  # 1980-01-01T00:00:00Z, the earliest date a zip entry can hold


def _default_torch() -> str:
    """The project's own torch requirement, e.g. "torch<2.14,>=2.2"."""
    try:
        for req in importlib.metadata.requires(PROJECT) or ():
            if req.replace(" ", "").lower().startswith("torch") and ";" not in req:
                return req.replace(" ", "")
    except importlib.metadata.PackageNotFoundError:
        pass
    return "torch"


@dataclass(frozen=True)
class BundleOptions:
    """What goes into the autograder zip.

    torch: the pip requirement for torch; torch_index_url: where pip gets it ("" = PyPI's
    default, which on Linux is the much larger CUDA build); python / apt_packages: the
    interpreter setup.sh uses, installed with apt when the image lacks it; venv: where the
    grader is installed in the image; tests_visibility / totals_visibility: as in
    `grader grade --format gradescope`; wheel: a prebuilt wheel of this project (None: build).
    """

    torch: str = field(default_factory=_default_torch)
    torch_index_url: str = CPU_TORCH_INDEX
    python: str = "python3.11"
    apt_packages: tuple[str, ...] = ("python3.11", "python3.11-venv")
    venv: str = "/opt/objectives-grader"
    tests_visibility: str = "after_published"
    totals_visibility: str = "visible"
    wheel: Path | None = None

    def __post_init__(self) -> None:
        for v in (self.tests_visibility, self.totals_visibility):
            if v not in VISIBILITIES:
                raise UsageError(f"unknown visibility {v!r}; use one of {', '.join(VISIBILITIES)}")


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters["sh"] = lambda s: shlex.quote(str(s))
    return env


def render_scripts(options: BundleOptions, wheel_name: str) -> dict[str, str]:
    """{"setup.sh": ..., "run_autograder": ...} for `options` and the wheel's file name."""
    env = _environment()
    context = {
        "version": __version__,
        "python": options.python,
        "venv": options.venv,
        "apt_packages": list(options.apt_packages),
        "torch": options.torch,
        "torch_index_url": options.torch_index_url,
        "wheel": wheel_name,
        "tests_visibility": options.tests_visibility,
        "totals_visibility": options.totals_visibility,
    }
    return {
        name: env.get_template(f"{name}.j2").render(**context)
        for name in ("setup.sh", "run_autograder")
    }


def project_root() -> Path:
    """The source checkout this grader runs from (UsageError when installed from a wheel)."""
    root = Path(__file__).resolve().parents[2]
    pyproject = root / "pyproject.toml"
    if not pyproject.is_file() or f'name = "{PROJECT}"' not in pyproject.read_text("utf-8"):
        raise UsageError(
            "no source checkout of the grader found to build the wheel from; pass --wheel "
            "with a wheel of objectives-grader"
        )
    return root


def build_wheel(dest: Path) -> Path:
    """`pip wheel --no-deps` of the source checkout into `dest`; returns the wheel's path.

    The build runs on a copy of the checkout, so no build/ or egg-info folder is left in it.
    """
    root = project_root()
    with tempfile.TemporaryDirectory(prefix="grader-wheel-") as tmp:
        src = Path(tmp) / "src"
        shutil.copytree(root, src, ignore=shutil.ignore_patterns(*_BUILD_IGNORE))
        cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dest)]
        if importlib.util.find_spec("setuptools") is not None:
            cmd.append("--no-build-isolation")  # offline-friendly: setuptools is already here
        env = {**os.environ, "SOURCE_DATE_EPOCH": _FIXED_EPOCH}
        res = subprocess.run([*cmd, str(src)], capture_output=True, text=True, timeout=600, env=env)
        if res.returncode != 0:
            raise InternalError(f"building the grader's wheel failed:\n{res.stderr[-2000:]}")
    wheels = sorted(dest.glob("objectives_grader-*.whl"))
    if not wheels:
        raise InternalError("building the grader's wheel produced no wheel")
    normalise_wheel(wheels[-1])
    return wheels[-1]


def _entry(name: str, *, executable: bool = False) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=_FIXED_TIME)
    info.external_attr = ((0o100755 if executable else 0o100644) & 0xFFFF) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def normalise_wheel(path: Path) -> None:
    """Rewrite the wheel at `path` in place with the same files and contents, each entry
    dated `_FIXED_TIME` with mode 0644 (0755 where it was executable), the package files in
    name order and then the .dist-info files, RECORD last. RECORD lists hashes of the
    contents, which do not change, so it stays right and the wheel stays valid."""
    with zipfile.ZipFile(path) as zf:
        entries = [(i, zf.read(i)) for i in zf.infolist() if not i.is_dir()]

    def order(item: tuple[zipfile.ZipInfo, bytes]) -> tuple[bool, bool, str]:
        name = item[0].filename
        top = name.split("/", 1)[0]
        return top.endswith(".dist-info"), name.endswith(".dist-info/RECORD"), name

    fd, part = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        with zipfile.ZipFile(part, "w", zipfile.ZIP_DEFLATED) as out:
            for info, data in sorted(entries, key=order):
                executable = bool((info.external_attr >> 16) & 0o111)
                out.writestr(_entry(info.filename, executable=executable), data)
        os.replace(part, path)
    except BaseException:
        Path(part).unlink(missing_ok=True)
        raise


def build_bundle(out: Path, options: BundleOptions | None = None) -> Path:
    """Write the autograder zip to `out` (atomically: a temporary file, then a rename)."""
    options = options or BundleOptions()
    out = Path(out)
    with tempfile.TemporaryDirectory(prefix="grader-bundle-") as tmp:
        if options.wheel is not None:
            wheel = Path(options.wheel)
            if not (wheel.is_file() and wheel.name.endswith(".whl")):
                raise UsageError(f"{wheel} is not a wheel file")
        else:
            wheel = build_wheel(Path(tmp))
        scripts = render_scripts(options, wheel.name)
        out.parent.mkdir(parents=True, exist_ok=True)
        fd, part = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
        os.close(fd)
        try:
            with zipfile.ZipFile(part, "w", zipfile.ZIP_DEFLATED) as zf:
                for name, text in scripts.items():
                    zf.writestr(_entry(name, executable=True), text)
                zf.writestr(_entry(f"wheels/{wheel.name}"), wheel.read_bytes())
            os.replace(part, out)
        except BaseException:
            Path(part).unlink(missing_ok=True)
            raise
    return out
