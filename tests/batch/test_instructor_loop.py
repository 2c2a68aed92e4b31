"""The instructor's loop loses nothing (issue 17): overrides recorded in OUT/overrides.toml reach
results.jsonl, the gradebook, the feedback and report.html at once, survive a re-run of
`grader batch` while the answer is unchanged, and bad input changes nothing; `grader render`
rebuilds the outputs without grading.

No grading happens here: the cache journal is seeded with synthetic reports under the real
cache keys, so `run_batch` finds every submission cached.
"""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
import tomllib
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from grader.batch import BatchOptions, run_batch
from grader.batch.cache import Journal, cache_key
from grader.batch.intake import open_intake
from grader.batch.sampleclass import Student, correct_files, write_folder_class
from grader.cli import main
from grader.errors import UsageError
from grader.loading import LoadLimits, load_entries
from grader.report import CriterionResult, GradeReport, WrittenResult
from grader.report import TestResult as Check

from .conftest import FINGERPRINT

IDS = ("C1", "C2", "C3", "C4", "C5")


def report_for(key: str, *, flagged: str = "C2") -> dict:
    """A report with 6/6 test points and C1 met, the rest missing (2/10): C2 needs review."""
    tests = tuple(
        Check(
            id=f"masks.t{i}", part="masks", name=f"t{i}", score=1.0, max_score=1.0, status="passed"
        )
        for i in range(6)
    )
    crit = tuple(
        CriterionResult(
            id=c,
            verdict="met" if c == "C1" else "missing",
            evidence="quoted",
            feedback="fb",
            confidence=0.4,
            needs_review=c == flagged,
        )
        for c in IDS
    )
    written = {
        "explanation": WrittenResult(
            score=2.0,
            max_score=10.0,
            needs_review=True,
            criteria=crit,
            summary="partly",
            review_reasons=(f"{flagged}: unsure",),
        )
    }
    return GradeReport("test", key, tests, written).to_dict()


def seed(class_dir: Path, out: Path) -> None:
    """Record a synthetic report for every submission in `class_dir` under its cache key."""
    with open_intake(class_dir) as intake:
        loaded = list(load_entries([e.load for e in intake.entries], LoadLimits()))
        with Journal(out / ".cache") as journal:
            for entry, res in zip(intake.entries, loaded, strict=True):
                journal.append(cache_key(res.submission, FINGERPRINT), report_for(entry.key))


def students() -> list[Student]:
    return [
        Student(k, k.title(), 100 + i, "correct", correct_files(f"loop-{k}"))
        for i, k in enumerate(("ada", "ben", "cleo"))
    ]


def batch(class_dir: Path, out: Path, **kw) -> object:
    return run_batch(
        BatchOptions(
            input=class_dir, out=out, fingerprint=FINGERPRINT, progress=False, workers=1, **kw
        )
    )


@pytest.fixture
def graded(tmp_path):
    class_dir = write_folder_class(tmp_path / "class", students())
    out = tmp_path / "out"
    seed(class_dir, out)
    result = batch(class_dir, out)
    assert result.graded_now == 0 and result.from_cache == 3
    return class_dir, out


def gradebook(out: Path) -> dict[str, str]:
    rows = list(csv.reader(io.StringIO((out / "gradebook.csv").read_text(encoding="utf-8-sig"))))
    return {r[0]: r[-1] for r in rows[2:]}


def snapshot(out: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(out)): p.read_bytes()
        for p in sorted(out.rglob("*"))
        if p.is_file() and ".cache" not in p.parts
    }


OVERRIDE = """
[ada.C2]
verdict = "met"
note = "The crossword analogy makes the link."
why = "paragraph 2 explains it"

[ada.C3]
verdict = "partial"
"""


def apply(out: Path, tmp_path: Path, text: str = OVERRIDE, *extra: str):
    f = tmp_path / "f.toml"
    f.write_text(text)
    return CliRunner().invoke(
        main, ["review", str(out), "--overrides", str(f), "--apply", "--by", "prof", *extra]
    )


