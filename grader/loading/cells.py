"""File lines of a notebook's code, named as the student sees them: the cell and its line.

A notebook is graded as code the loader extracts from it (`grader.loading.notebook`): every
part module holds the combined definitions of all code cells, and a `%%writefile` cell's body
is a file of its own. A traceback of that code says ``File "losses.py", line 215``, a line of
a file the student never saw. `to_cells` rewrites each such reference with the loader's runs
(`Submission.cell_lines`) into what the student can find:

    File "losses.py", line 215, in causal_lm_loss   ->   cell 7, line 4, in causal_lm_loss
    syntax error in masks.py, line 12: ...          ->   syntax error in cell 3, line 2: ...

A line the loader added (a guard around an import) is left as it was. Messages are student
text: one linear regex pass, and a binary search per reference.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Mapping

from grader.parts import CODE_PARTS

Runs = tuple[tuple[int, int, int, int], ...]  # (first file line, cell, first cell line, count)

_NAMES = "|".join([*CODE_PARTS, "experiment"])
# 'File "losses.py", line 12' (a traceback) or 'losses.py, line 12' (a syntax error)
_WHERE = re.compile(rf'(?:File ")?\b({_NAMES})\.py"?, line (\d{{1,9}})\b')


def cell_of(runs: Runs, line: int) -> tuple[int, int] | None:
    """(cell, line in the cell) of `line` of a file with these runs; None for an added line."""
    i = bisect_right(runs, (line, float("inf"))) - 1
    if i < 0:
        return None
    start, cell, first, count = runs[i]
    return (cell, first + line - start) if line < start + count else None


# the sandbox's words for a function the part module lacks (grader/sandbox/worker.py)
_UNDEFINED = re.compile(rf"\b({_NAMES})\.py does not define a function named '(\w{{1,100}})'")


def to_cells(text: str, cell_lines: Mapping[str, Runs]) -> str:
    """`text` with each reference to a line of a notebook's extracted files replaced by its
    cell and line (module docstring); unchanged when `cell_lines` is empty. "losses.py does
    not define a function named 'f'" becomes "your notebook does not define ..." when that
    file is the notebook's combined code (a `%%writefile losses.py` file keeps its name)."""
    if not cell_lines:
        return text
    by_name = {name.rsplit("/", 1)[-1]: runs for name, runs in cell_lines.items()}
    if "does not define" in text:
        text = _UNDEFINED.sub(lambda m: _undefined(m, by_name), text)
    if "line " not in text:
        return text

    def where(m: re.Match[str]) -> str:
        runs = by_name.get(f"{m.group(1)}.py")
        found = cell_of(runs, int(m.group(2))) if runs else None
        return m.group(0) if found is None else f"cell {found[0]}, line {found[1]}"

    return _WHERE.sub(where, text)


def _undefined(m: re.Match[str], by_name: Mapping[str, Runs]) -> str:
    runs = by_name.get(f"{m.group(1)}.py")
    if runs and runs[0][0] == 1:  # a %%writefile file starts at its first line; combined
        return m.group(0)  # code starts below the loader's header comment
    return (
        f"your notebook does not define a function named '{m.group(2)}' (check the cell that "
        "should: its name, and the notes for a cell skipped because of an error)"
    )


# the tokens of a JSON text that matter for where a cell's lines sit: strings and punctuation
_JSON_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|[{}\[\],:]')
_MAX_DEPTH = 200
_CELL_REF = re.compile(r"\bcell (\d{1,9}), line (\d{1,9})\b")


def cell_ref(message: str) -> tuple[int, int] | None:
    """(cell, line) of the last `cell N, line M` a message names (`to_cells` wrote it)."""
    found = None
    for m in _CELL_REF.finditer(message):
        found = (int(m.group(1)), int(m.group(2)))
    return found


def notebook_file_lines(text: str) -> dict[tuple[int, int], int]:
    """Where each cell line sits in the .ipynb file itself: (cell, line in the cell) -> line
    of the file (1-based), for annotations on the notebook (GitHub's `file=...,line=...`).

    Cells count from 1 as in `to_cells`; a `source` held as one string puts all its lines on
    the file line of that string. One linear pass of a regex over the text (no JSON object is
    built), so a hostile notebook costs what its size costs; anything unexpected maps nothing.
    """
    out: dict[tuple[int, int], int] = {}
    stack: list[list] = []  # [kind, key or index, expecting a key]
    line, pos = 1, 0
    cell_line = 1
    for m in _JSON_TOKEN.finditer(text):
        line += text.count("\n", pos, m.start())
        pos = m.start()
        tok = m.group(0)
        top = stack[-1] if stack else None
        if tok in "{[":
            if top is not None and top[0] == "obj" and top[2]:
                return out  # malformed: a container where a key belongs
            if len(stack) >= _MAX_DEPTH:  # no notebook nests so deep: memory stays bounded
                return out
            stack.append(["obj", None, True] if tok == "{" else ["arr", 0, False])
            if _at_source(stack):
                cell_line = 1
        elif tok in "}]":
            if not stack:
                return out
            stack.pop()
        elif tok == ",":
            if top is None:
                return out
            if top[0] == "obj":
                top[2] = True
            else:
                top[1] += 1
        elif tok == ":":
            continue
        elif top is not None and top[0] == "obj" and top[2]:
            top[1], top[2] = tok[1:-1], False
        elif _at_source(stack) or _at_source(stack, whole=True):
            try:
                breaks = _json_string(tok).count("\n")
            except ValueError:
                return out
            cell = stack[1][1] + 1
            if len(stack) == 3:  # the whole source in one string: every line on this one
                cell_line = 1
                for k in range(1, breaks + 2):
                    out.setdefault((cell, k), line)
            else:
                out.setdefault((cell, cell_line), line)
                cell_line += breaks
    return out


def _at_source(stack: list[list], *, whole: bool = False) -> bool:
    """Whether the position is in `cells[i].source`: its list (depth 4) or, with `whole`, the
    one string it may be instead (depth 3)."""
    depth = 3 if whole else 4
    if len(stack) != depth or stack[0][0] != "obj" or stack[0][1] != "cells":
        return False
    if stack[1][0] != "arr" or stack[2][0] != "obj" or stack[2][1] != "source":
        return False
    return whole or stack[3][0] == "arr"


def _json_string(token: str) -> str:
    import json

    value = json.loads(token)
    if not isinstance(value, str):
        raise ValueError(token)
    return value
