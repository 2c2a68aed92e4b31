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

A file that is not a readable notebook raises `SubmissionError`. How one code cell becomes
the Python kept (magics, `%%writefile`, definitions only, line runs) is in
`grader.loading.notebook_code`; this module walks the cells, assembles the part modules and
finds the written answer in the markdown.
"""

from __future__ import annotations

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
from grader.loading.notebook_code import (
    SKIPPED_CELL,
    Run,
    cell_source,
    definitions_only,
    strip_ipython,
    writefile_target,
)

_HEADING_START = re.compile(r"\s{0,3}(#{1,6})\s+")
_EXERCISE2 = re.compile(r"\bexercise\s*2\b", re.IGNORECASE)
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
        source = cell_source(cell)
        if not source.strip():
            continue
        target = writefile_target(source)
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
        stripped = strip_ipython(source)
        if stripped is None:
            continue
        python, offset = stripped
        kept, runs = definitions_only(python, index, problems, future, offset)
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


def _explanation(cells: list) -> str | None:
    """The Exercise 2 answer as markdown (see the module docstring), or None."""
    from grader.loading.model import ANSWER_HEADING, extract_answer

    markdown = [
        (i, cell_source(c))
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
