"""Exercise 3, the drill: the reference earns 20/20; each kind of bad drill loses the right
points with the right message; nothing in the drill touches the other parts.

The sandboxed reruns cost ~1 s each: one end-to-end grade of the reference and one rerun
(`reference_rerun`) are shared by the module; doctored notes and results are checked against
that rerun with the pure `check_drill`. The remaining reruns fail fast (scaffold, crash) or
are stopped by a short limit (the slow one).
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from grader.drill import (
    EXPERIMENT,
    NOTE,
    POINTS,
    RESULTS,
    TOTAL,
    check_drill,
    rerun_drill,
)
from grader.drill.note import numbers, parse_note
from grader.drill.results import ResultsError, parse_results
from grader.pipeline import GradeOptions
from grader.render import render_report
from grader.sandbox.client import SandboxSession
from grader.sandbox.limits import SandboxLimits
from grader.testing import REPO, SOLUTIONS, STUBS, drill_files, reference_submission

OPTIONS = GradeOptions(grade_written=False, limits=SandboxLimits(drill_timeout=30.0))
CODE = ("masks", "corruption", "losses", "generation")


@pytest.fixture(scope="module")
def grader(grader_as):
    with grader_as(OPTIONS) as g:  # the session's warm grader (tests/conftest.py)
        yield g


@pytest.fixture(scope="module")
def reference_report(grader):
    return grader.grade(reference_submission("ref", drill=True))


@pytest.fixture(scope="module")
def files() -> dict[str, str]:
    return {k: v.decode() for k, v in drill_files(SOLUTIONS).items()}


@pytest.fixture(scope="module")
def reference_rerun(grader, files):
    sub = reference_submission("ref")
    with SandboxSession(grader.zygote, sub.sources, OPTIONS.limits) as session:
        return rerun_drill(files, session)


def _drill(report_or_tests) -> dict[str, object]:
    tests = getattr(report_or_tests, "tests", report_or_tests)
    return {t.id: t for t in tests if t.part == "drill"}


def _lost(tests) -> dict[str, str]:
    """id -> message of every drill check that did not pass."""
    return {tid: t.message for tid, t in _drill(tests).items() if t.status != "passed"}


# ----------------------------------------------------------------------------- reference


def test_reference_drill_gets_full_marks(reference_report):
    r = reference_report
    assert not r.errors, r.errors
    assert r.parts["drill"].score == r.parts["drill"].max_score == TOTAL == 20
    assert _lost(r) == {}
    for p in CODE:
        assert r.parts[p].score == r.parts[p].max_score


def test_the_rerun_reproduces_the_reference_results(reference_rerun, files):
    assert reference_rerun.status == "passed", reference_rerun.message
    assert reference_rerun.origin == "note"
    assert reference_rerun.command == "python drill/experiment.py --seed 0"
    submitted = json.loads(files[RESULTS])
    assert submitted["runs"]["failure"]["max_prefix_gap"] > 0.1
    assert _lost(check_drill(files, reference_rerun)) == {}


# ----------------------------------------------------------------------------- doctored


def test_doctored_number_in_the_notes_table_loses_the_table_points(files, reference_rerun):
    note = files[NOTE].replace("| failure | 0.001375 |", "| failure | 0.0005 |")
    assert note != files[NOTE]
    lost = _lost(check_drill({**files, NOTE: note}, reference_rerun))
    assert list(lost) == ["drill.note_numbers[table]"]
    msg = lost["drill.note_numbers[table]"]
    assert "failure, final loss: you wrote 0.0005, the rerun gives 0.001375" in msg
    assert '"| failure | 0.0005 |' in msg  # the student's own row is quoted


def test_doctored_number_in_the_notes_text_loses_the_prose_point(files, reference_rerun):
    note = files[NOTE].replace("has\na gap of 10.06", "has\na gap of 12.5")
    assert note != files[NOTE]
    lost = _lost(check_drill({**files, NOTE: note}, reference_rerun))
    assert list(lost) == ["drill.note_numbers[prose]"]
    assert (
        '12.5 in "a gap of 12.5 and a continuation accuracy of 0.1429'
        in lost["drill.note_numbers[prose]"]
    )


def test_doctored_results_json_is_not_reproduced(files, reference_rerun):
    data = json.loads(files[RESULTS])
    data["runs"]["failure"]["final_loss"] = 0.0005
    doctored = {**files, RESULTS: json.dumps(data)}
    lost = _lost(check_drill(doctored, reference_rerun))
    assert list(lost) == ["drill.reproduced"]
    assert "runs.failure.final_loss: yours 0.0005, the rerun 0.001375" in lost["drill.reproduced"]


def test_rounding_within_the_written_digits_is_accepted(files, reference_rerun):
    note = files[NOTE].replace("| causal | 0.06596 |", "| causal | 0.066 |")
    assert _lost(check_drill({**files, NOTE: note}, reference_rerun)) == {}
    q = numbers("loss 0.0660, gap 3.58e-06, 86%")
    assert [round(x.value, 8) for x in q] == [0.066, 3.58e-06, 0.86]
    assert q[0].matches(0.06596, 0.0, 0.0) and not q[0].matches(0.0667, 0.0, 0.0)


def test_a_number_written_with_no_significant_digit_matches_nothing_it_does_not_say(
    files, reference_rerun
):
    """A canned note that quotes no measurement: every number '0e2' (0, 'to the digits
    written' +-50, so any loss, gap or accuracy). It earned the table's 3 points whatever the
    rerun gave (and the prose point, which a 0 still earns: dropout 0.0 is in results.json).
    A number never matches more loosely than an integer does (+-0.5)."""
    note = re.sub(r"\b\d+\.\d+(?:e-?\d+)?\b", "0e2", files[NOTE])
    assert "10.06" not in note and "| failure | 0e2 | 0e2 | 0e2 | 0e2 |" in note
    lost = _lost(check_drill({**files, NOTE: note}, reference_rerun))
    assert "drill.note_numbers[table]" in lost
    assert "you wrote 0e2, the rerun gives" in lost["drill.note_numbers[table]"]
    q = numbers("0e2, 0.0e1, 1e2 steps, 2.5e-1")
    assert [x.resolution for x in q] == pytest.approx([0.5, 0.5, 0.5, 0.005])
    assert q[2].matches(100.0, 0.0, 0.0) and not q[0].matches(10.06, 0.0, 0.0)


# ----------------------------------------------------------------------------- note sections


def test_missing_note_section_loses_that_sections_points(files, reference_rerun):
    text = files[NOTE]
    start = text.index("## Limitation")
    note = text[:start] + text[text.index("## Reproduction command") :]
    lost = _lost(check_drill({**files, NOTE: note}, reference_rerun))
    assert list(lost) == ["drill.note_section[limitation]"]
    assert "no '## Limitation' section" in lost["drill.note_section[limitation]"]


def test_a_claim_without_a_measurement_is_quoted_back(files, reference_rerun):
    text = files[NOTE]
    start = text.index("## Accepted claim") + len("## Accepted claim")
    claim = (
        "\n\nThe causal model is simply better at generating text than the other models are.\n\n"
    )
    note = text[:start] + claim + text[text.index("## Rejected alternative") :]
    lost = _lost(check_drill({**files, NOTE: note}, reference_rerun))
    assert list(lost) == ["drill.note_section[accepted_claim]"]
    msg = lost["drill.note_section[accepted_claim]"]
    assert "quotes no measurement" in msg
    assert 'You wrote: "The causal model is simply better' in msg


def test_a_claim_that_quotes_only_settings_earns_no_section_points(files, reference_rerun):
    """Red team (8dbc064): the claim sections need "a number", and the learning rate, the
    masking probability or the dropout are numbers of results.json too (its config), so a
    canned claim quoting only them earned both sections' 3 points and the prose point while
    measuring nothing. A claim must quote a measurement of the rerun; settings may still be
    quoted beside it (the Limitation, the prose)."""
    text = files[NOTE]
    canned = {
        "accepted_claim": "The causal run, trained at lr 0.01 with dropout 0.0, is the one "
        "that generates well, unlike the failure run and the masked run.",
        "rejected_alternative": "A lower training loss means a better generator. This is "
        "rejected: the masked run used mlm_probability 0.15 and lr 0.01 and generates worse.",
    }
    note = text
    for sid, title, nxt in (
        ("accepted_claim", "## Accepted claim", "## Rejected alternative"),
        ("rejected_alternative", "## Rejected alternative", "## Limitation"),
    ):
        start = note.index(title) + len(title)
        note = note[:start] + "\n\n" + canned[sid] + "\n\n" + note[note.index(nxt) :]
    lost = _lost(check_drill({**files, NOTE: note}, reference_rerun))
    assert set(lost) == {
        "drill.note_section[accepted_claim]",
        "drill.note_section[rejected_alternative]",
    }
    assert (
        "(0.01, 0.0) are not measurements of the rerun"
        in lost["drill.note_section[accepted_claim]"]
    )
    # the same claim with one measurement beside the settings keeps its points
    measured = note.replace("generates well,", "generates well (accuracy 1.0, gap 3.576e-06),")
    assert "drill.note_section[accepted_claim]" not in _lost(
        check_drill({**files, NOTE: measured}, reference_rerun)
    )


def test_a_wrong_number_on_a_line_starting_with_a_bar_loses_the_prose_point(files, reference_rerun):
    """Red team (8dbc064): the prose check skipped every line starting with "|" (to leave the
    Measurements table to the table check), so a wrong number in the claim written as "| ...
    |" kept the prose point. Only the Measurements section's table lines are skipped now."""
    note = files[NOTE].replace(
        "## Rejected alternative\n",
        "| and the failure run's gap is really 99.5 |\n\n## Rejected alternative\n",
    )
    assert note != files[NOTE]
    lost = _lost(check_drill({**files, NOTE: note}, reference_rerun))
    assert list(lost) == ["drill.note_numbers[prose]"]
    assert "99.5" in lost["drill.note_numbers[prose]"]


# ----------------------------------------------------------------------------- failing drills


def test_untouched_scaffold_scores_zero_as_not_attempted(grader):
    sub = reference_submission("scaffold", base=STUBS, drill=True)
    assert EXPERIMENT in sub.files and RESULTS not in sub.files
    report = grader.grade(sub)
    drill = _drill(report)
    assert report.parts["drill"].score == 0
    assert {t.status for t in drill.values()} == {"missing"}
    assert "not attempted" in drill["drill.rerun"].message
    assert "drill TODO 1" in drill["drill.rerun"].message
    assert "still raises NotImplementedError (drill TODO 1" in drill["drill.rerun"].message
    # one cause, one line in the report: the checks that need the rerun share its message
    first = drill["drill.rerun"].message.splitlines()[0]
    needs_rerun = [t for t in drill.values() if t.name not in ("rerun", "note_section")]
    assert needs_rerun and all(t.message == first for t in needs_rerun)
    assert drill["drill.note_section[limitation]"].message == (
        "drill/evidence_note.md is still the template: its five sections are empty or missing"
    )
    text = render_report(report, "text")
    assert text.count("experiment.py still raises NotImplementedError") == 1


def test_a_finished_drill_stopped_by_a_code_stub_names_that_stub(grader, files):
    # The student filled in the drill but not mask_tokens: the rerun raises NotImplementedError
    # in corruption.py. The fix is Task 2.1, not the drill's TODOs (it said "experiment.py
    # still raises NotImplementedError (Task 2.1: ...)", pointing at the wrong file).
    stub = (STUBS / "corruption.py").read_text()
    sub = reference_submission("nocorruption", {"corruption.py": stub})
    with SandboxSession(grader.zygote, sub.sources, OPTIONS.limits) as session:
        rerun = rerun_drill(files, session)
    assert rerun.status == "missing"
    assert rerun.message.startswith(
        "not attempted: the drill stopped at mask_tokens() (Part B - masked-LM corruption), "
        "which still raises NotImplementedError (Task 2.1:"
    )
    assert rerun.message.endswith("implement it, then run the drill again")
    assert "experiment.py still raises" not in rerun.message


def test_missing_drill_scores_zero_without_a_sandbox_worker(grader):
    report = grader.grade(reference_submission("nodrill"))
    drill = _drill(report)
    assert set(drill) == {f"drill.{n}" + (f"[{c}]" if c else "") for n, c in POINTS}
    assert report.parts["drill"].score == 0 and report.parts["drill"].max_score == 20
    assert all(t.status == "missing" for t in drill.values())
    assert all("Exercise 3 (the drill) was not handed in" in t.message for t in drill.values())

    class NoSandbox:
        def run_drill(self, *a, **k):
            raise AssertionError("a submission without a drill must not start a worker")

    rerun = rerun_drill({NOTE: "# note"}, NoSandbox())
    assert rerun.status == "missing" and "drill/experiment.py was not found" in rerun.message


def test_slower_than_the_limit_loses_the_rerun_points_keeps_the_notes(grader, files):
    note = files[NOTE].replace(
        "    python drill/experiment.py --seed 0",
        "    python drill/experiment.py --seed 0 --steps 100000",
    )
    sub = reference_submission("slow", {NOTE: note}, drill=True)
    before = grader.options
    grader.options = replace(OPTIONS, limits=SandboxLimits(drill_timeout=2.0))
    try:
        report = grader.grade(sub)
    finally:
        grader.options = before
    drill = _drill(report)
    assert drill["drill.rerun"].status == "timeout"
    assert "did not finish within 2 s" in drill["drill.rerun"].message
    assert "--steps 100000" in drill["drill.rerun"].message
    note_points = sum(p for (n, _c), p in POINTS.items() if n == "note_section")
    assert report.parts["drill"].score == note_points == 6
    for p in CODE:
        assert report.parts[p].score == report.parts[p].max_score


def test_a_crashing_drill_cannot_touch_the_other_parts(grader, reference_report):
    hostile = (
        "import os\n"
        "for name in ('masks.py', 'losses.py'):\n"
        "    open(name, 'w').write('raise SystemExit(1)\\n')\n"
        "open('drill/results.json', 'w').write('{}')\n"
        "os._exit(3)\n"
    )
    sub = reference_submission("crash", {EXPERIMENT: hostile}, drill=True)
    report = grader.grade(sub)
    drill = _drill(report)
    assert drill["drill.rerun"].status == "error"
    assert "died" in drill["drill.rerun"].message
    assert report.parts["drill"].score == 6  # the note's sections
    ours = [(t.id, t.status, t.score) for t in report.tests if t.part != "drill"]
    ref = [(t.id, t.status, t.score) for t in reference_report.tests if t.part != "drill"]
    assert ours == ref


# ----------------------------------------------------------------------------- bounded input


def test_results_json_is_parsed_bounded():
    with pytest.raises(ResultsError, match="nested more than"):
        parse_results("[" * 100_000 + "]" * 100_000, "results.json")
    with pytest.raises(ResultsError, match="larger than"):
        parse_results(" " * (300 * 1024) + "{}", "results.json")
    with pytest.raises(ResultsError, match="not valid JSON"):
        parse_results("{'runs': 1}", "results.json")
    with pytest.raises(ResultsError, match="JSON object"):
        parse_results("[1, 2]", "results.json")


def test_a_hostile_note_is_read_in_linear_time():
    """Parsed in a child capped at 2 s of CPU time (tests/cpu_budget.py), not timed: a loaded
    machine does not fail it, a backtracking pattern still does."""
    from cpu_budget import within_cpu

    text = "## Measurements\n" + "| causal " * 20_000 + "\n" + "1." * 30_000 + "#" * 30_000
    assert within_cpu(lambda: (parse_note(text), numbers(text)), 2) is None
    assert "measurements" in parse_note(text).sections


# ----------------------------------------------------------------------------- docs


def test_docs_points_table_matches_the_drill(reference_report):
    text = (REPO / "docs" / "drill.md").read_text(encoding="utf-8")
    documented = {
        tid: float(points)
        for tid, points in re.findall(r"^\| `(drill\.[\w\[\]]+)` \| ([\d.]+) \|", text, re.M)
    }
    actual = {t.id: t.max_score for t in reference_report.tests if t.part == "drill"}
    assert documented == actual
    assert f"{TOTAL:g} points" in text


def test_the_scaffold_and_the_reference_share_main():
    """The reference is the scaffold with its TODOs done: the given part is identical."""
    marker = "# ----------------------------------------------------------------------------- main"
    ref = (SOLUTIONS / "drill" / "experiment.py").read_text(encoding="utf-8")
    stub = (STUBS / "drill" / "experiment.py").read_text(encoding="utf-8")
    assert ref.split(marker)[1] == stub.split(marker)[1]
    assert Path(SOLUTIONS / "drill" / "results.json").is_file()


def test_the_batch_cache_is_invalidated_by_the_drills_checks(tmp_path):
    """A cached grade must not survive a change to how the drill is graded."""
    import shutil

    from grader.batch.cache import grader_fingerprint

    shutil.copytree(REPO / "grader" / "drill", tmp_path / "grader" / "drill")
    before = grader_fingerprint(root=tmp_path)
    (tmp_path / "grader" / "drill" / "results.py").write_text("GAP_LEAK = 0.0\n")
    assert grader_fingerprint(root=tmp_path) != before


def test_the_drill_is_one_of_the_reports_parts():
    from grader.drill import PART
    from grader.report import PART_IDS, PART_TITLES

    assert PART in PART_IDS and PART_TITLES[PART].startswith("Exercise 3")


def test_an_oversized_results_json_is_refused_in_the_worker(grader, files):
    flood = "open('drill/results.json', 'w').write('[' + '0,' * 200_000 + '0]')\n"
    sub = reference_submission("flood", {EXPERIMENT: flood}, drill=True)
    with SandboxSession(grader.zygote, sub.sources, OPTIONS.limits) as session:
        rerun = rerun_drill(sub.files, session)
    assert rerun.status == "error" and rerun.results is None
    assert "wrote a drill/results.json of more than 262,144 bytes" in rerun.message


def test_a_wrong_number_is_quoted_with_its_context_even_at_the_end_of_a_long_line():
    """A paragraph written as one line: the quote showed its first 200 characters, cut before
    the wrong number, so the student could not see which one it was."""
    line = "The failure run reaches a final loss of 0.0015, " + "far below the causal run, " * 8
    line += "so its prefix loss is really 1.85."
    (q,) = [q for q in numbers(f"  {line}\n") if q.text == "1.85"]
    shown = q.excerpt()
    assert "is really 1.85." in shown and shown.startswith("...") and len(shown) <= 170
    assert numbers("short 0.5 line")[0].excerpt() == "short 0.5 line"
    (plus,) = numbers("a gain of +0.25 here")
    assert plus.line[plus.at : plus.at + len(plus.text)] == "0.25"


def test_the_prose_message_quotes_the_wrong_number_of_a_long_paragraph(files, reference_rerun):
    filler = " and the table below lists every run with its measured numbers" * 4
    note = files[NOTE].replace("has\na gap of 10.06", "has" + filler + " and a gap of 12.5")
    assert note != files[NOTE]
    lost = _lost(check_drill({**files, NOTE: note}, reference_rerun))
    first = lost["drill.note_numbers[prose]"].splitlines()[0]
    assert "gap of 12.5" in first
