"""One mistake, named once: a diagnosis also explains the failures it causes downstream.

Some mistakes change more results than the check that finds them. A sampler that draws from
torch's global RNG is named by the check that sees the global state change
(`sampling_generator_only`), but it also makes every seeded draw differ: the sampler's own
seeded tests and those of `sample_generate`, which calls it, fail with no model of a mistake
matching (a global draw cannot be reproduced). Left alone, the feedback would list those as
failures no known mistake explains, next to the one mistake that explains them all.

So after `evidence.prune`, a failed check with no diagnosis of its own takes the diagnoses of
other failed checks that reach it: a catalogue entry with ``downstream = "seeded"`` explains
every failed check that called, *with a generator*, the function the mistake was found in or
a function that calls it (`grader.parts.CALLS`, the call graph the handout documents). The
function a diagnosis was found in is the one its evidence names, else the functions the
finding check called. Points never change here: only which mistake a failure is shown under.

Trusted-side bookkeeping on ids and function names; no student code runs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from functools import cache

from grader.diagnosis import describe
from grader.diagnosis.evidence import Evidence
from grader.parts import CALLS
from grader.report import TestResult

Calls = frozenset[tuple[str, bool]]  # (function, given a generator) pairs of one test
# the line `explain` adds to a failure it explains: such a failure is a consequence of the
# mistake, not more evidence for it (`grader.render.view.likely_misconceptions`)
FOLLOWS = "\n  This follows from a mistake found by "


@cache
def callees(function: str) -> frozenset[str]:
    """`function` and every function it calls, directly or not (`CALLS`)."""
    seen, todo = {function}, [function]
    while todo:
        for g in CALLS.get(todo.pop(), ()):
            if g not in seen:
                seen.add(g)
                todo.append(g)
    return frozenset(seen)


def _reaches(scope: str, calls: Calls, found_in: frozenset[str]) -> bool:
    if scope != "seeded":
        return False
    return any(seeded and not callees(f).isdisjoint(found_in) for f, seeded in calls)


def explain(
    results: Iterable[TestResult],
    calls: Mapping[str, Calls],
    evidence: Mapping[str, Evidence],
) -> tuple[TestResult, ...]:
    """`results` where each failed check without a diagnosis takes those of the failed checks
    whose mistake reaches it (module docstring), with a line naming the check that found it.

    `calls`: per test id, the functions the test called (`StudentProxy.functions_called`);
    `evidence`: per test id, what its diagnoses rest on (`evidence.prune`'s input)."""
    results = tuple(results)
    sources: list[tuple[str, str, frozenset[str]]] = []  # (id, found by test, found in)
    for r in results:
        if r.status != "failed":
            continue
        for d in r.diagnoses:
            m = describe(d)
            if m is None or not m.downstream:
                continue
            ev = evidence.get(r.id)
            where = frozenset(f for f, mid in ev.matched if mid == d) if ev else frozenset()
            where = where or frozenset(f for f, _ in calls.get(r.id, ()))
            if where:
                sources.append((d, r.id, where))
    if not sources:
        return results
    out = []
    for r in results:
        made = calls.get(r.id)
        if r.status != "failed" or r.diagnoses or not made:
            out.append(r)
            continue
        ids: dict[str, str] = {}
        for d, by, where in sources:
            if d not in ids and _reaches(describe(d).downstream, made, where):
                ids[d] = by
        if not ids:
            out.append(r)
            continue
        note = "".join(f"{FOLLOWS}{by}: {describe(d).title}." for d, by in ids.items())
        out.append(replace(r, message=r.message + note, diagnoses=tuple(ids)))
    return tuple(out)
