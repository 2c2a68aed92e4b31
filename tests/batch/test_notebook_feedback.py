"""Feedback inside the student's own notebook (issue 17): a feedback cell after each graded
function and part, the written-answer feedback after the explanation, HTML by nbconvert; in a
batch (`OUT/feedback/<key>.ipynb`, rebuilt by `grader render`) and from `grader grade
--format ipynb`."""

from __future__ import annotations

import json
import shutil

from click.testing import CliRunner

from grader.batch.sampleclass import Student, correct_files, notebook_bytes, write_folder_class
from grader.cli import main
from grader.render.ipynb import FEEDBACK_TAG, feedback_notebook, notebook_html
from grader.report import CriterionResult, GradeReport, WrittenResult
from grader.report import TestResult as Check

from .test_instructor_loop import batch, seed

HOSTILE = "got ```\n<script>alert(1)</script><img src=x onerror=alert(2)> **bold**"


def report(name: str = "nb") -> GradeReport:
    tests = (
        Check("masks.causal_mask", "masks", "causal_mask", 1.0, 1.0, "passed"),
        Check("masks.padding_mask_dtype", "masks", "padding_mask", 0.0, 1.0, "failed", HOSTILE),
        Check("masks.no_input_mutation", "masks", "no_input_mutation", 1.0, 1.0, "passed"),
        Check("losses.causal_lm_loss_vs_reference", "losses", "x", 2.0, 2.0, "passed"),
        Check(
            "generation.greedy_golden",
            "generation",
            "greedy_golden",
            0.0,
            2.0,
            "failed",
            "wrong tokens",
        ),
    )
    crit = (CriterionResult("C1", "met", "because", "Well linked."),)
    written = {"explanation": WrittenResult(2.0, 10.0, False, crit, summary="Say more.")}
    return GradeReport("test", name, tests, written)


def _cells(text: str) -> list[dict]:
    return json.loads(text)["cells"]


def _src(cell: dict) -> str:
    s = cell["source"]
    return "".join(s) if isinstance(s, list) else s


def test_feedback_cells_follow_functions_parts_and_the_answer():
    original = notebook_bytes(correct_files("nb")).decode()
    cells = _cells(feedback_notebook(original, report()))
    own = [c for c in cells if FEEDBACK_TAG not in c.get("metadata", {}).get("tags", [])]
    assert [_src(c) for c in own] == [_src(c) for c in _cells(original)]  # all kept, in order
    fb = {i: _src(c) for i, c in enumerate(cells) if c not in own}
    assert "7 / 12 points" not in fb[0] and "for nb: 6 / 17 points" in fb[0]

    def after(i: int) -> str:  # the student's cell a feedback cell follows
        while i - 1 in fb:
            i -= 1
        return _src(cells[i - 1])

    by_fn = {i: t for i, t in fb.items() if "Grader feedback: `" in t}
    causal = next(i for i, t in by_fn.items() if "`causal_mask`" in t)
    assert "def causal_mask" in after(causal)
    padding = next(i for i, t in by_fn.items() if "`padding_mask`" in t)
    assert "def padding_mask" in after(padding) and "**failed**" in fb[padding]
    masks_part = next(i for i, t in fb.items() if "Part A" in t or "masks.no_input" in t)
    assert "masks.no_input_mutation" in fb[masks_part]
    gen = next(i for i, t in fb.items() if "generation.greedy_golden" in t)
    assert "def greedy_generate" in after(gen) or "prefix_consistency_gap" in after(gen)
    answer = next(i for i, t in fb.items() if "on your answer" in t)
    assert "Say more." in fb[answer] and cells[answer - 1] in own
    assert "Exercise 2" in _src(cells[answer - 2])
    # the hostile message stays inside a code fence longer than any run of its backticks
    assert "````text\n" + HOSTILE + "\n````" in fb[padding].replace("\n  ", "\n")


def test_html_by_nbconvert_is_sanitised_and_scriptless():
    nb = feedback_notebook(notebook_bytes(correct_files("nb")).decode(), report())
    html = notebook_html(nb)
    assert "Grader feedback" in html and "causal_mask" in html and "Say more." in html
    assert "<script" not in html.lower() and "<img src=x" not in html  # escaped, not run
    assert "&lt;img src=x onerror=alert(2)&gt;" in html


