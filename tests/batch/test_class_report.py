"""The class report renders as valid, self-contained HTML with escaped student text."""

from __future__ import annotations

import shutil
import subprocess
from html.parser import HTMLParser

import pytest

from grader.batch.classreport import ClassRow, class_view, render_class_report

from .conftest import make_report

VOID = {
    "area",
    "base",
    "br",
    "col",
    "embed",
    "hr",
    "img",
    "input",
    "link",
    "meta",
    "source",
    "track",
    "wbr",
}
SVG_SELF_CLOSING = {"rect", "line", "circle", "path", "polyline", "polygon", "ellipse"}
HOSTILE = "<script>alert('x')</script><img src=http://evil.example/x.png onerror=alert(1)>"


class StrictHTML(HTMLParser):
    """Checks nesting, and that nothing is loaded from elsewhere or run."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.tags: dict[str, int] = {}
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        if tag in ("script", "iframe", "object", "embed", "link", "img"):
            self.errors.append(f"<{tag}> is not allowed in the class report")
        for name, value in attrs:
            if name.startswith("on"):
                self.errors.append(f"event handler {name}")
            if name in ("src", "href") and value and ("//" in value or ":" in value):
                self.errors.append(f"external reference {value}")
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        if tag not in VOID and tag not in SVG_SELF_CLOSING:
            self.errors.append(f"self-closing <{tag}/>")

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1] if self.stack else 'nothing'}")
            if tag in self.stack:
                while self.stack and self.stack.pop() != tag:
                    pass
            return
        self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def validate(html: str) -> StrictHTML:
    assert html.lstrip().lower().startswith("<!doctype html>")
    parser = StrictHTML()
    parser.feed(html)
    parser.close()
    assert not parser.errors, parser.errors[:10]
    assert not parser.stack, f"unclosed: {parser.stack}"
    return parser


@pytest.fixture(scope="module")
def rows():
    return [
        ClassRow("ada", "Ada", "ada/", False, "graded", make_report("ada", score_pattern="pppp")),
        ClassRow(
            "ben",
            "Ben",
            "ben.zip",
            True,
            "graded",
            make_report("ben", score_pattern="pfft", review=True, evidence=HOSTILE),
        ),
        ClassRow(
            "cleo",
            "Cleo" + HOSTILE,
            "cleo.ipynb",
            False,
            "graded",
            make_report("cleo", score_pattern="femp", errors=(HOSTILE,)),
        ),
        ClassRow("dev", "Dev", "dev.zip", False, "unreadable", None, "not a zip " + HOSTILE),
    ]


def test_renders_valid_self_contained_html(rows):
    html = render_class_report(
        rows, title="Unit 3 (1234)", layout="canvas", fingerprint="f" * 64, version="9.9"
    )
    parser = validate(html)
    assert parser.tags.get("svg", 0) >= 4  # distribution, parts, tests, misconceptions
    text = "".join(parser.text)
    assert HOSTILE in text  # shown as text, never as markup
    assert "&lt;script&gt;" in html and "<script>" not in html
    for section in (
        "Score distribution",
        "Per-test failure rates",
        "Misconceptions",
        "Students whose answers need review (1)",
        "Not graded (1)",
    ):
        assert section in text
    assert 'href="feedback/ada.html"' in html


def test_view_numbers(rows):
    view = class_view(rows, title="t", layout="folders", fingerprint="x", version="v")
    s = view["summary"]
    assert (s["graded"], s["unreadable"], s["late"]) == (3, 1, 1)
    tests = {t["id"]: t for t in view["tests"]["all"]}
    assert tests["losses.check_1"]["rate"] == pytest.approx(66.7)
    assert tests["masks.check_0"]["counts"]["failed"] == 1
    assert tests["losses.check_1"]["counts"]["error"] == 1
    assert [m["id"] for m in view["misconceptions"]["rows"]] == ["forgot_shift"]
    assert sum(b["count"] for b in view["histogram"]["bars"]) == 3
    assert [r["key"] for r in view["review"]] == ["ben"]


def test_empty_class_renders():
    validate(render_class_report([], title="t", layout="folders", fingerprint="x", version="v"))


def test_loads_in_headless_chromium(tmp_path, rows):
    browser = next(
        (
            shutil.which(b)
            for b in ("chromium", "chromium-browser", "google-chrome", "chrome", "headless_shell")
            if shutil.which(b)
        ),
        None,
    )
    if browser is None:
        pytest.skip("no Chromium on this machine (the HTML is validated by the tests above)")
    page = tmp_path / "report.html"
    page.write_text(
        render_class_report(rows, title="t", layout="folders", fingerprint="x", version="v")
    )
    done = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Score distribution" in done.stdout and "<svg" in done.stdout


def test_report_scores_are_computed_once_and_follow_replace():
    """`GradeReport.parts` is cached per report (class rendering asks thousands of times);
    a changed report is a new object, and a caller's copy cannot alter the cached one."""
    import dataclasses

    rep = make_report("cache", score_pattern="pfpf")
    parts = rep.parts
    assert rep.score == 6.0 and rep.max_score == 14.0  # 2 of 4 tests, written 4 of 10
    parts.clear()
    assert rep.parts and rep.score == 6.0
    half = dataclasses.replace(rep.written["explanation"], score=10.0)
    better = dataclasses.replace(rep, written={"explanation": half})
    assert better.score == 12.0 and rep.score == 6.0
    assert better.parts["explanation"].score == 10.0
    assert better == dataclasses.replace(rep, written={"explanation": half})


