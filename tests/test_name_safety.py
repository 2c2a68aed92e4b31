"""Names a student chose (folders, archives, archive members, files) reach every output as one
line of plain text: no newline, carriage return, line or paragraph separator, terminal escape,
NUL, other control character or bidi control survives into a JSON report, a text/md/html
render, gradebook.csv, gradebook_notes.csv, the class report, batch progress lines or the
review listing. They are cleaned where they are first read (`grader.textsafe.clean_name`)."""

from __future__ import annotations

import io
import json
import os
import shutil
import stat
import subprocess
import sys
import unicodedata
import zipfile
from pathlib import Path

from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.batch.progress import Progress
from grader.loading import SubmissionError, load_submission
from grader.render import render_report
from grader.report import GradeReport
from grader.textsafe import clean_name

ROOT = Path(__file__).resolve().parents[1]
GRADER = str(Path(sys.executable).with_name("grader"))
# every way a name could break a line, move the cursor or reorder text
BREAKERS = ["\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x85", "\u2028", "\u2029", "\t"]
HIDDEN = ["\x1b[2J", "\x1b]0;title\x07", "\x00", "\x07", "\x7f", "\u202e", "\u2066", "\u200f"]
BIDI = {
    "\u061c",
    "\u200e",
    "\u200f",
    *map(chr, range(0x202A, 0x202F)),
    *map(chr, range(0x2066, 0x206A)),
}


def _unsafe(ch: str) -> bool:
    return unicodedata.category(ch) in ("Cc", "Zl", "Zp", "Cs") or ch in BIDI


def _mark(i: int) -> str:
    return f"Q7Z{i}Q"


def hostile(prefix: str, filename_safe: bool = True) -> str:
    """`prefix`, then one mark after each breaker, then the hidden characters."""
    parts = [prefix]
    for i, b in enumerate(BREAKERS):
        parts.append(f"{b}{_mark(i)}")
    parts.extend(h for h in HIDDEN if not (filename_safe and h == "\x00"))
    return "".join(parts)


def check_lines(text: str, where: str, *, allow_newlines: bool = False) -> None:
    """No unsafe character; every mark is on the same line as the name it belongs to."""
    bad = sorted({repr(c) for c in text if _unsafe(c) and not (allow_newlines and c == "\n")})
    assert not bad, f"{where}: {bad}"
    for line in text.splitlines():
        marks = [i for i in range(len(BREAKERS)) if _mark(i) in line]
        # the name from its start, in order, on this line (a table column may cut its end)
        assert marks == list(range(len(marks))), f"{where}: a name was split: {line!r}"


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(k)
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def check_json(text: str, where: str) -> None:
    check_lines(text, where, allow_newlines=True)  # the file itself (a terminal may cat it)
    for line in text.splitlines() or [text]:
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            data = json.loads(text)
        for s in _strings(data):
            if _mark(0) in s:  # a name, or a message naming it: one line, nothing hidden
                check_lines(s, f"{where} value")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*BREAKERS, *HIDDEN, "a", "é", " ", "[", "\x1b", "\u202b"])))
def test_clean_name_leaves_one_safe_line(pieces):
    out = clean_name("".join(pieces))
    assert not any(_unsafe(c) for c in out)
    assert len(out.splitlines()) <= 1
    assert clean_name(out) == out


def test_progress_lines_are_one_line_each():
    buf = io.StringIO()
    with Progress(2, stream=buf, tty=False) as progress:
        progress.advance(hostile("ann"), "0/110")
        progress.note(f"{hostile('bob')}: could not be read")
    check_lines(buf.getvalue(), "progress", allow_newlines=True)
    assert len(buf.getvalue().splitlines()) == 3


def test_a_report_read_back_has_a_clean_name():
    from tests.batch.conftest import make_report

    report = make_report(hostile("ann"), review=True)
    again = GradeReport.from_dict(json.loads(report.to_json()))
    for r in (report, again):
        check_lines(r.submission, "submission")


