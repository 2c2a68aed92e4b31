"""`grader batch` end to end on a small Canvas class: outputs, identical reports to
single-submission grading, incremental re-runs, resume after kill -9, worker death, --force.

These tests grade for real (sandbox, hidden suite), so the classes are small.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path

import pytest

from grader.batch import BatchOptions, run_batch
from grader.batch.intake import open_intake
from grader.batch.pool import GradingPool, Job
from grader.batch.sampleclass import (
    Student,
    buggy_files,
    correct_files,
    hostile_files,
    write_canvas_zip,
    write_folder_class,
)
from grader.loading import load_submission
from grader.pipeline import Grader
from grader.report import validate_report_dict

from .conftest import FINGERPRINT
from .test_class_report import validate

REPO = Path(__file__).resolve().parents[2]


def _class() -> list[Student]:
    return [
        Student("ada", "Ada Ng", 101, "correct", correct_files("e2e-ada"), form="folder"),
        Student("ben", "Ben Ng", 102, "buggy", buggy_files("e2e-ben", 0), form="zip", late=True),
        Student("cleo", "Cleo Ng", 103, "correct", correct_files("e2e-cleo"), form="notebook"),
        Student("eve", "Eve Ng", 104, "hostile", hostile_files("e2e-eve", 0), form="folder"),
    ]


def _opts(input_path: Path, out: Path, options, **kw) -> BatchOptions:
    return BatchOptions(
        input=input_path,
        out=out,
        grade_options=options,
        workers=2,
        fingerprint=FINGERPRINT,
        progress=False,
        **kw,
    )


def _snapshot(out: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(out)): p.read_bytes()
        for p in sorted(out.rglob("*"))
        if p.is_file() and ".cache" not in p.parts
    }


@pytest.fixture(scope="module")
def canvas_run(tmp_path_factory, fast_options):
    root = tmp_path_factory.mktemp("canvas")
    zpath = write_canvas_zip(root / "submissions.zip", _class())
    with zipfile.ZipFile(zpath, "a") as zf:
        zf.writestr("zed_LATE_105_9_submission.zip", b"PK\x03\x04 corrupt")
        zf.writestr("notes.txt", b"not a submission")
    out = root / "out"
    result = run_batch(_opts(zpath, out, fast_options, assignment="Unit 3 autograder (1234)"))
    return zpath, out, result


def test_every_csv_opens_in_excel_and_imports_in_canvas(canvas_run):
    """Excel reads a CSV without a UTF-8 byte-order mark in the ANSI code page (`Müller` ->
    `MÃ¼ller`); Canvas's importer finds its header with `row[0].include?("Student")`, which a
    leading mark does not disturb (lib/gradebook_importer.rb)."""
    _, out, _ = canvas_run
    for name in ("gradebook.csv", "gradebook_notes.csv", "similarity.csv"):
        data = (out / name).read_bytes()
        assert data.startswith(b"\xef\xbb\xbf") and not data[3:].startswith(b"\xef\xbb\xbf")
    first = (out / "gradebook.csv").read_bytes().decode("utf-8").split(",")
    assert "Student" in first[0] and "ID" in first[1]  # Canvas's own header test, BOM kept


def test_outputs(canvas_run):
    _, out, result = canvas_run
    assert result.layout == "canvas" and result.graded_now == 4 and not result.internal_errors
    keys = ["ngada_101", "ngben_102", "ngcleo_103", "ngeve_104"]
    lines = (out / "results.jsonl").read_text().splitlines()
    assert [json.loads(line)["submission"] for line in lines] == keys
    for line in lines:
        validate_report_dict(json.loads(line))
    reports = {json.loads(line)["submission"]: json.loads(line) for line in lines}
    ada = reports["ngada_101"]  # flat Canvas files carry no drill/ (that takes a .zip)
    assert ada["parts"]["drill"] == {"score": 0.0, "max_score": 20.0}
    assert ada["score"] == ada["max_score"] - 20.0
    assert reports["ngben_102"]["score"] < reports["ngben_102"]["max_score"]
    assert reports["ngeve_104"]["score"] < reports["ngeve_104"]["max_score"]  # sys.exit costs
    cleo = reports["ngcleo_103"]  # handed in as a notebook
    assert cleo["written"]["explanation"]["score"] > 0
    assert all(t["status"] == "passed" for t in cleo["tests"] if t["part"] != "drill")
    book = (out / "gradebook.csv").read_text(encoding="utf-8-sig").splitlines()
    assert book[0] == "Student,ID,SIS User ID,SIS Login ID,Section,Unit 3 autograder (1234)"
    assert book[1].startswith("Points Possible,,,,,")
    assert sorted(row.split(",")[1] for row in book[2:]) == ["101", "102", "103", "104"]
    notes = (out / "gradebook_notes.csv").read_text(encoding="utf-8-sig")
    assert "ngzed" not in book and "not graded (unreadable)" in notes and "late" in notes
    for key in keys:
        assert (out / "feedback" / f"{key}.md").read_text().strip()
        validate((out / "feedback" / f"{key}.html").read_text())
    html = (out / "report.html").read_text()
    validate(html)
    assert "zed_LATE_105_9_submission.zip" in html and "notes.txt" in html
    manifest = json.loads((out / "manifest.json").read_text())
    assert {e["status"] for e in manifest["entries"]} == {"graded", "unreadable"}


def test_pool_and_single_submission_reports_are_identical(canvas_run, fast_options):
    zpath, out, _ = canvas_run
    pooled = {
        json.loads(line)["submission"]: json.loads(line)
        for line in (out / "results.jsonl").read_text().splitlines()
    }
    with open_intake(zpath) as intake:
        subs = {e.key: e.load() for e in intake.entries if e.key in ("ngben_102", "ngcleo_103")}
    with Grader(fast_options) as grader:
        for key, sub in subs.items():
            assert grader.grade(sub).to_dict() == pooled[key]


def test_rerun_grades_nothing_and_rewrites_nothing(canvas_run, fast_options):
    zpath, out, _ = canvas_run
    before = _snapshot(out)
    again = run_batch(_opts(zpath, out, fast_options, assignment="Unit 3 autograder (1234)"))
    assert again.graded_now == 0 and again.from_cache == 4
    assert again.writes.written == [] and _snapshot(out) == before


def test_one_changed_student_is_regraded(tmp_path, fast_options):
    students = _class()[:2]
    root = write_folder_class(tmp_path / "class", students)
    out = tmp_path / "out"
    first = run_batch(_opts(root, out, fast_options))
    assert first.graded_now == 2
    ada_report = (out / "feedback" / "ada.md").read_text()
    (root / "ada" / "losses.py").write_bytes(buggy_files("fixed?", 0)["losses.py"])
    second = run_batch(_opts(root, out, fast_options))
    assert second.graded_now == 1 and second.from_cache == 1
    assert (out / "feedback" / "ada.md").read_text() != ada_report
    forced = run_batch(_opts(root, out, fast_options, force=True))
    assert forced.graded_now == 2
    lines = (out / "results.jsonl").read_text().splitlines()
    assert len(lines) == 2 and len({json.loads(x)["submission"] for x in lines}) == 2


def test_identical_submissions_are_graded_once(tmp_path, fast_options):
    same = correct_files("twin")
    students = [
        Student("twin_a", "A", 1, "correct", same),
        Student("twin_b", "B", 2, "correct", same),
    ]
    out = tmp_path / "out"
    result = run_batch(_opts(write_folder_class(tmp_path / "c", students), out, fast_options))
    assert result.graded_now == 1 and len(result.graded) == 2
    subs = [json.loads(x)["submission"] for x in (out / "results.jsonl").read_text().splitlines()]
    assert subs == ["twin_a", "twin_b"]


RESUME_SCRIPT = """
import sys
from pathlib import Path
from grader.batch import BatchOptions, run_batch
from grader.pipeline import GradeOptions
from grader.sandbox.limits import SandboxLimits
opts = GradeOptions(limits=SandboxLimits(call_timeout=3.0, submission_timeout=30.0))
run_batch(BatchOptions(input=Path(sys.argv[1]), out=Path(sys.argv[2]), grade_options=opts,
                       workers=1, fingerprint=sys.argv[3], progress=False))
