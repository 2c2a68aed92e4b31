"""grade(): load -> sandbox + suite -> rubric -> GradeReport. Usable without the CLI.

`Grader` keeps the warm pieces (the sandbox zygote with torch imported, the reference
solutions, the rubric) so many submissions can be graded in one process; `grade_path` is the
one-shot convenience. Nothing here writes files or prints.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass, field, replace
from pathlib import Path

import torch

from grader import __version__
from grader.loading import (
    LoadLimits,
    Submission,
    SubmissionError,
    assemble,
    load_one,
    load_submission,
)
from grader.loading.cells import to_cells
from grader.loading.notebook import origins as notebook_origins
from grader.report import CriterionResult, GradeReport, TestResult, WrittenResult
from grader.sandbox.client import SandboxSession, Zygote
from grader.sandbox.launch import Launched
from grader.sandbox.limits import SandboxLimits
from grader.sandbox.wire import EncodedModels
from grader.suite.cases import Cases, resolve_secret
from grader.suite.context import SubmissionContext, SuiteCaches
from grader.suite.pinned import PinnedReference
from grader.suite.proxy import ReferenceProxy, StudentProxy
from grader.suite.runner import PreparedSuite, Suite

BASIC_MODE_NOTE = (
    "sandbox: graded in basic mode (not root, no namespaces), which does not fully contain "
    "hostile code; grade as root for official results (see docs/security.md)"
)


@dataclass(frozen=True)
class GradeOptions:
    """How to grade. `suite="public"` is the student self-check (`grader check`)."""

    suite: Suite = "hidden"
    limits: SandboxLimits = field(default_factory=SandboxLimits)
    jail: bool = True
    grade_written: bool = True
    keyword: str | None = None
    # Exercise 3: rerun the drill and check its note (not when a keyword selects some tests:
    # the drill is not one of them). Also in the public self-check: nothing in it is hidden.
    grade_drill: bool = True
    # Seeds the per-submission test inputs (grader.suite.cases); None: $GRADER_CASE_SECRET_FILE,
    # $GRADER_CASE_SECRET or the public default. Never written to a report.
    case_secret: str | None = field(default=None, repr=False)


class Grader:
    """A reusable grading engine. Use as a context manager.

    Not thread-safe: grade one submission at a time per Grader (a batch runs one Grader per
    pool process). Each `grade()` builds a `SubmissionContext` (its student proxy, drawn
    inputs, this grader's caches) and hands it to the prepared suite, whose one pytest thread
    runs its tests; `slot` only picks the sandbox uid, it does not make concurrent calls safe.
    The caches kept across submissions belong to this object: the reference memo (on
    `reference`), the variant outputs and the trusted test models (`SuiteCaches`), and the
    encoded models its sandbox sessions send (`grader.sandbox.wire.EncodedModels`).

    `long_lived`: this grader will grade many submissions (a batch worker): its sandbox spends
    ~0.3 s at start to make every later worker cheaper to start.
    """

    def __init__(self, options: GradeOptions | None = None, *, long_lived: bool = False) -> None:
        self.options = options or GradeOptions()
        # The reference and the trusted TinyLM work on tiny tensors: a thread pool only adds
        # fork/join overhead, and one thread makes both sides reduce in the same order.
        torch.set_num_threads(1)
        self.zygote = Zygote(jail=self.options.jail, huge_pages=long_lived)
        self.reference = ReferenceProxy()
        self._encoded = EncodedModels()  # the trusted models its sessions send, encoded once
        self._caches: SuiteCaches | None = None  # made on the first hidden-suite run
        self._suites: dict[tuple[str, str | None], PreparedSuite] = {}
        self._secrets: dict[str | None, bytes] = {}  # resolved once per explicit value

    def start(self) -> Grader:
        """Start the sandbox's zygote now (otherwise the first grade does); returns self."""
        self.zygote.start()
        return self

    def close(self) -> None:
        """Close every prepared suite and the zygote, ending their processes."""
        for suite in self._suites.values():
            suite.close()
        self._suites.clear()
        self.zygote.close()

    def _prepared_suite(self) -> PreparedSuite:
        """The collected suite for the current options (collected once per suite/keyword)."""
        key = (self.options.suite, self.options.keyword)
        if key not in self._suites:
            # The public self-check answers from pinned values, as it must in the student
            # handout (no solutions there): both run exactly the same tests the same way.
            reference = PinnedReference() if self.options.suite == "public" else self.reference
            self._suites[key] = PreparedSuite(
                self.options.suite, reference, keyword=self.options.keyword
            )
            # Everything alive now (torch, pytest, the collected tests) lives as long as the
            # grader: keep it out of the collector's generations so later collections are cheap.
            gc.collect()
            gc.freeze()
        return self._suites[key]

    def _suite_caches(self) -> SuiteCaches | None:
        """This grader's caches for the hidden suite (the public one keeps none: it runs in
        the student handout, which has no trusted models)."""
        if self.options.suite != "hidden":
            return None
        if self._caches is None:
            self._caches = SuiteCaches()
        return self._caches

    def _case_secret(self) -> bytes:
        explicit = self.options.case_secret
        if explicit not in self._secrets:
            self._secrets[explicit] = resolve_secret(explicit)
        return self._secrets[explicit]

    def __enter__(self) -> Grader:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def grade(self, submission: Submission, *, slot: int = 0) -> GradeReport:
        """Grade one loaded submission. Student failures are report data, never exceptions."""
        self.start()
        if not self.zygote.alive():  # the sandbox itself died (e.g. killed by the OOM killer)
            self.zygote.close()
            self.zygote.start()
        with SandboxSession(
            self.zygote,
            submission.sources,
            self.options.limits,
            slot=slot,
            missing=submission.missing,
            encoded=self._encoded,
            origins=notebook_origins(submission),
        ) as session:
            cases = Cases.for_submission(self._case_secret(), submission.sources)
            suite = self._prepared_suite()
            context = SubmissionContext(
                StudentProxy(session, cases=cases), suite.reference, cases, self._suite_caches()
            )
            run = suite.run(context)
            drill, drill_errors = self._grade_drill(submission, session)
        written = {}
        if self.options.grade_written and self.options.suite == "hidden":
            written["explanation"] = grade_explanation(submission)
        errors = list(submission.problems) + [
            f"internal: {e}" for e in (*run.internal_errors, *drill_errors)
        ]
        if not self.zygote.jailed and self.options.suite == "hidden":
            errors.append(BASIC_MODE_NOTE)
        tests = run.results + drill
        if submission.cell_lines:  # a notebook: its lines are named by cell
            tests = tuple(
                replace(t, message=to_cells(t.message, submission.cell_lines)) for t in tests
            )
        return GradeReport(
            grader_version=__version__,
            submission=submission.name,
            tests=tests,
            written=written,
            errors=tuple(errors),
        )

    def _grade_drill(
        self, submission: Submission, session: SandboxSession
    ) -> tuple[tuple[TestResult, ...], tuple[str, ...]]:
        """Exercise 3's checks (after every other part's tests, in a worker of its own), and
        internal errors: a grader failure here costs the drill's points, never the grade."""
        opts = self.options
        if not (opts.grade_drill and opts.keyword is None):
            return (), ()
        from grader.drill import grade_drill, missing_drill

        try:
            return grade_drill(submission.files, session), ()
        except Exception as exc:  # noqa: BLE001 - e.g. SandboxUnavailable: the grader's fault
            why = "the grader could not rerun or check the drill; an instructor will look at it"
            tests = tuple(replace(t, status="error", message=why) for t in missing_drill(why))
            return tests, (f"drill: {type(exc).__name__}: {str(exc)[:300]}",)


def grade_explanation(submission: Submission) -> WrittenResult:
    """Score Exercise 2, or a zero with a clear message when it was not handed in."""
    from grader.rubric.scorer import load_rubric, score_explanation

    text = submission.written.get("explanation")
    if text is not None:
        return score_explanation(text)
    rubric = load_rubric()
    return WrittenResult(
        score=0.0,
        max_score=float(sum(c.weight for c in rubric.criteria)),
        needs_review=False,
        criteria=tuple(
            CriterionResult(
                id=c.id,
                verdict="missing",
                evidence="",
                feedback="explanation.md was not found in your submission.",
            )
            for c in rubric.criteria
        ),
        summary="No explanation.md was handed in, so Exercise 2 scores 0.",
    )


def unreadable_submission(path: str | Path, message: str) -> Submission:
    """A Submission with nothing in it, every part missing because of `message` (why the
    whole submission could not be read): grading it gives every check 0 with that reason."""
    p = Path(path)
    reason = f"{message}, so nothing in the submission could be graded"
    sub = assemble(p.stem if p.suffix else p.name, str(p), {}, [message])
    return replace(sub, missing={part: reason for part in sub.missing}, problems=(message,))


def grade_path(
    path: str | Path,
    options: GradeOptions | None = None,
    *,
    launched: Launched | None = None,
    grade_unreadable: bool = False,
) -> GradeReport:
    """Load and grade one submission folder, zip or notebook (raises SubmissionError if
    unreadable, unless `grade_unreadable`: then every check scores 0 with the reason, for
    platforms that need a complete result for every submission).

    A folder without exercise files is graded from its one notebook or one .zip, as
    `grader batch` grades a student's folder (a Gradescope upload of a notebook, say).
    `launched`: a zygote started early with `grader.sandbox.launch.launch_zygote` (the CLI does
    this before importing torch, so both processes import it at the same time).
    """
    grader = Grader(options)
    grader.zygote.launch(launched)  # torch imports in the sandbox while we load here
    try:
        limits = LoadLimits()
        try:
            # the same guarded loading as one entry of `grader batch` (bounded time and memory)
            submission = load_one(lambda: load_submission(path, limits=limits), limits)
        except SubmissionError as exc:
            if not grade_unreadable:
                raise
            submission = unreadable_submission(path, str(exc))
        return grader.grade(submission)
    finally:
        grader.close()