def test_review_list_has_one_row_per_student():
    """A student with two flagged answers (explanation and drill) is one row, not two."""
    import dataclasses

    rep = make_report("ben", score_pattern="pf", review=True, evidence=HOSTILE)
    both = dataclasses.replace(rep, written={**rep.written, "drill": rep.written["explanation"]})
    rows = [
        ClassRow("ben", "Ben", "ben.zip", False, "graded", both),
        ClassRow("ada", "Ada", "ada/", False, "graded", make_report("ada", review=True)),
        ClassRow("cy", "Cy", "cy/", False, "graded", make_report("cy")),
    ]
    view = class_view(rows, title="t", layout="folders", fingerprint="x", version="v")
    assert [r["key"] for r in view["review"]] == ["ben", "ada"]
    assert [a["answer"] for a in view["review"][0]["answers"]] == ["explanation", "drill"]
    html = render_class_report(rows, title="t", layout="folders", fingerprint="x", version="v")
    validate(html)
    section = html[html.index('<h2 id="review">') : html.index('<h2 id="students">')]
    assert "review (2)" in section
    for key in ("ben", "ada"):
        assert section.count(f'<tr><td>{key.title()} <code class="muted">{key}</code>') == 1
    assert section.count("<details>") == 3  # each answer's criteria and evidence, folded
    assert "&lt;script&gt;" in section and "<script>" not in section


def test_submissions_with_two_copies_have_a_section(tmp_path):
    """The loader grades the most recently modified of two copies and notes it; the class
    report lists those submissions in a section of their own, like similar pairs."""
    import os

    from grader.loading import load_submission

    for folder, mtime in (
        ("draft" + HOSTILE.replace("/", "_"), 1_700_000_000),
        ("final", 1_700_100_000),
    ):
        d = tmp_path / "alice" / folder
        d.mkdir(parents=True)
        (d / "masks.py").write_text("X = 1\n")
        os.utime(d / "masks.py", (mtime, mtime))
    sub = load_submission(tmp_path / "alice", name="alice")
    rows = [
        ClassRow(
            "alice", "Alice", "alice/", False, "graded", make_report("alice", errors=sub.problems)
        ),
        ClassRow("ben", "Ben", "ben/", False, "graded", make_report("ben", errors=("other",))),
    ]
    view = class_view(rows, title="t", layout="folders", fingerprint="x", version="v")
    assert [(c["key"], c["copies"], c["graded"]) for c in view["copies"]] == [
        ("alice", 2, "final/")
    ]
    html = render_class_report(rows, title="t", layout="folders", fingerprint="x", version="v")
    validate(html)
    section = html[html.index('<h2 id="copies">') : html.index('<h2 id="students">')]
    assert "Several copies of the exercise files (1)" in section
    assert 'href="feedback/alice.html"' in section and "Ben" not in section
    assert "final/ was graded (its files were modified most recently)" in section
    assert "&lt;script&gt;" in section and "<script>" not in section
    one = render_class_report(rows[1:], title="t", layout="folders", fingerprint="x", version="v")
    assert "Several copies of the exercise files (0)" in one
    assert "Every graded submission holds one copy" in one
