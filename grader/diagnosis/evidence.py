"""What each diagnosis rests on, and the pruning that keeps only consistent explanations.

A failing test names the known mistakes whose trusted model reproduces the student's output on
that test's inputs (`variants.matching`). One observation can fit several models; the other
tests of the same submission usually tell them apart. While a submission is graded, every
comparison is recorded here: which (function, id) models matched the student's output, and
which were evaluated on a test's inputs (differing from the correct answer there) and did
*not* match. After the run, `prune` drops a diagnosis from a test when

1. **it was refuted elsewhere**: the same model of the same function was evaluated on another
   failing test and did not reproduce the student's output there. A student who had that
   mistake would have failed that test the way the model predicts (a model that gives the
   correct output on a failing comparison, or whose mistake is invisible there, is refuted
   by it too); or
2. **a broader explanation covers it**: another diagnosis of the same test is named by a strict
   superset of the failing tests that name this one (the simpler account of the evidence).

A passing test is evidence too: a model that differs from the correct answer on its inputs
would have failed it. Evaluating every model on every passing comparison would slow down every
submission, so a passing check only *defers* its diagnosis (`defer`: a closure, no work). After
the run, and only when some failing test named a diagnosis, `prune` runs the deferred closures
restricted to the named ids (`focus`): a correct submission evaluates nothing.

Where the evidence lives: the ids a check's diagnosis finds come back as a `Found` (a list of
ids carrying its `Evidence`), and a failed check raises them on its `GradeFailure`
(``.evidence``), so what a failure rests on travels with the failure to the plugin. The
diagnoses deferred by passing checks go to the record of the test that is running, which the
plugin owns (`deferring_to`: a context variable points to it only while the test body runs).
Nothing here is module-level state; the catalogue text is added by the renderers, from ids.

Everything here is trusted-side bookkeeping: no student code runs, and nothing of it reaches a
report except the surviving diagnosis ids.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace

from grader.report import TestResult

Pair = tuple[str, str]  # (function, misconception id)


@dataclass
class Evidence:
    """The comparisons one check (or one test) made."""

    matched: set[Pair] = field(default_factory=set)
    refuted: set[Pair] = field(default_factory=set)
    # diagnoses of passing checks, run after the test only if the submission needs them
    deferred: list[Callable[[], object]] = field(default_factory=list)


class Found(list):  # list[str]: every caller may treat it as the ids it is
    """Misconception ids a diagnosis found, with the `Evidence` they rest on (``.evidence``).

    ``found + other`` keeps both evidences, so a test can combine two diagnoses."""

    def __init__(self, ids: Iterable[str] = (), evidence: Evidence | None = None) -> None:
        super().__init__(ids)
        self.evidence = evidence if evidence is not None else Evidence()

    def __add__(self, other: Iterable[str]) -> Found:  # type: ignore[override]
        other = list(other) if not isinstance(other, list) else other
        return Found([*self, *other], merged([self.evidence, getattr(other, "evidence", None)]))

    def __radd__(self, other: Iterable[str]) -> Found:
        return Found([*other, *self], merged([getattr(other, "evidence", None), self.evidence]))


def found(function: str, matched: Iterable[str], refuted: Iterable[str]) -> Found:
    """The ids ``matched`` by models of ``function``, noting the ``refuted`` ones."""
    ids = list(dict.fromkeys(matched))
    return Found(ids, Evidence({(function, m) for m in ids}, {(function, r) for r in refuted}))


def merged(evidences: Iterable[Evidence | None]) -> Evidence | None:
    """One record of several (None for none)."""
    out: Evidence | None = None
    for e in evidences:
        if e is None:
            continue
        if out is None:
            out = Evidence()
        out.matched |= e.matched
        out.refuted |= e.refuted
        out.deferred.extend(d for d in e.deferred if not any(d is x for x in out.deferred))
    return out


_sink: ContextVar[Evidence | None] = ContextVar("diagnosis_deferred", default=None)
_focus: ContextVar[frozenset[str] | None] = ContextVar("diagnosis_focus", default=None)


@contextmanager
def deferring_to(record: Evidence) -> Iterator[Evidence]:
    """While the block runs (one test body), `defer` keeps diagnoses in ``record``."""
    token = _sink.set(record)
    try:
        yield record
    finally:
        _sink.reset(token)


def defer(diagnose: Callable[[], object]) -> None:
    """Keep ``diagnose`` (the diagnosis of a check that passed) for `prune`, which runs it only
    if a failing test named some diagnosis. Outside a graded test it is dropped."""
    record = _sink.get()
    if record is not None and not any(d is diagnose for d in record.deferred):
        record.deferred.append(diagnose)  # one closure shared by two checks is kept once


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
    refuted: set[Pair] = set()
    with _focused(ids):
        for thunk in thunks:
            try:
                out = thunk()
            except Exception:  # noqa: BLE001 - diagnosis is best effort
                continue
            ev = getattr(out, "evidence", None)
            if ev is not None:
                refuted |= {(f, m) for f, m in ev.refuted if m in ids}
    return refuted


def prune(results: Iterable[TestResult], evidence: dict[str, Evidence]) -> tuple[TestResult, ...]:
    """`results` with inconsistent diagnoses removed (rules 1 and 2 of the module doc)."""
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
        out.append(r if tuple(ids) == r.diagnoses else replace(r, diagnoses=tuple(ids)))
    return tuple(out)
