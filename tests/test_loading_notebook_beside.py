"""A notebook beside the handout's files is the work (found walking the student flow): a
notebook student hands in the whole handout folder (or its GitHub Classroom repository), whose
exercises/*.py are still the stubs, or the notebook with the drill's files next to it. Before,
any exercise file - a stub, or just drill/ - made the loader ignore the notebook without a word:
every code part "not attempted", 0 points."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from grader.batch.sampleclass import SOLUTIONS, correct_files, notebook_bytes, stub_files
from grader.loading import load_submission
from grader.loading.entry import is_stub

DRILL = {
    "drill/experiment.py": (SOLUTIONS / "drill" / "experiment.py").read_bytes(),
    "drill/evidence_note.md": b"## Accepted claim\n\nThe causal run ...\n",
}
TEMPLATE = b"# Exercise 2\n\n## Your answer\n\n<!-- Replace this comment with your answer. -->\n"


def _write(root: Path, files: dict[str, bytes]) -> Path:
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    return root


def _handout_folder(root: Path) -> Path:
    """The handout as a notebook student hands it in: stubs in exercises/, work in the notebook."""
    stubs = {f"exercises/{k}": v for k, v in stub_files("stub").items() if k.endswith(".py")}
    stubs["exercises/explanation.md"] = TEMPLATE
    stubs.update({f"exercises/{k}": v for k, v in DRILL.items()})
    stubs["student.ipynb"] = notebook_bytes(correct_files("nb"))
    return _write(root, stubs)


def _zip(folder: Path, path: Path) -> Path:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for f in sorted(folder.rglob("*")):
            if f.is_file():
                zf.write(f, f"wrapper/{f.relative_to(folder).as_posix()}")
    path.write_bytes(buf.getvalue())
    return path


@pytest.mark.parametrize("as_zip", [False, True])
def test_handout_folder_with_stub_py_files_is_graded_from_its_notebook(tmp_path, as_zip):
    folder = _handout_folder(tmp_path / "ann")
    path = _zip(folder, tmp_path / "ann.zip") if as_zip else folder
    sub = load_submission(path, name="ann")
    assert set(sub.sources) == {"masks", "corruption", "losses", "generation"}
    assert all("_SUBMISSION_TAG = 'nb'" in src for src in sub.sources.values())
    assert not any(is_stub(src) for src in sub.sources.values())
    assert sub.files["drill/experiment.py"] == DRILL["drill/experiment.py"].decode()
    assert sub.written["explanation"]  # the notebook's answer: the template's is empty
    assert sub.notebook  # feedback goes into the student's notebook
    note = next(p for p in sub.problems if "stubs" in p)
    assert "graded from student.ipynb" in note


def test_notebook_with_the_drill_files_beside_it_keeps_both(tmp_path):
    files = {"unit3.ipynb": notebook_bytes(correct_files("nb")), **DRILL}
    sub = load_submission(_write(tmp_path / "bo", files), name="bo")
    assert len(sub.sources) == 4 and "drill/evidence_note.md" in sub.files
    assert not any("stubs" in p for p in sub.problems)  # nothing was set aside


def test_an_explanation_md_answer_is_kept_when_the_notebook_has_none(tmp_path):
    code = {k: v for k, v in correct_files("nb").items() if k.endswith(".py")}
    files = {
        "unit3.ipynb": notebook_bytes(code),
        "explanation.md": b"## Your answer\n\nMy own words.\n",
    }
    sub = load_submission(_write(tmp_path / "cy", files), name="cy")
    assert len(sub.sources) == 4 and sub.written["explanation"] == "My own words."


def test_worked_py_files_still_win_over_a_notebook(tmp_path):
    files = {k: v for k, v in correct_files("py").items()}
    files["student.ipynb"] = notebook_bytes(stub_files("nb"))
    sub = load_submission(_write(tmp_path / "di", files), name="di")
    assert all("_SUBMISSION_TAG = 'py'" in src for src in sub.sources.values())
    assert not sub.notebook


def test_is_stub():
    stub = 'def f(x):\n    """Doc."""\n    raise NotImplementedError("Task 1.1: ...")\n'
    assert is_stub(stub)
    assert is_stub("import torch\nX = 1\n" + stub + "def g():\n    raise NotImplementedError\n")
    assert not is_stub(stub + "def g():\n    return 1\n")  # one function done: work
    assert not is_stub("def f(x):\n    if x:\n        raise NotImplementedError\n    return 1\n")
    assert not is_stub("def f(:\n    raise NotImplementedError\n")  # unparseable: work
    assert not is_stub("X = NotImplementedError\n")  # no function at all


def test_handout_check_without_argument_checks_a_notebook_students_handout_whole(tmp_path):
    """The handout's `grader check` (and its GitHub Classroom workflow) with no argument: a
    notebook student's work is the notebook with exercises/drill/, not the stubs."""
    from grader.loading.entry import default_work_folder

    folder = _handout_folder(tmp_path / "repo")
    assert default_work_folder(folder) == folder
    (folder / "exercises" / "masks.py").write_bytes(correct_files("py")["masks.py"])
    assert default_work_folder(folder) == folder / "exercises"  # work in the .py files
    assert default_work_folder(folder / "exercises") == folder / "exercises"


def test_the_current_folder_is_named_after_itself(tmp_path, monkeypatch):
    folder = _write(tmp_path / "ann", correct_files("x"))
    monkeypatch.chdir(folder)
    assert load_submission(Path(".")).name == "ann"  # was "": "Public self-check: "


@pytest.mark.parametrize("form", ["folder", "zip"])
def test_the_notebook_beside_the_stubs_keeps_its_cell_lines(tmp_path, form):
    """Graded from the notebook, a traceback must say `cell 7, line 4`: with the stubs or the
    drill beside it, the loader dropped the notebook's line map, so feedback named lines of
    the code extracted from it (`losses.py, line 215`), a file the student never saw."""
    folder = _handout_folder(tmp_path / "handout")
    path = folder if form == "folder" else _zip(folder, tmp_path / "h.zip")
    sub = load_submission(path, name="s")
    alone = load_submission(folder / "student.ipynb", name="s")
    assert sub.notebook and sub.cell_lines and sub.cell_lines == alone.cell_lines
    assert "drill/experiment.py" in sub.files
