"""Instructor overrides (apply_overrides) and the `grader review` click command."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from grader import report as report_mod
from grader.cli import main as grader_main
from grader.report import GradeReport
from grader.rubric import (
    OverridesError,
    apply_overrides,
    load_overrides,
    parse_overrides,
    render_written,
    score_explanation,
)

PARTIAL = (
    "BERT predicts masked tokens from the words on both sides of the mask. GPT predicts the "
    "next token. Generation happens one token at a time."
)
SHORT = "BERT sees both sides, GPT only the left."


def review_cli(args: list[str]):
    """`grader review ARGS` through the real command line (its error handling and exit codes)."""
    return CliRunner().invoke(grader_main, ["review", *args])


def make_report(name: str, text: str) -> GradeReport:
    return GradeReport(
        grader_version="test",
        submission=name,
        tests=(report_mod.TestResult("masks.shape", "masks", "shape", 1.0, 1.0, "passed"),),
        written={"explanation": score_explanation(text)},
    )


def verdict(report: GradeReport, cid: str) -> str:
    return next(c.verdict for c in report.written["explanation"].criteria if c.id == cid)


def test_override_rescores_marks_and_regenerates_feedback():
    rep = make_report("alice", PARTIAL)
    before = rep.written["explanation"]
    assert verdict(rep, "C2") == "partial" and verdict(rep, "C4") == "missing"
    ov = parse_overrides(
        {
            "alice": {
                "C2": {"verdict": "met", "note": "Linked in the last sentence."},
                "C4": {"verdict": "partial"},
            }
        }
    )
    new = apply_overrides(rep, ov, "alice")
    w = new.written["explanation"]
    assert w.score == before.score + 1.5 + 1.0
    c2 = next(c for c in w.criteria if c.id == "C2")
    assert (c2.verdict, c2.overridden, c2.needs_review, c2.confidence) == ("met", True, False, 1.0)
    assert "You make the key link" in c2.feedback
    assert c2.feedback.endswith("Instructor note: Linked in the last sentence.")
    assert c2.evidence == next(c for c in before.criteria if c.id == "C2").evidence
    untouched = [c for c in w.criteria if c.id not in ("C2", "C4")]
    assert untouched == [c for c in before.criteria if c.id not in ("C2", "C4")]
    assert new.score == rep.score + 2.5  # the report total follows
    assert "instructor verdict" in render_written(w, "text")
    assert apply_overrides(new, ov, "alice") == new  # idempotent


def test_other_students_and_parts_are_untouched():
    rep = make_report("bob", PARTIAL)
    ov = parse_overrides({"alice": {"C2": {"verdict": "met"}}})
    assert apply_overrides(rep, ov, "bob") is rep


def test_reviewed_flag_clears_answer_level_review():
    rep = make_report("carol", SHORT)
    assert rep.written["explanation"].needs_review
    new = apply_overrides(rep, parse_overrides({"carol": {"reviewed": True}}), "carol")
    w = new.written["explanation"]
    assert not w.needs_review and not any(c.needs_review for c in w.criteria)
    assert [c.verdict for c in w.criteria] == [
        c.verdict for c in rep.written["explanation"].criteria
    ]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"alice": {"C9": {"verdict": "met"}}}, "unknown criterion"),
        ({"alice": {"C2": {"verdict": "excellent"}}}, "verdict must be one of"),
        ({"alice": {"C2": {"verdict": "met", "score": 3}}}, "unknown key(s) ['score']"),
        ({"alice": {"reviewed": "yes"}}, "reviewed must be true or false"),
        ({"alice": "met"}, "must be a table"),
    ],
)
def test_bad_overrides_are_rejected_with_a_clear_message(data, message):
    with pytest.raises(
        OverridesError,
        match=message.replace("(", r"\(")
        .replace(")", r"\)")
        .replace("[", r"\[")
        .replace("]", r"\]"),
    ):
        parse_overrides(data)


def test_load_overrides_reads_toml(tmp_path):
    f = tmp_path / "o.toml"
    f.write_text(
        '[alice.C2]\nverdict = "met"\nnote = "ok"\n\n["bob smith".C1]\nverdict = "missing"\n'
    )
    ov = load_overrides(f)
    assert ov["alice"].criteria["C2"].verdict == "met"
    assert ov["bob smith"].criteria["C1"].verdict == "missing"
    f.write_text("[alice.C2\n")
    with pytest.raises(OverridesError, match="not valid TOML"):
        load_overrides(f)


# -- the click command -------------------------------------------------------------------------
@pytest.fixture()
def batch(tmp_path: Path) -> Path:
    out = tmp_path / "out"
    out.mkdir()
    lines = [
        json.dumps(make_report(n, t).to_dict(), ensure_ascii=False)
        for n, t in (("alice", SHORT), ("bob", PARTIAL), ("dora", PARTIAL))
    ]
    (out / "results.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def test_review_lists_what_needs_review(batch):
    res = review_cli([str(batch)])
    assert res.exit_code == 0, res.output
    assert "alice" in res.output and "Very short answer" in res.output
    assert "bob" not in res.output.split("\n\n")[0]
    assert "1 of 3 answers need review" in res.output


def test_review_apply_rewrites_atomically_and_reports_changes(batch, tmp_path):
    results = batch / "results.jsonl"
    original = results.read_text(encoding="utf-8").splitlines()
    ov = tmp_path / "overrides.toml"
    ov.write_text(
        "[alice]\nreviewed = true\n\n"
        '[alice.C2]\nverdict = "partial"\nnote = "Implied."\n\n'
        '[bob.C4]\nverdict = "partial"\n'
    )
    dry = review_cli([str(batch), "--overrides", str(ov)])
    assert dry.exit_code == 0 and "would change: alice C2: missing -> partial" in dry.output
    assert results.read_text(encoding="utf-8").splitlines() == original  # dry run writes nothing
    res = review_cli([str(batch), "--overrides", str(ov), "--apply"])
    assert res.exit_code == 0, res.output
    assert "changed: bob C4: missing -> partial" in res.output
    assert "0 answer(s) still need review" in res.output
    lines = results.read_text(encoding="utf-8").splitlines()
    assert lines[2] == original[2]  # dora untouched, byte for byte
    alice = GradeReport.from_dict(json.loads(lines[0]))
    c2 = next(c for c in alice.written["explanation"].criteria if c.id == "C2")
    assert c2.overridden and c2.verdict == "partial" and "Instructor note: Implied." in c2.feedback
    assert not alice.written["explanation"].needs_review
    assert sorted(os.listdir(batch)) == ["results.jsonl"]  # no temporary file left behind
    again = review_cli([str(batch)])
    assert "nothing needs review" in again.output


def test_failed_write_leaves_results_intact(batch, tmp_path, monkeypatch):
    results = batch / "results.jsonl"
    before = results.read_bytes()
    ov = tmp_path / "o.toml"
    ov.write_text('[bob.C4]\nverdict = "met"\n')

    def boom(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    res = review_cli([str(batch), "--overrides", str(ov), "--apply"])
    assert res.exit_code != 0
    assert results.read_bytes() == before
    assert sorted(os.listdir(batch)) == ["results.jsonl"]


@pytest.mark.parametrize(
    ("setup", "args", "message"),
    [
        (lambda d: None, [], "not found"),
        (lambda d: (d / "results.jsonl").write_text("{not json\n"), [], "not valid JSON"),
        (lambda d: (d / "results.jsonl").write_text('{"score": 1}\n'), [], "not a grade report"),
    ],
)
def test_unreadable_input_exits_2_without_traceback(tmp_path, setup, args, message):
    setup(tmp_path)
    res = review_cli([str(tmp_path), *args])
    assert res.exit_code == 2
    assert message in res.output
    assert "Traceback" not in res.output


def test_bad_overrides_file_and_usage_exit_2(batch, tmp_path):
    ov = tmp_path / "o.toml"
    ov.write_text('[bob.C4]\nverdict = "great"\n')
    res = review_cli([str(batch), "--overrides", str(ov), "--apply"])
    assert res.exit_code == 2 and "verdict must be one of" in res.output
    res = review_cli([str(batch), "--apply"])
    assert res.exit_code == 2 and "--apply needs --overrides" in res.output


def test_unknown_student_in_overrides_is_a_warning(batch, tmp_path):
    ov = tmp_path / "o.toml"
    ov.write_text('[zed.C4]\nverdict = "met"\n')
    res = review_cli([str(batch), "--overrides", str(ov)])
    assert res.exit_code == 0
    assert "no submission named 'zed'" in res.output
