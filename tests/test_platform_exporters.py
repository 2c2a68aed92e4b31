"""Platform exporters from a GradeReport: Gradescope results.json, JUnit XML, GitHub commands.

Built from synthetic reports (no grading here), including student text that tries to break
each format; the real `grader grade` runs are in tests/test_gradescope_e2e.py.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import replace

import jsonschema
import pytest

from grader.render import render_report
from grader.render.github import (
    MAX_ANNOTATIONS,
    annotations,
    command,
    escape_data,
    escape_property,
    github_output,
    student_line,
)
from grader.render.gradescope import (
    GradescopeOptions,
    gradescope_options,
    gradescope_results,
    read_lateness,
    render_gradescope,
    validate_gradescope_dict,
)
from grader.render.junit import render_junit
from grader.report import CriterionResult, GradeReport, WrittenResult
from grader.report import TestResult as Check

HOSTILE = 'got "<b>&</b>" ]]> \x00\x1b[31m\ufffe\ud800 100% a,b: c\r\n::error::pwned'


def _report(errors: tuple[str, ...] = ("masks.py is not UTF-8 text and was ignored",)):
    tests = (
        Check("masks.causal_mask[5x5]", "masks", "causal_mask", 1.0, 1.0, "passed"),
        Check(
            "masks.no_future_leak[mask]",
            "masks",
            "no_future_leak",
            0.0,
            1.5,
            "failed",
            "position 2 sees position 3",
            ("triu_tril_swapped",),
        ),
        Check(
            "losses.golden[clm_oracle]",
            "losses",
            "golden",
            0.0,
            0.5,
            "error",
            "calling causal_lm_loss() raised ValueError: "
            + HOSTILE
            + '\n  File "losses.py", line 30, in causal_lm_loss\n    raise ValueError(x)',
        ),
        Check("losses.gradient[f32]", "losses", "gradient", 0.0, 1.0, "timeout", "slow"),
        Check(
            "generation.greedy_golden[x]",
            "generation",
            "greedy_golden",
            0.0,
            1.0,
            "missing",
            "generation.py was not found in your submission",
        ),
    )
    written = {
        "explanation": WrittenResult(
            score=4.0,
            max_score=10.0,
            needs_review=False,
            criteria=(
                CriterionResult("C1", "met", "BERT sees both sides", "What was good: right."),
                CriterionResult("C2", "missing", "", "What is missing: generation."),
            ),
            summary="Your explanation scores 4/10. " + HOSTILE,
        )
    }
    return GradeReport("0.1.0", "alice", tests, written, errors)


# ----------------------------------------------------------------------------- Gradescope


def test_gradescope_results_follow_the_schema_with_one_entry_per_test_and_written_answer():
    report = _report()
    data = json.loads(render_gradescope(report, GradescopeOptions(execution_time=1.25)))
    validate_gradescope_dict(data)
    assert data["score"] == report.score == 5.0 and data["execution_time"] == 1.25
    names = [t["name"] for t in data["tests"]]
    assert len(names) == len(set(names))
    per_test = [t for t in data["tests"] if "id" in t.get("extra_data", {})]
    assert [t["extra_data"]["id"] for t in per_test] == [t.id for t in report.tests]
    for entry, t in zip(per_test, report.tests, strict=True):
        assert entry["name"].startswith("Part ") and entry["name"].endswith(t.id.split(".", 1)[1])
        assert (entry["score"], entry["max_score"]) == (t.score, t.max_score)
        assert entry["status"] == ("passed" if t.status == "passed" else "failed")
        assert entry["visibility"] == "after_published"
    leak = per_test[1]["output"]
    assert "position 2 sees position 3" in leak and "Likely mistake" in leak and "Hint:" in leak
    written = [t for t in data["tests"] if t["tags"] == ["explanation"]]
    assert len(written) == 1 and written[0]["score"] == 4.0 and written[0]["max_score"] == 10.0
    assert "What is missing: generation." in written[0]["output"]
    totals = [t for t in data["tests"] if "total" in t["tags"]]
    assert {t["tags"][0]: t["score"] for t in totals} == {
        p: s.score for p, s in report.parts.items() if p != "explanation"
    }
    assert all(t["visibility"] == "visible" for t in totals + written)
    # the entries that carry the grade add up to it: totals are not counted twice
    assert sum(t["score"] for t in per_test + written) == data["score"]
    assert "not UTF-8" in data["output"] and "Total: 5 / 15" in data["output"]


def test_gradescope_visibility_is_configurable_and_checked():
    data = gradescope_results(
        _report(), GradescopeOptions(tests_visibility="hidden", totals_visibility="after_due_date")
    )
    validate_gradescope_dict(data)
    assert data["visibility"] == "after_due_date"
    assert {t["visibility"] for t in data["tests"] if "id" in t.get("extra_data", {})} == {"hidden"}
    with pytest.raises(ValueError, match="visibility"):
        GradescopeOptions(tests_visibility="students")  # type: ignore[arg-type]


def test_gradescope_drill_checks_are_shown_like_the_totals_not_like_hidden_tests():
    # Exercise 3's checks are documented to the student and read only their own files and
    # rerun: they follow the totals' visibility (docs/ci.md), the hidden tests their own
    from grader.drill import check_drill, rerun_drill

    drill = check_drill({}, rerun_drill({}, session=None))
    report = _report()
    report = GradeReport(
        report.grader_version,
        report.submission,
        report.tests + drill,
        report.written,
        report.errors,
    )
    for tests_vis, totals_vis in (
        ("after_published", "visible"),
        ("visible", "hidden"),
        ("hidden", "after_due_date"),
    ):
        data = gradescope_results(
            report, GradescopeOptions(tests_visibility=tests_vis, totals_visibility=totals_vis)
        )
        validate_gradescope_dict(data)
        per_test = [t for t in data["tests"] if "id" in t.get("extra_data", {})]
        seen = {(t["tags"][0] == "drill", t["visibility"]) for t in per_test}
        assert seen == {(True, totals_vis), (False, tests_vis)}, seen
        assert sum(1 for t in per_test if t["tags"][0] == "drill") == len(drill)
        total = next(t for t in data["tests"] if t["tags"] == ["drill", "total"])
        assert total["output"] == f"0 of {len(drill)} checks passed."


def test_gradescope_file_is_ascii_json_even_with_lone_surrogates():
    text = render_gradescope(_report())
    assert text.isascii()
    json.loads(text)


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d.pop("score") and [t.pop("score") for t in d["tests"]],
        lambda d: d["tests"][0].update(status="error"),
        lambda d: d.update(visibility="students"),
        lambda d: d["tests"][0].update(number=1),
        lambda d: d.update(execution_time="2.0"),
        lambda d: d.update(unknown_field=1),
    ],
)
def test_the_schema_rejects_what_gradescope_would(mutate):
    data = gradescope_results(_report())
    mutate(data)
    with pytest.raises(jsonschema.ValidationError):
        validate_gradescope_dict(data)


def _metadata(tmp_path, created, due, late_due=None, raw=None):
    p = tmp_path / "submission_metadata.json"
    assignment = {"due_date": due, "late_due_date": late_due, "title": "HW", "total_points": "110"}
    p.write_text(
        raw
        if raw is not None
        else json.dumps({"id": 1, "created_at": created, "assignment": assignment, "users": []})
    )
    return p


def test_lateness_from_submission_metadata(tmp_path):
    on_time, why = read_lateness(
        _metadata(tmp_path, "2026-12-01T10:00:00.123-08:00", "2026-12-01T23:59:00-08:00")
    )
    assert why == "" and on_time is not None and not on_time.late
    late, _ = read_lateness(
        _metadata(tmp_path, "2026-12-02T08:00:00Z", "2026-12-01T23:59:00-08:00")
    )
    assert late is not None and late.late and late.seconds_late == 60
    assert "1 min after the due date" in late.describe() and "no late penalty" in late.describe()
    very, _ = read_lateness(
        _metadata(tmp_path, "2026-12-05T00:00:00", "2026-12-01T00:00:00", "2026-12-03T00:00:00")
    )
    assert very is not None and very.after_late_due_date and "4 d after" in very.describe()
    data = gradescope_results(_report(), GradescopeOptions(lateness=very))
    validate_gradescope_dict(data)
    assert data["extra_data"]["late"]["after_late_due_date"] is True
    assert "after the late due date" in data["output"]


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("not json", "no usable"),
        ('{"created_at": "yesterday", "assignment": {"due_date": "2026-12-01"}}', "no usable"),
        ('{"created_at": "2026-12-01T00:00:00"}', "no usable"),
        ("[1, 2]", "no usable"),
        (" " * 1_000_001, "larger than"),
    ],
)
def test_unusable_metadata_is_a_note_not_a_failure(tmp_path, raw, expected):
    lateness, why = read_lateness(_metadata(tmp_path, "", "", raw=raw))
    assert lateness is None and expected in why
    options = gradescope_options(tmp_path / "submission_metadata.json")
    data = gradescope_results(_report(), options)
    validate_gradescope_dict(data)
    assert data["extra_data"]["late"] is None and expected in data["extra_data"]["notes"][0]
    assert gradescope_options(tmp_path / "absent.json").notes[0].startswith("lateness unknown")


# ----------------------------------------------------------------------------- JUnit


def test_junit_is_parsed_by_a_real_parser_and_agrees_with_the_json_report():
    report = _report()
    root = ET.fromstring(render_junit(report).encode("utf-8"))
    data = report.to_dict()
    cases = {(c.get("classname"), c.get("name")): c for c in root.iter("testcase")}
    assert len(cases) == len(data["tests"]) + len(data["written"])
    for t in data["tests"]:
        case = cases[(t["part"], t["id"].split(".", 1)[1])]
        props = {p.get("name"): p.get("value") for p in case.find("properties")}
        assert float(props["score"]) == t["score"] and float(props["max_score"]) == t["max_score"]
        assert props["status"] == t["status"]
        failure, error = case.find("failure"), case.find("error")
        if t["status"] == "passed":
            assert failure is None and error is None
        elif t["status"] in ("error", "timeout"):
            assert error is not None and failure is None and error.get("type") == t["status"]
        else:
            assert failure is not None and error is None
    written = cases[("explanation", "written answer")]
    assert written.find("failure").get("message") == "4/10 points"
    for suite in root.iter("testsuite"):
        own = suite.findall("testcase")
        assert int(suite.get("tests")) == len(own)
        assert int(suite.get("failures")) == sum(c.find("failure") is not None for c in own)
        assert int(suite.get("errors")) == sum(c.find("error") is not None for c in own)
    assert int(root.get("tests")) == len(cases)
    props = {p.get("name"): p.get("value") for p in root.find("properties")}
    assert float(props["score"]) == data["score"] and float(props["max_score"]) == data["max_score"]


def test_junit_keeps_student_text_but_drops_what_xml_cannot_hold():
    root = ET.fromstring(render_junit(_report()).encode("utf-8"))
    case = next(c for c in root.iter("testcase") if c.get("name") == "golden[clm_oracle]")
    text = case.find("error").text
    assert 'got "<b>&</b>" ]]>' in text and "100% a,b: c" in text
    assert not any(ch in text for ch in "\x00\x1b\ufffe\ud800")
    assert render_report(_report(), "junit") == render_junit(_report())


# ----------------------------------------------------------------------------- GitHub


def _unescape(s: str) -> str:
    return (
        s.replace("%0D", "\r")
        .replace("%0A", "\n")
        .replace("%3A", ":")
        .replace("%2C", ",")
        .replace("%25", "%")
    )


def test_workflow_command_escaping_follows_githubs_rules():
    assert escape_data("100%\r\nx") == "100%25%0D%0Ax"
    assert escape_property("a,b:c%\n") == "a%2Cb%3Ac%25%0A"
    line = command("error", "50% done\n::warning::x", file="dir,1/a:b.py", line=3, title=None)
    assert line == "::error file=dir%2C1/a%3Ab.py,line=3::50%25 done%0A::warning::x"
    assert _unescape(escape_property(HOSTILE)) == HOSTILE


def test_annotations_point_at_the_students_file_and_line():
    out = annotations(_report(), "exercises")
    lines = out.splitlines()
    assert all(line.startswith("::") for line in lines)  # no student text starts a new command
    errors = [line for line in lines if line.startswith("::error ")]
    assert any(line.startswith("::error file=exercises/losses.py,line=30,") for line in errors)
    assert any(line.startswith("::error file=exercises/masks.py,title=") for line in errors)
    assert any(line.startswith("::error file=exercises/generation.py,") for line in errors)
    assert any(line.startswith("::warning file=exercises/explanation.md,") for line in lines)
    assert lines[-1] == "::notice title=objectives-grader::Score 5/15"
    # a notebook's lines are not the student's files' lines: the notebook, no line
    nb = annotations(_report(), "work/hw.ipynb", folder=False)
    assert "line=" not in nb and nb.count("::error file=work/hw.ipynb,") == 3


def test_student_line_takes_the_last_frame_of_the_students_code():
    msg = 'raised X: File "masks.py", line 999\n  File "losses.py", line 7, in f\n    x'
    assert student_line(msg) == ("losses.py", 7)
    assert student_line("syntax error in masks.py, line 4: invalid syntax") == ("masks.py", 4)
    assert student_line('File "/usr/lib/python3/torch.py", line 5') is None


def test_annotations_are_capped_and_the_rest_folded_in():
    many = tuple(
        Check(
            f"losses.c[{i}]",
            "losses",
            "c",
            0.0,
            1.0,
            "error",
            f'boom\n  File "losses.py", line {i + 1}, in f',
        )
        for i in range(25)
    )
    report = GradeReport("0.1.0", "bob", many)
    errors = [line for line in annotations(report).splitlines() if line.startswith("::error")]
    assert len(errors) == MAX_ANNOTATIONS
    assert "16 failing check(s)" in errors[-1] and "line=" not in errors[-1]


def test_step_summary_is_appended_when_github_sets_the_variable(tmp_path, monkeypatch):
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    sub = tmp_path / "repo" / "exercises"
    sub.mkdir(parents=True)
    env = {"GITHUB_STEP_SUMMARY": str(summary), "GITHUB_WORKSPACE": str(tmp_path / "repo")}
    out = github_output(_report(), sub, env)
    assert "file=exercises/losses.py,line=30" in out
    text = summary.read_text()
    assert text.startswith("earlier step\n## Grade report: alice")
    assert "| Part A - masks and attention | 1 / 2.5 |" in text
    assert "`losses.golden[clm_oracle]`" in text and "\\<b\\>" in text  # student text escaped
    assert "\x00" not in text and "\x1b" not in text
    monkeypatch.chdir(tmp_path)
    github_output(_report(), sub, {})
    assert summary.read_text() == text  # no variable, no summary


def test_step_summary_leads_with_what_to_fix_and_lists_a_missing_function_once(tmp_path):
    # The summary listed every failing check part by part (each of a stub's 21 checks on its
    # own line) and the misconceptions after them; every other report leads with what to fix.
    from grader.render.github import step_summary

    stub = "not attempted: calling mask_tokens() raised NotImplementedError (Task 2.1: ...)"
    stubs = tuple(
        Check(f"corruption.c{i}", "corruption", f"c{i}", 0.0, 1.0, "missing", stub)
        for i in range(21)
    )
    report = replace(_report(), tests=_report().tests + stubs)
    text = step_summary(report)
    fix = text.index("### What to fix")
    assert fix < text.index("Upper and lower triangle swapped") < text.index("### Evidence")
    assert fix < text.index("### Failures no known mistake explains") < text.index("### Evidence")
    assert text.count("mask_tokens") == 1 and "`mask_tokens()` (Part B" in text
    assert "corruption.c0" not in text  # a missing check is not evidence
    assert "position 2 sees position 3" in text[text.index("### Evidence") :]
    drill = "not attempted: drill/experiment.py still raises NotImplementedError (drill TODO 1)"
    scaffold = Check("drill.rerun", "drill", "rerun", 0.0, 3.0, "missing", drill)
    text = step_summary(replace(report, tests=report.tests + (scaffold,)))
    # under the "not attempted yet" heading the line does not say "not attempted" again
    assert "- drill/experiment.py still raises NotImplementedError (drill TODO 1)" in text


def test_unreadable_submission_notes_reach_every_format():
    report = replace(_report(), errors=("work.zip is not a readable zip archive",))
    assert "not a readable zip" in gradescope_results(report)["output"]
    root = ET.fromstring(render_junit(report).encode())
    assert "not a readable zip" in root.find("properties")[-1].get("value")


# ----------------------------------------------------------------------------- a real report


@pytest.fixture(scope="module")
def buggy(tmp_path_factory):
    """A graded submission with a wrong mask and a loss that raises at a known line."""
    from grader.pipeline import grade_path
    from grader.testing import SOLUTIONS

    folder = tmp_path_factory.mktemp("repo") / "exercises"
    folder.mkdir()
    for p in ("masks", "corruption", "losses", "generation"):
        text = (SOLUTIONS / f"{p}.py").read_text()
        if p == "masks":
            text = text.replace(
                "return j <= i + (k_len - q_len)", "return j >= i + (k_len - q_len)"
            )
        if p == "losses":
            head, sep, rest = text.partition('"""Task 3.1')
            doc_end = rest.index("\n") + 1
            text = (
                head
                + sep
                + rest[:doc_end]
                + (
                    "    if logits.dtype == torch.bfloat16:\n"
                    "        raise ValueError('no bfloat16, 100%: sure')\n"
                )
                + rest[doc_end:]
            )
        (folder / f"{p}.py").write_text(text)
    line = 1 + next(
        i
        for i, s in enumerate((folder / "losses.py").read_text().splitlines())
        if "no bfloat16" in s
    )
    return grade_path(folder), folder, line