def test_review_listing(tmp_path):
    from grader.rubric.cli import review
    from tests.batch.conftest import make_report

    data = make_report("x", review=True).to_dict()
    data["submission"] = hostile("ann")  # an edited (or old) results.jsonl
    (tmp_path / "results.jsonl").write_text(json.dumps(data) + "\n", encoding="utf-8")
    result = CliRunner().invoke(review, [str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "ann" in result.output
    check_lines(result.output, "review", allow_newlines=True)


def test_loading_errors_name_files_on_one_line(tmp_path):
    bad = tmp_path / f"{hostile('ann')}.zip"
    bad.write_bytes(b"not a zip")
    try:
        load_submission(bad)
    except SubmissionError as exc:
        check_lines(str(exc), "SubmissionError")
    else:
        raise AssertionError("a corrupt zip was read")
    raw = SubmissionError(f"x {hostile('ann')}")
    check_lines(str(raw), "SubmissionError")


def _write_class(cls: Path) -> None:
    """A folder student, a zip student with hostile member names, and an unreadable zip."""
    folder = cls / hostile("ann")
    shutil.copytree(ROOT / "exercises", folder, ignore=shutil.ignore_patterns("__pycache__"))
    with zipfile.ZipFile(cls / f"{hostile('bob')}.zip", "w") as zf:
        for f in ("masks.py", "losses.py", "corruption.py", "explanation.md"):
            zf.write(ROOT / "exercises" / f, f"{hostile('bob')}/{f}")
        link = zipfile.ZipInfo(f"{hostile('bob')}/generation.py")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(link, "/etc/passwd")
        zf.writestr(f"{hostile('bob')}/drill/{hostile('bob')}/results.json", "{}")
    (cls / f"{hostile('cat')}.zip").write_bytes(b"PK\x03\x04 broken")


def test_grade_every_format(tmp_path):
    from grader.pipeline import GradeOptions, grade_path
    from grader.sandbox.limits import SandboxLimits

    _write_class(tmp_path)
    options = GradeOptions(limits=SandboxLimits(call_timeout=3.0, submission_timeout=30.0))
    for student in ("ann", "bob"):
        path = next(p for p in tmp_path.iterdir() if p.name.startswith(student))
        report = grade_path(path, options)
        assert _mark(0) in report.submission
        if student == "bob":  # the refused member is named in the report
            assert any(_mark(0) in e for e in report.errors), report.errors
        for fmt in ("text", "md", "html"):
            check_lines(render_report(report, fmt), f"{student} {fmt}", allow_newlines=True)
        check_json(render_report(report, "json"), f"{student} json")
    cat = next(p for p in tmp_path.iterdir() if p.name.startswith("cat"))
    proc = subprocess.run([GRADER, "grade", str(cat)], capture_output=True, text=True)
    assert proc.returncode == 2 and _mark(0) in proc.stderr, proc.stderr
    check_lines(proc.stderr, "grade stderr", allow_newlines=True)


def test_batch_every_output(tmp_path):
    cls, out = tmp_path / "class", tmp_path / "out"
    cls.mkdir()
    _write_class(cls)
    env = {**os.environ, "CI": "true"}
    proc = subprocess.run(
        [GRADER, "batch", str(cls), "--out", str(out), "--workers", "1",
         "--submission-timeout", "30"],
        capture_output=True, text=True, env=env, timeout=600,
    )  # fmt: skip
    assert proc.returncode in (0, 1), proc.stderr
    terminal = proc.stdout + proc.stderr
    assert all(who in terminal for who in ("ann", "bob", "cat")), terminal
    check_lines(terminal, "batch terminal", allow_newlines=True)
    files = sorted(p for p in out.rglob("*") if p.is_file())
    names = {p.name for p in files}
    assert {"results.jsonl", "gradebook.csv", "gradebook_notes.csv", "report.html"} <= names
    assert any(p.suffix == ".md" for p in files) and any(p.suffix == ".html" for p in files)
    for p in files:
        text = p.read_text(encoding="utf-8")
        if p.suffix in (".json", ".jsonl"):
            check_json(text, p.name)
        else:
            check_lines(text, p.name, allow_newlines=True)
    gradebook = (out / "gradebook.csv").read_text(encoding="utf-8-sig")
    assert "ann" in gradebook and "bob" in gradebook
