"""The Canvas gradebook CSV follows the importer's rules; notes hold what it cannot."""

from __future__ import annotations

import csv
import io

import pytest

from grader.batch.gradebook import (
    GradebookLine,
    Roster,
    assignment_header,
    format_points,
    render_gradebook,
    resolve,
)
from grader.batch.intake import Identity
from grader.errors import UsageError

ROSTER = """Student,ID,SIS User ID,SIS Login ID,Section,Unit 3 (1234),Current Score
    Points Possible,,,,,10,
"Doe, Jane",101,s101,jdoe@uni.edu,Sec 1,,
"Ng, Ada",102,s102,ada,Sec 2,,
"Student, Test",999,,,Sec 1,,
"""


def _rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def test_header_points_and_rows():
    lines = [
        GradebookLine("doejane_101", Identity(name="doejane", canvas_id="101"), 7.5),
        GradebookLine("ngada_102", Identity(name="ngada", canvas_id="102"), 10.0, "late (Canvas)"),
        GradebookLine("x", Identity(name="Unreadable", canvas_id="103"), None, "not graded"),
    ]
    book, notes = render_gradebook(lines, "Unit 3 autograder (1234)", 10.0)
    rows = _rows(book)
    assert rows[0] == [
        "Student",
        "ID",
        "SIS User ID",
        "SIS Login ID",
        "Section",
        "Unit 3 autograder (1234)",
    ]
    assert rows[1] == ["Points Possible", "", "", "", "", "10"]
    assert rows[2:] == [["doejane", "101", "", "", "", "7.5"], ["ngada", "102", "", "", "", "10"]]
    assert book.endswith("\r\n")
    note_rows = _rows(notes)
    assert note_rows[0][0] == "Student"
    assert {r[4]: r[6] for r in note_rows[1:]} == {"ngada_102": "late (Canvas)", "x": "not graded"}


def test_unmapped_ids_are_kept_and_noted():
    book, notes = render_gradebook([GradebookLine("alice", Identity(name="alice"), 3.0)], "HW", 5.0)
    assert _rows(book)[2] == ["alice", "", "", "", "", "3"]
    assert "match this row by name only" in notes


def test_roster_fills_ids(tmp_path):
    path = tmp_path / "export.csv"
    path.write_text(ROSTER)
    roster = Roster.load(path)
    assert [r.canvas_id for r in roster.rows] == ["101", "102"]  # test student skipped
    # by Canvas id, by e-mail login, by Canvas's compressed sortable name, by folder name
    assert resolve(Identity(canvas_id="102"), roster).sis_login_id == "ada"
    assert resolve(Identity(email="jdoe@uni.edu"), roster).canvas_id == "101"
    assert resolve(Identity(name="doejane"), roster).section == "Sec 1"
    assert resolve(Identity(name="jane_doe"), roster, entry_name="jane_doe").canvas_id == "101"
    assert resolve(Identity(name="nobody"), roster).canvas_id == ""


def test_roster_must_be_a_canvas_export(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("name,score\nx,1\n")
    with pytest.raises(UsageError, match="Canvas gradebook export"):
        Roster.load(path)


def test_csv_injection_and_quoting():
    book, _ = render_gradebook(
        [
            GradebookLine("k", Identity(name='=HYPERLINK("x")', canvas_id="1"), 1.0),
            GradebookLine("k2", Identity(name="Doe, Jane", canvas_id="2"), 2.0),
        ],
        "HW",
        2.0,
    )
    by_id = {r[1]: r for r in _rows(book)[2:]}
    assert by_id["1"][0].startswith("'=")
    assert by_id["2"][0] == "Doe, Jane"


def test_assignment_and_points_format():
    assert assignment_header("  Unit 3   (1234) ") == "Unit 3 (1234)"
    for bad in ("", "Section", "Points Possible"):
        with pytest.raises(UsageError):
            assignment_header(bad)
    assert [format_points(x) for x in (7.0, 7.5, 3.3333, 0.0, -0.0)] == [
        "7",
        "7.5",
        "3.33",
        "0",
        "0",
    ]


def test_every_text_column_is_neutralised_and_cleaned():
    """Ids, SIS fields and sections can come from a Gradescope export or a roster: none may
    start a formula, and no control character or bidi override reaches the CSV."""
    who = Identity(name="x\u202e=1", canvas_id="+41 cmd", sis_user_id='=HYPERLINK("http://e")',
                   sis_login_id="@SUM(A1)", section="-2+3\x1b[2J")  # fmt: skip
    book, notes = render_gradebook([GradebookLine("k", who, 1.0, note="=cmd|' /C calc'!A0")],
                                   "HW", 2.0)  # fmt: skip
    row = _rows(book)[2]
    assert row[0] == "x=1"
    assert all(c[:1] not in "=+-@" for c in row[:5]), row
    assert not any(ch in book + notes for ch in "\u202e\x1b")
    note_row = _rows(notes)[1]
    assert all(c[:1] not in "=+-@" for c in note_row), note_row


def test_a_roster_saved_by_excel_in_the_windows_code_page_gets_an_instructors_error(tmp_path):
    """Excel's "CSV (Comma delimited)" writes cp1252: the error says so and how to fix it,
    not a Python codec message."""
    path = tmp_path / "roster.csv"
    path.write_bytes("Student,ID\nMüller, Anna,101\n".encode("cp1252"))
    with pytest.raises(UsageError) as err:
        Roster.load(path)
    text = str(err.value)
    assert "not UTF-8 text (line 2)" in text and "CSV UTF-8" in text and "codec" not in text
    path.write_bytes("\ufeffStudent,ID\nMüller,101\n".encode())  # Canvas's own, with a BOM
    assert Roster.load(path).rows[0].name == "Müller"
