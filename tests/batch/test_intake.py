"""Every intake layout: folders, zips of folders, Canvas zips, Gradescope exports (no grading)."""

from __future__ import annotations

import io
import os
import zipfile
from pathlib import Path

import pytest

from grader.batch.intake import (
    canvas_filename,
    open_intake,
    parse_gradescope_metadata,
    safe_key,
)
from grader.batch.sampleclass import (
    canvas_login,
    correct_files,
    notebook_bytes,
    stub_files,
    synthetic_class,
    write_canvas_zip,
    write_folder_class,
    write_gradescope_export,
)
from grader.errors import UsageError
from grader.loading import SubmissionError


def _load_all(path: Path) -> tuple[str, dict, list]:
    """layout, {key: (submission or error text, entry)}, skipped."""
    out = {}
    with open_intake(path) as intake:
        for e in intake.entries:
            try:
                out[e.key] = (e.load(), e)
            except SubmissionError as exc:
                out[e.key] = (str(exc), e)
        return intake.layout, out, list(intake.skipped)


@pytest.fixture(scope="module")
def students():
    st = synthetic_class(8, seed=3, mix=(0.5, 0.25, 0.25, 0.0), notebooks=0.0, zips=0.0)
    forms = ["folder", "zip", "notebook", "folder", "zip", "notebook", "folder", "folder"]
    for s, form in zip(st, forms, strict=True):
        s.form = form
    st[1].late = True
    return st


def _digests(loaded: dict) -> set[str]:
    return {sub.digest for sub, _ in loaded.values() if not isinstance(sub, str)}


def test_folder_of_submissions(tmp_path, students):
    root = write_folder_class(tmp_path / "class", students)
    (root / "README.txt").write_text("not a submission")
    (root / ".DS_Store").write_text("ignored")
    (root / "__MACOSX").mkdir()
    layout, loaded, skipped = _load_all(root)
    assert layout == "folders"
    assert sorted(loaded) == sorted(s.key for s in students)
    for s in students:
        sub, entry = loaded[s.key]
        assert not isinstance(sub, str), sub
        assert sub.name == s.key and entry.display == s.key
        assert set(sub.sources) == {"masks", "corruption", "losses", "generation"}
        assert "explanation" in sub.written
    assert [k.source for k in skipped] == ["README.txt"]


def test_same_content_same_digest_in_every_layout(tmp_path, students):
    """A student's graded content does not depend on how the class was downloaded."""
    folders = _load_all(write_folder_class(tmp_path / "f", students))[1]
    canvas = _load_all(write_canvas_zip(tmp_path / "c.zip", students))[1]
    gs = _load_all(write_gradescope_export(tmp_path / "g.zip", students))[1]
    gs_dir = _load_all(write_gradescope_export(tmp_path / "gd", students, as_zip=False))[1]
    assert _digests(folders) == _digests(canvas) == _digests(gs) == _digests(gs_dir)
    assert len(_digests(folders)) == len(students)


def test_out_folder_inside_input_is_not_a_student(tmp_path, students):
    root = write_folder_class(tmp_path / "class", students[:2])
    (root / "graded" / "feedback").mkdir(parents=True)
    (root / "graded" / "results.jsonl").write_text("")
    with open_intake(root, exclude=(root / "graded",)) as intake:
        assert sorted(e.key for e in intake.entries) == sorted(s.key for s in students[:2])


def test_zip_of_folders_with_wrapper(tmp_path, students):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in correct_files("w1").items():
            zf.writestr(f"class/alice/{name}", data)
        for name, data in stub_files("w2").items():
            zf.writestr(f"class/bob/exercises/{name}", data)
        zf.writestr("class/carol.ipynb", notebook_bytes(correct_files("w3")))
        zf.writestr("class/notes.txt", "x")
    path = tmp_path / "class.zip"
    path.write_bytes(buf.getvalue())
    layout, loaded, skipped = _load_all(path)
    assert layout == "folders"
    assert sorted(loaded) == ["alice", "bob", "carol"]
    assert all(not isinstance(sub, str) and sub.sources for sub, _ in loaded.values())
    assert [s.message for s in skipped] == ["not a folder, .zip or .ipynb; skipped"]


