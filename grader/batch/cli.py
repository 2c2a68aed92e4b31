"""`grader batch`: grade a whole class. Thin: parse options, call `run_batch`, summarise."""

from __future__ import annotations

import sys
from pathlib import Path

import click

_PCT = click.FloatRange(0, 100)


def late_options(f):  # type: ignore[no-untyped-def]
    """--late-penalty, --due, --late-penalty-per-day, --late-cap (see grader.batch.late)."""
    for opt in reversed(
        (
            click.option(
                "--late-penalty",
                type=_PCT,
                default=None,
                metavar="PCT",
                help="Percent of the points possible off a submission Canvas flags late "
                "(LATE_ in its file names).",
            ),
            click.option(
                "--due",
                default=None,
                metavar="ISO",
                help="Due date and time, e.g. 2026-03-01T23:59-08:00 (for exports with "
                "submission times: Gradescope).",
            ),
            click.option(
                "--late-penalty-per-day",
                type=_PCT,
                default=None,
                metavar="PCT",
                help="With --due: percent of the points possible off per started day late.",
            ),
            click.option(
                "--late-cap",
                type=_PCT,
                default=None,
                metavar="PCT",
                help="With --late-penalty-per-day: the most a late submission loses.",
            ),
        )
    ):
        f = opt(f)
    return f


