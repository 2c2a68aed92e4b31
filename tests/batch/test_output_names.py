"""Two entries of a class never write the same output file.

Keys may hold dots, and a batch writes feedback/<key>.html for every student and
feedback/<key>.notebook.html for a notebook student: a student who named their upload
`alice.notebook.zip` got the key `alice.notebook`, whose report page was the very file of
alice's notebook page, so one of the two overwrote the other (and the class report linked
the other student's notebook, code included, as that student's feedback)."""

from __future__ import annotations

import json
from pathlib import Path

from grader.batch.intake import open_intake
from grader.batch.intake_records import ENTRY_SUFFIXES
from grader.batch.outputs import EntryOutcome, write_outputs
from grader.batch.sampleclass import Student, correct_files, write_folder_class

from .conftest import make_report


def _class(tmp_path: Path) -> Path:
    people = [
        Student("alice", "Alice", 1, "correct", correct_files("alice-own"), form="notebook"),
        Student("alice.notebook", "Mallory", 2, "correct", correct_files("mal"), form="zip"),
        Student("Alice.Notebook.ipynb", "Mal2", 3, "correct", correct_files("m2")),
    ]
    return write_folder_class(tmp_path / "class", people)


def _mark(display: str) -> str:
    return f"EVIDENCE-{sum(map(ord, display))}-X"


def _outcomes(class_dir: Path) -> list[EntryOutcome]:
    with open_intake(class_dir) as intake:
        out = []
        for e in intake.entries:
            sub = e.load()
            out.append(
                EntryOutcome(
                    key=e.key,
                    display=e.display,
                    source=e.source,
                    members=e.members,
                    late=False,
                    status="graded",
                    report=make_report(e.key, evidence=_mark(e.display)),
                    notebook=sub.notebook,
                )
            )
    return out


def test_keys_never_name_the_same_output_file(tmp_path):
    outcomes = _outcomes(_class(tmp_path))
    assert len(outcomes) == 3
    names = [{(o.key + s).lower() for s in ENTRY_SUFFIXES} for o in outcomes]
    assert len({o.key.lower() for o in outcomes}) == 3
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            assert not a & b, sorted(a & b)
    assert [o.key for o in outcomes if o.display == "alice"] == ["alice"]  # first come keeps it


def test_each_students_feedback_is_their_own(tmp_path):
    outcomes = _outcomes(_class(tmp_path))
    out = tmp_path / "out"
    result = write_outputs(
        out, outcomes, layout="folders", input_path="class", assignment="A", roster=None,
        fingerprint="f", version="v",
    )  # fmt: skip
    assert not result.errors, result.errors
    fb = out / "feedback"
    # each entry's report page is its own, and alice's notebook page is hers
    for o in outcomes:
        page = (fb / f"{o.key}.html").read_text(encoding="utf-8")
        assert _mark(o.display) in page, o.key
    notebook_page = (fb / "alice.notebook.html").read_text(encoding="utf-8")
    assert "alice-own" in notebook_page and _mark("alice") in notebook_page
    assert "'mal'" not in notebook_page and _mark("alice.notebook") not in notebook_page
    # every file written for an entry is <key><one of ENTRY_SUFFIXES>, so the check in
    # unique_keys covers every name outputs.py makes
    keys = {o.key.lower() for o in outcomes}
    for f in [*fb.iterdir(), *(out / ".cache" / "notebooks").iterdir()]:
        assert any(f.name.lower() == k + s for k in keys for s in ENTRY_SUFFIXES), f.name
    manifest = json.loads((out / "manifest.json").read_text())
    assert len({e["key"].lower() for e in manifest["entries"]}) == 3
