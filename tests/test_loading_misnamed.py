"""A misnamed exercise file is named in the message (found walking the instructor flow): a
student who handed in Masks.py and loss.py was told "masks.py was not found in your
submission" and nothing else, though the fix is a rename."""

from __future__ import annotations

import io
import zipfile

from grader.batch.sampleclass import correct_files
from grader.loading import load_submission
from grader.loading.model import near_miss


def test_misnamed_files_in_a_folder_are_named_with_the_fix(tmp_path):
    files = correct_files("x")
    folder = tmp_path / "ann"
    folder.mkdir()
    (folder / "Masks.py").write_bytes(files["masks.py"])
    (folder / "loss.py").write_bytes(files["losses.py"])
    (folder / "generation.py").write_bytes(files["generation.py"])
    (folder / "explanation.txt").write_bytes(files["explanation.md"])
    sub = load_submission(folder)
    assert sub.missing["masks"] == (
        "masks.py was not found in your submission (there is Masks.py: name it masks.py, "
        "file names are exact)"
    )
    assert "(there is loss.py: name it losses.py" in sub.missing["losses"]
    assert sub.missing["corruption"] == "corruption.py was not found in your submission"
    assert any("there is explanation.txt: name it explanation.md" in p for p in sub.problems)


def test_misnamed_files_in_a_zip_are_named_too(tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("work/masks (1).py", correct_files("x")["masks.py"])
        zf.writestr("__MACOSX/work/._losses.py", b"\0")
    (tmp_path / "bo.zip").write_bytes(buf.getvalue())
    sub = load_submission(tmp_path / "bo.zip")
    assert "(there is work/masks (1).py: name it masks.py" in sub.missing["masks"]
    assert sub.missing["losses"] == "losses.py was not found in your submission"


def test_near_miss_rules():
    assert near_miss("masks.py", ["MASKS.PY"]) == "MASKS.PY"
    assert near_miss("masks.py", ["masks.py.txt"]) == "masks.py.txt"
    assert near_miss("masks.py", ["masks-2.py"]) == "masks-2.py"
    assert near_miss("masks.py", ["masks copy.py"]) == "masks copy.py"
    assert near_miss("explanation.md", ["Explanation.txt"]) == "Explanation.txt"
    for unrelated in (["masks.ipynb"], ["tinylm.py"], ["__init__.py"], ["notes.txt"], []):
        assert near_miss("masks.py", unrelated) is None, unrelated


def test_an_empty_code_file_is_one_cause_not_one_undefined_function_each(tmp_path):
    # A zero-byte masks.py (a failed upload) was reported as four "masks.py does not define
    # causal_mask() ... What to do: define a function named causal_mask at the top level",
    # advice about names for a file that holds nothing at all.
    from grader.pipeline import GradeOptions, grade_path
    from grader.render import render_report

    files = correct_files("x")
    folder = tmp_path / "dan"
    folder.mkdir()
    (folder / "masks.py").write_bytes(b"")
    (folder / "losses.py").write_bytes(b"\n  \n")
    (folder / "generation.py").write_bytes(files["generation.py"])
    sub = load_submission(folder)
    assert "masks" not in sub.sources and "losses" not in sub.sources
    assert sub.missing["masks"].startswith("masks.py is empty: there is no code in it to grade")
    assert sub.missing["losses"].startswith("losses.py is empty")
    report = grade_path(folder, GradeOptions(grade_written=False, grade_drill=False))
    text = render_report(report, "text")
    assert "does not define" not in text
    assert text.count("masks.py is empty") == 1


def test_a_windows_1252_answer_is_read_with_a_note_not_called_missing(tmp_path):
    # An explanation.md saved as Windows-1252 (an accented word from Notepad or Word) was
    # ignored, and Exercise 2 then said "No explanation.md was handed in" beside the note
    # "explanation.md is not UTF-8 text and was ignored". Code must still be UTF-8.
    files = correct_files("x")
    folder = tmp_path / "eve"
    folder.mkdir()
    answer = files["explanation.md"].decode().replace("## Your answer\n", "## Your answer\nCafé. ")
    (folder / "explanation.md").write_bytes(answer.encode("cp1252"))
    (folder / "masks.py").write_bytes(files["masks.py"] + "# café\n".encode("cp1252"))
    sub = load_submission(folder)
    assert sub.written["explanation"].startswith("Café. ")
    assert any("explanation.md is not UTF-8 text: it was read as Windows-1252" in p
               for p in sub.problems)  # fmt: skip
    assert "masks" not in sub.sources and "not UTF-8" in sub.missing["masks"]
