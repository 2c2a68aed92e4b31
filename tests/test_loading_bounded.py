"""Student bytes are parsed on the trusted side in bounded time: linear parsers, and a guard.

Each pathological input is parsed at 4 MB (four times the per-file cap) in a forked child
capped at a few seconds of CPU time (tests/cpu_budget.py): a linear parser needs a small
fraction of that, the old quadratic regexes needed minutes to hours, and the cap counts only
the child's own CPU, so a loaded machine or parallel tests do not fail it. The 1 MB vs 4 MB
timings, side by side, are printed by benchmarks/parsing_scaling.py. Then the guard: a loader
that hangs, eats memory, recurses or crashes costs only its own entry ("could not be read:
<reason>"), in `grader grade` (exit 2) and in `grader batch` (listed as not graded, the rest
graded).
"""

from __future__ import annotations

import json
import os
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from cpu_budget import MB, within_cpu

from grader.loading import (
    LoadLimits,
    SubmissionError,
    load_entries,
    load_one,
    load_submission,
)
from grader.loading.model import extract_answer, strip_comments
from grader.loading.notebook import load_notebook_bytes, notebook_json
from grader.rubric.render import split_quote
from grader.rubric.text import split_sentences


def _assert_linear(fn: Callable[[str], object], make: Callable[[int], str], limit: int) -> None:
    """`fn` on 4 MB of `make` within `limit` CPU-seconds per MB (tests/cpu_budget.py): 8-50
    times what the linear parsers use, where a quadratic step at 4 MB takes minutes."""
    why = within_cpu(lambda: fn(make(4 * MB)), 4 * limit)
    assert why is None, f"at 4 MB: {why}"


