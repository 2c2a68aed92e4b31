"""A student listed by more than one submission gets no score; every such student is listed
with all their submissions in gradebook_notes.csv, the class report, the manifest and the
batch's summary. Their group partners are graded as usual."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from grader.batch.duplicates import find_duplicates, same_students
from grader.batch.gradebook import Roster
from grader.batch.intake import Identity
from grader.batch.outputs import EntryOutcome, write_outputs
from grader.batch.sampleclass import Student, correct_files, gradescope_metadata

from .conftest import FINGERPRINT, make_report
from .test_class_report import validate


def _groups(people: list[Identity]) -> list[list[int]]:
    return [g for g in same_students(people) if len(g) > 1]


def test_the_same_student_is_found_by_any_id_or_by_name_when_no_id_tells_them_apart():
    people = [
        Identity(name="Jane Doe", sis_user_id="0042"),
        Identity(name="J. Doe", sis_user_id="0042"),  # same SID, other spelling
        Identity(name="Doe, Jane"),  # no id at all: the name decides
        Identity(name="Jane Doe", email="jd@uni.edu"),  # an SID would tell her from the others
        Identity(name="Max Mu", email="Max@Uni.edu"),
        Identity(name="Maximilian Mu", sis_login_id="max@uni.edu"),  # login = e-mail
        Identity(name="Kim Lee", canvas_id="7"),
        Identity(name="Kim Lee", canvas_id="8"),  # two Canvas users with one name
        Identity(name="Ola Ek", sis_user_id="9"),
        Identity(name="Ola Ek", email="ola@uni.edu"),  # different kinds of id: name decides
    ]
    assert _groups(people) == [[0, 1, 2, 3], [4, 5], [8, 9]]
    # an id-less Jane Doe beside two Jane Does whom their SIDs tell apart: she could be either
    two = [
        Identity(name="Jane Doe", sis_user_id="1"),
        Identity(name="Jane Doe", sis_user_id="2"),
        Identity(name="Doe, Jane"),
    ]
    assert _groups(two) == []
    # three id-less spellings of one folder name are one student
    assert _groups([Identity(name=n) for n in ("jane doe", "Jane_Doe", "Doe, Jane")]) == [[0, 1, 2]]


def test_a_student_listed_twice_by_one_entry_is_a_repeat_not_a_duplicate():
    ann = Identity(name="Ann", sis_user_id="1")
    found = find_duplicates(
        [
            ("g1", "Ann & Ann", ann),
            ("g1", "Ann & Ann", ann),
            ("g2", "Bob", Identity(name="Bob", sis_user_id="2")),
        ]
    )
    assert found.by_position == {} and found.repeats == {1}


def _outcome(key: str, members: list[Identity], score: str | None) -> EntryOutcome:
    display = " & ".join(m.name for m in members)
    if score is None:
        return EntryOutcome(
            key, display, key, members, False, "unreadable", message="no exercise files"
        )
    return EntryOutcome(
        key, display, key, members, False, "graded", report=make_report(key, score_pattern=score)
    )


def test_outputs_withhold_the_score_of_a_student_in_two_submissions(tmp_path):
    ann = Identity(name="Ann Ek", sis_user_id="11", email="ann@uni.edu")
    bob = Identity(name="Bob Ek", sis_user_id="12", email="bob@uni.edu")
    cid = Identity(name="Cid Ek", sis_user_id="13", email="cid@uni.edu")
    dee = Identity(name="Dee Ek", sis_user_id="14", email="dee@uni.edu")
    outcomes = [
        _outcome("Ann_1", [ann, bob], "pppp"),  # Ann added Bob as a group member ...
        _outcome("Bob_2", [Identity(name="Robert Ek", sis_user_id="12")], "pfff"),  # ... he too
        _outcome("Cid_3", [cid, dee], "ppff"),
        _outcome("Dee_4", [Identity(name="Dee Ek", email="DEE@uni.edu")], None),  # unreadable
        _outcome("Eve_5", [Identity(name="Eve Ek", sis_user_id="15")], "pppf"),
    ]
    result = write_outputs(
        tmp_path,
        outcomes,
        layout="gradescope",
        input_path="x",
        assignment="Unit 3",
        roster=None,
        fingerprint=FINGERPRINT,
        version="test",
    )
    assert not result.errors
    book = list(
        csv.reader(io.StringIO((tmp_path / "gradebook.csv").read_text(encoding="utf-8-sig")))
    )
    assert {row[0]: row[-1] for row in book[2:]} == {
        "Ann Ek": "8",
        "Cid Ek": "6",
        "Eve Ek": "7",
    }  # tests + 4 written
    notes = list(
        csv.DictReader(
            io.StringIO((tmp_path / "gradebook_notes.csv").read_text(encoding="utf-8-sig"))
        )
    )
    dup = [n for n in notes if "submissions:" in n["Note"]]
    assert sorted((n["Student"], n["Entry"], n["Score"]) for n in dup) == [
        ("Bob Ek", "Ann_1", "8"),
        ("Dee Ek", "Cid_3", "6"),
        ("Dee Ek", "Dee_4", ""),
        ("Robert Ek", "Bob_2", "5"),
    ]
    assert all(
        "Ann_1 (Ann Ek & Bob Ek), Bob_2 (Robert Ek)" in n["Note"]
        for n in dup
        if n["Entry"] in ("Ann_1", "Bob_2") and n["Student"] != "Ann Ek"
    )
    assert [d.label() for d in result.duplicates] == ["Bob Ek (SID 12)", "Dee Ek (SID 14)"]
    html = (tmp_path / "report.html").read_text()
    validate(html)
    assert 'id="duplicates"' in html and "Bob Ek (SID 12)" in html and "Bob_2" in html
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert [[e["key"] for e in d["entries"]] for d in manifest["duplicates"]] == [
        ["Ann_1", "Bob_2"],
        ["Cid_3", "Dee_4"],
    ]


def test_roster_ids_find_a_duplicate_the_export_alone_would_miss(tmp_path):
    """Matching runs on the identities as the gradebook writes them: a roster that maps two
    spellings to one Canvas student makes them one student."""
    roster_csv = tmp_path / "roster.csv"
    roster_csv.write_text(
        'Student,ID,SIS User ID,SIS Login ID,Section\n"Ek, Ann",501,11,ann@uni.edu,A\n'
    )
    outcomes = [
        _outcome("a1", [Identity(name="Ann Ek", email="ann@uni.edu")], "pp"),
        _outcome("a2", [Identity(name="Annie Ek", sis_user_id="11")], "pf"),
    ]
    result = write_outputs(
        tmp_path / "out",
        outcomes,
        layout="gradescope",
        input_path="x",
        assignment="Unit 3",
        roster=Roster.load(roster_csv),
        fingerprint=FINGERPRINT,
        version="test",
    )
    assert [d.entries for d in result.duplicates] == [(("a1", "Ann Ek"), ("a2", "Annie Ek"))]
    book = (tmp_path / "out" / "gradebook.csv").read_text(encoding="utf-8-sig").splitlines()
    assert len(book) == 2  # header and points only


def test_batch_of_a_gradescope_export_with_a_student_in_two_groups(tmp_path):
    """End to end: the intake reads the groups, the grader grades every submission, and the
    summary names the student and both submissions."""
    from click.testing import CliRunner

    from grader.cli import main

    files = correct_files("dup")
    ada, ben, cleo = (
        Student(k, f"{k.title()} Ng", uid, "correct", files)
        for k, uid in (("ada", 201), ("ben", 202), ("cleo", 203))
    )
    groups = {"submission_1": [ada, ben], "submission_2": [ben], "submission_3": [cleo]}
    root = tmp_path / "export"
    for folder in groups:
        for name, data in files.items():
            (root / folder / name).parent.mkdir(parents=True, exist_ok=True)
            (root / folder / name).write_bytes(data)
    (root / "submission_metadata.yml").write_text(gradescope_metadata([ada, ben, cleo], groups))
    out = tmp_path / "out"
    res = CliRunner().invoke(
        main,
        [
            "batch",
            str(root),
            "--out",
            str(out),
            "-j",
            "1",
            "--no-written",
            "--call-timeout",
            "3",
            "-q",
        ],
    )
    assert res.exit_code == 0, res.output
    assert (
        "in 2 submissions, so no score in gradebook.csv: Ben Ng (SID 202): "
        "Ada_Ng_1 (Ada Ng & Ben Ng), Ben_Ng_2 (Ben Ng)"
    ) in res.output
    book = list(csv.reader(io.StringIO((out / "gradebook.csv").read_text(encoding="utf-8-sig"))))
    assert [row[0] for row in book[2:]] == ["Ada Ng", "Cleo Ng"]
    assert all(row[-1] == book[2][-1] for row in book[2:]) and book[2][-1] != ""
    notes = (out / "gradebook_notes.csv").read_text(encoding="utf-8-sig")
    assert notes.count("this student is in 2 submissions") == 2
    assert Path(out / "report.html").read_text().count("Ben_Ng_2") >= 2
