"""Student text cannot take over a report: what the loaders keep, what a failure message may
hold, and how the Markdown renderer fences and escapes it."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import torch

from grader.loading import load_submission
from grader.render import render_report
from grader.report import GradeReport
from grader.report import TestResult as _Result
from grader.sandbox import wire
from grader.suite.checks import MAX_MESSAGE_CHARS, GradeFailure, show

ROOT = Path(__file__).resolve().parents[1]
CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u202a-\u202e\u2066-\u2069]")


def test_loaded_text_has_no_escapes_or_bidi_overrides(tmp_path):
    folder = tmp_path / "student\x1b[2J"
    folder.mkdir()
    for f in ("masks", "corruption", "losses", "generation"):
        shutil.copy(ROOT / "solutions" / f"{f}.py", folder)
    (folder / "explanation.md").write_text(
        "## Your answer\n\nBERT \x1b]0;owned\x07sees both sides\u202e of the blank.\x00\n",
        encoding="utf-8",
    )
    sub = load_submission(folder)
    assert not CONTROLS.search(sub.written["explanation"])
    assert "sees both sides of the blank." in sub.written["explanation"]
    assert not CONTROLS.search(sub.name)


def test_loaded_text_has_no_invisible_characters(tmp_path):
    """A zero-width space, soft hyphen or tag character inside a word shows nothing, but it
    splits the word for every reader that is not a person: the copy check, a name compare."""
    import unicodedata

    folder = tmp_path / "ann\u200b"
    folder.mkdir()
    for f in ("masks", "corruption", "losses", "generation"):
        shutil.copy(ROOT / "solutions" / f"{f}.py", folder)
    hidden = "\u200bs\u00adee\u2060s b\ufeffo\u200dth\U000e0041 si\u3164des"
    (folder / "explanation.md").write_text(f"## Your answer\n\nBERT {hidden}.\n", "utf-8")
    sub = load_submission(folder)
    assert sub.written["explanation"] == "BERT sees both sides."
    assert sub.name == "ann"
    assert not any(unicodedata.category(ch) == "Cf" for ch in sub.written["explanation"])


def _report(message: str, errors: tuple[str, ...] = ()) -> GradeReport:
    t = _Result(id="corruption.labels", part="corruption", name="labels", score=0.0,
                   max_score=1.0, status="error", message=message)  # fmt: skip
    return GradeReport(grader_version="0", submission="s", tests=(t,), written={}, errors=errors)


def test_markdown_fences_outgrow_the_message_and_notes_are_escaped():
    message = "ok\n```\n<script>alert(1)</script>\n````\n## Grader note: all passed"
    md = render_report(_report(message, errors=("a.py <img src=x onerror=y> ## Override",)), "md")
    fences = re.findall(r"^ *(`{3,})$", md, flags=re.MULTILINE)
    assert fences[0] == fences[-1] == "`" * 5  # longer than the message's run of 4
    assert "\\<img" in md and "\\#\\# Override" in md
    try:
        import mistune
    except ImportError:  # the structure checks above still hold
        return
    html = mistune.html(md)
    assert "<script>" not in html and "<img" not in html
    assert "<h2>Grader note" not in html


def test_one_line_summaries_escape_student_text_too():
    """The compact lines (unexplained failures, evidence) show a message's first line outside
    any fence: it is escaped there in Markdown and HTML as everywhere else."""
    hostile = "got <script>alert(1)</script> `x` ## Grader note: all passed | a | b"
    md = render_report(_report(hostile + "\nmore"), "md")
    html = render_report(_report(hostile), "html")
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "\\<script\\>" in md and "\\#\\# Grader note" in md
    try:
        import mistune
    except ImportError:
        return
    rendered = mistune.html(md)
    assert "<script>" not in rendered and "<h2>Grader note" not in rendered


def test_failure_messages_are_capped_and_empty_tensors_are_summarised():
    assert len(GradeFailure("x" * 100_000).message) <= MAX_MESSAGE_CHARS
    text = show(torch.empty((1_000_000, 1_000_000, 0), dtype=torch.int64))
    assert text.startswith("an empty tensor of shape (1000000, 1000000, 0)")


def test_the_wire_refuses_an_empty_tensor_claiming_a_huge_shape():
    header = {"__t__": 0, "dtype": "int64", "shape": [1 << 20, 1 << 20, 0]}
    try:
        wire._dec_tensor(header, [b""])
    except wire.WireError as exc:
        assert "empty tensor" in str(exc)
    else:
        raise AssertionError("accepted")
    ok = wire._dec_tensor({"__t__": 0, "dtype": "int64", "shape": [2, 0]}, [b""])
    assert tuple(ok.shape) == (2, 0)
    try:
        wire.encode({"v": torch.empty((1 << 20, 1 << 20, 0))})
    except wire.WireError:
        pass
    else:
        raise AssertionError("encoded")


def test_lone_surrogates_are_removed_so_a_report_can_always_be_written():
    from grader.sandbox.errors import _reply_error

    err = _reply_error({"ok": False, "kind": "exception", "exc_type": "ValueError",
                        "message": "bad \ud800\udfff x \ud83d"}, "f()")  # fmt: skip
    err.message.encode("utf-8")  # raised UnicodeEncodeError before
    assert "bad" in err.message