def test_real_report_in_every_platform_format(buggy, tmp_path):
    report, folder, line = buggy
    data = report.to_dict()
    results = gradescope_results(report)
    validate_gradescope_dict(results)
    assert results["score"] == data["score"] < data["max_score"]
    root = ET.fromstring(render_junit(report).encode("utf-8"))
    cases = {(c.get("classname"), c.get("name")): c for c in root.iter("testcase")}
    for t in data["tests"]:
        case = cases[(t["part"], t["id"].split(".", 1)[1])]
        bad = case.find("failure") if case.find("failure") is not None else case.find("error")
        assert (bad is None) == (t["status"] == "passed")
        if bad is not None:
            assert bad.text.startswith(t["message"].split("\n  Likely mistake")[0])
    summary = tmp_path / "summary.md"
    env = {"GITHUB_WORKSPACE": str(folder.parent), "GITHUB_STEP_SUMMARY": str(summary)}
    out = github_output(report, folder, env)
    assert f"::error file=exercises/losses.py,line={line}," in out
    assert "::error file=exercises/masks.py,title=Part A" in out
    assert "Upper and lower triangle swapped" in summary.read_text()


def test_an_internal_grader_problem_is_not_presented_as_the_students_zero():
    report = replace(_report(), errors=("internal: a worker could not be confined: unshare",))
    data = gradescope_results(report)
    validate_gradescope_dict(data)
    assert data["output"].startswith("The grader had an internal problem")
    assert data["extra_data"]["internal_error"] is True
    assert gradescope_results(_report())["extra_data"]["internal_error"] is False


