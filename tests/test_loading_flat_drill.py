"""The drill's files uploaded one by one (Gradescope's drag and drop puts them flat in
/autograder/submission/) are the drill: before, a flat experiment.py, results.json and
evidence_note.md beside the code were ignored and Exercise 3 scored 0 as "not handed in"."""

from __future__ import annotations

import io
import zipfile

from grader.batch.sampleclass import correct_files
from grader.loading import load_submission
from grader.testing import SOLUTIONS

DRILL = {f.name: f.read_bytes() for f in (SOLUTIONS / "drill").iterdir() if f.is_file()}


def _folder(root, files):
    root.mkdir(parents=True)
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return root


def test_flat_drill_files_beside_the_code_are_the_drill(tmp_path):
    sub = load_submission(_folder(tmp_path / "s", {**correct_files("x"), **DRILL}))
    assert {"drill/experiment.py", "drill/results.json", "drill/evidence_note.md"} <= set(sub.files)
    assert sub.files["drill/results.json"] == DRILL["results.json"].decode()
    assert len(sub.sources) == 4


def test_flat_drill_files_in_a_zip_wrapper_folder(tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in {**correct_files("x"), **DRILL}.items():
            zf.writestr(f"ann/{name}", data)
    (tmp_path / "ann.zip").write_bytes(buf.getvalue())
    sub = load_submission(tmp_path / "ann.zip")
    assert "drill/experiment.py" in sub.files and len(sub.sources) == 4


def test_a_real_drill_folder_wins_and_a_stray_results_json_is_no_drill(tmp_path):
    files = {**correct_files("x"), "drill/experiment.py": b"# real\n", **DRILL}
    sub = load_submission(_folder(tmp_path / "a", files))
    assert sub.files["drill/experiment.py"] == "# real\n"
    stray = load_submission(_folder(tmp_path / "b", {**correct_files("x"), "results.json": b"{}"}))
    assert not any(f.startswith("drill/") for f in stray.files)
