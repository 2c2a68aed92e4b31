"""Every grader error carries its exit code, and the CLI maps each one to it.

The documented contract (README, docs/ci.md): 0 graded; 1 graded but below --fail-under (or a
public test failed); 2 bad usage or unreadable submission; 3 internal grader error; 130
interrupted. A command that raises each error is added to the real command groups (the
instructor's `grader` and the handout's `grader check`), so `_Group.main` is what is tested.
"""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

import grader.check_cli
import grader.cli
from grader.batch.pool import PoolError
from grader.errors import GraderError, InternalError, UsageError
from grader.loading import SubmissionError
from grader.release import ReleaseError
from grader.rubric import OverridesError, RubricError
from grader.rubric.cli import ReviewInputError

GRADER_ERRORS = [
    (SubmissionError, 2),
    (RubricError, 3),  # the installed rubric is broken: the grader's own fault
    (OverridesError, 2),
    (ReviewInputError, 2),
    (ReleaseError, 2),
    (UsageError, 2),
    (PoolError, 3),
    (InternalError, 3),
]
GROUPS = [grader.cli.main, grader.check_cli.main]


def _invoke(group: click.Group, monkeypatch: pytest.MonkeyPatch, raise_it) -> click.testing.Result:
    monkeypatch.setitem(group.commands, "boom", click.Command("boom", callback=raise_it))
    return CliRunner().invoke(group, ["boom"])


@pytest.mark.parametrize(("cls", "code"), GRADER_ERRORS, ids=lambda x: getattr(x, "__name__", x))
def test_each_grader_error_carries_its_exit_code(cls: type[GraderError], code: int):
    assert issubclass(cls, GraderError)
    assert cls.exit_code == code
    assert issubclass(cls, UsageError if code == 2 else InternalError)


def test_the_old_builtin_bases_still_catch_them():
    # code written against the old roots (`except ValueError`, `except RuntimeError`) still works
    assert issubclass(RubricError, ValueError) and issubclass(OverridesError, ValueError)
    assert issubclass(PoolError, RuntimeError)


@pytest.mark.parametrize("group", GROUPS, ids=["grader", "handout"])
@pytest.mark.parametrize(("cls", "code"), GRADER_ERRORS, ids=lambda x: getattr(x, "__name__", x))
def test_the_cli_exits_with_the_errors_code_and_one_line(
    group: click.Group, cls: type[GraderError], code: int, monkeypatch: pytest.MonkeyPatch
):
    def raise_it() -> None:
        raise cls("the roster is empty")

    res = _invoke(group, monkeypatch, raise_it)
    assert res.exit_code == code, res.output
    assert res.output.strip() == "Error: the roster is empty"


@pytest.mark.parametrize("group", GROUPS, ids=["grader", "handout"])
@pytest.mark.parametrize(
    ("exc", "code"),
    [
        (click.UsageError("no such option"), 2),
        (click.BadParameter("not a number"), 2),
        (click.exceptions.Abort(), 130),
        (click.exceptions.Exit(0), 0),
        (SystemExit(1), 1),  # graded but below --fail-under
        (RuntimeError("a grader bug"), 3),  # the last line of defence
    ],
    ids=["click-usage", "click-bad-parameter", "abort", "exit-0", "exit-1", "bug"],
)
def test_click_exceptions_exits_and_bugs(
    group: click.Group, exc: BaseException, code: int, monkeypatch: pytest.MonkeyPatch
):
    def raise_it() -> None:
        raise exc

    res = _invoke(group, monkeypatch, raise_it)
    assert res.exit_code == code, res.output
    assert "Traceback" not in res.output
    if code == 3:
        assert "Internal grader error: RuntimeError: a grader bug" in res.output


def test_an_interrupt_exits_130(monkeypatch: pytest.MonkeyPatch):
    def raise_it() -> None:
        raise KeyboardInterrupt

    res = _invoke(grader.cli.main, monkeypatch, raise_it)
    assert res.exit_code == 130, res.output
