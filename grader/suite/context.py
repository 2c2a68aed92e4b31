"""One submission's state for its suite run, and the caches a `Grader` lends it.

The `Grader` builds a `SubmissionContext` per submission and puts it on the prepared suite's
job queue; the suite thread runs every test against it, and tests reach it through one
fixture, ``submission`` (``student``, ``reference`` and ``cases`` are its fields)::

    def test_x(submission):
        big = submission.once("corruption.big", lambda: run_big(submission.student))

Nothing per submission lives in a module or in pytest's session: a new context per
submission, dropped with its results.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import Any

from grader.suite.cases import FIXED_CASES, Cases


class SuiteCaches:
    """The speed caches one `Grader` keeps for its hidden-suite runs (the reference memo is
    its `ReferenceProxy`'s): what variants output (`grader.diagnosis.memo.VariantOutputs`)
    and the trusted test models (`grader.trusted_tinylm.TrustedModels`). Trusted side only."""

    def __init__(self) -> None:
        from grader.diagnosis.memo import VariantOutputs
        from grader.trusted_forward import install_fast_forward
        from grader.trusted_tinylm import TrustedModels

        install_fast_forward()  # the trusted models' cheaper forward (same logits)
        self.variant_outputs = VariantOutputs()
        self.models = TrustedModels()

    @contextmanager
    def in_use(self) -> Iterator[None]:
        """These caches serve the variant runs and model builds of this context."""
        from grader import trusted_tinylm
        from grader.diagnosis import memo

        with memo.remembering(self.variant_outputs), trusted_tinylm.using(self.models):
            yield


@dataclass
class SubmissionContext:
    """What a suite run needs for one submission: its `StudentProxy`, the reference, its
    drawn inputs, and the grader's caches (None: nothing kept across submissions)."""

    student: Any
    reference: Any
    cases: Cases = FIXED_CASES
    caches: SuiteCaches | None = None
    _once: dict[Any, tuple[bool, Any]] = field(default_factory=dict, repr=False)

    def once(self, key: Any, compute: Callable[[], Any]) -> Any:
        """``compute()`` at most once per submission: later calls with the same key return
        its result, or raise its exception again (a result several tests read)."""
        if key not in self._once:
            try:
                self._once[key] = (True, compute())
            except Exception as exc:  # noqa: BLE001 - re-raised in every reader
                self._once[key] = (False, exc)
        ok, value = self._once[key]
        if ok:
            return value
        raise value

    @contextmanager
    def in_use(self) -> Iterator[None]:
        """Run this submission's tests (and their deferred diagnoses) in here."""
        with ExitStack() as stack:
            if self.caches is not None:
                stack.enter_context(self.caches.in_use())
            yield


def as_context(job: SubmissionContext | Any, reference: Any) -> SubmissionContext:
    """`job` itself, or a bare student proxy (or None) wrapped with `reference`, its own
    `cases` and no caches (one-shot runs: `run_suite`)."""
    if isinstance(job, SubmissionContext):
        return job
    return SubmissionContext(job, reference, getattr(job, "cases", FIXED_CASES))
