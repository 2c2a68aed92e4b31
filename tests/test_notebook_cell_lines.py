"""A notebook student reads locations as cells: a traceback of the code extracted from a
notebook says `cell 7, line 4`, not `File "losses.py", line 215` (a line of the combined code
the student never sees), in every report format (`grader.loading.cells`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.loading import LoadLimits
from grader.loading.cells import cell_of, to_cells
from grader.loading.notebook import load_notebook_bytes, notebook_json
from grader.pipeline import GradeOptions, grade_path
from grader.render import render_report

ROOT = Path(__file__).resolve().parents[1]
PARTS = ("masks", "corruption", "losses", "generation")


def _load(cells: list[dict]):
    data = notebook_json(cells).encode()
    return load_notebook_bytes(data, name="nb", origin="nb.ipynb", limits=LoadLimits())


CELLS = [
    {"cell_type": "markdown", "source": "# Exercises"},
    {
        "cell_type": "code",
        "source": "import torch\nimport not_installed_pkg\nprint('hi')\n"
        "SCALE = 2\n\n\n@staticmethod\ndef helper(x):\n"
        "    '''doc'''\n    return x * SCALE\n",
    },  # fmt: skip
    {
        "cell_type": "code",
        "source": "helper(3)\n%matplotlib inline\nfrom math import pi\nclass Box:\n    size = 3\n",
    },  # fmt: skip
    {"cell_type": "code", "source": "\n%%time\ndef timed():\n    return 1\n"},
    {
        "cell_type": "code",
        "source": "%%writefile exercises/generation.py\nimport torch\n\n"
        "def greedy_generate(model, ids, n):\n    raise KeyError\n",
    },  # fmt: skip
    {"cell_type": "code", "source": "%%writefile -a generation.py\ndef more():\n    pass\n"},
]


def _cell_lines(cells: list[dict]) -> dict[int, list[str]]:
    out = {}
    for i, c in enumerate(cells, start=1):
        out[i] = c["source"].split("\n")
    return out


def test_every_mapped_line_is_the_cells_own_line():
    """Each line of each extracted file that maps to a cell holds that cell line's text."""
    sub = _load(CELLS)
    cell_text = _cell_lines(CELLS)
    assert set(sub.cell_lines) == {f"{p}.py" for p in PARTS}
    checked = 0
    for fname, runs in sub.cell_lines.items():
        lines = sub.sources[fname[:-3]].split("\n")
        for n, text in enumerate(lines, start=1):
            where = cell_of(runs, n)
            if where is None:
                continue
            cell, line = where
            assert cell_text[cell][line - 1].strip() == text.strip(), (fname, n, where)
            checked += 1
    assert checked > 20
    combined = sub.sources["losses"].split("\n")
    at = next(n for n, t in enumerate(combined, start=1) if "return x * SCALE" in t)
    assert cell_of(sub.cell_lines["losses.py"], at) == (2, 10)
    at = next(n for n, t in enumerate(combined, start=1) if "return 1" in t)
    assert cell_of(sub.cell_lines["losses.py"], at) == (4, 4)  # below `%%time`
    body = sub.sources["generation"].split("\n")
    assert cell_of(sub.cell_lines["generation.py"], body.index("    raise KeyError") + 1) == (5, 5)
    assert cell_of(sub.cell_lines["generation.py"], body.index("    pass") + 1) == (6, 3)


def test_references_are_rewritten_and_added_lines_left_alone():
    runs = {"losses.py": ((10, 7, 2, 3),), "drill/experiment.py": ((1, 9, 2, 40),)}
    tb = ('  File "losses.py", line 11, in causal_lm_loss\n    raise RuntimeError\n'
          '  File "losses.py", line 3, in <module>\n'
          '  File "experiment.py", line 5, in main\n'
          "syntax error in losses.py, line 12: x")  # fmt: skip
    assert to_cells(tb, runs) == (
        "  cell 7, line 3, in causal_lm_loss\n    raise RuntimeError\n"
        '  File "losses.py", line 3, in <module>\n'  # a line the loader added: kept as it was
        "  cell 9, line 6, in main\nsyntax error in cell 7, line 4: x"
    )
    assert to_cells(tb, {}) == tb  # not a notebook
    long = 'File "losses.py", line 11 ' * 20_000  # student text: one linear pass
    assert to_cells(long, runs).count("cell 7, line 3") == 20_000


