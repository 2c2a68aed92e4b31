"""What each diagnosis rests on, and the pruning that keeps only consistent explanations.

A failing test names the known mistakes whose trusted model reproduces the student's output on
that test's inputs (`variants.matching`). One observation can fit several models; the other
tests of the same submission usually tell them apart. While a submission is graded, every
comparison is recorded here: which (function, id) models matched the student's output, and
which were evaluated on a test's inputs (differing from the correct answer there) and did
*not* match. After the run, `prune` drops a diagnosis from a test when

1. **it was refuted elsewhere**: the same model of the same function was evaluated on another
   failing test and did not reproduce the student's output there. A student who had that
   mistake would have failed that test the way the model predicts; or
2. **a broader explanation covers it**: another diagnosis of the same test is named by a strict
   superset of the failing tests that name this one (the simpler account of the evidence).

A passing test is evidence too: a model that differs from the correct answer on its inputs
would have failed it. Evaluating every model on every passing comparison would slow down every
submission, so a passing check only *defers* its diagnosis (`defer`: a closure, no work). After
the run, and only when some failing test named a diagnosis, `prune` runs the deferred closures
restricted to the named ids (`focus`): a correct submission evaluates nothing.

Everything here is trusted-side bookkeeping: no student code runs, and nothing of it reaches a
report except the surviving diagnosis ids and their catalogue text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace

from grader.diagnosis import explain_ids, strip_explanations
from grader.report import TestResult

Pair = tuple[str, str]  # (function, misconception id)


@dataclass
class Evidence:
    """The comparisons made while one test ran."""

    matched: set[Pair] = field(default_factory=set)
    refuted: set[Pair] = field(default_factory=set)
    # diagnoses of passing checks, run after the test only if the submission needs them
    deferred: list[Callable[[], object]] = field(default_factory=list)


_current = Evidence()
_focus: ContextVar[frozenset[str] | None] = ContextVar("diagnosis_focus", default=None)


def record(function: str, matched: Iterable[str], refuted: Iterable[str]) -> None:
    """Note what one comparison found (called by the matching functions)."""
    _current.matched.update((function, m) for m in matched)
    _current.refuted.update((function, r) for r in refuted)


def defer(diagnose: Callable[[], object]) -> None:
    """Keep ``diagnose`` (the diagnosis of a check that passed) for `prune`, which runs it only
    if a failing test named some diagnosis; it records its evidence like any other."""
    if not any(d is diagnose for d in _current.deferred):  # one closure shared by two checks
        _current.deferred.append(diagnose)


def focus() -> frozenset[str] | None:
    """The only ids worth evaluating now (None: all). Set while deferred diagnoses run."""
    return _focus.get()


@contextmanager
def _focused(ids: frozenset[str]) -> Iterator[None]:
    token = _focus.set(ids)
    try:
        yield
    finally:
        _focus.reset(token)


def _run_deferred(thunks: Iterable[Callable[[], object]], ids: frozenset[str]) -> set[Pair]:
    """The pairs the deferred diagnoses refute, evaluated for ``ids`` only."""
    global _current
    saved, _current = _current, Evidence()
    try:
        with _focused(ids):
            for thunk in thunks:
                try:
                    thunk()
                except Exception:  # noqa: BLE001 - diagnosis is best effort
                    continue
        return {(f, m) for f, m in _current.refuted if m in ids}
    finally:
        _current = saved


def take() -> Evidence:
    """The evidence recorded since the last call, which starts a new record."""
    global _current
    out, _current = _current, Evidence()
    return out


def prune(results: Iterable[TestResult], evidence: dict[str, Evidence]) -> tuple[TestResult, ...]:
    """`results` with inconsistent diagnoses removed (rules 1 and 2 of the module doc) and
    each changed message's appended explanations rewritten to match."""
    results = tuple(results)
    refuted: set[Pair] = set()
    for r in results:
        if r.status != "passed" and r.id in evidence:
            refuted |= evidence[r.id].refuted
    named = frozenset(d for r in results if r.status != "passed" for d in r.diagnoses)
    if named:  # a correct submission (or one with nothing named) evaluates nothing more
        thunks = [t for r in results if r.id in evidence for t in evidence[r.id].deferred]
        refuted |= _run_deferred(thunks, named)

    def consistent(r: TestResult) -> list[str]:
        ev = evidence.get(r.id, Evidence())
        keep = []
        for d in r.diagnoses:
            via = {f for f, m in ev.matched if m == d}
            if via and all((f, d) in refuted for f in via):
                continue
            keep.append(d)
        return keep

    kept = {r.id: consistent(r) for r in results}
    support: dict[str, set[str]] = {}
    for tid, ids in kept.items():
        for d in ids:
            support.setdefault(d, set()).add(tid)
    out = []
    for r in results:
        ids = kept[r.id]
        if len(ids) > 1:
            ids = [d for d in ids if not any(support[d] < support[a] for a in ids if a != d)]
        if tuple(ids) == r.diagnoses:
            out.append(r)
            continue
        message = strip_explanations(r.message) + explain_ids(ids)
        out.append(replace(r, diagnoses=tuple(ids), message=message))
    return tuple(out)
