"""The CLI as users run it: exit codes, formats, error style, and the README's commands."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from grader.report import validate_report_dict
from grader.testing import REPO, SOLUTIONS, STUBS

GRADER = [sys.executable, "-m", "grader"]


def run(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "GRADER_DEBUG"}
    env["NO_COLOR"] = "1"
    return subprocess.run(
        [*GRADER, *args], cwd=cwd, capture_output=True, text=True, timeout=180, env=env
    )


@pytest.fixture(scope="module")
def ref_folder(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("ref")
    for p in ("masks", "corruption", "losses", "generation"):
        (d / f"{p}.py").write_bytes((SOLUTIONS / f"{p}.py").read_bytes())
    (d / "explanation.md").write_text(
        (REPO / "grader" / "demo_class" / "ada" / "explanation.md").read_text()
    )
    return d


def test_grade_json_to_file_is_valid(ref_folder, tmp_path):
    out = tmp_path / "r.json"
    res = run("grade", str(ref_folder), "--format", "json", "--output", str(out))
    assert res.returncode == 0, res.stderr
    data = json.loads(out.read_text())
    validate_report_dict(data)
    assert data["score"] > 0 and data["submission"] == ref_folder.name
    assert not [p for p in out.parent.iterdir() if p.name.endswith(".tmp")]


def test_grade_zip_in_markdown(ref_folder, tmp_path):
    archive = tmp_path / "alice.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for f in ref_folder.iterdir():
            zf.write(f, f"alice/{f.name}")
    res = run("grade", str(archive), "--format", "md")
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("# Grade report: alice")


def test_fail_under_exits_1(tmp_path):
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    for p in ("masks", "corruption", "losses", "generation"):
        (stubs / f"{p}.py").write_bytes((STUBS / f"{p}.py").read_bytes())
    res = run("grade", str(stubs), "--fail-under", "50")
    assert res.returncode == 1
    assert "not attempted" in res.stdout


@pytest.mark.parametrize(
    "setup, expected",
    [
        (lambda p: p / "nope", "does not exist"),
        (
            lambda p: (p / "bad.zip").write_bytes(b"PK\x03\x04 not a zip") and p / "bad.zip",
            "not a readable zip",
        ),
    ],
)
def test_unreadable_submission_exits_2_without_traceback(tmp_path, setup, expected):
    target = setup(tmp_path)
    res = run("grade", str(target))
    assert res.returncode == 2
    assert expected in res.stderr
    assert "Traceback" not in res.stderr + res.stdout


def test_bad_usage_exits_2():
    res = run("grade")
    assert res.returncode == 2
    assert "Traceback" not in res.stderr


def test_help_shows_examples():
    for cmd in ("grade", "check", "demo", "batch", "review", "gradescope"):
        res = run(cmd, "--help")
        assert res.returncode == 0 and "Example" in res.stdout


@pytest.fixture(scope="module")
def ref_with_drill(ref_folder, tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("ref-drill")
    shutil.copytree(ref_folder, d, dirs_exist_ok=True)
    shutil.copytree(SOLUTIONS / "drill", d / "drill")
    return d


@pytest.fixture(scope="module")
def checked_ref_with_drill(ref_with_drill) -> subprocess.CompletedProcess[str]:
    """One `grader check` of the reference with its drill (~10 s: the rerun), shared by the
    tests that read its output."""
    return run("check", str(ref_with_drill))


@pytest.fixture(scope="module")
def checked_stubs() -> subprocess.CompletedProcess[str]:
    """One `grader check exercises/` (the README's command, the untouched stubs), shared."""
    assert (REPO / "exercises").resolve() == STUBS.resolve()
    return run("check", "exercises/")


def test_check_is_pytest_like(checked_ref_with_drill, checked_stubs):
    ok = checked_ref_with_drill
    assert ok.returncode == 0, ok.stdout + ok.stderr
    stubs = checked_stubs
    assert stubs.returncode == 1
    assert "not attempted" in stubs.stdout


def test_check_reruns_and_checks_the_drill_like_grade(
    ref_folder, ref_with_drill, checked_ref_with_drill, tmp_path
):
    # Exercise 3 is checked by `grader check` exactly as `grader grade` checks it: the rerun in
    # the sandbox and every check of docs/drill.md, with the same rows and messages
    ok = checked_ref_with_drill
    assert re.search(r"Exercise 3 - drill\s+20 / 20", ok.stdout), ok.stdout
    absent = run("check", str(ref_folder))
    assert absent.returncode == 1  # every public test passes, but there is no drill yet
    assert "Exercise 3 (the drill) was not handed in" in absent.stdout
    work = tmp_path / "work"
    shutil.copytree(ref_with_drill, work)
    (work / "drill" / "results.json").unlink()
    note = work / "drill" / "evidence_note.md"
    note.write_text(note.read_text().replace("## Limitation", "## Limits of this"))
    broken = run("check", str(work))
    assert broken.returncode == 1, broken.stdout
    graded = run("grade", str(work), "--format", "json")
    drill = {t["id"]: t for t in json.loads(graded.stdout)["tests"] if t["part"] == "drill"}
    failed = {i for i, t in drill.items() if t["status"] != "passed"}
    assert failed == {"drill.reproduced", "drill.note_section[limitation]"}, failed
    assert "Score: 23 / 27" in broken.stdout
    for tid in failed:  # the same message as the graded report's
        assert drill[tid]["message"].splitlines()[0] in broken.stdout


def _readme_commands() -> list[str]:
    text = (REPO / "README.md").read_text()
    blocks = re.findall(r"```bash\n(.*?)```", text, re.DOTALL)
    return [line.strip() for b in blocks for line in b.splitlines() if line.strip()]


def test_readme_shows_the_two_setup_commands_and_ci_runs_the_test_one():
    cmds = _readme_commands()
    setup = 'python3 -m venv .venv && .venv/bin/pip install -e ".[dev]"'
    assert f"{setup} && .venv/bin/grader demo" in cmds
    test_cmd = f"{setup} && .venv/bin/python -m pytest"
    assert test_cmd in cmds
    ci = (REPO / ".ci" / "run").read_text()
    assert test_cmd in ci
    # Hypothesis runs derandomized there (tests/conftest.py): set before the tests, not left to
    # the CI platform
    assert re.search(r"^export CI=true$", ci[: ci.index(test_cmd)], re.MULTILINE), ci


@pytest.fixture(scope="module")
def demo_run() -> subprocess.CompletedProcess[str]:
    """One `grader demo` run (~10 s), shared by the tests that read its output."""
    return run("demo")


def test_readme_demo_command_runs(demo_run):
    res = demo_run
    assert res.returncode == 0, res.stderr
    for student in ("ada", "ben", "cleo", "dev", "eve"):
        assert student in res.stdout
    assert "Traceback" not in res.stdout + res.stderr


_TIME = re.compile(r"\s+(time|\d+(\.\d+)?s)$")


def _demo_table(text: str) -> list[str]:
    """The demo's table and per-student notes, from its header line to the first blank line
    after the notes, with the time column (which varies run to run) removed."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("student "))
    notes = next(i for i in range(start, len(lines)) if not lines[i].strip())
    end = next((i for i in range(notes + 1, len(lines)) if not lines[i].strip()), len(lines))
    return [_TIME.sub("", line.rstrip()) for line in lines[start:end]]


def test_readme_demo_table_matches_the_demo_output(demo_run):
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    start = readme.index("```\nstudent ") + 4
    block = readme[start : readme.index("\n```", start)]
    assert _demo_table(block) == _demo_table(demo_run.stdout)


def test_readme_student_check_command_runs(checked_stubs):
    # `grader check exercises/` from the README: the untouched stubs fail, readably.
    res = checked_stubs
    assert res.returncode == 1
    assert "Public self-check" in res.stdout and "not attempted" in res.stdout
