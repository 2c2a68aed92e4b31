"""The instructor package installs from its wheel and grades with it (no checkout needed)."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

from grader.batch.sampleclass import GOOD_EXPLANATION
from grader.testing import SOLUTIONS

from .venvs import run

PARTS = ("masks", "corruption", "losses", "generation")


def test_the_wheel_grades_a_submission_in_a_fresh_venv(wheel_python: Path, tmp_path: Path):
    where = run(wheel_python, "-c", "import grader, feedback_templates; print(grader.__file__)",
                cwd=tmp_path)  # fmt: skip
    assert where.returncode == 0, where.stderr
    assert str(wheel_python.parents[1]) in where.stdout  # the wheel's copy, not the checkout
    sub = tmp_path / "alice"
    sub.mkdir()
    for p in PARTS:
        (sub / f"{p}.py").write_bytes((SOLUTIONS / f"{p}.py").read_bytes())
    (sub / "explanation.md").write_text(GOOD_EXPLANATION)
    (sub / "drill").mkdir()
    for name in ("experiment.py", "results.json", "evidence_note.md"):  # rerun from the wheel
        (sub / "drill" / name).write_bytes((SOLUTIONS / "drill" / name).read_bytes())
    done = run(wheel_python, "grade", str(sub), "--format", "md", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    # Every hidden test passed (the suite's pytest.ini shipped), the written answer was scored
    # (the rubric data shipped) and rendered (the templates shipped).
    score = re.search(r"Score: ([\d.]+) / ([\d.]+)", done.stdout)
    assert score and score.group(1) == score.group(2) and float(score.group(2)) > 100, done.stdout
    assert "Exercise 2" in done.stdout and "[FAIL]" not in done.stdout


def test_the_wheel_ships_the_scorer_data_but_not_its_training_tools(wheel_python: Path):
    (wheel,) = (wheel_python.parents[2] / "dist").glob("objectives_grader-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in ("grader/rubric/rubric.toml", "grader/rubric/reader_weights.json",
                   "grader/rubric/published_solution.txt", "grader/rubric/scorer.py"):  # fmt: skip
        assert needed in names, needed
    training = [n for n in names if n.startswith("tools/") or "devset" in n
                or n.endswith(("fit_reader.py", "agreement.py", ".jsonl"))]  # fmt: skip
    assert training == [], training