"""


def test_resume_after_kill_9(tmp_path, fast_options):
    students = [
        Student(f"s{i}", f"S {i}", i, "correct", correct_files(f"kill-{i}")) for i in range(6)
    ]
    root = write_folder_class(tmp_path / "class", students)
    out = tmp_path / "out"
    journal = out / ".cache" / "journal.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-c", RESUME_SCRIPT, str(root), str(out), FINGERPRINT],
        cwd=REPO,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            if journal.exists() and journal.read_text().count("\n") >= 2:
                break
            time.sleep(0.05)
        assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
        os.kill(proc.pid, signal.SIGKILL)  # the batch process only: its workers must follow
        proc.wait()
        gone = time.monotonic() + 10
        while time.monotonic() < gone and _group_alive(proc.pid):
            time.sleep(0.05)
        assert not _group_alive(proc.pid), "workers or sandboxes outlived the killed batch"
    finally:
        if _group_alive(proc.pid):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        proc.stderr.close()
    done_before = journal.read_text().count("\n")
    assert 2 <= done_before < 6
    with open(journal, "a") as f:
        f.write('{"key": "torn')  # a write cut by the kill
    resumed = run_batch(_opts(root, out, fast_options))
    assert resumed.graded_now == 6 - done_before and resumed.from_cache == done_before
    lines = (out / "results.jsonl").read_text().splitlines()
    assert sorted(json.loads(x)["submission"] for x in lines) == [f"s{i}" for i in range(6)]
    keys = [json.loads(x)["key"] for x in journal.read_text().splitlines()]
    assert len(keys) == len(set(keys)) == 6


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_dying_worker_is_replaced_and_its_submission_retried(fast_options):
    subs = [load_submission(REPO / "solutions", name=f"w{i}") for i in range(3)]
    done = []
    with GradingPool(fast_options, 1) as pool:

        def on_done(d):
            done.append(d)
            if len(done) == 1:  # kill the worker while it grades the second submission
                victim = pool.worker_pids()[0]
                threading.Timer(0.15, os.kill, (victim, signal.SIGKILL)).start()

        pool.run([Job(f"k{i}", s) for i, s in enumerate(subs)], on_done)
        assert pool.restarts == 1
    assert sorted(d.key for d in done) == ["k0", "k1", "k2"]
    assert all(d.report is not None and d.error is None for d in done)


def test_cli(tmp_path):
    from click.testing import CliRunner

    from grader.cli import main

    root = write_folder_class(tmp_path / "class", _class()[:1])
    out = tmp_path / "out"
    res = CliRunner().invoke(
        main,
        ["batch", str(root), "--out", str(out), "-j", "1", "--no-written", "--call-timeout", "3"],
    )
    assert res.exit_code == 0, res.output
    assert "Graded 1 of 1 entry (folders): 1 now" in res.output
    assert "[1/1] ada:" in res.output  # plain progress lines when not on a terminal
    res = CliRunner().invoke(main, ["batch", str(tmp_path / "nope"), "--out", str(out)])
    assert res.exit_code == 2 and "does not exist" in res.output