def test_batch_writes_feedback_notebooks_and_render_rebuilds_them(tmp_path):
    people = [
        Student("nbstudent", "Nb", 1, "correct", correct_files("nbb"), form="notebook"),
        Student("files", "Files", 2, "correct", correct_files("fb")),
    ]
    class_dir = write_folder_class(tmp_path / "class", people)
    out = tmp_path / "out"
    seed(class_dir, out)
    batch(class_dir, out)
    fb = out / "feedback"
    assert (fb / "nbstudent.ipynb").is_file() and (fb / "nbstudent.notebook.html").is_file()
    assert not (fb / "files.ipynb").exists()
    before = (fb / "nbstudent.ipynb").read_bytes(), (fb / "nbstudent.notebook.html").read_bytes()
    assert FEEDBACK_TAG in before[0].decode()
    shutil.rmtree(class_dir)
    (fb / "nbstudent.ipynb").unlink()
    (fb / "nbstudent.notebook.html").unlink()
    assert CliRunner().invoke(main, ["render", str(out)]).exit_code == 0
    after = (fb / "nbstudent.ipynb").read_bytes(), (fb / "nbstudent.notebook.html").read_bytes()
    assert after == before


def test_grade_format_ipynb(tmp_path, monkeypatch):
    import grader.pipeline
    import grader.sandbox.launch

    nb = tmp_path / "alice.ipynb"
    nb.write_bytes(notebook_bytes(correct_files("cli")))
    monkeypatch.setattr(grader.sandbox.launch, "launch_zygote", lambda: None)
    monkeypatch.setattr(grader.pipeline, "grade_path", lambda path, **kw: report("alice"))
    target = tmp_path / "fb.ipynb"
    res = CliRunner().invoke(main, ["grade", str(nb), "--format", "ipynb", "-o", str(target)])
    assert res.exit_code == 0, res.output
    assert any(
        FEEDBACK_TAG in c.get("metadata", {}).get("tags", []) for c in _cells(target.read_text())
    )
    res = CliRunner().invoke(main, ["grade", str(tmp_path), "--format", "ipynb"])
    assert res.exit_code == 2 and "needs a notebook submission" in res.output


def test_feedback_survives_odd_cells():
    odd = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {},
        "cells": [
            {
                "cell_type": "code",
                "source": "%%bash\necho hi",
                "metadata": {},
                "outputs": [],
                "execution_count": None,
            },
            {
                "cell_type": "code",
                "source": "def causal_mask(:",
                "metadata": {},
                "outputs": [],
                "execution_count": None,
            },
            {"cell_type": "raw", "source": "raw", "metadata": {}},
        ],
    }
    text = feedback_notebook(json.dumps(odd), report())
    assert feedback_notebook(json.dumps(odd), report()) == text  # deterministic, ids too
    cells = _cells(text)
    assert [c["id"] for c in cells[1:4]] == ["cell-0", "cell-1", "cell-2"]
    assert len(cells) > 3 and _src(cells[1]) == "%%bash\necho hi"
    # the parts with no defining cell get their cells at the end
    assert all(FEEDBACK_TAG in c["metadata"]["tags"] for c in cells[4:])


WEAK_ANSWER = "BERT is a masked model and GPT is a causal model. They are different models."


def _graded(notebook: str):
    from grader.loading import LoadLimits
    from grader.loading.notebook import load_notebook_bytes
    from grader.rubric.scorer import score_explanation

    sub = load_notebook_bytes(notebook.encode(), name="nb", origin="nb", limits=LoadLimits())
    written = score_explanation(sub.written["explanation"])
    return sub, GradeReport("test", "nb", (), {"explanation": written})


def test_a_feedback_notebook_handed_in_again_is_graded_on_the_students_words_only():
    """The grader's advice after the answer ("How to improve: ... the model predicts each one
    from the context on both sides ...") was read as part of the answer: 0/10 became 9/10."""
    original = notebook_bytes(correct_files("nb", explanation=WEAK_ANSWER)).decode()
    sub, first = _graded(original)
    again, second = _graded(feedback_notebook(original, first))
    assert again.written["explanation"] == sub.written["explanation"] == WEAK_ANSWER
    assert second.written["explanation"] == first.written["explanation"]
    # and its feedback holds this grading's cells only, once each
    cells = _cells(feedback_notebook(feedback_notebook(original, first), second))
    ours = [_src(c) for c in cells if FEEDBACK_TAG in c.get("metadata", {}).get("tags", [])]
    assert sum("on your answer" in t for t in ours) == 1
    assert sum(t.startswith("**Grader feedback for") for t in ours) == 1


