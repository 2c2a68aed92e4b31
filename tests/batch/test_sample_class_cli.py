"""`grader sample-class --out DIR [--canvas|--gradescope]` (issue 17): a class to try a batch on,
in each layout the intake reads."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from grader.batch.intake import open_intake
from grader.cli import main


@pytest.mark.parametrize(
    "flags, layout, name",
    [
        ([], "folders", ""),
        (["--canvas"], "canvas", "submissions.zip"),
        (["--gradescope"], "gradescope", "export.zip"),
    ],
)
def test_sample_class_in_each_layout(tmp_path, flags, layout, name):
    out = tmp_path / "class"
    res = CliRunner().invoke(main, ["sample-class", "--out", str(out), "-n", "6", *flags])
    assert res.exit_code == 0, res.output
    assert "Wrote 6 submissions" in res.output and "grader batch" in res.output
    with open_intake(out / name if name else out) as intake:
        assert intake.layout == layout
        assert len(intake.entries) == (5 if layout == "gradescope" else 6)  # one group of two


def test_sample_class_refuses_a_folder_in_use(tmp_path):
    (tmp_path / "keep.txt").write_text("mine")
    res = CliRunner().invoke(main, ["sample-class", "--out", str(tmp_path)])
    assert res.exit_code == 2 and "not empty" in res.output
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]
