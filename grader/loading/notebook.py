"""Load a Jupyter notebook (.ipynb) submission. Nothing in the notebook runs here.

A notebook holds the whole exercise in one file, while the sandbox loads one module per part
(`masks`, `corruption`, `losses`, `generation`). So every part module is given the notebook's
*combined code* as its source: whichever part a test calls, the student's functions are there.
Rules (documented for instructors in docs/instructor.md):

* Code cells are read in order. IPython-only lines (`%magic`, `!shell`, `x = !cmd`, `name?`)
  are replaced by `pass` so the rest still compiles; a cell that starts with a cell magic
  (`%%bash`, ...) is dropped, except `%%time`/`%%timeit`/`%%capture`, whose body is Python.
* Only *definitions* are kept from the code: imports (a missing optional package such as
  matplotlib no longer breaks the import), functions, classes and top-level assignments
  (an assignment that fails is skipped). Other top-level statements - demo calls, prints,
  plots, training loops - are dropped, so a demo cell cannot fail or slow down the import of
  every part. A cell with a syntax error is dropped and reported.
* `%%writefile masks.py` (or any exercise file name) in a cell makes that cell's body the file
  of that name, exactly as if it had been handed in next to the notebook.
* The written answer for Exercise 2 is the markdown cell(s) tagged `explanation`, or else the
  markdown under a heading containing "Exercise 2" (up to the next heading of the same or a
  higher level, or the next code cell); the text under a "Your answer" heading if there is one.
  Markdown cells tagged `grader-feedback` are the grader's (a feedback notebook handed in
  again) and never part of the answer: its advice is not the student's explanation.

* Where each line of the code graded came from is kept (`Submission.cell_lines`: per file,
  runs of lines from one cell), so a traceback's `File "losses.py", line 215` is shown as
  `cell 7, line 4` (`grader.loading.cells`). Cells are counted from the top of the notebook,
  markdown cells included, as in the `# --- notebook cell N ---` markers.

A file that is not a readable notebook raises `SubmissionError`.
"""

from __future__ import annotations

import ast
import json
import re
import warnings
from dataclasses import replace
from pathlib import Path

from grader.loading.model import (
    CODE_PARTS,
    EXPLANATION_FILE,
    KNOWN_FILES,
    LoadLimits,
    Submission,
    SubmissionError,
    assemble,
)

_PYTHON_CELL_MAGICS = {"time", "timeit", "capture", "prun"}
_LINE_MAGIC = re.compile(r"^(\s*)(?:[%!]|\w[\w.]*\s*=\s*[%!]|[\w.]+\?{1,2}\s*$|\?{1,2}[\w.]+\s*$)")
_HEADING_START = re.compile(r"\s{0,3}(#{1,6})\s+")
_EXERCISE2 = re.compile(r"\bexercise\s*2\b", re.IGNORECASE)
_WRITEFILE = re.compile(r"^%%writefile\s+(?:(-a|--append)\s+)?(\S+)\s*$")
# the first lines of a part module made of the notebook's combined code cells
COMBINED_HEADER = (
    "# Code extracted from the notebook: imports, functions, classes and top-level\n"
    "# assignments of its code cells (other statements are not run while grading).\n"
)
# the tag of the cells the grader adds to a feedback notebook (`grader.render.ipynb`)
GRADER_CELL_TAG = "grader-feedback"


