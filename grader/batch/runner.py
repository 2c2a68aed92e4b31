"""`run_batch`: intake -> cache lookup -> warm pool for what changed -> outputs.

The order matters for resumability: every result is appended to the journal (fsynced) the
moment its worker returns it, and all the outputs are regenerated from the journal plus this
run's results at the end, even when nothing needed grading. A run killed at any point is
resumed by running the same command again.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from grader import __version__
from grader.batch.cache import Journal, cache_key, grader_fingerprint
from grader.batch.gradebook import Roster, assignment_header
from grader.batch.intake import Skipped, open_intake
from grader.batch.late import LatePolicy
from grader.batch.outputs import EntryOutcome, Settings, WriteResult, write_outputs
from grader.batch.overrides import RECORD, answer_digest, load_class_record
from grader.batch.pool import (
    Done,
    GradingPool,
    Job,
    default_workers,
    discard_zygotes,
    launch_zygotes,
)
from grader.batch.progress import Progress
from grader.batch.similarity import SimilarityOptions, fingerprints, read_prints
from grader.errors import UsageError
from grader.loading import LoadLimits, Submission, load_entries
from grader.report import GradeReport
from grader.rubric.overrides import OverridesError

CACHE_DIR = ".cache"


@dataclass
class BatchOptions:
    input: Path
    out: Path
    workers: int | None = None
    force: bool = False
    # None: what the last run in `out` used (its manifest.json), as `grader render` does; so a
    # re-run that omits them never drops the Canvas column, the roster or the late policy.
    assignment: str | None = None
    roster: Path | None = None
    no_roster: bool = False  # do not reuse the last run's roster
    # Either a full grader.pipeline.GradeOptions, or (what the CLI uses, so that a run with
    # nothing to grade never imports torch) the defaults with these changes:
    grade_options: Any = None
    grade_written: bool = True
    limit_overrides: dict[str, float] = field(default_factory=dict)
    load_limits: LoadLimits = field(default_factory=LoadLimits)
    progress: bool = True
    progress_stream: Any = None
    tty: bool | None = None
    max_tasks_per_worker: int | None = None
    fingerprint: str | None = None  # fixed by tests; normally hashed from the grader's files
    late: LatePolicy | None = None  # points off late submissions (gradebook only); None: last run's
    similarity: SimilarityOptions = field(default_factory=SimilarityOptions)


@dataclass
class BatchResult:
    layout: str
    outcomes: list[EntryOutcome]
    skipped: list[Skipped]
    graded_now: int
    from_cache: int
    grading_seconds: float
    total_seconds: float
    writes: WriteResult
    internal_errors: list[str]
    workers: int = 0
    reused: tuple[str, ...] = ()  # the last run's settings this run kept ("assignment ...")

    @property
    def graded(self) -> list[EntryOutcome]:
        return [o for o in self.outcomes if o.report is not None]

    @property
    def not_graded(self) -> list[EntryOutcome]:
        return [o for o in self.outcomes if o.report is None]


def _grade_options(opts: BatchOptions) -> Any:
    """The GradeOptions to grade with (imports the engine, hence torch: call only to grade)."""
    if opts.grade_options is not None:
        return opts.grade_options
    from dataclasses import replace

    from grader.pipeline import GradeOptions

    options = GradeOptions(grade_written=opts.grade_written)
    if opts.limit_overrides:
        options = replace(options, limits=replace(options.limits, **opts.limit_overrides))
    return options


def _options_spec(opts: BatchOptions) -> Any:
    """What the fingerprint hashes about the options, without building them."""
    if opts.grade_options is not None:
        return opts.grade_options
    return {
        "defaults": "GradeOptions",
        "grade_written": opts.grade_written,
        "limits": dict(sorted(opts.limit_overrides.items())),
    }


def _has_internal_error(report: dict[str, Any]) -> bool:
    return any(str(e).startswith("internal:") for e in report.get("errors", ()))


def run_batch(opts: BatchOptions) -> BatchResult:
    """Grade a class. Raises UsageError for an unusable INPUT/OUT; never for one bad entry."""
    t0 = time.monotonic()
    opts, reused = _with_last_settings(opts)
    assignment = assignment_header(opts.assignment or "Autograder")
    roster = Roster.load(opts.roster) if opts.roster else None
    fingerprint = opts.fingerprint or grader_fingerprint(_options_spec(opts))
    out = Path(opts.out)
    record = load_class_record(out)  # a broken record stops the run before anything is written
    out.mkdir(parents=True, exist_ok=True)
    internal: list[str] = []

    with (
        Journal(out / CACHE_DIR) as journal,
        open_intake(opts.input, opts.load_limits, exclude=(out,)) as intake,
    ):
        outcomes: list[EntryOutcome] = []
        known_prints = {} if opts.force else read_prints(out, opts.similarity)
        todo: dict[str, Submission] = {}
        waiting: dict[str, list[EntryOutcome]] = {}
        # each entry is loaded in a bounded child (time, memory), as `grader grade` loads one
        loaded = load_entries([e.load for e in intake.entries], opts.load_limits)
        for entry, result in zip(intake.entries, loaded, strict=True):
            outcome = EntryOutcome(
                entry.key,
                entry.display,
                entry.source,
                entry.members,
                entry.late,
                "unreadable",
                submitted_at=entry.submitted_at,
            )
            outcomes.append(outcome)
            sub = result.submission
            if sub is None:
                outcome.message = result.error
                continue
            outcome.answers = {part: answer_digest(text) for part, text in sub.written.items()}
            key = cache_key(sub, fingerprint)
            outcome.cache_key = key
            outcome.prints = known_prints.get(key) or fingerprints(sub, opts.similarity)
            outcome.notebook = sub.notebook
            sub = replace(sub, notebook="")  # the sandbox needs only the code
            cached = None if opts.force else journal.get_report(key)
            if cached is not None:
                _attach(outcome, cached, cached=True)
            else:
                todo.setdefault(key, sub)
                waiting.setdefault(key, []).append(outcome)
        for s in intake.skipped:
            outcomes.append(
                EntryOutcome(
                    s.key or "",
                    s.display or s.source,
                    s.source,
                    list(s.members),
                    False,
                    "unreadable",
                    message=s.message,
                )
            )

        graded_now = 0
        grading_seconds = 0.0
        workers = 0
        if todo:
            workers = min(opts.workers or default_workers(), len(todo))
            progress = Progress(
                len(todo), stream=opts.progress_stream, tty=opts.tty, enabled=opts.progress
            )
            tg = time.monotonic()

            def on_done(done: Done) -> None:
                nonlocal graded_now
                group = waiting.get(done.key, [])
                label = ", ".join(o.key for o in group[:3]) + (" ..." if len(group) > 3 else "")
                parsed = None
                if done.report is not None:
                    try:
                        parsed = GradeReport.from_dict(done.report)
                    except (KeyError, TypeError, ValueError) as exc:
                        done = Done(
                            done.key, None, f"malformed report ({exc})", done.seconds, done.worker
                        )
                if done.report is None:
                    msg = f"internal grader error: {done.error}"
                    internal.append(f"{label}: {done.error}")
                    for o in group:
                        o.status, o.message = "error", msg
                    progress.note(f"{label}: {msg}")
                    progress.advance(label, "not graded")
                    return
                if not _has_internal_error(done.report):
                    journal.append(
                        done.key,
                        done.report,
                        fingerprint=fingerprint,
                        seconds=round(done.seconds, 3),
                    )
                else:
                    internal.append(
                        f"{label}: "
                        + "; ".join(
                            e for e in done.report["errors"] if str(e).startswith("internal:")
                        )
                    )
                for o in group:
                    _attach(o, parsed, cached=False)
                graded_now += 1
                detail = f"{done.report['score']:g}/{done.report['max_score']:g}"
                progress.advance(label, detail)

            # The sandbox zygotes import torch while this process does (two cores, one wait).
            launched = launch_zygotes(workers)
            try:
                options = _grade_options(opts)
            except BaseException:
                discard_zygotes(launched)
                raise
            pool = GradingPool(
                options,
                workers,
                max_tasks_per_worker=opts.max_tasks_per_worker,
                close_in_workers=journal.inherited_fds,
                launched=launched,
            )
            with progress, pool:  # an exception (Ctrl-C) kills the workers at once
                pool.run([Job(k, s) for k, s in todo.items()], on_done)
            grading_seconds = time.monotonic() - tg

        settings = Settings(
            assignment=assignment,
            roster=roster,
            roster_path=str(Path(opts.roster).resolve()) if opts.roster else "",
            late=opts.late,
            overrides=record,
            similarity=opts.similarity,
        )
        try:
            writes = write_outputs(
                out,
                outcomes,
                layout=intake.layout,
                input_path=str(opts.input),
                assignment=assignment,
                roster=roster,
                fingerprint=fingerprint,
                version=__version__,
                settings=settings,
            )
        except OverridesError as exc:
            raise UsageError(
                f"{out / RECORD}: {exc}; fix it and run again (the grades are "
                "cached; no output was changed)"
            ) from None
        live = {o.cache_key for o in outcomes if o.cache_key}
        stale = len(journal.entries) - len(live & set(journal.entries))
        if stale > max(50, len(live)):
            journal.compact(live)
        skipped = list(intake.skipped)
        layout = intake.layout

    return BatchResult(
        layout=layout,
        outcomes=outcomes,
        skipped=skipped,
        graded_now=graded_now,
        from_cache=sum(1 for o in outcomes if o.cached),
        grading_seconds=grading_seconds,
        total_seconds=time.monotonic() - t0,
        writes=writes,
        internal_errors=internal,
        workers=workers,
        reused=reused,
    )


def _with_last_settings(opts: BatchOptions) -> tuple[BatchOptions, tuple[str, ...]]:
    """`opts` with the assignment, roster and late policy it leaves out taken from the last
    run's OUT/manifest.json, and what was taken ("" entries never). A roster the last run used
    that is gone stops the run (UsageError) before anything is written."""
    try:
        last = json.loads((Path(opts.out) / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return opts, ()
    if not isinstance(last, dict):
        return opts, ()
    changes: dict[str, Any] = {}
    reused = []
    title = last.get("assignment")
    if opts.assignment is None and isinstance(title, str) and title:
        changes["assignment"] = title
        reused.append(f"assignment {title!r}")
    path = last.get("roster")
    if opts.roster is None and not opts.no_roster and isinstance(path, str) and path:
        if not Path(path).is_file():
            raise UsageError(
                f"the roster {path} used by the last run is gone: pass --roster FILE "
                "(or --no-roster)"
            )
        changes["roster"] = Path(path)
        reused.append(f"roster {path}")
    policy = LatePolicy.from_dict(last.get("late_policy")) if opts.late is None else None
    if policy is not None:
        changes["late"] = policy
        reused.append("late policy")
    return (replace(opts, **changes) if changes else opts), tuple(reused)


def _attach(outcome: EntryOutcome, report: GradeReport, *, cached: bool) -> None:
    # one content may belong to several students: each outcome's report is named by its key
    outcome.report = replace(report, submission=outcome.key)
    outcome.status = "graded"
    outcome.cached = cached
