"""A student's odd return value is the student's failure, never a grader error.

Property: for every hidden test family, a submission whose functions return an odd value
(None, [], a string, a dict, a huge int, a nested list, a wrong-shape / wrong-dtype / empty
tensor, a pair with a hole ...) ends every test passed, failed, missing, timeout or error *as
the student's* (a message for the student) - never an internal grader error, which would
make `grader batch` exit 3.

Each submission is the reference solution with every public function wrapped: the wrapper
calls the real function and replaces its result by the odd value always, on even calls or on
odd calls (so call sites after a correct first call are reached too). One grade through the
real sandbox per (odd value, cadence).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from exercises import TASKS
from grader.batch.runner import _has_internal_error
from grader.loading.model import Submission

ROOT = Path(__file__).resolve().parents[1]
# part -> its functions, in task order (exercises.TASKS is the one list of them)
FUNCTIONS: dict[str, tuple[str, ...]] = {}
for _part, _name in TASKS.values():
    FUNCTIONS[_part] = (*FUNCTIONS.get(_part, ()), _name)
# name -> expression of the odd value; `out` is what the real function returned
ODD_VALUES = {
    "none": "None",
    "empty_list": "[]",
    "string": "'not a tensor'",
    "dict": "{'logits': 1}",
    "huge_int": "10 ** 30",
    "nested_list": "[[1, [2.5, None]], (3,)]",
    "wrong_shape": "torch.zeros(3, 1, 2)",
    "empty_tensor": "torch.zeros(0)",
    "as_bool": "_first(out).bool()",
    "unsqueezed": "_first(out)[None]",
    "pair_with_hole": "(_first(out), None)",
}
CADENCES = {"always": "True", "even_calls": "n % 2 == 0", "odd_calls": "n % 2 == 1"}
WRAPPER = """

import torch as _odd_torch


def _first(x):
    return x[0] if isinstance(x, tuple) and x else x


def _odd(function):
    calls = [0]

    def wrapped(*args, **kwargs):
        calls[0] += 1
        n = calls[0]
        out = function(*args, **kwargs)
        if {cadence}:
            torch = _odd_torch
            return {value}
        return out

    return wrapped
"""
ALLOWED = {"passed", "failed", "missing", "timeout", "error"}


def _sources(value: str, cadence: str) -> dict[str, str]:
    out = {}
    for part, names in FUNCTIONS.items():
        src = (ROOT / "solutions" / f"{part}.py").read_text(encoding="utf-8")
        src += WRAPPER.format(cadence=cadence, value=value)
        src += "".join(f"{name} = _odd({name})\n" for name in names)
        out[part] = src
    return out


@pytest.fixture(scope="module")
def grader(shared_grader):
    return shared_grader  # the session's warm grader (tests/conftest.py): same options


@pytest.mark.parametrize("cadence", sorted(CADENCES))
@pytest.mark.parametrize("value", sorted(ODD_VALUES))
def test_odd_return_is_a_student_failure(grader, value, cadence):
    sources = _sources(ODD_VALUES[value], CADENCES[cadence])
    sub = Submission(name=f"odd-{value}-{cadence}", origin="tests", sources=sources, missing={})
    report = grader.grade(sub)
    assert report.tests, "no test ran"
    internal = [e for e in report.errors if e.startswith("internal")]
    assert not internal, internal
    assert not _has_internal_error(report.to_dict())  # what makes `grader batch` exit 3
    for t in report.tests:
        assert t.status in ALLOWED, (t.id, t.status)
        assert "the grader could not check" not in t.message, (t.id, t.message)
        if t.status != "passed":
            assert t.message.strip(), t.id
    if cadence == "always" and "out" not in ODD_VALUES[value]:
        # a result that is not even a tensor passes only the tests where the real function
        # raises first (the documented errors)
        passed = [t.id for t in report.tests if t.status == "passed"]
        assert all(tid.endswith("contract_errors") for tid in passed), passed
