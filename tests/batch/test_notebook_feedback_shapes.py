"""Every notebook the loader grades gets its feedback notebook.

The loader reads a notebook tolerantly (it takes the cells it can use), the feedback copy
assumed well-formed cells: a cell without `cell_type`, or an nbformat-3 notebook with a cell
whose metadata is no mapping, was graded and then raised in `feedback_notebook`, and every run
of `grader batch` ended "output(s) failed" (exit 3) because of that one student."""

from __future__ import annotations

import json
import random
import warnings

import nbformat

from grader.loading import LoadLimits, SubmissionError
from grader.loading.notebook import load_notebook_bytes
from grader.render.ipynb import feedback_notebook, notebook_html
from grader.report import GradeReport, WrittenResult
from grader.report import TestResult as Check

REPORT = GradeReport(
    "t",
    "s",
    (Check("masks.causal_mask", "masks", "causal_mask", 1.0, 1.0, "passed"),),
    {"explanation": WrittenResult(1.0, 10.0, False, ())},
)
ANSWER = {"cell_type": "markdown", "metadata": {}, "source": "## Exercise 2\nBERT sees both."}
CODE = {"cell_type": "code", "metadata": {}, "source": "def causal_mask(n):\n    return n\n",
        "outputs": [], "execution_count": None}  # fmt: skip
ODD = [None, 1, "x", [], [1, "a"], {}, {"a": 1}, True, 2.5, {"tags": "explanation"},
       [{"output_type": "stream", "name": "stdout", "text": 1}], [{"output_type": "x"}],
       [{"output_type": "display_data", "data": {"text/plain": 1}, "metadata": {}}],
       {"a.png": {"image/png": 5}}, -1]  # fmt: skip


def _feedback(nb: dict) -> str | None:
    """The feedback notebook, or None when the loader refuses the notebook."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            sub = load_notebook_bytes(
                json.dumps(nb).encode(), name="s", origin="s", limits=LoadLimits()
            )
        except SubmissionError:
            return None
        text = feedback_notebook(sub.notebook, REPORT)
        nbformat.reads(text, as_version=4)  # a notebook again
    return text


def test_a_cell_without_a_type_and_an_old_notebook_get_their_feedback():
    untyped = {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
               "cells": [CODE, {"source": "x", "metadata": {}}, ANSWER]}  # fmt: skip
    v3 = {"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": [
        {"cells": [{"cell_type": "markdown", "source": "## Exercise 2\nx", "metadata": "bad"}]}
    ]}  # fmt: skip
    for nb in (untyped, v3):
        text = _feedback(nb)
        assert text is not None and "Grader feedback" in text
        assert "Grader feedback" in notebook_html(text)


def test_odd_cell_shapes_never_break_the_feedback_notebook():
    rng = random.Random(19)
    keys = ["cell_type", "metadata", "source", "outputs", "execution_count", "id", "attachments"]
    for _ in range(300):
        cells = []
        for _ in range(rng.randrange(1, 4)):
            cell = dict(rng.choice([CODE, ANSWER]))
            for k in rng.sample(keys, rng.randrange(1, 3)):
                if rng.random() < 0.3:
                    cell.pop(k, None)
                else:
                    cell[k] = rng.choice(ODD)
            cells.append(cell)
        version = rng.choice([3, 4])
        nb = (
            {"nbformat": 4, "nbformat_minor": 5, "metadata": rng.choice([{}, "m"]), "cells": cells}
            if version == 4
            else {"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": [
                {"cells": cells}]}
        )  # fmt: skip
        _feedback(nb)  # raises on the first notebook the loader grades and the copy cannot take