def test_exports_are_deterministic_apart_from_the_measured_time():
    a, b = _report(), _report()
    assert render_junit(a) == render_junit(b) and " time=" not in render_junit(a)
    assert annotations(a, "x") == annotations(b, "x")
    one = gradescope_results(a, GradescopeOptions(execution_time=1.0))
    two = gradescope_results(b, GradescopeOptions(execution_time=2.0))
    assert {**one, "execution_time": 0} == {**two, "execution_time": 0}


def test_drill_annotations_point_at_the_drill_files_that_exist():
    """`file=work/exercises/drill.py` named a file no student has: GitHub shows such an
    annotation on no file. A note check belongs to the note, the rerun's to the script."""
    drill = (
        Check("drill.rerun", "drill", "rerun", 0.0, 3.0, "error", "running drill/experiment.py"),
        Check("drill.note_numbers[prose]", "drill", "note_numbers", 0.0, 1.0, "failed", "1.85"),
    )
    out = annotations(GradeReport("1", "s", drill, {}), "work/exercises")
    assert "::error file=work/exercises/drill/experiment.py,title=Exercise 3" in out
    assert "::error file=work/exercises/drill/evidence_note.md,title=Exercise 3" in out
    assert "drill.py" not in out.replace("drill/experiment.py", "")
