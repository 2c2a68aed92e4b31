"""exercises/ and solutions/ expose the same API; every stub is an unattempted task."""

from __future__ import annotations

import doctest
import importlib
import inspect
import re
from types import ModuleType

import pytest
import torch

import exercises

PARTS = ("masks", "corruption", "losses", "generation")
TASKS = exercises.TASKS


def _module(package: str, part: str) -> ModuleType:
    return importlib.import_module(f"{package}.{part}")


def _public_functions(module: ModuleType) -> set[str]:
    return {
        name
        for name, obj in vars(module).items()
        if inspect.isfunction(obj)
        and obj.__module__ == module.__name__
        and not name.startswith("_")
    }


class _Model:
    max_seq_len = 4

    def __call__(self, ids: torch.Tensor) -> torch.Tensor:
        return torch.zeros(*ids.shape, 5)


# one set of plausible arguments per task; a stub must raise before looking at them
_IDS = torch.tensor([[1, 2, 3]])
_ARGS: dict[str, tuple[tuple, dict]] = {
    "1.1": ((3,), {}),
    "1.2": ((torch.ones(1, 3, dtype=torch.long),), {}),
    "1.3": ((None, 3, True), {}),
    "1.4": ((torch.zeros(1, 1, 3, 2), torch.zeros(1, 1, 3, 2), torch.zeros(1, 1, 3, 2)), {}),
    "2.1": ((_IDS,), {"mask_token_id": 4, "vocab_size": 5, "special_token_ids": [0, 4]}),
    "3.1": ((torch.zeros(1, 3, 5), _IDS), {}),
    "3.2": ((torch.zeros(1, 3, 5), _IDS), {}),
    "4.1": ((_Model(), _IDS, 2), {}),
    "4.2": ((torch.zeros(2, 5),), {}),
    "4.3": ((_Model(), _IDS, 2), {}),
    "4.4": ((_Model(), _IDS), {}),
}


def test_task_table_is_complete_and_one_id_per_function() -> None:
    assert sorted(TASKS) == sorted(_ARGS)
    assert len(set(TASKS.values())) == len(TASKS)
    for part in PARTS:
        listed = {fn for (p, fn) in TASKS.values() if p == part}
        assert _public_functions(_module("exercises", part)) == listed, part
        assert _public_functions(_module("solutions", part)) == listed, part


@pytest.mark.parametrize("task", sorted(TASKS))
def test_reference_twin_has_the_same_signature(task: str) -> None:
    part, name = TASKS[task]
    stub = getattr(_module("exercises", part), name)
    ref = getattr(_module("solutions", part), name)
    assert inspect.signature(stub) == inspect.signature(ref)


@pytest.mark.parametrize("task", sorted(TASKS))
def test_stub_raises_not_implemented_naming_its_task(task: str) -> None:
    part, name = TASKS[task]
    stub = getattr(_module("exercises", part), name)
    args, kwargs = _ARGS[task]
    with pytest.raises(NotImplementedError) as info:
        stub(*args, **kwargs)
    message = str(info.value)
    assert message.startswith(f"Task {task}: "), message
    assert re.fullmatch(r"Task \d\.\d: [A-Z0-9a-z(].{20,}\.", message), message


@pytest.mark.parametrize("task", sorted(TASKS))
def test_stub_docstring_states_the_contract(task: str) -> None:
    part, name = TASKS[task]
    doc = inspect.getdoc(getattr(_module("exercises", part), name))
    assert doc.startswith(f"Task {task}: ")
    for section in ("Returns:", "Edge cases:", "Example"):
        assert section in doc, f"{name}: no {section!r} section"
    assert ">>> " in doc, f"{name}: no worked example"


@pytest.mark.parametrize("part", PARTS)
def test_stub_examples_hold_for_the_reference(part: str) -> None:
    """Each worked example in a stub's docstring, run against the reference, is correct."""
    reference = _module("solutions", part)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    tests = [t for t in doctest.DocTestFinder().find(_module("exercises", part)) if t.examples]
    assert tests
    for test in tests:
        test.globs = dict(vars(reference))
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0
