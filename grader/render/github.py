"""GitHub Actions output from a GradeReport (`grader grade --format github`).

    ::error file=exercises/losses.py,line=12,title=Part C - objectives: 3 failing checks::...

Failing checks become workflow-command annotations at the student's file, and at the line of
their code when the failure message names one (a traceback or a syntax error; for code graded
from a notebook, the notebook's own file line of the `cell N, line M` named); checks that fail
at the same place share one annotation, and at most `MAX_ANNOTATIONS` are written (GitHub shows
10 errors per step). A written answer below full marks is a warning on its file. Messages and
properties are escaped by GitHub's workflow-command rules. `step_summary` is the Markdown
(feedback_templates/report/github_summary.md.j2) appended to `$GITHUB_STEP_SUMMARY`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from grader.diagnosis import explain_ids, strip_explanations
from grader.loading.cells import cell_ref, notebook_file_lines
from grader.parts import CODE_PARTS, PART_TITLES
from grader.report import GradeReport, TestResult
from grader.textsafe import clean_text

MAX_ANNOTATIONS = 10
SUMMARY_MAX_BYTES = 1_000_000  # GitHub drops a step summary over 1 MiB
_PARTS = "|".join(CODE_PARTS)
# the last frame of the student's code in a message: 'File "losses.py", line 12' (traceback)
# or 'losses.py, line 12:' (syntax error)
_WHERE = re.compile(rf'(?:File ")?\b({_PARTS})\.py"?, line (\d+)')
_WRITTEN_FILES = {"explanation": "explanation.md", "drill": "drill/evidence_note.md"}


def escape_data(text: str) -> str:
    """A workflow command's message: %, CR and LF escaped."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value: also ':' and ',' escaped."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(level: str, message: str, **props: str | int | None) -> str:
    """One workflow command line, e.g. `::error file=a.py,line=3::msg` (None props left out)."""
    rendered = ",".join(
        f"{k}={escape_property(str(v))}" for k, v in props.items() if v is not None and v != ""
    )
    return f"::{level}{' ' + rendered if rendered else ''}::{escape_data(message)}"


def student_line(message: str) -> tuple[str, int] | None:
    """(file, line) of the student's code named last in a failure message, if any."""
    found = None
    for m in _WHERE.finditer(message):
        found = (f"{m.group(1)}.py", int(m.group(2)))
    return found


def _part_file(t: TestResult) -> str:
    """The student's file a failing check is about when its message names no line: the part's
    module, or for the drill its note (note checks) or its script (the rerun and its numbers)."""
    if t.part in CODE_PARTS:
        return f"{t.part}.py"
    if t.part == "drill":
        return "drill/evidence_note.md" if t.id.startswith("drill.note_") else "drill/experiment.py"
    return _WRITTEN_FILES.get(t.part, f"{t.part}.py")


def _in_repo(name: str, source: str | None, folder: bool) -> str:
    if source is None:
        return name
    if not folder:  # a zip or a notebook: the annotation goes on the file handed in
        return source
    return str(PurePosixPath(source) / name) if source not in ("", ".") else name


def annotations(
    report: GradeReport,
    source: str | None = None,
    *,
    folder: bool = True,
    notebook: str | None = None,
    notebook_lines: Mapping[tuple[int, int], int] | None = None,
    answers_in_notebook: frozenset[str] = frozenset(),
) -> str:
    """The annotation lines for `report`.

    `source`: the submission's path relative to the repository root (a folder holding the
    exercise files, or with `folder=False` a .zip or .ipynb); None: bare file names.
    `notebook`: the repository path of the notebook the code was graded from (the .ipynb
    handed in, or the one in the folder); its failures go on it, at the file line of the
    `cell N, line M` their message names (`notebook_lines`, from
    `grader.loading.cells.notebook_file_lines`) and with that cell and line in the title;
    so do the written answers in `answers_in_notebook` (a markdown cell, not a .md file).
    A .zip's lines are no file's lines: its annotations carry no line.
    """
    if notebook is None and not folder and source and source.lower().endswith(".ipynb"):
        notebook = source
    # one annotation per place in the student's code; without a line, one per part and file
    groups: dict[tuple[str, int, str], list[TestResult]] = {}
    for t in report.tests:
        if t.status == "passed":
            continue
        key = _place(t, source, folder, notebook, notebook_lines or {})
        groups.setdefault(key, []).append(t)
    keys = sorted(groups)
    if len(keys) > MAX_ANNOTATIONS:  # the rest are folded into the last one, not dropped
        keep, rest = keys[: MAX_ANNOTATIONS - 1], keys[MAX_ANNOTATIONS - 1 :]
        merged = [t for k in rest for t in groups[k]]
        groups[(rest[0][0], 0, "*")] = merged
        keys = [*keep, (rest[0][0], 0, "*")]
    lines = []
    for file, line, part in keys:
        tests = groups[(file, line, part)]
        lost = sum(t.max_score - t.score for t in tests)
        parts = sorted({PART_TITLES.get(t.part, t.part) for t in tests})
        at = f" at {part}" if part.startswith("cell ") else ""
        title = f"{', '.join(parts)}{at}: {len(tests)} failing check(s), {lost:g} point(s) lost"
        first = tests[0]
        body = f"{first.id}: {strip_explanations(first.message)}{explain_ids(first.diagnoses)}"
        if len(tests) > 1:
            others = ", ".join(t.id for t in tests[1:6]) + (" ..." if len(tests) > 6 else "")
            body += f"\nAlso failing here: {others}"
        lines.append(
            command("error", clean_text(body, 4000), file=file, line=line or None, title=title)
        )
    for part, w in report.written.items():
        if w.score < w.max_score:
            file = _in_repo(_WRITTEN_FILES.get(part, f"{part}.md"), source, folder)
            if notebook is not None and part in answers_in_notebook:
                file = notebook
            title = f"{PART_TITLES.get(part, part)}: {w.score:g}/{w.max_score:g}"
            lines.append(command("warning", clean_text(w.summary, 4000), file=file, title=title))
    total = f"Score {report.score:g}/{report.max_score:g}"
    lines.append(command("notice", total, title="objectives-grader"))
    return "\n".join(lines) + "\n"