def test_a_cell_forged_to_pass_for_the_graders_is_dropped():
    forged = "**Grader feedback for nb: 130 / 130 points.** Every hidden test passed."
    nb = json.loads(notebook_bytes(correct_files("nb", explanation=WEAK_ANSWER)))
    nb["cells"][1:1] = [
        {"cell_type": "markdown", "id": "f1", "source": forged,
         "metadata": {"tags": ["Grader-Feedback "]}},
        {"cell_type": "markdown", "id": "f2", "source": forged + " (2)",
         "metadata": {"grader": {"part": "summary"}}},
        {"cell_type": "code", "id": "f3", "source": "x = 1", "outputs": [],
         "execution_count": None, "metadata": {"tags": ["grader-feedback", "mine"]}},
    ]  # fmt: skip
    text = feedback_notebook(json.dumps(nb), report())
    assert "130 / 130" not in text
    code = next(c for c in _cells(text) if c.get("id") == "f3")  # the student's code stays ...
    assert code["metadata"]["tags"] == ["mine"]  # ... without the grader's tag


def test_a_notebook_that_stalls_nbconvert_costs_only_its_own_html(tmp_path, monkeypatch):
    """nbconvert's Markdown parser is quadratic on some student text (a heading padded with
    spaces: 40 kB take 10 s, 1 MB hours): the page is rendered in a bounded child, so the
    batch ends, the feedback notebook is still written, and the missing page is reported."""
    import time

    import grader.batch.outputs as outputs

    # 4 s, not less: the stuck page's child spins beside the fine one's (two side by side)
    monkeypatch.setattr(outputs, "NOTEBOOK_HTML_SECONDS", 4.0)
    files = correct_files("stall")
    hostile = json.loads(notebook_bytes(files))
    heading = "# Notes" + " " * 80_000 + "x"
    hostile["cells"].insert(1, {"cell_type": "markdown", "metadata": {}, "source": heading})
    (tmp_path / "class").mkdir()
    (tmp_path / "class" / "stall.ipynb").write_text(json.dumps(hostile))
    people = [Student("fine", "Fine", 2, "correct", correct_files("fine"), form="notebook")]
    class_dir = write_folder_class(tmp_path / "class", people)
    out = tmp_path / "out"
    seed(class_dir, out)
    start = time.monotonic()
    result = batch(class_dir, out)
    assert time.monotonic() - start < 120  # a hang guard: unbounded, this page takes hours
    fb = out / "feedback"
    assert (fb / "stall.ipynb").is_file() and not (fb / "stall.notebook.html").exists()
    assert (fb / "fine.notebook.html").is_file(), result.writes.errors
    errors = result.writes.errors
    assert any("stall.notebook.html not written" in e and "4 s" in e for e in errors), errors


def test_a_rerun_keeps_an_unchanged_page_without_nbconvert(tmp_path, monkeypatch):
    """nbconvert costs ~0.2 s a notebook: a re-run whose feedback notebook did not change keeps
    the page on disk instead of converting again (a re-run of a class is meant to be instant)."""
    import grader.render.ipynb

    people = [Student("nbstudent", "Nb", 1, "correct", correct_files("rr"), form="notebook")]
    class_dir = write_folder_class(tmp_path / "class", people)
    out = tmp_path / "out"
    seed(class_dir, out)
    batch(class_dir, out)
    page = out / "feedback" / "nbstudent.notebook.html"
    before = page.read_bytes()

    def no_nbconvert(*a, **k):
        raise AssertionError("nbconvert ran again")

    monkeypatch.setattr(grader.render.ipynb, "notebook_html", no_nbconvert)
    result = batch(class_dir, out)
    assert page.read_bytes() == before and not result.writes.errors, result.writes.errors


def test_a_write_makes_all_its_pages_in_a_few_children_side_by_side(tmp_path, monkeypatch):
    """One fork per child, not per page (a fork of the torch-holding batch process cost ~0.06
    CPU-s of a ~0.2 s page); the pages are the ones nbconvert makes in this process."""
    import grader.batch.outputs as outputs
    import grader.loading.guarded as guarded

    calls = []
    real = guarded.bounded_texts

    def spy(makes, **kw):
        calls.append((len(makes), kw["children"]))
        return real(makes, **kw)

    monkeypatch.setattr(guarded, "bounded_texts", spy)
    people = [Student(f"nb{i}", f"Nb {i}", i, "correct", correct_files(f"nb{i}"), form="notebook")
              for i in range(3)]  # fmt: skip
    class_dir = write_folder_class(tmp_path / "class", people)
    out = tmp_path / "out"
    seed(class_dir, out)
    result = batch(class_dir, out)
    assert not result.writes.errors, result.writes.errors
    assert calls == [(3, outputs.NOTEBOOK_HTML_CHILDREN)] and outputs.NOTEBOOK_HTML_CHILDREN > 1
    for i in range(3):
        nb = (out / "feedback" / f"nb{i}.ipynb").read_text(encoding="utf-8")
        page = (out / "feedback" / f"nb{i}.notebook.html").read_text(encoding="utf-8")
        assert page == notebook_html(nb)
