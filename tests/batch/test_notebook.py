"""Notebook submissions: what is taken from the code cells, the answer cell, corrupt files."""

from __future__ import annotations

import json

import pytest

from grader.loading import LoadLimits, SubmissionError, load_submission
from grader.loading.notebook import load_notebook_bytes, notebook_json
from grader.testing import SOLUTIONS


def _load(cells, **kw):
    data = notebook_json(cells).encode()
    return load_notebook_bytes(data, name="nb", origin="<nb>", limits=LoadLimits(), **kw)


def test_definitions_are_kept_and_demo_code_dropped():
    sub = _load(
        [
            {"cell_type": "code", "source": "%matplotlib inline\nimport torch\n!pip install x"},
            {
                "cell_type": "code",
                "source": "from __future__ import annotations\n"
                "SCALE = 2\n\n@staticmethod\ndef helper(x):\n"
                "    return x * SCALE\n",
            },
            {
                "cell_type": "code",
                "source": "print(helper(3))\nfor i in range(10**9):\n    pass\n"
                "result = helper(1)\n",
            },
            {"cell_type": "code", "source": "def broken(:\n    pass\n"},
            {"cell_type": "code", "source": "%%bash\necho hi\n"},
            {"cell_type": "code", "source": "%%time\ndef timed():\n    %timeit 1\n    return 1\n"},
        ]
    )
    src = sub.sources["masks"]
    assert src.startswith("from __future__ import annotations\n")
    compile(src, "masks.py", "exec")
    assert "def helper" in src and "SCALE = 2" in src and "result = helper(1)" in src
    assert "print(helper(3))" not in src and "range(10**9)" not in src
    assert "echo hi" not in src and "def timed" in src
    assert all(sub.sources[p] == src for p in ("corruption", "losses", "generation"))
    assert any("syntax error in notebook cell 4, line 1" in p for p in sub.problems)


def test_reference_notebook_compiles_and_runs_in_a_namespace():
    cells = [
        {"cell_type": "code", "source": (SOLUTIONS / f"{p}.py").read_text()}
        for p in ("masks", "corruption", "losses", "generation")
    ]
    sub = _load(cells)
    ns: dict = {}
    exec(compile(sub.sources["masks"], "masks.py", "exec"), ns)
    assert callable(ns["causal_mask"]) and callable(ns["mask_tokens"])


def test_writefile_cells_become_files():
    sub = _load(
        [
            {
                "cell_type": "code",
                "source": "%%writefile masks.py\ndef causal_mask(n):\n    return n\n",
            },
            {"cell_type": "code", "source": "def other():\n    return 1\n"},
        ]
    )
    assert sub.sources["masks"] == "def causal_mask(n):\n    return n\n"
    assert "def other" in sub.sources["losses"]


@pytest.mark.parametrize(
    "cells, answer",
    [
        (
            [
                {"cell_type": "markdown", "source": "## Exercise 2\nWhy?"},
                {"cell_type": "markdown", "source": "Because of the mask."},
                {"cell_type": "markdown", "source": "## Exercise 3\nlater"},
            ],
            "Because of the mask.",
        ),
        (
            [{"cell_type": "markdown", "source": "### Exercise 2: explain\n\nMy own answer here."}],
            "My own answer here.",
        ),
        ([{"cell_type": "markdown", "source": "# Exercise 2\nQ\n## Your answer\nA1"}], "A1"),
        (
            [
                {"cell_type": "markdown", "source": "## Exercise 2: masked vs causal"},
                {"cell_type": "markdown", "source": "# Exercise 2\n\n## Your answer\n\nA2"},
            ],
            "A2",
        ),
        (
            [
                {
                    "cell_type": "markdown",
                    "source": "Tagged answer",
                    "metadata": {"tags": ["explanation"]},
                },
                {"cell_type": "markdown", "source": "## Exercise 2\nother"},
            ],
            "Tagged answer",
        ),
    ],
)
def test_explanation_cell(cells, answer):
    assert _load(cells).written["explanation"] == answer


def test_no_explanation_and_no_code():
    sub = _load([{"cell_type": "markdown", "source": "hello"}])
    assert "explanation" not in sub.written
    assert set(sub.missing) == {"masks", "corruption", "losses", "generation"}


@pytest.mark.parametrize(
    "data",
    [
        b"{not json",
        b'{"cells": 3}',
        b"\xff\xfe\x00garbage",
        json.dumps([1, 2]).encode(),
    ],
)
def test_corrupt_notebook_is_a_submission_error(data):
    with pytest.raises(SubmissionError, match="notebook"):
        load_notebook_bytes(data, name="nb", origin="<nb>", limits=LoadLimits())


def test_load_submission_dispatches_ipynb(tmp_path):
    path = tmp_path / "alice.ipynb"
    path.write_text(notebook_json([{"cell_type": "code", "source": "def f():\n    return 1\n"}]))
    sub = load_submission(path)
    assert sub.name == "alice" and "def f" in sub.sources["masks"]
    big = tmp_path / "big.ipynb"
    big.write_bytes(b" " * 100)
    with pytest.raises(SubmissionError, match="larger"):
        load_submission(big, limits=LoadLimits(max_total_bytes=10))