def load_notebook(path: Path, *, name: str, limits: LoadLimits) -> Submission:
    """Read a notebook file (size-capped) and turn it into a Submission."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise SubmissionError(f"{path.name} could not be read ({exc.strerror})") from None
    if size > limits.max_total_bytes:
        raise SubmissionError(
            f"{path.name} is larger than {limits.max_total_bytes // 1_000_000} MB"
        )
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SubmissionError(f"{path.name} could not be read ({exc.strerror})") from None
    return load_notebook_bytes(data, name=name, origin=str(path), limits=limits, filename=path.name)


def load_notebook_bytes(
    data: bytes, *, name: str, origin: str, limits: LoadLimits, filename: str = "the notebook"
) -> Submission:
    """Turn the bytes of an .ipynb file into a Submission (see the module docstring)."""
    import nbformat

    if len(data) > limits.max_total_bytes:
        raise SubmissionError(f"{filename} is larger than {limits.max_total_bytes // 1_000_000} MB")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise SubmissionError(
            f"{filename} is not a Jupyter notebook (it is not UTF-8 text)"
        ) from None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # nbformat's advice ("use normalize()") is not ours
            nb = nbformat.reads(text, as_version=4)
    except Exception as exc:  # noqa: BLE001 - nbformat raises many types for bad input
        detail = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
        detail = _json_problem(text) or f"it is JSON, but not in Jupyter's format: {detail}"
        raise SubmissionError(f"{filename} is not a readable Jupyter notebook ({detail})") from None
    cells = nb.get("cells")
    if not isinstance(cells, list):
        raise SubmissionError(f"{filename} is not a readable Jupyter notebook (it has no cells)")

    problems: list[str] = []
    raw: dict[str, bytes] = {}
    written_files: dict[str, str] = {}
    code_parts: list[tuple[int, str, list[Run]]] = []
    written_runs: dict[str, list[Run]] = {}  # file -> (file line, cell, cell line, count)
    future: dict[str, None] = {}
    for index, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = _cell_source(cell)
        if not source.strip():
            continue
        target = _writefile_target(source)
        if target is not None:
            fname, append, body = target
            if fname in KNOWN_FILES:
                before = written_files.get(fname, "") if append else ""
                runs = written_runs.get(fname, []) if append else []
                # the body starts on the line after `%%writefile` (leading blank lines dropped)
                first = len(source) - len(source.lstrip("\n")) + 2
                runs.append((before.count("\n") + 1, index, first, body.count("\n")))
                written_files[fname], written_runs[fname] = before + body, runs
            continue
        stripped = _strip_ipython(source)
        if stripped is None:
            continue
        python, offset = stripped
        kept, runs = _definitions_only(python, index, problems, future, offset)
        if kept:
            code_parts.append((index, kept, [(o, index, c + offset, n) for o, _, c, n in runs]))

    combined = "\n\n".join(f"# --- notebook cell {i} ---\n{k}" for i, k, _ in code_parts)
    combined = combined + "\n" if combined else ""
    combined_runs: list[Run] = []
    if combined:
        header = COMBINED_HEADER
        hoisted = "".join(f"from __future__ import {n}\n" for n in future)
        combined = hoisted + header + combined
        line = len(future) + header.count("\n") + 1  # the first part's marker line
        for _, kept, runs in code_parts:
            combined_runs += [(line + 1 + o, cell, c, n) for o, cell, c, n in runs]
            line += kept.count("\n") + 3  # marker, kept lines, blank line
    cell_lines: dict[str, tuple[Run, ...]] = {}
    for part in CODE_PARTS:
        fname = f"{part}.py"
        if fname in written_files:
            raw[fname] = written_files[fname].encode("utf-8")
            cell_lines[fname] = tuple(written_runs[fname])
        elif combined:
            raw[fname] = combined.encode("utf-8")
            cell_lines[fname] = tuple(combined_runs)
    for fname, body in written_files.items():
        raw.setdefault(fname, body.encode("utf-8"))
        if fname.endswith(".py"):
            cell_lines.setdefault(fname, tuple(written_runs[fname]))

    answer = _explanation(cells)
    if answer is not None and EXPLANATION_FILE not in raw:
        raw[EXPLANATION_FILE] = answer.encode("utf-8")
    for fname, content in raw.items():
        if len(content) > limits.max_file_bytes:
            raise SubmissionError(
                f"the code extracted from {filename} for {fname} is larger than "
                f"{limits.max_file_bytes // 1000} kB"
            )
    if not combined and not written_files:
        problems.append(f"{filename} has no code cells with definitions")
    return replace(assemble(name, origin, raw, problems), notebook=text, cell_lines=cell_lines)


def _json_problem(text: str) -> str | None:
    """Where a notebook that is not JSON breaks, in words a student can act on (only asked
    after nbformat refused the text, so a good notebook is parsed once)."""
    try:
        json.loads(text)
    except RecursionError:
        return "it nests too deeply to be a notebook"
    except ValueError as exc:
        if isinstance(exc, json.JSONDecodeError):
            end = (
                "it ends early, so it was not saved completely"
                if exc.pos >= len(text.rstrip())
                else f"{exc.msg} at line {exc.lineno}, column {exc.colno}"
            )
            return (
                f"it is not valid JSON: {end}; open it in Jupyter and save it again, or "
                "hand in the .py files"
            )
        return None
    return None


def origins(submission: Submission) -> dict[str, tuple[str, str]]:
    """Per code part of a notebook submission: where the grader looked for its functions, in
    the student's words, and a hint for a function it did not find there
    (`grader.sandbox.client.not_defined`). Empty for a submission that is no notebook. Known by
    its cell map too: a batch sends the worker the submission without the notebook's text."""
    if not submission.notebook and not submission.cell_lines:
        return {}
    skipped = any(p.startswith(SKIPPED_CELL) for p in submission.problems)
    hint = (
        "; a code cell with a syntax error was skipped whole (see the notes): fix it and its "
        "definitions are graded"
        if skipped
        else ""
    )
    out = {}
    for part, source in submission.sources.items():
        if COMBINED_HEADER in source[:4096]:
            out[part] = ("your notebook", hint)
        else:
            out[part] = (f"{part}.py (your notebook's %%writefile {part}.py cell)", "")
    return out