BROKEN = (
    "# my loss, rewritten\n"
    "print('checking')\n"
    "def causal_lm_loss(logits, input_ids, attention_mask=None):\n"
    "    B, T, V = logits.shape\n"
    "    raise RuntimeError('boom')\n"
)


def test_a_graded_notebook_names_the_cell_and_line_in_every_report(tmp_path):
    cells = [{"cell_type": "markdown", "source": "# Exercises"}]
    for p in PARTS:
        cells.append({"source": (ROOT / "solutions" / f"{p}.py").read_text(encoding="utf-8")})
    cells.append({"source": BROKEN})
    path = tmp_path / "work.ipynb"
    path.write_text(notebook_json(cells), encoding="utf-8")
    options = GradeOptions(grade_written=False, grade_drill=False, keyword="causal_lm_loss")
    report = grade_path(path, options)
    failed = [t for t in report.tests if t.status != "passed"]
    assert failed
    for t in failed:
        assert "cell 6, line 5, in causal_lm_loss" in t.message, t.message
        assert 'losses.py", line' not in t.message, t.message
    for fmt in ("md", "html", "text", "json", "gradescope", "junit", "github"):
        assert "cell 6, line 5" in render_report(report, fmt), fmt


@pytest.mark.parametrize("lines", [0, 1])
def test_a_cell_without_definitions_maps_nothing(lines):
    sub = _load([{"source": "print(1)\n" * lines + "x = 1"}])
    runs = sub.cell_lines["masks.py"]
    assert [cell_of(runs, n) for n in range(1, 20)].count((1, lines + 1)) == 1


@pytest.mark.parametrize(
    ("source", "line"),
    [
        ("\n%%time\nimport torch\n\ndef f(:\n    return 1\n", 5),  # blank line, cell magic
        ("%%capture out\ndef k():\n    return (\n", 3),
        ("%%timeit -n 1\nx = 1\ny = = 2\n", 3),
        ("%timeit 1\n!pip install torch\ndef h(:\n    pass\n", 3),  # line magics keep lines
    ],
)
def test_a_syntax_error_names_the_cells_own_line(source, line):
    """The line counts the cell as the student sees it in Jupyter, the magic line included."""
    sub = _load([{"cell_type": "markdown", "source": "# Ex"}, {"source": source}])
    errors = [p for p in sub.problems if "syntax error" in p]
    assert errors and errors[0].startswith(f"syntax error in notebook cell 2, line {line}:")


def test_magics_are_read_where_ipython_reads_them():
    """A magic's backslash continuation belongs to it (the cell is not a syntax error), and a
    `%` continuing an expression or inside a docstring is Python, left as it is."""
    cells = [
        {"source": "!pip install torch \\\n    numpy\ndef g():\n    return 1\n"},
        {"source": "def m(a, b):\n    return (a\n            % b)\n"},
        {"source": "def d():\n    '''\n    %timeit runs nothing here\n    '''\n    return 1\n"},
    ]
    sub = _load(cells)
    assert not [p for p in sub.problems if "syntax error" in p]
    ns: dict = {}
    exec(compile(sub.sources["masks"], "masks.py", "exec"), ns)
    assert ns["g"]() == 1 and ns["m"](7, 4) == 3 and "%timeit runs nothing" in ns["d"].__doc__


