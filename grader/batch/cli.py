"""`grader batch`: grade a whole class. Thin: parse options, call `run_batch`, summarise."""

from __future__ import annotations

import sys
from pathlib import Path

import click


@click.command()
@click.argument("input_path", metavar="INPUT", type=click.Path(path_type=Path))
@click.option("--out", "out", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Folder for results.jsonl, gradebook.csv, feedback/ and report.html.")
@click.option("--workers", "-j", type=click.IntRange(min=1), default=None,
              help="Parallel grading processes [default: number of cores].")
@click.option("--force", is_flag=True,
              help="Regrade everything, ignoring the cache of earlier runs.")
@click.option("--assignment", default="Autograder", show_default=True,
              help='Gradebook column, e.g. "Unit 3 autograder (1234)" where 1234 is the Canvas '
                   "assignment id.")
@click.option("--roster", type=click.Path(dir_okay=False, exists=True, path_type=Path),
              help="A Canvas gradebook export (CSV) to fill in Canvas IDs, SIS ids and sections.")
@click.option("--call-timeout", type=click.FloatRange(min=0.1), default=None,
              help="Seconds one call of a student's function may take [default: the sandbox's].")
@click.option("--submission-timeout", type=click.FloatRange(min=1), default=None,
              help="Seconds all the calls of one submission may take together (each part "
                   "gets an equal share).")
@click.option("--no-written", is_flag=True, help="Do not score the written explanation.")
@click.option("--quiet", "-q", is_flag=True, help="No progress output, only the summary.")
def batch(input_path: Path, out: Path, workers: int | None, force: bool, assignment: str,
          roster: Path | None, call_timeout: float | None, submission_timeout: float | None,
          no_written: bool, quiet: bool) -> None:
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
    from grader.batch.runner import BatchOptions, run_batch
    from grader.errors import InternalError

    limits: dict[str, float] = {}
    if call_timeout is not None:
        limits["call_timeout"] = call_timeout
    if submission_timeout is not None:
        limits["submission_timeout"] = submission_timeout
    result = run_batch(BatchOptions(
        input=input_path, out=out, workers=workers, force=force, assignment=assignment,
        roster=roster, grade_written=not no_written, limit_overrides=limits, progress=not quiet,
    ))
    graded = result.graded
    n = len(result.outcomes)
    click.echo(
        f"Graded {len(graded)} of {n} entr{'y' if n == 1 else 'ies'} ({result.layout}): "
        f"{result.graded_now} now, {result.from_cache} from the cache, "
        f"in {result.total_seconds:.1f} s"
        + (f" ({result.graded_now / result.grading_seconds:.1f}/s on {result.workers} "
           f"worker{'s' if result.workers != 1 else ''})"
           if result.graded_now and result.grading_seconds else "")
        + "."
    )
    if graded:
        scores = sorted(o.report.score for o in graded)
        mean = sum(scores) / len(scores)
        click.echo(f"Scores: mean {mean:.2f}, median {scores[len(scores) // 2]:g}, "
                   f"out of {graded[0].report.max_score:g}.")
    for o in result.not_graded:
        click.echo(f"  not graded: {o.display or o.source} ({o.source}): {o.message}", err=True)
    for d in result.writes.duplicates:
        click.echo(f"  in {len(d.entries)} submissions, so no score in gradebook.csv: "
                   f"{d.label()}: {d.describe()}", err=True)
    click.echo(f"Wrote {out}/results.jsonl, gradebook.csv, feedback/, report.html "
               f"({len(result.writes.written)} file(s) changed).")
    for e in result.writes.errors:
        click.echo(f"  output error: {e}", err=True)
    if result.internal_errors or result.writes.errors:
        raise InternalError(
            f"{len(result.internal_errors)} submission(s) hit an internal grader error and "
            f"{len(result.writes.errors)} output(s) failed; the rest was written. Run again to "
            "retry them."
        )
    sys.stdout.flush()