def test_apply_rewrites_every_output_and_records_who_when_why(graded, tmp_path):
    _, out = graded
    assert gradebook(out)["ada"] == "8"
    res = apply(out, tmp_path)
    assert res.exit_code == 0, res.output
    assert "ada C2: missing -> met" in res.output and "ada score: 8 -> 12 / 16" in res.output
    assert gradebook(out) == {"ada": "12", "ben": "8", "cleo": "8"}
    ada = json.loads((out / "results.jsonl").read_text().splitlines()[0])
    assert ada["score"] == 12 and ada["written"]["explanation"]["criteria"][1]["overridden"]
    for fmt in ("md", "html"):
        text = (out / "feedback" / f"ada.{fmt}").read_text()
        assert "The crossword analogy makes the link." in text and "12" in text
    assert ">12 / 16<" in (out / "report.html").read_text()
    record = tomllib.loads((out / "overrides.toml").read_text())
    c2 = record["ada"]["C2"]
    assert (c2["verdict"], c2["by"], c2["why"]) == ("met", "prof", "paragraph 2 explains it")
    assert c2["at"].startswith("20") and len(record["ada"]["answer"]) == 64
    assert record["ada"]["C3"]["why"] == ""  # no why given: recorded as empty, not invented


def test_rerun_keeps_overrides_and_says_so(graded, tmp_path):
    class_dir, out = graded
    assert apply(out, tmp_path).exit_code == 0
    result = batch(class_dir, out)
    assert result.writes.overrides.applied == ["ada"]
    assert "Kept the instructor overrides" in result.writes.overrides.summary()
    assert gradebook(out)["ada"] == "12"


def test_the_runs_summary_line_gives_the_scores_the_outputs_were_written_with(
    graded, tmp_path, monkeypatch
):
    # After an override the run's "Scores: mean ..., median ..." line gave the totals before
    # it (and an upper median), so it disagreed with report.html and the gradebook.
    import grader.batch.runner as runner

    class_dir, out = graded
    assert apply(out, tmp_path).exit_code == 0  # ada 8 -> 12; ben and cleo stay at 8
    real = runner.run_batch
    monkeypatch.setattr(
        runner, "run_batch", lambda opts: real(replace(opts, fingerprint=FINGERPRINT))
    )
    res = CliRunner().invoke(main, ["batch", str(class_dir), "--out", str(out), "-q"])
    assert res.exit_code == 0, res.output
    assert "Scores: mean 9.33, median 8, out of 16." in res.output
    html = (out / "report.html").read_text()
    assert ">9.33<" in html and ">8<" in html


def test_regrade_with_same_answer_keeps_override(graded, tmp_path):
    class_dir, out = graded
    assert apply(out, tmp_path).exit_code == 0
    masks = class_dir / "ada" / "masks.py"
    masks.write_text(masks.read_text() + "\n# fixed a typo\n")  # new code, same answer
    seed(class_dir, out)
    result = batch(class_dir, out)
    assert result.from_cache == 3 and result.writes.overrides.applied == ["ada"]
    assert gradebook(out)["ada"] == "12"


def test_changed_answer_drops_override_and_lists_it_for_review(graded, tmp_path):
    class_dir, out = graded
    assert apply(out, tmp_path).exit_code == 0
    (class_dir / "ada" / "explanation.md").write_text("A wholly new answer.\n")
    seed(class_dir, out)
    result = batch(class_dir, out)
    assert result.writes.overrides.stale == ["ada"] and not result.writes.overrides.applied
    assert gradebook(out)["ada"] == "8"
    assert "listed for review again: ada" in result.writes.overrides.summary()
    listing = CliRunner().invoke(main, ["review", str(out)])
    assert "ada" in listing.output and "reviewed for an earlier answer" in listing.output
    assert "earlier version of this answer" in (out / "report.html").read_text()
    assert "ada" in tomllib.loads((out / "overrides.toml").read_text())  # still on file
    # a new review of the new answer replaces the old entries
    res = apply(out, tmp_path, '[ada.C4]\nverdict = "met"\n')
    assert res.exit_code == 0 and "replaced the entries made for an earlier answer" in res.output
    record = tomllib.loads((out / "overrides.toml").read_text())
    assert set(record["ada"]) >= {"C4"} and "C2" not in record["ada"]
    assert gradebook(out)["ada"] == "10"


@pytest.mark.parametrize(
    "text, message",
    [
        ("[ada.C2\nverdict = 'met'", "not valid TOML"),
        ("[zed.C2]\nverdict = 'met'", "no graded submission"),
        ("[ada.C9]\nverdict = 'met'", "unknown criterion"),
        ("[ada.C2]\nverdict = 'great'", "verdict must be one of"),
    ],
)
def test_bad_overrides_change_nothing(graded, tmp_path, text, message):
    _, out = graded
    before = snapshot(out)
    res = apply(out, tmp_path, text)
    assert res.exit_code == 2 and message in res.output and "Traceback" not in res.output
    assert snapshot(out) == before


