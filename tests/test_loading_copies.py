"""Two copies of the exercise files in one submission (issue 17): never handled silently. The
copy with the most recently modified file is graded, and the report's notes say which copy was
graded and which were ignored (before, the alphabetically first copy won without a word)."""

from __future__ import annotations

import io
import os
import zipfile

from grader.loading import load_submission


def _write(root, folder, answer, mtime):
    d = root / folder
    d.mkdir(parents=True)
    (d / "masks.py").write_text(f"ANSWER = {answer!r}\n")
    (d / "explanation.md").write_text(f"{answer} answer\n")
    for f in d.iterdir():
        os.utime(f, (mtime, mtime))


def test_folder_newest_copy_is_graded_and_noted(tmp_path):
    sub_dir = tmp_path / "alice"
    _write(sub_dir, "draft", "draft", 1_700_000_000)
    _write(sub_dir, "final", "final", 1_700_100_000)
    sub = load_submission(sub_dir, name="alice")
    assert sub.written["explanation"] == "final answer"
    assert "'final'" in sub.sources["masks"]
    note = next(p for p in sub.problems if "copies of the exercise files" in p)
    assert "final/ was graded (its files were modified most recently)" in note
    assert "draft/ ignored" in note


def test_zip_uses_member_times(tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for folder, when in (("new", (2026, 3, 2, 9, 0, 0)), ("old", (2026, 3, 1, 9, 0, 0))):
            for name, text in (
                ("masks.py", f"X = {folder!r}\n"),
                ("explanation.md", f"{folder} text\n"),
            ):
                zf.writestr(zipfile.ZipInfo(f"bob/{folder}/{name}", when), text)
    path = tmp_path / "bob.zip"
    path.write_bytes(buf.getvalue())
    sub = load_submission(path, name="bob")
    assert sub.written["explanation"] == "new text"
    assert any("new/ was graded" in p and "old/ ignored" in p for p in sub.problems)


def test_one_copy_has_no_note(tmp_path):
    _write(tmp_path / "carol", "exercises", "only", 1_700_000_000)
    sub = load_submission(tmp_path / "carol", name="carol")
    assert not any("copies" in p for p in sub.problems)
