"""From a notebook's code cell to the Python the grader keeps (`grader.loading.notebook`).

Nothing here runs the student's code. A cell is read as text: `writefile_target` tells a
`%%writefile masks.py` cell from a code cell, `strip_ipython` neutralises IPython-only lines
(`%magic`, `!shell`, `name?`) keeping every line where it was, and `definitions_only` keeps
the imports, functions, classes and top-level assignments (guarded), with runs that map each
kept line back to its cell (`grader.loading.cells`). A cell with a syntax error is dropped and
reported as a problem that starts with `SKIPPED_CELL`.
"""

from __future__ import annotations

import ast
import re

from grader.loading.model import KNOWN_FILES

_PYTHON_CELL_MAGICS = {"time", "timeit", "capture", "prun"}
_LINE_MAGIC = re.compile(r"^(\s*)(?:[%!]|\w[\w.]*\s*=\s*[%!]|[\w.]+\?{1,2}\s*$|\?{1,2}[\w.]+\s*$)")
_WRITEFILE = re.compile(r"^%%writefile\s+(?:(-a|--append)\s+)?(\S+)\s*$")


def cell_source(cell: dict) -> str:
    src = cell.get("source", "")
    if isinstance(src, list):
        src = "".join(str(s) for s in src)
    return str(src).replace("\r\n", "\n")


def writefile_target(source: str) -> tuple[str, bool, str] | None:
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


def strip_ipython(source: str) -> tuple[str, int] | None:
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


def definitions_only(
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