# Markdown/HTML of explanation.md, as the loader reads it: (name, generator of n characters)
MARKDOWN_CASES = {
    "unclosed_comments": lambda n: "<!--" * (n // 4),
    "comment_then_no_close": lambda n: "answer <!-- " + "x" * n,
    "closed_comments": lambda n: "<!-- a -->b" * (n // 11),
    "answer_heading_spaces": lambda n: "# your answer" + " " * n + "x",
    "many_heading_starts": lambda n: "#\n" * (n // 2),
    "hashes": lambda n: "#" * n,
    "whitespace": lambda n: " \t\n" * (n // 3),
}


@pytest.mark.parametrize("case", sorted(MARKDOWN_CASES))
def test_explanation_markdown_is_parsed_in_linear_time(case):
    _assert_linear(extract_answer, MARKDOWN_CASES[case], limit=2)


def test_strip_comments_keeps_the_regex_semantics():
    assert strip_comments("a<!-- x -->b<!--y-->c") == "abc"
    assert strip_comments("a<!-->b-->c") == "ac"
    assert strip_comments("a<!-- never closed") == "a<!-- never closed"
    assert strip_comments("a<!--x-->b<!-- open") == "ab<!-- open"
    assert extract_answer("# Q\n## Your answer  \n\nMine <!-- hint --> here.") == "Mine  here."


def _heading_notebook(n: int) -> str:
    line = "# Exercise 2" + " " * n + "x"  # the old heading regex was cubic in this run
    return notebook_json(
        [
            {"cell_type": "markdown", "source": line},
            {"cell_type": "markdown", "source": "## Your answer\nIt can't."},
        ]
    )


NOTEBOOK_CASES = {
    "heading_with_space_run": _heading_notebook,
    "heading_with_hash_runs": lambda n: notebook_json(
        [{"cell_type": "markdown", "source": "## Exercise 2" + " #" * (n // 2) + " x"}]
    ),
    "long_magic_line": lambda n: notebook_json(
        [{"cell_type": "code", "source": "x = " + " " * n + "!ls"}]
    ),
    "writefile_spaces": lambda n: notebook_json(
        [{"cell_type": "code", "source": "%%writefile masks.py" + " " * n + "x\nx = 1\n"}]
    ),
    "many_tiny_cells": lambda n: notebook_json(
        [{"cell_type": "markdown", "source": "# Exercise 2"}]
        + [{"cell_type": "code", "source": "x = 1"} for _ in range(n // 120)]
    ),
}


@pytest.mark.parametrize("case", sorted(NOTEBOOK_CASES))
def test_notebook_parsing_is_linear(case):
    limits = LoadLimits()

    def load(text: str) -> object:
        try:
            return load_notebook_bytes(text.encode(), name="s", origin="s.ipynb", limits=limits)
        except SubmissionError:  # 4 MB of extracted code is over the cap: parsed all the same
            return None

    _assert_linear(load, NOTEBOOK_CASES[case], limit=6)


TEXT_CASES = {
    "dots": lambda n: "." * n + "x",
    "abbreviations": lambda n: "e.g. " * (n // 5),  # every "." is a skipped sentence end
    "initials": lambda n: "A. " * (n // 3),
    "closers": lambda n: "." + ")" * n + "x",
    "words": lambda n: "the masked model sees both sides " * (n // 33),
}


@pytest.mark.parametrize("case", sorted(TEXT_CASES))
def test_rubric_sentence_splitting_is_linear(case):
    _assert_linear(split_sentences, TEXT_CASES[case], limit=4)


def test_rubric_quote_split_is_linear_and_unchanged():
    assert split_quote('Good. You wrote: "it sees both"') == ("Good.", "it sees both")
    assert split_quote("no quote here") == ("no quote here", "")
    assert split_quote('You wrote: "') == ('You wrote: "', "")
    _assert_linear(split_quote, lambda n: "a" + " " * n + "b", limit=1)
    _assert_linear(split_quote, lambda n: 'You wrote: "' + " " * n + '"', limit=1)


def test_canvas_and_gradescope_names_are_matched_in_linear_time():
    from grader.batch.intake import CANVAS_DEDUP, CANVAS_NAME, parse_gradescope_metadata

    for make in (lambda n: "a_1" * (n // 3), lambda n: "_1" * (n // 2), lambda n: "-1" * (n // 2)):
        _assert_linear(lambda s: (CANVAS_NAME.match(s), CANVAS_DEDUP.match(s)), make, 1)
    _assert_linear(parse_gradescope_metadata, lambda n: "a" + " " * n + "x:", 2)
    _assert_linear(
        parse_gradescope_metadata,
        lambda n: "s:\n  :submitters:\n" + "  - :name: x\n" * (n // 14),
        4,
    )


def test_the_answer_is_length_capped_at_load(tmp_path):
    from grader.loading.model import MAX_ANSWER_CHARS

    (tmp_path / "explanation.md").write_text("word " * 190_000)
    sub = load_submission(tmp_path)
    assert len(sub.written["explanation"]) == MAX_ANSWER_CHARS
    assert any("only the beginning was read" in p for p in sub.problems)


# ----------------------------------------------------------------------------- the guard


def _hang():
    while True:
        pass


def _eat_memory():
    hog = []
    while True:
        hog.append(bytearray(64 << 20))


def _recurse():
    def f(x):
        return f(x + 1)

    return f(0)


def _crash():
    os.kill(os.getpid(), 9)


def _deep_json():
    json.loads("[" * 200_000 + "]" * 200_000)


def _refused():
    raise SubmissionError("the archive is too large once unpacked")


def _bug():
    raise KeyError("oops")


def test_each_failure_costs_only_its_entry(tmp_path):
    (tmp_path / "masks.py").write_text("x = 1\n")

    def good():
        return load_submission(tmp_path)

    loaders = [good, _hang, _eat_memory, _recurse, _deep_json, _crash, _refused, _bug, good]
    t0 = time.monotonic()
    results = list(load_entries(loaders, LoadLimits(max_seconds=1.5, max_memory_mb=256)))
    assert time.monotonic() - t0 < 60  # a hang guard only: ~6 s of 1.5 s deadlines and forks
    assert [r.index for r in results] == list(range(len(loaders)))
    assert results[0].submission and "masks" in results[0].submission.sources
    assert results[-1].submission and "masks" in results[-1].submission.sources
    errors = [r.error for r in results[1:-1]]
    assert all(r.submission is None for r in results[1:-1])
    assert all(e.startswith("could not be read: ") for e in errors), errors
    assert "longer than 1.5 s" in errors[0]
    assert "memory" in errors[1]
    assert "nested too deeply" in errors[2] and "nested too deeply" in errors[3]
    assert "stopped" in errors[4]
    assert "too large once unpacked" in errors[5]
    assert "KeyError" in errors[6]


def test_load_one_raises_could_not_be_read():
    with pytest.raises(SubmissionError, match="^could not be read: .*longer than 0.5 s"):
        load_one(_hang, LoadLimits(max_seconds=0.5))


def test_guarded_loading_forks_once_per_run_of_entries(tmp_path):
    """What keeps the guard cheap (~1 ms per entry, benchmarks/per_submission.py): a run of
    good entries is loaded by one forked child, not one fork per entry, and each comes back
    the same as an unguarded load."""
    for part in ("masks", "corruption", "losses", "generation"):
        (tmp_path / f"{part}.py").write_text("def f(x):\n    return x\n" * 200)
    (tmp_path / "explanation.md").write_text("The masked model sees both sides. " * 100)
    n = 100

    def good():
        return load_submission(tmp_path, name=str(os.getpid()))

    plain = good()
    guarded = [r.submission for r in load_entries([good] * n)]
    pids = {s.name for s in guarded}
    assert len(pids) == 1 and str(os.getpid()) not in pids, pids
    assert all(s.sources == plain.sources and s.written == plain.written for s in guarded)


def test_grade_reports_an_unreadable_entry_with_exit_2(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from grader.cli import main
    from grader.loading import guarded

    monkeypatch.setattr(guarded, "_run", lambda loader, mb: _hang())
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "masks.py").write_text("x = 1\n")
    monkeypatch.setattr("grader.pipeline.LoadLimits", lambda: LoadLimits(max_seconds=1.0))
    result = CliRunner().invoke(main, ["grade", str(tmp_path / "s")])
    assert result.exit_code == 2, result.output
    assert "could not be read: reading it took longer than 1 s" in result.output


def test_batch_lists_a_stuck_entry_and_grades_the_rest(tmp_path, monkeypatch):
    import grader.batch.outputs
    from grader.batch.runner import BatchOptions, run_batch
    from grader.loading.notebook import notebook_json as nb

    solutions = Path(__file__).resolve().parents[1] / "solutions"
    cls = tmp_path / "class"
    cls.mkdir()
    good = cls / "ada"
    good.mkdir()
    for f in solutions.glob("*.py"):
        if f.name != "__init__.py":
            (good / f.name).write_text(f.read_text())
    # a notebook with a 1 MB comment that never closes and a cubic heading: fine now, and
    # a deliberately stuck loader below shows the guard
    (cls / "bea.ipynb").write_text(
        nb(
            [
                {"cell_type": "markdown", "source": "# Exercise 2" + " " * 300_000 + "x"},
                {"cell_type": "markdown", "source": "<!--" * 250_000},
            ]
        )
    )
    with zipfile.ZipFile(cls / "cy.zip", "w") as zf:
        zf.writestr("masks.py", "x = 1\n")
    import grader.batch.intake as intake

    real = intake.load_submission

    def stuck_for_cy(path, **kw):
        if Path(path).name == "cy.zip":
            _hang()
        return real(path, **kw)

    intake.load_submission = stuck_for_cy
    # bea's heading also stalls nbconvert (tests/batch/test_notebook_feedback.py): not waited for
    monkeypatch.setattr(grader.batch.outputs, "NOTEBOOK_HTML_SECONDS", 1)
    try:
        res = run_batch(
            BatchOptions(
                input=cls,
                out=tmp_path / "out",
                progress=False,
                grade_written=False,
                workers=1,
                load_limits=LoadLimits(max_seconds=3.0),
            )
        )
    finally:
        intake.load_submission = real
    by_key = {o.key: o for o in res.outcomes}
    assert by_key["ada"].status == "graded" and by_key["ada"].report.score > 0
    assert by_key["bea"].status == "graded"
    assert by_key["cy"].status == "unreadable"
    assert by_key["cy"].message == "could not be read: reading it took longer than 3 s"