def test_broken_record_stops_batch_and_render_before_writing(graded):
    class_dir, out = graded
    (out / "overrides.toml").write_text("[ada.C2]\nverdict = 'nope'\n")
    before = snapshot(out)
    with pytest.raises(UsageError, match="overrides.toml.*verdict must be one of"):
        batch(class_dir, out)
    res = CliRunner().invoke(main, ["render", str(out)])
    assert res.exit_code == 2 and "verdict must be one of" in res.output
    assert snapshot(out) == before


def test_roster_with_duplicate_ids_is_refused_before_writing(graded, tmp_path):
    class_dir, out = graded
    roster = tmp_path / "roster.csv"
    roster.write_text(
        "Student,ID,SIS User ID,SIS Login ID,Section\nAda,1,s1,ada,A\nBen,1,s2,ben,A\n"
    )
    before = snapshot(out)
    with pytest.raises(UsageError, match="two students the Canvas ID '1'"):
        batch(class_dir, out, roster=roster)
    assert snapshot(out) == before


def test_render_rebuilds_everything_without_grading(graded, tmp_path):
    _, out = graded
    assert apply(out, tmp_path).exit_code == 0
    before = snapshot(out)
    for name in ("gradebook.csv", "gradebook_notes.csv", "report.html", "results.jsonl"):
        (out / name).unlink()
    for f in (out / "feedback").iterdir():
        f.unlink()
    code = (
        "import sys; from grader.batch.rerender import render_out; "
        f"r = render_out({str(out)!r}); "
        "assert 'torch' not in sys.modules, 'render imported torch'; print(len(r.written))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert snapshot(out) == before
    res = CliRunner().invoke(main, ["render", str(out)])
    assert res.exit_code == 0 and "0 file(s) changed" in res.output


def test_only_the_graders_own_stale_feedback_is_removed(tmp_path):
    """A student gone from INPUT loses the feedback an earlier run wrote for them, but files
    the grader never wrote in OUT/feedback/ (an index page, the instructor's notes) stay,
    also when the first run writes into a folder that already held them."""
    import shutil

    class_dir = write_folder_class(tmp_path / "class", students())
    out = tmp_path / "out"
    seed(class_dir, out)
    own = {"index.html": "<p>my index</p>", "notes.md": "my notes", "ada-notes.md": "on ada"}
    (out / "feedback").mkdir(parents=True)
    for name, text in own.items():
        (out / "feedback" / name).write_text(text)
    batch(class_dir, out)
    assert (out / "feedback" / "ben.md").is_file()
    shutil.rmtree(class_dir / "ben")
    result = batch(class_dir, out)
    left = {f.name for f in (out / "feedback").iterdir()}
    assert not {"ben.md", "ben.html"} & left and {"ada.md", "cleo.html"} <= left
    assert sorted(Path(f).name for f in result.writes.removed) == ["ben.html", "ben.md"]
    assert {n: (out / "feedback" / n).read_text() for n in own} == own


# ----------------------------------------------------------------------------- late policy


def notes(out: Path) -> list[dict[str, str]]:
    return list(
        csv.DictReader(io.StringIO((out / "gradebook_notes.csv").read_text(encoding="utf-8-sig")))
    )


def late_class(tmp_path: Path):
    """The three students graded from a Canvas zip in which ben's entry is flagged late, with
    a 10% penalty for that; returns (the students, the output folder)."""
    from grader.batch.late import LatePolicy
    from grader.batch.sampleclass import write_canvas_zip

    people = students()
    people[1].late = True
    zpath = write_canvas_zip(tmp_path / "subs.zip", people)
    out = tmp_path / "out"
    seed(zpath, out)
    batch(zpath, out, late=LatePolicy(flagged_pct=10))
    return people, out


def test_canvas_late_flag_costs_the_late_penalty(tmp_path):
    from grader.batch.sampleclass import canvas_login

    people, out = late_class(tmp_path)
    book = gradebook(out)
    assert book == {"ada": "8", "ben": "6.4", "cleo": "8"}, book
    ben = next(r for r in notes(out) if r["Student"] == "ben")
    assert (ben["Score"], ben["Raw score"]) == ("6.4", "8")
    assert ben["Late penalty"].startswith("10% off (1.6 of 16 points): flagged late by Canvas")
    assert canvas_login(people[1]) in ben["Entry"]
    # render without options keeps the policy; with one it replaces it
    assert CliRunner().invoke(main, ["render", str(out)]).exit_code == 0
    assert gradebook(out)["ben"] == "6.4"
    res = CliRunner().invoke(main, ["render", str(out), "--late-penalty", "50"])
    assert res.exit_code == 0 and gradebook(out)["ben"] == "0"


def test_late_feedback_shows_the_gradebook_score_the_raw_score_and_the_penalty(tmp_path):
    # the student reads the score that goes in the gradebook, not the raw one, and why
    _, out = late_class(tmp_path)
    assert gradebook(out)["ben"] == "6.4"
    pages = {f.name: f.read_text() for f in (out / "feedback").iterdir()}
    late = sorted(n for n, text in pages.items() if "Late penalty" in text)
    assert [n.rsplit(".", 1)[1] for n in late] == ["html", "md"], sorted(pages)
    for name in late:
        text = pages[name]
        assert "Score: 6.4 / 16 (40%)" in text and "Score: 8 / 16" not in text, text[:400]
        assert "10% off (1.6 of 16 points): flagged late by Canvas" in text
        assert "Score before it: 8 / 16" in text
    on_time = [t for n, t in pages.items() if n not in late]
    assert len(on_time) == 4 and all("Score: 8 / 16 (50%)" in t for t in on_time)
    # `grader render` with another policy rewrites the feedback too
    assert CliRunner().invoke(main, ["render", str(out), "--late-penalty", "50"]).exit_code == 0
    again = (out / "feedback" / late[1]).read_text()
    assert "Score: 0 / 16 (0%)" in again and "50% off (8 of 16 points)" in again


def test_the_class_report_lists_the_gradebook_score_of_a_late_student(tmp_path):
    # the students table agrees with gradebook.csv; the charts keep the graded totals and say so
    _, out = late_class(tmp_path)
    html = (out / "report.html").read_text()
    table = html[html.index('<h2 id="students">') :]
    ben = table[table.index("ben") :].split("</tr>", 1)[0]
    assert "LATE" in ben
    assert "6.4 / 16" in ben and "40%" in ben and "(graded 8;" in ben, ben
    assert "10% off (1.6 of 16 points): flagged late by Canvas" in ben
    assert table.count("8 / 16</td>") == 2  # ada and cleo, on time: no note
    assert "1 student had a late penalty" in html


def test_a_late_notebook_shows_the_gradebook_score_in_its_feedback_cell():
    from grader.batch.late import Penalty
    from grader.batch.sampleclass import notebook_bytes
    from grader.render.ipynb import feedback_notebook

    report = GradeReport.from_dict(report_for("nb"))
    notebook = notebook_bytes(correct_files("nb")).decode()
    pen = Penalty(25.0, 4.0, "flagged late by Canvas")
    top = json.loads(feedback_notebook(notebook, report, adjustment=pen.adjustment(8, 16)))
    first = "".join(
        next(c for c in top["cells"] if "Grader feedback for" in "".join(c["source"]))["source"]
    )
    assert "4 / 16 points" in first and "25% off (4 of 16 points): flagged late by Canvas" in first
    assert "Score before it: 8 / 16" in first


def test_gradescope_timestamps_cost_per_day_up_to_the_cap(tmp_path):
    from grader.batch.late import LatePolicy, parse_time
    from grader.batch.sampleclass import write_gradescope_export

    root = write_gradescope_export(tmp_path / "gs", students(), as_zip=False)
    meta = root / "assignment_export" / "submission_metadata.yml"
    stamps = [
        "2024-03-01 12:00:00.000000000 -08:00",
        "2024-03-02 11:00:00.123 -08:00",
        "2024-03-05 09:00:00.000000000 -08:00",
    ]
    parts = meta.read_text().split("2024-03-01 12:00:00.000000000 -08:00")
    assert len(parts) == 4
    meta.write_text("".join(p + s for p, s in zip(parts, stamps, strict=False)) + parts[-1])
    out = tmp_path / "out"
    seed(root, out)
    policy = LatePolicy(due=parse_time("2024-03-01T12:00-08:00"), per_day_pct=10, cap_pct=25)
    batch(root, out, late=policy)
    book = gradebook(out)
    # on time (exactly at the due date); 23 h late = 1 day (-10%); 4 days late, capped at 25%
    assert book == {"Ada": "8", "Ben": "6.4", "Cleo": "4"}, book
    cleo = next(r for r in notes(out) if r["Student"] == "Cleo")
    assert cleo["Raw score"] == "8" and "4 day(s) after the due date" in cleo["Late penalty"]


def test_a_late_resubmission_is_late_whatever_its_history_says(tmp_path):
    # Gradescope lists a submission's earlier attempts under `:history:`, each with its own
    # `:created_at:`. The first created_at under the folder was taken, so a resubmission whose
    # history came first in the file got its on-time first attempt's time: no penalty.
    from grader.batch.late import LatePolicy, parse_time
    from grader.batch.sampleclass import write_gradescope_export

    root = write_gradescope_export(tmp_path / "gs", students(), as_zip=False)
    meta = root / "assignment_export" / "submission_metadata.yml"
    own = "  :created_at: 2024-03-01 12:00:00.000000000 -08:00\n"
    history = (
        "  :history:\n  - :id: 1\n    :created_at: 2024-02-28 09:00:00.000000000 -08:00\n"
        "    :score: 8.0\n"
    )
    late = "  :created_at: 2024-03-03 13:00:00.000000000 -08:00\n"
    text = meta.read_text()
    assert text.count(own) == 3
    meta.write_text(text.replace("  :history: []\n", "").replace(own, history + late))
    out = tmp_path / "out"
    seed(root, out)
    batch(root, out, late=LatePolicy(due=parse_time("2024-03-01T12:00-08:00"), per_day_pct=10))
    # 2 days and 1 h late: 3 started days, 30% off 16 points
    assert gradebook(out) == {"Ada": "3.2", "Ben": "3.2", "Cleo": "3.2"}


def test_late_options_are_checked(tmp_path):
    res = CliRunner().invoke(
        main, ["batch", str(tmp_path), "--out", str(tmp_path / "o"), "--late-penalty-per-day", "10"]
    )
    assert res.exit_code == 2 and "--due and --late-penalty-per-day go together" in res.output
    res = CliRunner().invoke(
        main,
        [
            "batch",
            str(tmp_path),
            "--out",
            str(tmp_path / "o"),
            "--due",
            "soon",
            "--late-penalty-per-day",
            "10",
        ],
    )
    assert res.exit_code == 2 and "is not a date and time" in res.output


# ----------------------------------------------------------------------------- roster


def test_roster_matches_folder_names_by_login_email_or_sis_id(tmp_path):
    people = [
        Student(k, k, 100 + i, "correct", correct_files(f"ro-{i}"))
        for i, k in enumerate(("jdoe@uni.edu", "s2024001", "aking", "stranger"))
    ]
    class_dir = write_folder_class(tmp_path / "class", people)
    out = tmp_path / "out"
    seed(class_dir, out)
    roster = tmp_path / "roster.csv"
    roster.write_text(
        "Student,ID,SIS User ID,SIS Login ID,Section\n"
        '"Doe, Jane",501,s2023999,jdoe@uni.edu,A\n'
        '"Ng, Bo",502,s2024001,bng,A\n'
        '"King, Al",503,s2024002,aking,B\n'
    )
    batch(class_dir, out, roster=roster)
    rows = list(csv.reader(io.StringIO((out / "gradebook.csv").read_text(encoding="utf-8-sig"))))[
        2:
    ]
    ids = {r[0]: r[1] for r in rows}
    assert ids == {"Doe, Jane": "501", "Ng, Bo": "502", "King, Al": "503", "stranger": ""}
    text = (out / "gradebook_notes.csv").read_text(encoding="utf-8-sig")
    assert "not found in the --roster" in text and "pass --roster" not in text


def test_rerun_without_the_options_keeps_assignment_roster_and_late_policy(tmp_path):
    """`grader batch` run again without --assignment, --roster or a late policy (fixing one
    student's file, say) keeps what the last run used, as `grader render` does: otherwise the
    Canvas column, the Canvas ids and the penalties would silently vanish from the gradebook."""
    from grader.batch.late import LatePolicy

    people = [Student("ann", "ann", 100, "correct", correct_files("keep-0"))]
    class_dir = write_folder_class(tmp_path / "class", people)
    out = tmp_path / "out"
    seed(class_dir, out)
    roster = tmp_path / "roster.csv"
    roster.write_text("Student,ID,SIS User ID,SIS Login ID,Section\nann,501,s1,ann,A\n")
    late = LatePolicy.from_options(10, None, None, None)
    batch(class_dir, out, assignment="Unit 3 (1234)", roster=roster, late=late)
    first = (out / "gradebook.csv").read_text(encoding="utf-8-sig")
    assert "Unit 3 (1234)" in first and ",501," in first

    again = batch(class_dir, out)
    assert (out / "gradebook.csv").read_text(encoding="utf-8-sig") == first
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["assignment"] == "Unit 3 (1234)" and manifest["late_policy"]
    assert any("Unit 3 (1234)" in r for r in again.reused)

    batch(class_dir, out, assignment="Unit 3 v2 (1235)", no_roster=True)
    rows = list(csv.reader(io.StringIO((out / "gradebook.csv").read_text(encoding="utf-8-sig"))))
    assert rows[0][-1] == "Unit 3 v2 (1235)" and rows[2][1] == ""
    roster.unlink()
    batch(class_dir, out)  # no roster recorded any more: nothing to miss
    batch(class_dir, out, roster=None, assignment="x")
