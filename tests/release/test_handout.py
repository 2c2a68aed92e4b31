"""`grader release`: the student handout installs, checks, and holds no answers."""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from pathlib import Path

import pytest

import grader.release as release
from grader.release.audit import audit, distinctive_lines
from grader.testing import SOLUTIONS

from .venvs import run

PARTS = ("masks", "corruption", "losses", "generation")


def test_the_handout_holds_what_students_need(handout: Path):
    for rel in ("exercises/masks.py", "exercises/tinylm.py", "exercises/explanation.md",
                "exercises/drill/experiment.py", "README.md", "student.ipynb", "pyproject.toml",
                "grader/sandbox/worker.py", "grader/suites/public/test_losses.py",
                "grader/suites/public/expected.json"):  # fmt: skip
        assert (handout / rel).is_file(), rel
    workflow = (handout / ".github" / "workflows" / "classroom.yml").read_text()
    assert "pip install ." in workflow and "grader check" in workflow
    for secret in ("solutions", "grader/suites/hidden", "grader/rubric", "docs"):
        assert not (handout / secret).exists(), secret
    assert not list(handout.rglob("golden*"))


def test_the_handout_ignores_what_pip_install_and_jupyter_leave(handout: Path):
    """Else `git add .` in a GitHub Classroom repository commits .venv/ and build/, whose
    build/lib/exercises/ is a second copy of the stubs in what gets graded."""
    ignored = (handout / ".gitignore").read_text().split()
    assert {".venv/", "build/", "*.egg-info/", ".ipynb_checkpoints/"} <= set(ignored)


def test_no_distinctive_line_of_a_secret_text_is_in_the_handout(handout: Path):
    secrets = distinctive_lines()
    sources = set(secrets.values())
    # The check is not vacuous: every kind of secret contributes lines.
    for expected in (
        "solutions/masks.py",
        "solutions/explanation.md",
        "grader/rubric/rubric.toml",
        "grader/suites/hidden/test_losses.py",
        "grader/suites/golden.json",
        "grader/rubric/published_solution.txt",
        "tools/rubric/devset/dev.jsonl",
    ):
        assert expected in sources, expected  # fmt: skip
    assert audit(handout, secrets) == []


def test_the_audit_finds_secrets_in_files_archives_and_notebooks(handout: Path, tmp_path: Path):
    secrets = distinctive_lines()
    leaky = tmp_path / "leaky"
    shutil.copytree(handout, leaky)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("pkg/masks.py", (SOLUTIONS / "masks.py").read_text())
    (leaky / "exercises" / "extra.whl").write_bytes(buf.getvalue())
    nb = json.loads((leaky / "student.ipynb").read_text())
    answer = (SOLUTIONS / "explanation.md").read_text().splitlines(keepends=True)
    nb["cells"][-3]["source"] = answer  # the model answer pasted into a notebook cell
    (leaky / "student.ipynb").write_text(json.dumps(nb))
    leaks = audit(leaky, secrets)
    assert any(leak.startswith("exercises/extra.whl!pkg/masks.py") for leak in leaks), leaks
    assert any("student.ipynb" in leak and "explanation.md" in leak for leak in leaks), leaks


def test_solutions_are_not_importable_in_the_handout_venv(handout_python: Path, tmp_path: Path):
    done = run(handout_python, "-c", "import solutions", cwd=tmp_path)
    assert done.returncode != 0 and "No module named 'solutions'" in done.stderr
    for module in ("grader.rubric", "grader.suites.hidden", "grader.cli"):
        done = run(handout_python, "-c", f"import {module}", cwd=tmp_path)
        assert done.returncode != 0, module
    where = run(handout_python, "-c", "import grader; print(grader.__file__)", cwd=tmp_path)
    assert str(handout_python.parents[1]) in where.stdout


def test_check_fails_on_the_stubs_and_passes_on_correct_work(
    handout: Path, handout_python: Path, tmp_path: Path
):
    work = tmp_path / "work"
    shutil.copytree(handout, work)
    stubs = run(handout_python, "check", cwd=work)  # no argument: the work folder
    assert stubs.returncode == 1, stubs.stdout + stubs.stderr
    assert "not attempted" in stubs.stdout
    assert "drill/experiment.py still raises NotImplementedError" in stubs.stdout
    for p in PARTS:
        shutil.copyfile(SOLUTIONS / f"{p}.py", work / "exercises" / f"{p}.py")
    code_only = run(handout_python, "check", cwd=work / "exercises")
    assert code_only.returncode == 1, code_only.stdout + code_only.stderr
    assert "Score: 7 / 27" in code_only.stdout  # the public tests pass; the drill is to do
    # the drill is rerun in the handout's own sandbox and checked as when it is graded
    shutil.copytree(SOLUTIONS / "drill", work / "exercises" / "drill", dirs_exist_ok=True)
    done = run(handout_python, "check", cwd=work / "exercises")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Score: 27 / 27" in done.stdout
    help_ = run(handout_python, "--help", cwd=work)
    assert "check" in help_.stdout and "grade" not in help_.stdout.split("Commands:")[-1]


# ----------------------------------------------------------------------------- writing DIR


def _tiny(root: Path) -> None:
    (root / "README.md").write_text("the handout\n")


def test_release_refuses_a_non_empty_folder_and_leaves_it_alone(tmp_path, monkeypatch):
    monkeypatch.setattr(release, "_write_handout", _tiny)
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(release.ReleaseError, match="not empty.*--force"):
        release.build_handout(out)
    assert [p.name for p in out.iterdir()] == ["notes.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no staging left behind
    release.build_handout(out, force=True)
    assert [p.name for p in out.iterdir()] == ["README.md"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_release_writes_nothing_when_the_build_fails_or_leaks(tmp_path, monkeypatch):
    def leaky(root: Path) -> None:
        _tiny(root)
        shutil.copyfile(SOLUTIONS / "losses.py", root / "losses.py")

    monkeypatch.setattr(release, "_write_handout", leaky)
    with pytest.raises(release.ReleaseError, match="(?s)course-internal.*solutions/losses.py"):
        release.build_handout(tmp_path / "out")

    def broken(root: Path) -> None:
        _tiny(root)
        raise OSError("disk full")

    monkeypatch.setattr(release, "_write_handout", broken)
    with pytest.raises(OSError):
        release.build_handout(tmp_path / "out")
    assert list(tmp_path.iterdir()) == []


def test_release_cli_reports_a_non_empty_folder(tmp_path):
    from click.testing import CliRunner

    from grader.cli import main

    (tmp_path / "keep.txt").write_text("x")
    result = CliRunner().invoke(main, ["release", "--out", str(tmp_path)])
    assert result.exit_code == 2
    assert "is not empty" in result.output and (tmp_path / "keep.txt").read_text() == "x"