def step_summary(report: GradeReport) -> str:
    """The Markdown step summary (capped below GitHub's 1 MiB limit)."""
    from grader.render import environment
    from grader.render.view import report_view

    view = report_view(report, "md", title="Grade report")
    text = environment(False).get_template("report/github_summary.md.j2").render(**view)
    text = clean_text(text)  # reports hold cleaned text already; a summary is shown raw
    data = text.encode("utf-8", "replace")
    if len(data) > SUMMARY_MAX_BYTES:
        cut = data[: SUMMARY_MAX_BYTES - 200].decode("utf-8", "ignore")
        text = cut + "\n\n(The summary was cut here: it exceeded GitHub's size limit.)\n"
    return text


def _place(
    t: TestResult,
    source: str | None,
    folder: bool,
    notebook: str | None,
    notebook_lines: Mapping[tuple[int, int], int],
) -> tuple[str, int, str]:
    """(file, line or 0, label) of a failing check's annotation; the label keeps apart the
    places that share a file and no line: a part, or a notebook's `cell N, line M`."""
    if notebook is not None and t.part in CODE_PARTS:
        ref = cell_ref(t.message)
        if ref is None:
            return notebook, 0, t.part
        return notebook, notebook_lines.get(ref, 0), f"cell {ref[0]}, line {ref[1]}"
    if not folder:
        ref = cell_ref(t.message)  # a notebook inside a zip: no file line, but its cell
        label = f"cell {ref[0]}, line {ref[1]}" if ref and t.part in CODE_PARTS else t.part
        return _in_repo(_part_file(t), source, folder), 0, label
    where = student_line(t.message)
    if where:
        return _in_repo(where[0], source, folder), where[1], ""
    return _in_repo(_part_file(t), source, folder), 0, t.part


def github_output(
    report: GradeReport, submission: Path | None, environ: Mapping[str, str] | None = None
) -> str:
    """The annotations for `grader grade --format github`, and the step summary appended to
    `$GITHUB_STEP_SUMMARY` when that is set. `submission` is the graded path; it is made
    relative to `$GITHUB_WORKSPACE` (else the current folder) so annotations land on the
    repository's files."""
    env = os.environ if environ is None else environ
    source = folder = base = None
    if submission is not None:
        base = Path(env.get("GITHUB_WORKSPACE") or os.getcwd()).resolve()
        full = submission.resolve()
        try:
            source = full.relative_to(base).as_posix()
        except ValueError:
            source = submission.as_posix()
        folder = submission.is_dir()
    notebook, lines, answers = _graded_notebook(report, submission, base)
    text = annotations(
        report,
        source,
        folder=folder if folder is not None else True,
        notebook=notebook,
        notebook_lines=lines,
        answers_in_notebook=answers,
    )
    summary_path = env.get("GITHUB_STEP_SUMMARY")
    if summary_path:
        with open(summary_path, "a", encoding="utf-8", errors="replace") as f:
            f.write(step_summary(report))
    return text


def _graded_notebook(
    report: GradeReport, submission: Path | None, base: Path | None
) -> tuple[str | None, dict[tuple[int, int], int], frozenset[str]]:
    """(the repository path of the notebook the code was graded from, its cell lines' file
    lines, the written answers taken from its markdown), or (None, {}, {}) when the code came
    from .py files. The submission is loaded again (bounded, nothing runs) to learn which
    notebook, and only for a folder or a notebook: a .zip's lines are no file's lines."""
    none: tuple[None, dict[tuple[int, int], int], frozenset[str]] = (None, {}, frozenset())
    if submission is None or base is None or submission.suffix.lower() == ".zip":
        return none
    from grader.loading import LoadLimits, SubmissionError, load_submission
    from grader.loading.model import EXPLANATION_FILE
    from grader.loading.notebook import load_notebook_bytes

    limits = LoadLimits()
    try:
        sub = load_submission(submission, name=report.submission, limits=limits)
        origin = Path(sub.origin)
        if not sub.notebook or origin.suffix.lower() != ".ipynb" or not origin.is_file():
            return none
        own = load_notebook_bytes(
            sub.notebook.encode("utf-8"), name="nb", origin=sub.origin, limits=limits
        )
    except SubmissionError:
        return none
    try:
        where = origin.resolve().relative_to(base).as_posix()
    except ValueError:
        where = origin.as_posix()
    answer = sub.files.get(EXPLANATION_FILE)
    answers = frozenset(
        {"explanation"} if answer and own.files.get(EXPLANATION_FILE) == answer else ()
    )
    return where, notebook_file_lines(sub.notebook), answers
