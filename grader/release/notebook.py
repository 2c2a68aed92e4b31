"""The student notebook: the stubs, their contracts, Exercise 2 and the drill in one .ipynb.

Built with nbformat from the stub modules in `exercises/`, so it always matches them:

* per part, a markdown cell with the module's contract, a code cell with the module's own
  code (imports, constants, classes) and, per function, its contract as markdown and a code
  cell with its stub;
* Exercise 2's prompt, and a markdown cell tagged ``explanation`` for the answer;
* the drill's instructions; a last cell that runs the public checks on the saved notebook.

Every code cell carries ``metadata.grader = {"module": ..., "function": ...}`` (function
None for a module's own code). The grader's notebook loader (`grader.loading.notebook`)
reads it like any other notebook: definitions from the code cells, the tagged answer.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from grader.parts import CODE_PARTS

NOTEBOOK_NAME = "student.ipynb"
PART_TITLES = {
    "masks": "Part A - masks and attention (`masks.py`)",
    "corruption": "Part B - masked-LM corruption (`corruption.py`)",
    "losses": "Part C - the two objectives (`losses.py`)",
    "generation": "Part D - generation (`generation.py`)",
}


def split_module(source: str) -> tuple[str, str, list[tuple[str, str, str]]]:
    """(module docstring, the module's own code, [(function, docstring, source)]) of a part.

    The module's own code is everything at top level except the docstring and the public
    functions (imports, constants, classes, private helpers), in order.
    """
    tree = ast.parse(source)
    lines = source.split("\n")
    doc = ast.get_docstring(tree) or ""
    own: list[str] = []
    functions: list[tuple[str, str, str]] = []
    for i, node in enumerate(tree.body):
        if i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        text = "\n".join(lines[start - 1 : node.end_lineno])
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
            functions.append((node.name, ast.get_docstring(node) or "", text))
        else:
            own.append(text)
    return doc, "\n".join(own), functions


def _code(source: str, module: str, function: str | None) -> Any:
    import nbformat.v4 as nbf

    return nbf.new_code_cell(source, metadata={"grader": {"module": module, "function": function}})


def build_notebook(exercises: Path, readme: str) -> Any:
    """The student notebook (an nbformat NotebookNode) from the stubs in `exercises`."""
    import nbformat.v4 as nbf

    cells = [
        nbf.new_markdown_cell(
            "# Causal, masked and encoder objectives\n\n"
            "Implement every function below in place of its stub (each raises "
            "`NotImplementedError` until you do), write your Exercise 2 answer in the cell "
            "tagged `explanation`, then run the last cell. You may hand in this notebook "
            "instead of the `.py` files: only definitions (imports, functions, classes, "
            "assignments) are graded; other statements are ignored while grading."
        )
    ]
    for part in CODE_PARTS:
        doc, own, functions = split_module((exercises / f"{part}.py").read_text("utf-8"))
        cells.append(nbf.new_markdown_cell(f"## {PART_TITLES.get(part, part)}\n\n{doc}"))
        if own.strip():
            cells.append(_code(own.strip() + "\n", part, None))
        for name, fdoc, text in functions:
            cells.append(nbf.new_markdown_cell(f"### `{name}`\n\n```text\n{fdoc}\n```"))
            cells.append(_code(text + "\n", part, name))
    prompt = (exercises / "explanation.md").read_text("utf-8").split("## Your answer", 1)[0]
    cells.append(nbf.new_markdown_cell(prompt.strip()))
    cells.append(
        nbf.new_markdown_cell(
            "<!-- Replace this comment with your answer (150-400 words). -->",
            metadata={"tags": ["explanation"]},
        )
    )
    drill = readme.split("## Exercise 3", 1)[-1].split("\n## ", 1)[0]
    cells.append(nbf.new_markdown_cell("## Exercise 3" + drill.rstrip()))
    cells.append(
        nbf.new_markdown_cell(
            "## Check your work\n\nSave the notebook, then run the cell below: it runs the "
            "public tests on the saved notebook (exit code 0 when all pass)."
        )
    )
    cells.append(nbf.new_code_cell(f"!grader check {NOTEBOOK_NAME}"))
    nb = nbf.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}  # fmt: skip
    return nb


def write_notebook(nb: Any, path: Path) -> None:
    """Validate `nb` against the notebook schema and write it to `path` (ValidationError, nothing
    written, when invalid)."""
    import nbformat

    nbformat.validate(nb)
    path.write_text(nbformat.writes(nb), encoding="utf-8")
