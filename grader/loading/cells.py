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


def to_cells(text: str, cell_lines: Mapping[str, Runs]) -> str:
    """`text` with each reference to a line of a notebook's extracted files replaced by its
    cell and line (module docstring); unchanged when `cell_lines` is empty."""
    if not cell_lines or "line " not in text:
        return text
    by_name = {name.rsplit("/", 1)[-1]: runs for name, runs in cell_lines.items()}

    def where(m: re.Match[str]) -> str:
        runs = by_name.get(f"{m.group(1)}.py")
        found = cell_of(runs, int(m.group(2))) if runs else None
        return m.group(0) if found is None else f"cell {found[0]}, line {found[1]}"

    return _WHERE.sub(where, text)