def test_canvas_zip(tmp_path, students):
    path = write_canvas_zip(tmp_path / "submissions.zip", students)
    with zipfile.ZipFile(path, "a") as zf:
        # a re-upload renamed by Canvas, an unparseable name, and a student with a corrupt zip
        zf.writestr("zed_9001_7_masks-1.py", correct_files("z")["masks.py"])
        zf.writestr("zed_9001_8_losses.py", correct_files("z")["losses.py"])
        zf.writestr("random_file.txt", "x")
        zf.writestr("broken_LATE_9002_9_submission.zip", b"PK\x03\x04 not really a zip")
    layout, loaded, skipped = _load_all(path)
    assert layout == "canvas"
    by_uid = {e.members[0].canvas_id: (sub, e) for sub, e in loaded.values()}
    for s in students:
        sub, entry = by_uid[str(s.uid)]
        assert not isinstance(sub, str), sub
        assert entry.key == f"{canvas_login(s)}_{s.uid}"
        assert entry.late == s.late
        assert len(sub.sources) == 4
    zed, _ = by_uid["9001"]
    assert set(zed.sources) == {"masks", "losses"}  # masks-1.py counted as masks.py
    broken, entry = by_uid["9002"]
    assert isinstance(broken, str) and "not a readable zip" in broken and entry.late
    assert [s.source for s in skipped] == ["submissions.zip:random_file.txt"]


def test_folders_inside_a_canvas_download_are_reported_not_dropped(tmp_path, students):
    """Canvas downloads are flat: a student folder mixed in, or a file name holding a '/',
    would otherwise vanish without a word."""
    path = write_canvas_zip(tmp_path / "submissions.zip", students[:2])
    with zipfile.ZipFile(path, "a") as zf:
        zf.writestr("carol/masks.py", correct_files("c")["masks.py"])
        zf.writestr('=HYPERLINK("http://e/x")_5_6_masks.py', b"x = 1\n")
    layout, loaded, skipped = _load_all(path)
    assert layout == "canvas" and len(loaded) == 2
    sources = sorted(s.source for s in skipped)
    assert sources == ['submissions.zip:=HYPERLINK("http:/', "submissions.zip:carol/"]
    assert all("not graded" in s.message for s in skipped)


def test_canvas_extracted_folder(tmp_path, students):
    path = write_canvas_zip(tmp_path / "s.zip", students)
    root = tmp_path / "extracted"
    with zipfile.ZipFile(path) as zf:
        zf.extractall(root)
    layout, loaded, _ = _load_all(root)
    assert layout == "canvas" and len(loaded) == len(students)
    assert _digests(loaded) == _digests(_load_all(path)[1])


def test_canvas_filename_rules():
    assert canvas_filename("masks-1.py") == "masks.py"
    assert canvas_filename("explanation-12.md") == "explanation.md"
    assert canvas_filename("my-notes-1.py") == "my-notes-1.py"
    assert canvas_filename("submission-2.zip") == "submission-2.zip"
    # Canvas keeps no folders: the drill's files come back flat and go back into drill/
    assert canvas_filename("experiment.py") == "drill/experiment.py"
    assert canvas_filename("evidence_note-1.md") == "drill/evidence_note.md"
    assert canvas_filename("results.json") == "drill/results.json"


def test_canvas_drill_files_uploaded_one_by_one_are_the_drill(tmp_path, students):
    """A student who uploads drill/experiment.py, results.json and evidence_note.md to Canvas
    gets them back as flat `name_uid_sid_experiment.py` files: they are still Exercise 3."""
    path = write_canvas_zip(tmp_path / "submissions.zip", students[:1])
    with zipfile.ZipFile(path, "a") as zf:
        zf.writestr("drey_9003_1_masks.py", correct_files("d")["masks.py"])
        zf.writestr("drey_9003_2_experiment.py", "print('run')\n")
        zf.writestr("drey_9003_3_results.json", "{}")
        zf.writestr("drey_9003_4_evidence_note.md", "## Accepted claim\n")
        zf.writestr("drey_9003_5_experiment-1.py", "print('second upload')\n")
    _, loaded, skipped = _load_all(path)
    by_uid = {e.members[0].canvas_id: sub for sub, e in loaded.values()}
    drey = by_uid["9003"]
    assert not skipped and set(drey.sources) == {"masks"}
    assert {"drill/experiment.py", "drill/results.json", "drill/evidence_note.md"} <= set(
        drey.files
    )
    assert drey.files["drill/experiment.py"] == "print('second upload')\n"  # the newest


def test_gradescope_zip_and_groups(tmp_path, students):
    path = write_gradescope_export(tmp_path / "export.zip", students, pairs=2)
    layout, loaded, skipped = _load_all(path)
    assert layout == "gradescope" and not skipped
    assert len(loaded) == len(students) - 2
    pair = next(e for _, e in loaded.values() if len(e.members) == 2)
    assert {m.sis_user_id for m in pair.members} == {str(students[0].uid), str(students[1].uid)}
    assert pair.display == f"{students[0].name} & {students[1].name}"
    assert all(m.email.endswith("@example.edu") for _, e in loaded.values() for m in e.members)


