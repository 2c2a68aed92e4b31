"""`grader release --out DIR`: the student handout, an installable package without answers.

    build_handout(Path("handout"))       # then: pip install handout/ && grader check

DIR holds the stubs and TinyLM (`exercises/`), the student notebook, a student README, a
GitHub Classroom workflow, and a small package "objectives-handout" whose `grader` command
has only `check` (`grader.check_cli`). That package is an allow-listed part of the grader:
the sandbox, the loaders, the suite machinery, the report renderers, and the public tests
with their reference answers pinned afresh from `solutions/` (no reference code runs in the
handout). Before anything is written, `audit` proves no distinctive line of the solutions,
the hidden suites, the rubric data, the model answer or the instructor docs is in it.

The handout is built in a temporary folder beside DIR and renamed into place: DIR is never
left half-written, and an existing non-empty DIR is only replaced with ``force=True``.
"""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import tempfile
from pathlib import Path

from grader import __version__
from grader.errors import UsageError
from grader.release.audit import audit
from grader.release.notebook import NOTEBOOK_NAME, build_notebook, write_notebook
from grader.resources import data_path

# The grader files the student's `grader check` needs, relative to the grader package.
HANDOUT_GRADER_FILES = (
    "__init__.py", "check_cli.py", "errors.py", "lru.py", "parts.py", "pipeline.py", "report.py",
    "resources.py", "textsafe.py", "values.py",
    "diagnosis/__init__.py", "diagnosis/catalogue.toml", "diagnosis/downstream.py",
    "diagnosis/evidence.py",
    "drill/__init__.py", "drill/note.py", "drill/results.py",
    "loading/__init__.py", "loading/archive.py", "loading/cells.py", "loading/folder.py",
    "loading/model.py",
    "loading/notebook.py", "loading/notebook_code.py", "loading/entry.py", "loading/guarded.py",
    "render/__init__.py", "render/view.py",
    "sandbox/__init__.py", "sandbox/client.py", "sandbox/drillrun.py", "sandbox/errors.py",
    "sandbox/forker.py",
    "sandbox/framing.py", "sandbox/hugepages.py", "sandbox/invoke.py", "sandbox/jail.py",
    "sandbox/launch.py", "sandbox/limits.py", "sandbox/models.py", "sandbox/seccomp.py",
    "sandbox/wire.py", "sandbox/worker.py", "sandbox/zygote.py",
    "suite/__init__.py", "suite/checks.py", "suite/pinned.py", "suite/plugin.py",
    "suite/proxy.py", "suite/runner.py", "suite/cases.py", "suite/refmemo.py", "suite/naming.py",
    "suite/context.py", "suite/shortcuts.py",
    "suites/pytest.ini",
)  # fmt: skip
PUBLIC_SUITE = "suites/public"
HANDOUT_TEMPLATES = ("__init__.py", "report/report.txt.j2", "report/report.md.j2",
                     "report/report.html.j2")  # fmt: skip
EXERCISE_SUFFIXES = (".py", ".md")
_FILES = data_path("grader.release", "files")


class ReleaseError(UsageError):
    """The handout cannot be written (the message says why, in the instructor's terms)."""


def build_handout(out: Path, *, force: bool = False) -> Path:
    """Write the student handout to `out` atomically; returns `out`.

    Raises ReleaseError when `out` exists and is not an empty folder (unless `force`), or
    when the audit finds course-internal text in the handout (then nothing is written).
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ReleaseError(f"{out} exists and is not a folder")
    if out.is_dir() and any(out.iterdir()) and not force:
        raise ReleaseError(
            f"{out} is not empty; choose a new folder, or pass --force to replace it"
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        _write_handout(staging)
        leaks = audit(staging)
        if leaks:
            raise ReleaseError(
                "the handout would contain course-internal text, so nothing was written:\n  "
                + "\n  ".join(leaks[:10])
            )
        _replace(staging, out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return out


def _replace(staging: Path, out: Path) -> None:
    """Move the finished handout into place; an old `out` goes only once the new one is in."""
    if out.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old.", dir=out.parent))
        os.replace(out, old / "handout")
        try:
            os.replace(staging, out)
        except OSError:
            os.replace(old / "handout", out)
            raise
        finally:
            shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(staging, out)


def _copy(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dst)


def _write_handout(root: Path) -> None:
    from grader.suite.pinned import record_public_expected, render_expected

    grader_dir = data_path("grader")
    for rel in HANDOUT_GRADER_FILES:
        _copy(grader_dir / rel, root / "grader" / rel)
    for test in sorted((grader_dir / PUBLIC_SUITE).glob("test_*.py")):
        _copy(test, root / "grader" / PUBLIC_SUITE / test.name)
    # Pinned afresh from solutions/, so a handout is right even if the checked-in file is stale.
    (root / "grader" / PUBLIC_SUITE / "expected.json").write_text(
        render_expected(record_public_expected()), encoding="utf-8"
    )
    templates = data_path("feedback_templates")
    for rel in HANDOUT_TEMPLATES:
        _copy(templates / rel, root / "feedback_templates" / rel)
    exercises = data_path("exercises")
    for path in sorted(exercises.rglob("*")):
        rel = path.relative_to(exercises)
        if path.is_file() and path.suffix in EXERCISE_SUFFIXES and "__pycache__" not in rel.parts:
            _copy(path, root / "exercises" / rel)
    readme = (exercises / "README.md").read_text(encoding="utf-8")
    write_notebook(build_notebook(exercises, readme), root / NOTEBOOK_NAME)
    _copy(_FILES / "README.md", root / "README.md")
    _copy(_FILES / "classroom.yml", root / ".github" / "workflows" / "classroom.yml")
    # `pip install .` leaves build/ (a second copy of the stubs) and .venv/ in the folder: kept
    # out of a student's repository, they are kept out of what gets graded too.
    (root / ".gitignore").write_text(_GITIGNORE, encoding="utf-8")
    (root / "pyproject.toml").write_text(_pyproject(), encoding="utf-8")


_GITIGNORE = ".venv/\nbuild/\n*.egg-info/\n__pycache__/\n.ipynb_checkpoints/\n"


def _dependencies() -> list[str]:
    """The grader's own runtime requirements (one source of truth: its metadata)."""
    try:
        requires = importlib.metadata.requires("objectives-grader") or []
    except importlib.metadata.PackageNotFoundError:
        raise ReleaseError("grader release needs the objectives-grader package installed") from None
    return [r for r in requires if "extra ==" not in r]


def _pyproject() -> str:
    deps = "".join(f'    "{d}",\n' for d in _dependencies())
    return (
        _FILES.joinpath("handout_pyproject.toml").read_text(encoding="utf-8")
        .replace("@VERSION@", __version__)
        .replace("@DEPENDENCIES@\n", deps)
    )  # fmt: skip
