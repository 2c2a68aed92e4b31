"""The student notebook: made from the stubs, and graded exactly like the same code as files."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat

from grader.batch.sampleclass import GOOD_EXPLANATION
from grader.loading import load_submission
from grader.pipeline import GradeOptions, Grader
from grader.release.notebook import split_module
from grader.testing import SOLUTIONS, STUBS

PARTS = ("masks", "corruption", "losses", "generation")


def _fill(nb, base: Path, explanation: str):
    """The notebook with every code cell replaced by `base`'s code for that cell."""
    nb = nbformat.from_dict(nb)
    for cell in nb.cells:
        meta = cell.metadata.get("grader")
        if meta:
            _, own, functions = split_module((base / f"{meta['module']}.py").read_text())
            sources = {name: src for name, _, src in functions}
            cell.source = own if meta["function"] is None else sources[meta["function"]]
        elif "explanation" in cell.metadata.get("tags", []):
            cell.source = explanation
    return nb


def _folder(tmp: Path, base: Path, explanation: str) -> Path:
    tmp.mkdir()
    for p in PARTS:
        shutil.copyfile(base / f"{p}.py", tmp / f"{p}.py")
    (tmp / "explanation.md").write_text(explanation)
    return tmp


def _outcome(report):
    tests = [(t.id, t.status, t.score, t.diagnoses) for t in report.tests]
    written = {k: (w.score, [(c.id, c.verdict) for c in w.criteria])
               for k, w in report.written.items()}  # fmt: skip
    return tests, written


def test_the_notebook_has_the_contract_a_cell_per_function_and_the_check(handout: Path):
    nb = nbformat.read(handout / "student.ipynb", as_version=4)
    nbformat.validate(nb)
    code = {(c.metadata["grader"]["module"], c.metadata["grader"]["function"]): c.source
            for c in nb.cells if "grader" in c.metadata}  # fmt: skip
    for p in PARTS:
        _, _, functions = split_module((STUBS / f"{p}.py").read_text())
        for name, doc, src in functions:
            assert code[(p, name)].strip() == src.strip()  # the stub itself
            assert any(c.cell_type == "markdown" and doc.splitlines()[0] in c.source
                       for c in nb.cells), name  # fmt: skip
    tagged = [c for c in nb.cells if "explanation" in c.metadata.get("tags", [])]
    assert len(tagged) == 1 and tagged[0].cell_type == "markdown"
    assert any("Exercise 3" in c.source and "drill/experiment.py" in c.source for c in nb.cells)
    assert nb.cells[-1].cell_type == "code" and "grader check student.ipynb" in nb.cells[-1].source


def test_a_filled_notebook_grades_exactly_like_the_same_files(handout: Path, tmp_path: Path):
    template = nbformat.read(handout / "student.ipynb", as_version=4)
    nb_path = tmp_path / "student.ipynb"
    nbformat.write(_fill(template, SOLUTIONS, GOOD_EXPLANATION), nb_path)
    folder = _folder(tmp_path / "files", SOLUTIONS, GOOD_EXPLANATION)
    with Grader() as grader:
        as_notebook = grader.grade(load_submission(nb_path))
        as_files = grader.grade(load_submission(folder))
    assert as_notebook.errors == as_files.errors == ()
    assert _outcome(as_notebook) == _outcome(as_files)
    # the reference, so full marks on everything the notebook holds (the drill is its own
    # files, handed in beside a notebook: without them Exercise 3 scores 0)
    drill = as_notebook.parts["drill"]
    assert drill.score == 0 and as_notebook.score == as_notebook.max_score - drill.max_score


def test_the_untouched_notebook_checks_like_the_stubs(handout: Path, tmp_path: Path):
    with Grader(GradeOptions(suite="public", grade_written=False)) as grader:
        notebook = grader.grade(load_submission(handout / "student.ipynb"))
        stubs = grader.grade(load_submission(STUBS))

    # the public tests alike; the drill is its own files (the stubs' scaffold, none in the
    # notebook), checked in the self-check too
    def code(report):
        return [o for o in _outcome(report)[0] if not o[0].startswith("drill.")]

    assert code(notebook) == code(stubs) and code(notebook)
    assert {t.status for t in notebook.tests} == {"missing"}
    assert "drill" in notebook.parts


def test_checking_the_handouts_notebook_checks_it_with_its_drill(handout: Path, tmp_path: Path):
    # The notebook's own last cell runs `grader check student.ipynb`: the notebook alone, so
    # the self-check said the drill "was not handed in, so it scores 0" though it sits in
    # exercises/drill/ and is graded with the notebook (as `grader check` with no argument does).
    from click.testing import CliRunner

    from grader.check_cli import main
    from grader.loading.entry import work_for

    root = tmp_path / "handout"
    shutil.copytree(handout, root)
    notebook = root / "student.ipynb"
    assert "!grader check student.ipynb" in notebook.read_text()
    assert work_for(notebook) == root
    res = CliRunner().invoke(main, ["check", str(notebook)])
    assert res.exit_code == 1, res.output
    assert "drill/experiment.py still raises NotImplementedError (drill TODO 1" in res.output
    assert "was not handed in" not in res.output
    # a notebook is checked alone when its folder would not be graded from it
    (root / "other.ipynb").write_text(notebook.read_text())
    assert work_for(notebook) == notebook
    (root / "other.ipynb").unlink()
    masks = root / "exercises" / "masks.py"
    masks.write_text((SOLUTIONS / "masks.py").read_text())  # code of its own in exercises/
    assert work_for(notebook) == notebook