def test_gradescope_folder(tmp_path, students):
    root = write_gradescope_export(tmp_path / "gs", students, as_zip=False)
    layout, loaded, _ = _load_all(root)
    assert layout == "gradescope" and len(loaded) == len(students)


def test_an_empty_submission_folder_is_an_entry_in_a_zip_as_on_disk(tmp_path, students):
    # Dan's folder in the export is empty: graded 0 ("no exercise files") from the unzipped
    # folder, but silently absent (no row, no note) when the same export was given as a zip.
    root = write_gradescope_export(tmp_path / "gs", students[:2], as_zip=False)
    base = root / "assignment_export"
    meta = base / "submission_metadata.yml"
    meta.write_text(
        meta.read_text() + "submission_999:\n  :submitters:\n  - :name: Dan Empty\n"
        "    :sid: '105'\n"
    )
    (base / "submission_999").mkdir()
    zpath = tmp_path / "export.zip"
    with zipfile.ZipFile(zpath, "w") as zf:
        for p in sorted(root.rglob("*")):
            rel = p.relative_to(root).as_posix()
            zf.write(p, rel + "/" if p.is_dir() else rel)
    for path in (root, zpath):
        layout, loaded, skipped = _load_all(path)
        assert layout == "gradescope" and not skipped
        assert len(loaded) == 3
        sub, entry = loaded["Dan_Empty_999"]
        assert entry.display == "Dan Empty" and not sub.sources
        assert any("no exercise files were found" in p for p in sub.problems)


def test_gradescope_metadata_parser():
    text = """\
submission_1:
  :submitters:
  - :name: "O'Neil, Pat"
    :sid: '0042'
    :email: pat@uni.edu
  - :name: Lee Kim
    :sid: 7
  :created_at: 2024-03-01 12:00:00 -0800
  :score: 3.0
  :history:
  - :submitters:
    - :name: Someone Else
submission_2:
  :submitters: []
"""
    meta = parse_gradescope_metadata(text)
    assert [p.name for p in meta["submission_1"]][:2] == ["O'Neil, Pat", "Lee Kim"]
    assert meta["submission_1"][0].sis_user_id == "0042"
    assert meta["submission_2"] == []


def test_unreadable_entries_are_reported_not_fatal(tmp_path):
    root = tmp_path / "class"
    root.mkdir()
    write_folder_class(root, synthetic_class(1, seed=9, mix=(1, 0, 0, 0), notebooks=0, zips=0))
    (root / "corrupt.zip").write_bytes(b"PK\x03\x04garbage")
    (root / "bad.ipynb").write_text("{ not json")
    (root / "empty").mkdir()
    os.symlink(root / "corrupt.zip", root / "link.zip")
    layout, loaded, skipped = _load_all(root)
    assert isinstance(loaded["corrupt"][0], str)
    assert "not a readable Jupyter notebook" in loaded["bad"][0]
    empty = loaded["empty"][0]
    assert not isinstance(empty, str) and "no exercise files were found" in empty.problems[-1]
    assert [s.source for s in skipped] == ["link.zip"]


def test_single_submission_is_not_a_class(tmp_path):
    root = tmp_path / "alice"
    root.mkdir()
    for name, data in correct_files("x").items():
        (root / name).write_bytes(data)
    with pytest.raises(UsageError, match="one submission"):
        with open_intake(root):
            pass
    with pytest.raises(UsageError, match="does not exist"):
        with open_intake(tmp_path / "missing"):
            pass


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("../../etc/passwd", "etc_passwd"),
        (".hidden", "hidden"),
        ("a/b\\c", "a_b_c"),
        ("José Müller", "Jose_Muller"),
        ("CON", "student_CON"),
        ("", "student"),
        ("...", "student"),
    ],
)
def test_safe_key(raw, expected):
    key = safe_key(raw)
    assert key == expected
    assert "/" not in key and "\\" not in key and not key.startswith(".")


def test_colliding_keys_are_made_unique(tmp_path):
    root = tmp_path / "class"
    for name in ("a b", "a_b", "A-B"):
        (root / name).mkdir(parents=True)
        (root / name / "masks.py").write_text("x = 1\n")
    _, loaded, _ = _load_all(root)
    assert len(loaded) == 3 and len({k.lower() for k in loaded}) == 3