def _cell_source(cell: dict) -> str:
    src = cell.get("source", "")
    if isinstance(src, list):
        src = "".join(str(s) for s in src)
    return str(src).replace("\r\n", "\n")


def _writefile_target(source: str) -> tuple[str, bool, str] | None:
    first, _, body = source.lstrip("\n").partition("\n")
    m = _WRITEFILE.match(first.strip())
    if not m:
        return None
    fname = m.group(2).strip("'\"").replace("\\", "/")
    for known in KNOWN_FILES:  # `%%writefile exercises/masks.py` names masks.py
        if fname == known or fname.endswith("/" + known):
            fname = known
            break
    return fname, bool(m.group(1)), body if body.endswith("\n") or not body else body + "\n"


def _strip_ipython(source: str) -> tuple[str, int] | None:
    """Python source with IPython-only syntax neutralised, and how many cell lines come before
    its first line (a `%%time` line and the blank lines above it); None for a non-Python cell.

    Every cell line keeps its line, so an error's line is the cell's. As in IPython, a magic
    starts a statement: a `%` that continues an expression (`(a` then ` % b)`) is Python, and
    the lines a magic continues with a trailing backslash (`!pip install a` ...) belong to it."""
    lines = source.split("\n")
    offset = 0
    first = source.lstrip("\n").split("\n", 1)[0].strip()
    if first.startswith("%%"):
        magic = first[2:].split()[0] if first[2:].split() else ""
        if magic not in _PYTHON_CELL_MAGICS:
            return None
        lines = source.lstrip("\n").split("\n")[1:]
        offset = len(source) - len(source.lstrip("\n")) + 1
    candidates = [k for k, line in enumerate(lines) if _LINE_MAGIC.match(line)]
    if not candidates:  # most cells: no scan at all
        return "\n".join(lines), offset
    out = []
    state = _Open()
    in_magic = False
    for k, line in enumerate(lines):
        if k > candidates[-1] and not in_magic:  # past the last magic: the rest is Python
            out.extend(lines[k:])
            break
        m = None if state.inside() else _LINE_MAGIC.match(line)
        if in_magic:
            out.append("")  # a continuation of the magic above
        elif m:
            out.append(f"{m.group(1)}pass  # IPython-only line removed")
        else:
            out.append(line)
            state.scan(line)
            continue
        in_magic = line.endswith("\\")
        state.continued = False
    return "\n".join(out), offset


class _Open:
    """Whether the Python seen so far leaves a statement open (a bracket, a triple-quoted
    string, a `\\` at the end of a line): one pass over each line's characters."""

    def __init__(self) -> None:
        self.depth = 0
        self.quote = ""  # the triple quote of an open multi-line string
        self.continued = False

    def inside(self) -> bool:
        return bool(self.depth or self.quote or self.continued)

    def scan(self, line: str) -> None:
        i, n = 0, len(line)
        while i < n:
            if self.quote:
                end = line.find(self.quote, i)
                while end > 0 and _escaped(line, end):
                    end = line.find(self.quote, end + 1)
                if end < 0:
                    return
                i, self.quote = end + 3, ""
                continue
            m = _SPECIAL.search(line, i)  # jump over plain code: one regex step, not a loop
            if m is None:
                break
            i = m.start()
            c = line[i]
            if c == "#":
                break
            if c in "\"'":
                if line.startswith(c * 3, i):
                    self.quote = c * 3
                    i += 3
                    continue
                end = line.find(c, i + 1)
                while end > 0 and _escaped(line, end):
                    end = line.find(c, end + 1)
                i = n if end < 0 else end + 1
                continue
            if c in "([{":
                self.depth += 1
            elif c in ")]}":
                self.depth = max(0, self.depth - 1)
            i += 1
        self.continued = not self.quote and line.rstrip().endswith("\\") and "#" not in line


_SPECIAL = re.compile(r"[#'\"()\[\]{}]")


def _escaped(line: str, at: int) -> bool:
    """Whether the character at `at` is escaped by an odd run of backslashes before it."""
    k = at
    while k > 0 and line[k - 1] == "\\":
        k -= 1
    return (at - k) % 2 == 1


_KEPT = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_ASSIGN = (ast.Assign, ast.AnnAssign)


SKIPPED_CELL = "syntax error in notebook"  # how a problem about a skipped cell starts
Run = tuple[int, int, int, int]  # (first line in the file, cell, first line in the cell, count)