@click.command()
@click.argument("input_path", metavar="INPUT", type=click.Path(path_type=Path))
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder for results.jsonl, gradebook.csv, feedback/ and report.html.",
)
@click.option(
    "--workers",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="Parallel grading processes [default: number of cores].",
)
@click.option(
    "--force", is_flag=True, help="Regrade everything, ignoring the cache of earlier runs."
)
@click.option(
    "--assignment",
    default=None,
    help='Gradebook column, e.g. "Unit 3 autograder (1234)" where 1234 is the Canvas '
    'assignment id [default: the last run\'s, else "Autograder"].',
)
@click.option(
    "--roster",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="A Canvas gradebook export (CSV) to fill in Canvas IDs, SIS ids and sections "
    "[default: the last run's].",
)
@click.option("--no-roster", is_flag=True, help="Forget the last run's roster.")
@click.option(
    "--call-timeout",
    type=click.FloatRange(min=0.1),
    default=None,
    help="Seconds one call of a student's function may take [default: the sandbox's].",
)
@click.option(
    "--submission-timeout",
    type=click.FloatRange(min=1),
    default=None,
    help="Seconds all the calls of one submission may take together (each part "
    "gets an equal share).",
)
@click.option("--no-written", is_flag=True, help="Do not score the written explanation.")
@late_options
@click.option(
    "--similarity-threshold",
    type=_PCT,
    default=50,
    show_default=True,
    metavar="PCT",
    help="Report pairs sharing at least PCT percent of their distinctive fingerprints.",
)
@click.option(
    "--similarity-max-share",
    type=_PCT,
    default=10,
    show_default=True,
    metavar="PCT",
    help="Ignore code or text found in more than PCT percent of the class.",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress output, only the summary.")
def batch(
    input_path: Path,
    out: Path,
    workers: int | None,
    force: bool,
    assignment: str | None,
    roster: Path | None,
    no_roster: bool,
    call_timeout: float | None,
    submission_timeout: float | None,
    no_written: bool,
    late_penalty: float | None,
    due: str | None,
    late_penalty_per_day: float | None,
    late_cap: float | None,
    similarity_threshold: float,
    similarity_max_share: float,
    quiet: bool,
) -> None:
    """Grade a class: a folder of submissions, a Canvas zip or a Gradescope export.

    INPUT holds one folder, .zip or .ipynb per student; or is a Canvas "Download Submissions"
    zip; or a Gradescope submissions export. Results are cached in OUT: a re-run grades only
    what changed, and a run that was interrupted resumes where it stopped.

    \b
    Examples:
      grader batch submissions.zip --out graded/ --assignment "Unit 3 (1234)"
      grader batch class/ --out graded/ --workers 2
      grader batch submissions.zip --out graded/ --force      # regrade everything
    """
    from grader.batch.late import LatePolicy
    from grader.batch.runner import BatchOptions, run_batch
    from grader.batch.similarity import SimilarityOptions
    from grader.errors import InternalError

    late = LatePolicy.from_options(late_penalty, due, late_penalty_per_day, late_cap)

    limits: dict[str, float] = {}
    if call_timeout is not None:
        limits["call_timeout"] = call_timeout
    if submission_timeout is not None:
        limits["submission_timeout"] = submission_timeout
    result = run_batch(
        BatchOptions(
            input=input_path,
            out=out,
            workers=workers,
            force=force,
            assignment=assignment,
            roster=roster,
            no_roster=no_roster,
            grade_written=not no_written,
            limit_overrides=limits,
            progress=not quiet,
            late=late,
            similarity=SimilarityOptions(
                threshold=similarity_threshold / 100, max_share=similarity_max_share / 100
            ),
        )
    )
    if result.reused:
        click.echo(f"Kept the last run's {', '.join(result.reused)} (give new ones to change).")
    graded = result.graded
    n = len(result.outcomes)
    click.echo(
        f"Graded {len(graded)} of {n} entr{'y' if n == 1 else 'ies'} ({result.layout}): "
        f"{result.graded_now} now, {result.from_cache} from the cache, "
        f"in {result.total_seconds:.1f} s"
        + (
            f" ({result.graded_now / result.grading_seconds:.1f}/s on {result.workers} "
            f"worker{'s' if result.workers != 1 else ''})"
            if result.graded_now and result.grading_seconds
            else ""
        )
        + "."
    )
    if graded:
        from grader.batch.classreport import score_centre

        # the totals the outputs were written with (overrides applied), as report.html shows
        centre = score_centre(result.writes.scores)
        click.echo(
            f"Scores: mean {centre['mean']}, median {centre['median']}, "
            f"out of {graded[0].report.max_score:g}."
        )
    for o in result.not_graded:
        click.echo(f"  not graded: {o.display or o.source} ({o.source}): {o.message}", err=True)
    for d in result.writes.duplicates:
        click.echo(
            f"  in {len(d.entries)} submissions, so no score in gradebook.csv: "
            f"{d.label()}: {d.describe()}",
            err=True,
        )
    if result.writes.overrides.summary():
        click.echo(result.writes.overrides.summary())
    click.echo(
        f"Wrote {out}/results.jsonl, gradebook.csv, feedback/, report.html "
        f"({len(result.writes.written)} file(s) changed)."
    )
    for e in result.writes.errors:
        click.echo(f"  output error: {e}", err=True)
    if result.internal_errors or result.writes.errors:
        raise InternalError(
            f"{len(result.internal_errors)} submission(s) hit an internal grader error and "
            f"{len(result.writes.errors)} output(s) failed; the rest was written. Run again to "
            "retry them."
        )
    sys.stdout.flush()


@click.command()
@click.argument("out", type=click.Path(file_okay=False, path_type=Path))
@click.option("--assignment", default=None, help="Gradebook column [default: the last run's].")
@click.option(
    "--roster",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=None,
    help="A Canvas gradebook export [default: the last run's].",
)
@click.option("--no-roster", is_flag=True, help="Forget the last run's roster.")
@late_options
def render(
    out: Path,
    assignment: str | None,
    roster: Path | None,
    no_roster: bool,
    late_penalty: float | None,
    due: str | None,
    late_penalty_per_day: float | None,
    late_cap: float | None,
) -> None:
    """Rebuild every output of a batch from its reports and overrides (no grading).

    \b
    Examples:
      grader render graded/                       # after editing graded/overrides.toml
      grader render graded/ --late-penalty 10     # another late policy
    """
    from grader.batch.late import LatePolicy
    from grader.batch.rerender import _KEEP, render_out

    late = LatePolicy.from_options(late_penalty, due, late_penalty_per_day, late_cap)
    result = render_out(
        out,
        assignment=assignment or _KEEP,
        roster=None if no_roster else (roster.resolve() if roster else _KEEP),
        late=late if late is not None else _KEEP,
    )
    if result.overrides.summary():
        click.echo(result.overrides.summary())
    click.echo(
        f"Rendered {out}: {len(result.written)} file(s) changed, {result.unchanged} unchanged."
    )
    for e in result.errors:
        click.echo(f"  output error: {e}", err=True)


@click.command("review")
@click.argument("out", type=click.Path(path_type=Path))
@click.option(
    "--overrides",
    "overrides_path",
    type=click.Path(path_type=Path),
    help='TOML file of instructor verdicts: [student.C2] verdict = "met", why = "...".',
)
@click.option(
    "--apply",
    "apply_",
    is_flag=True,
    help="Record the overrides in OUT/overrides.toml and rewrite every output.",
)
@click.option("--by", default=None, help="Who reviewed [default: your login name].")
@click.option("--part", default="explanation", show_default=True, help="Written part to review.")
@click.pass_context
def review(
    ctx: click.Context,
    out: Path,
    overrides_path: Path | None,
    apply_: bool,
    by: str | None,
    part: str,
) -> None:
    """List rubric verdicts that need an instructor, and apply instructor overrides.

    For a `grader batch` OUT the overrides are kept in OUT/overrides.toml (who, when, why)
    and --apply rewrites results.jsonl, the gradebook, the feedback and report.html.

    \b
    Examples:
      grader review out/                                   # what needs review
      grader review out/ --overrides overrides.toml        # preview the changes
      grader review out/ --overrides overrides.toml --apply
    """
    from grader.batch.rerender import is_batch_out, review_out
    from grader.rubric.cli import ReviewInputError
    from grader.rubric.cli import review as results_review
    from grader.rubric.overrides import OverridesError

    if overrides_path is None or not is_batch_out(out):  # listing, or a bare results.jsonl
        ctx.invoke(results_review, out=out, overrides_path=overrides_path, apply_=apply_, part=part)
        return
    try:
        res = review_out(out, overrides_path, apply=apply_, by=by, part=part)
    except OverridesError as exc:
        raise ReviewInputError(str(exc)) from None
    verb = "changed" if apply_ else "would change"
    for c in res.changes:
        click.echo(f"{verb}: {c}")
    for n in res.notes:
        click.echo(f"note: {n}")
    if not res.changes:
        click.echo("The overrides change nothing.")
    if res.writes is None:
        if res.changes:
            click.echo("Dry run: add --apply to record them and rewrite the outputs.")
        return
    click.echo(
        f"Recorded in {out}/overrides.toml; rewrote results.jsonl, gradebook.csv, "
        f"feedback/, report.html ({len(res.writes.written)} file(s) changed); "
        f"{res.still_need_review} answer(s) still need review."
    )
    for e in res.writes.errors:
        click.echo(f"  output error: {e}", err=True)


@click.command("sample-class")
@click.option(
    "--out",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="A new or empty folder for the class.",
)
@click.option(
    "--students",
    "-n",
    type=click.IntRange(1, 2000),
    default=12,
    show_default=True,
    help="How many students.",
)
@click.option(
    "--canvas", "layout", flag_value="canvas", help="Write a Canvas 'Download Submissions' zip."
)
@click.option(
    "--gradescope",
    "layout",
    flag_value="gradescope",
    help="Write a Gradescope export (with a group submission).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Another seed, another class.")
def sample_class(out: Path, students: int, layout: str | None, seed: int) -> None:
    """Write a synthetic class (correct, buggy, stub and hostile work) to try `grader batch`.

    \b
    Examples:
      grader sample-class --out class/ && grader batch class/ --out graded/
      grader sample-class --out canvas/ --canvas   # then: grader batch canvas/submissions.zip ...
    """
    from grader.batch.sampleclass import describe, write_sample_class

    path, people = write_sample_class(out, n=students, layout=layout or "folders", seed=seed)
    click.echo(f"Wrote {len(people)} submissions ({describe(people)}) to {path}.")
    click.echo(f"Try: grader batch {path} --out graded/ && open graded/report.html")
