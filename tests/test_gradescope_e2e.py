"""The Gradescope autograder end to end: `grader gradescope` builds the zip, its run_autograder
grades a submission folder laid out as on Gradescope (AUTOGRADER_ROOT = a temporary folder,
the venv's `grader` on PATH), and every results.json follows the schema.

Each case is one real `grader grade` (~2-5 s), so the cases are the distinct kinds of input:
plain files, a zip, a notebook, nothing, a corrupt zip, a corrupt notebook, a nested folder,
and a grader that fails outright.
"""

from __future__ import annotations

import json
import os
import shlex
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from grader.autograder.bundle import CPU_TORCH_INDEX, BundleOptions
from grader.loading.notebook import notebook_json
from grader.render.gradescope import validate_gradescope_dict
from grader.testing import REPO, SOLUTIONS

BIN = Path(sys.executable).parent
EXPLANATION = (REPO / "grader" / "demo_class" / "ada" / "explanation.md").read_text()
PARTS = ("masks", "corruption", "losses", "generation")
BUG = ("return j <= i + (k_len - q_len)", "return j >= i + (k_len - q_len)")  # triu for tril


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("bundle")
    zpath = out / "autograder.zip"
    res = subprocess.run(
        [str(BIN / "grader"), "gradescope", "--out", str(zpath), "--tests-visibility", "hidden"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert res.returncode == 0, res.stderr
    assert not (REPO / "build").exists()  # the wheel is built on a copy of the checkout
    unpacked = out / "source"
    with zipfile.ZipFile(zpath) as zf:
        modes = {i.filename: i.external_attr >> 16 for i in zf.infolist()}
        zf.extractall(unpacked)
    for script in ("setup.sh", "run_autograder"):
        assert modes[script] & stat.S_IXUSR
        (unpacked / script).chmod(0o755)
    return unpacked


def test_bundle_layout_and_setup_script(bundle):
    assert sorted(p.name for p in bundle.iterdir()) == ["run_autograder", "setup.sh", "wheels"]
    (wheel,) = (bundle / "wheels").glob("objectives_grader-*-py3-none-any.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
    assert "grader/suites/hidden/test_masks.py" in names and "solutions/losses.py" in names
    setup = (bundle / "setup.sh").read_text()
    assert f"pip install wheels/{wheel.name}" in setup
    torch = shlex.quote(BundleOptions().torch)
    assert torch.startswith("'torch<") or torch.startswith("'torch>")  # the project's own pin
    assert f"--index-url {CPU_TORCH_INDEX} {torch}" in setup
    assert setup.index("whl/cpu") < setup.index("wheels/")  # CPU torch before the grader
    for script in ("setup.sh", "run_autograder"):
        subprocess.run(["bash", "-n", str(bundle / script)], check=True)


def _metadata(created: str) -> dict:
    return {
        "id": 7,
        "created_at": created,
        "assignment": {
            "due_date": "2026-12-01T23:59:00.000000-08:00",
            "late_due_date": None,
            "title": "Objectives",
            "total_points": "130.0",
        },
        "submission_method": "upload",
        "users": [{"email": "a@example.edu", "id": 1, "name": "Ada"}],
    }


def _run(bundle: Path, root: Path, *, path: Path = BIN, metadata: dict | None = None) -> dict:
    if metadata is not None:
        (root / "submission_metadata.json").write_text(json.dumps(metadata))
    env = {k: v for k, v in os.environ.items() if k != "GRADER_DEBUG"}
    env.update(AUTOGRADER_ROOT=str(root), PATH=f"{path}{os.pathsep}/usr/bin:/bin")
    res = subprocess.run(
        [str(bundle / "run_autograder")],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert res.returncode == 0, res.stdout + res.stderr
    data = json.loads((root / "results" / "results.json").read_text())
    validate_gradescope_dict(data)
    return data


def _submission(tmp_path: Path) -> Path:
    sub = tmp_path / "submission"
    sub.mkdir()
    return sub


def _tests(data: dict) -> list[dict]:
    return [t for t in data["tests"] if "id" in t.get("extra_data", {})]


def test_correct_files_get_full_marks_on_time(bundle, tmp_path):
    sub = _submission(tmp_path)
    for p in PARTS:
        (sub / f"{p}.py").write_bytes((SOLUTIONS / f"{p}.py").read_bytes())
    (sub / "explanation.md").write_text(EXPLANATION)
    (sub / "drill").mkdir()
    for name in ("experiment.py", "results.json", "evidence_note.md"):  # rerun on Gradescope
        (sub / "drill" / name).write_bytes((SOLUTIONS / "drill" / name).read_bytes())
    data = _run(bundle, tmp_path, metadata=_metadata("2026-12-01T20:00:00.5-08:00"))
    max_score = sum(t["max_score"] for t in _tests(data)) + 10
    assert data["score"] == max_score and data["extra_data"]["late"]["late"] is False
    assert "Submitted on time" in data["output"]
    hidden = {t["visibility"] for t in _tests(data) if t["tags"][0] != "drill"}
    assert hidden == {"hidden"}  # the bundle's option
    # the drill's checks are no hidden tests: they follow the totals (visible by default)
    assert {t["visibility"] for t in _tests(data) if t["tags"][0] == "drill"} == {"visible"}
    names = [t["name"] for t in data["tests"]]
    assert len(names) == len(set(names))


def test_buggy_zip_loses_points_names_the_misconception_and_is_late(bundle, tmp_path):
    sub = _submission(tmp_path)
    with zipfile.ZipFile(sub / "handin.zip", "w") as zf:
        for p in PARTS:
            text = (SOLUTIONS / f"{p}.py").read_text()
            zf.writestr(f"ada/{p}.py", text.replace(*BUG) if p == "masks" else text)
    data = _run(bundle, tmp_path, metadata=_metadata("2026-12-02T01:00:00-08:00"))
    failed = [t for t in _tests(data) if t["status"] == "failed"]
    drill = [t for t in failed if t["extra_data"]["id"].startswith("drill.")]
    assert drill and all("not handed in" in t["output"] for t in drill)  # no drill/ uploaded
    failed = [t for t in failed if t not in drill]
    assert failed and all(t["extra_data"]["id"].startswith("masks.") for t in failed)
    assert any("Upper and lower triangle swapped" in t["output"] for t in failed)
    assert data["extra_data"]["late"]["seconds_late"] == 3660
    assert "1 h 1 min after the due date" in data["output"]
    explanation = next(t for t in data["tests"] if t["tags"] == ["explanation"])
    assert explanation["score"] == 0 and "explanation.md was not found" in explanation["output"]


def test_notebook_upload_is_graded(bundle, tmp_path):
    sub = _submission(tmp_path)
    cells = [{"cell_type": "code", "source": (SOLUTIONS / f"{p}.py").read_text()} for p in PARTS]
    (sub / "work.ipynb").write_text(notebook_json(cells))
    data = _run(bundle, tmp_path)
    code = [t for t in _tests(data) if not t["extra_data"]["id"].startswith("drill.")]
    assert code and all(t["status"] == "passed" for t in code)  # the drill: not in a notebook
    assert data["extra_data"]["late"] is None


@pytest.mark.parametrize(
    "make, expected",
    [
        (lambda sub: None, "no exercise files were found"),
        (lambda sub: (sub / "work.zip").write_bytes(b"PK\x03\x04 broken"), "not a readable zip"),
        (lambda sub: (sub / "work.ipynb").write_text('{"cells": [tru'), "work.ipynb"),
    ],
    ids=["empty", "corrupt_zip", "corrupt_notebook"],
)
def test_nothing_gradable_still_gets_results_with_the_reason(bundle, tmp_path, make, expected):
    make(_submission(tmp_path))
    data = _run(bundle, tmp_path)
    assert data["score"] == 0 and expected in data["output"]
    tests = _tests(data)
    assert len(tests) > 100 and all(t["score"] == 0 and t["max_score"] > 0 for t in tests)
    assert all(t["status"] == "failed" for t in tests)


def test_nested_folder_grades_what_is_there_and_zeroes_what_is_missing(bundle, tmp_path):
    nested = _submission(tmp_path) / "Ada Lovelace" / "unit3"
    nested.mkdir(parents=True)
    (nested / "masks.py").write_bytes((SOLUTIONS / "masks.py").read_bytes())
    data = _run(bundle, tmp_path)
    by_part: dict[str, set[str]] = {}
    for t in _tests(data):
        by_part.setdefault(t["tags"][0], set()).add(t["status"])
    assert by_part["masks"] == {"passed"}
    assert by_part["losses"] == {"failed"}
    losses = next(t for t in _tests(data) if t["tags"][0] == "losses")
    assert "losses.py was not found in your submission" in losses["output"]


def test_a_failing_grader_still_leaves_a_results_json(bundle, tmp_path):
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "grader").write_text("#!/bin/sh\necho 'Internal grader error: boom' >&2\nexit 3\n")
    (fake / "grader").chmod(0o755)
    _submission(tmp_path)
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "results.json").write_text('{"score": 99}')  # a stale file
    data = _run(bundle, tmp_path, path=fake)
    assert data["score"] == 0 and "not a problem with your work" in data["output"]
    assert data["extra_data"]["grader_exit_status"] == 3