def _definitions_only(
    source: str, index: int, problems: list[str], future: dict[str, None], offset: int = 0
) -> tuple[str, list[Run]]:
    """The definitions of one cell's code, and where their lines come from: runs of
    (line offset in the kept text, cell, line in `source`, count). `offset`: the cell lines
    above `source` (a `%%time` line), so a syntax error names the cell's own line."""
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        where = f"cell {index}" + (f", line {exc.lineno + offset}" if exc.lineno else "")
        problems.append(
            f"{SKIPPED_CELL} {where}: {exc.msg}; the cell was skipped, so nothing "
            "defined in it was graded (run the cell in Jupyter to see the error)"
        )
        return "", []
    lines = source.split("\n")
    kept: list[str] = []
    runs: list[Run] = []
    at = 0  # lines of `kept` so far
    for node in tree.body:
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        text = "\n".join(lines[start - 1 : node.end_lineno])
        count = node.end_lineno - start + 1
        guard = None
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            for alias in node.names:  # must come first in the module: hoisted by the caller
                future.setdefault(alias.name, None)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            guard = "ImportError"
        elif isinstance(node, _ASSIGN):
            guard = "Exception"
        elif not isinstance(node, _KEPT) and not (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            continue
        piece = text if guard is None else _guard(text, guard)
        runs.append((at + (guard is not None), index, start, count))  # `try:` comes first
        kept.append(piece)
        at += piece.count("\n") + 1
    return "\n".join(kept), runs


def _guard(text: str, exc: str) -> str:
    body = "\n".join("    " + line for line in text.split("\n"))
    return f"try:\n{body}\nexcept {exc}:\n    pass"


def _explanation(cells: list) -> str | None:
    """The Exercise 2 answer as markdown (see the module docstring), or None."""
    from grader.loading.model import ANSWER_HEADING, extract_answer

    markdown = [
        (i, _cell_source(c))
        for i, c in enumerate(cells)
        if isinstance(c, dict)
        and c.get("cell_type") == "markdown"
        and GRADER_CELL_TAG not in _tags(c)
    ]
    tagged = [src for i, src in markdown if "explanation" in _tags(cells[i])]
    if tagged:
        return extract_answer("\n\n".join(tagged))
    for start, (i, src) in enumerate(markdown):
        level = _exercise2_level(src)
        if level is None:
            continue
        following = []
        for j, other in markdown[start + 1 :]:
            if any(isinstance(c, dict) and c.get("cell_type") == "code" for c in cells[i + 1 : j]):
                break
            head = _first_heading(other)
            if head is not None and head <= level and _exercise2_level(other) is None:
                break  # the next exercise (a repeated "Exercise 2" heading is the same one)
            following.append(other)
        text = "\n\n".join([src, *following])
        if ANSWER_HEADING.search(text):
            return extract_answer(text)
        # The headed cell usually asks the question and the next cell(s) answer it; when
        # nothing follows, the answer is written under the heading itself.
        answer = "\n\n".join(following).strip()
        return extract_answer(answer or _drop_heading(src))
    return None


def _tags(cell: dict) -> list[str]:
    meta = cell.get("metadata") or {}
    tags = meta.get("tags") if isinstance(meta, dict) else None
    return [str(t).strip().lower() for t in tags] if isinstance(tags, list) else []


def _heading(line: str) -> tuple[int, str] | None:
    """(level, title) of an ATX heading line ("## Exercise 2 ##"), or None.

    The closing hashes and spaces are stripped with `rstrip`: the one-regex form
    `(.*?)\\s*#*\\s*$` is cubic in a long run of spaces inside the title."""
    m = _HEADING_START.match(line)
    if m is None:
        return None
    return len(m.group(1)), line[m.end() :].rstrip().rstrip("#").rstrip()


def _exercise2_level(src: str) -> int | None:
    for line in src.split("\n"):
        h = _heading(line)
        if h and _EXERCISE2.search(h[1]):
            return h[0]
    return None


def _first_heading(src: str) -> int | None:
    for line in src.split("\n"):
        h = _heading(line)
        if h:
            return h[0]
    return None


def _drop_heading(text: str) -> str:
    lines = text.split("\n")
    for k, line in enumerate(lines):
        h = _heading(line)
        if h and _EXERCISE2.search(h[1]):
            return "\n".join(lines[k + 1 :])
    return text


def notebook_json(cells: list[dict]) -> str:
    """A minimal nbformat-4 notebook holding `cells` (used by tests and the benchmark)."""
    return json.dumps(
        {
            "cells": [
                {
                    "id": f"cell-{i}",
                    "cell_type": c.get("cell_type", "code"),
                    "metadata": c.get("metadata", {}),
                    "source": c["source"],
                    **(
                        {"outputs": [], "execution_count": None}
                        if c.get("cell_type", "code") == "code"
                        else {}
                    ),
                }
                for i, c in enumerate(cells)
            ],
            "metadata": {
                "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}
            },
            "nbformat": 4,
            "nbformat_minor": 5,
        },
        indent=1,
    )