def test_github_annotations_land_on_the_notebooks_own_line(tmp_path):
    """`--format github` on a notebook (handed in as the .ipynb, or a folder holding it): the
    annotation is on the notebook, at the file line holding the cell line the traceback names,
    with `cell N, line M` in its title, as tracebacks say it (leftover 3)."""
    import nbformat

    from grader.render.github import github_output

    cells = [nbformat.v4.new_markdown_cell("# Exercises")]
    for p in PARTS:
        cells.append(nbformat.v4.new_code_cell((ROOT / "solutions" / f"{p}.py").read_text()))
    cells.append(nbformat.v4.new_code_cell(BROKEN))
    cells.append(nbformat.v4.new_markdown_cell("## Exercise 2\n\nA masked LM sees both sides."))
    text = nbformat.writes(nbformat.v4.new_notebook(cells=cells))  # Jupyter's layout
    (tmp_path / "work").mkdir()
    path = tmp_path / "work" / "hw.ipynb"
    path.write_text(text, encoding="utf-8")
    options = GradeOptions(grade_drill=False, keyword="causal_lm_loss")
    report = grade_path(path, options)
    line = 1 + next(i for i, t in enumerate(text.split("\n")) if "RuntimeError('boom')" in t)
    env = {"GITHUB_WORKSPACE": str(tmp_path)}
    for graded in (path, tmp_path / "work"):
        out = github_output(report, graded, env)
        errors = [a for a in out.splitlines() if a.startswith("::error ")]
        assert errors, out
        for a in errors:
            assert a.startswith(f"::error file=work/hw.ipynb,line={line},title="), a
            assert "at cell 6%2C line 5%3A" in a, a  # the title, escaped as a property
        # the written answer is a markdown cell of the notebook: no explanation.md exists
        assert any(a.startswith("::warning file=work/hw.ipynb,") for a in out.splitlines())


def test_notebook_file_lines_survives_hostile_text():
    from grader.loading.cells import notebook_file_lines

    good = notebook_json([{"source": "a = 1\nb = 2\n"}])
    assert notebook_file_lines(good)[(1, 2)] == notebook_file_lines(good)[(1, 1)]
    for bad in (
        good[: len(good) // 2],
        "]]]}}}",
        '{"cells": [{"source": [1, {"x": "y"}]}]}',
        '{"cells": "x"}',
        '{"cells": [{"source": ["\\ud800"]}]}',
        "[" * 100_000,
    ):
        assert isinstance(notebook_file_lines(bad), dict)
    import tracemalloc

    tracemalloc.start()
    try:
        notebook_file_lines("[" * 1_000_000)  # nesting is capped: memory does not follow it
        assert tracemalloc.get_traced_memory()[1] < 5_000_000
    finally:
        tracemalloc.stop()


def test_a_function_the_notebook_lacks_is_named_in_notebook_terms():
    """The sandbox says `losses.py does not define ...`: a file a notebook student never made.
    A `%%writefile losses.py` file is one they made, and keeps its name."""
    msg = "calling f() raised AttributeError: losses.py does not define a function named 'f'"
    combined = _load([{"source": "def g():\n    return 1\n"}])
    out = to_cells(msg, combined.cell_lines)
    assert "losses.py" not in out and "your notebook does not define a function named 'f'" in out
    written = _load([{"source": "%%writefile losses.py\ndef g():\n    return 1\n"}])
    assert to_cells(msg, written.cell_lines) == msg
    assert to_cells(msg, {}) == msg  # not a notebook


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (b'{"cells": [\n  {"cell_type": "code",', "it ends early, so it was not saved completely"),
        (b'{"cells": [],\n "x": tru}', "Expecting value at line 2, column 7"),
        (b'{"cells": 3}', "it is JSON, but not in Jupyter's format"),
    ],
)
def test_a_broken_notebook_says_where_and_what_to_do(data, says):
    from grader.loading import SubmissionError

    with pytest.raises(SubmissionError) as err:
        load_notebook_bytes(
            data, name="s", origin="s.ipynb", limits=LoadLimits(), filename="s.ipynb"
        )
    assert says in str(err.value) and "does not appear to be JSON" not in str(err.value)


def test_a_notebook_with_a_cell_missing_its_id_loads_without_a_library_warning():
    # A 4.5 notebook one of whose cells has no id (a cell pasted in by another editor):
    # nbformat warned "MissingIDFieldWarning ... use normalize()" on the student's screen in
    # grader check, advice meant for nbformat's caller that the student cannot act on.
    import json
    import warnings

    data = json.loads(notebook_json(CELLS))
    data["nbformat_minor"] = 5
    for i, cell in enumerate(data["cells"]):
        cell["id"] = f"c{i}"
    del data["cells"][1]["id"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sub = load_notebook_bytes(
            json.dumps(data).encode(), name="nb", origin="nb.ipynb", limits=LoadLimits()
        )
    assert [str(w.message) for w in caught] == []
    assert "def helper" in sub.sources["masks"]
