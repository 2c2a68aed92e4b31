"""An archive that holds one exercise file twice says so.

A zip may list two members of one name. The loader graded the last one silently, while an
unzip tool may keep the first (or ask, or rename one): the instructor reviewing the work
could read one file and the grade come from the other - a copied file graded under an own
one shown. Like two copies of the exercise files in two folders, it is never silent."""

from __future__ import annotations

import io
import warnings
import zipfile

from grader.loading import load_submission
from grader.resources import data_path


def _zip(path, members):
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about the duplicate name
        with zipfile.ZipFile(buf, "w") as zf:
            for name, text in members:
                zf.writestr(name, text)
    path.write_bytes(buf.getvalue())
    return path


def test_a_member_handed_in_twice_is_named_in_the_problems(tmp_path):
    masks = (data_path("solutions") / "masks.py").read_text()
    for twice in (
        ["masks.py", "masks.py"],
        ["masks.py", "./masks.py"],
        ["a/masks.py", "a\\masks.py"],
    ):
        members = [(twice[0], "# my own attempt\n"), (twice[1], masks)]
        sub = load_submission(_zip(tmp_path / "s.zip", members))
        notes = [p for p in sub.problems if "more than once" in p]
        assert notes and "last copy was graded" in notes[0], sub.problems
        assert sub.sources["masks"] == masks


def test_distinct_members_make_no_note(tmp_path):
    members = [("masks.py", "x = 1\n"), ("losses.py", "y = 2\n"), ("drill/experiment.py", "")]
    sub = load_submission(_zip(tmp_path / "s.zip", members))
    assert not any("more than once" in p for p in sub.problems)
