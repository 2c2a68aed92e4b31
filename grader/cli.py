"""The `grader` command: parse options, call the library, map errors to exit codes.

Exit codes (design contract): 0 graded; 1 graded but below --fail-under (or, for `check`,
some public test failed); 2 bad usage or unreadable submission; 3 internal grader error.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from grader import __version__
from grader.autograder import visibility_options
from grader.errors import GraderError, InternalError

FORMATS = ("text", "json", "md", "html", "gradescope", "junit", "github", "ipynb")


class _Group(click.Group):
    def main(self, *args, **kwargs):  # type: ignore[override]
        try:
            return super().main(*args, standalone_mode=False, **kwargs)
        except click.exceptions.Abort:
            click.echo("Aborted.", err=True)
            sys.exit(130)
        except click.ClickException as exc:
            exc.show()
            sys.exit(2 if exc.exit_code in (1, 2) else exc.exit_code)
        except click.exceptions.Exit as exc:
            sys.exit(exc.exit_code)
        except GraderError as exc:  # every grader error carries its exit code
            click.echo(f"Error: {exc.format_message()}", err=True)
            sys.exit(exc.exit_code)
        except KeyboardInterrupt:
            click.echo("Interrupted.", err=True)
            sys.exit(130)
        except Exception as exc:  # noqa: BLE001 - the last line of defence: exit 3, short text
            click.echo(f"Internal grader error: {type(exc).__name__}: {exc}", err=True)
            click.echo(
                "Please report this to your instructor (set GRADER_DEBUG=1 for details).", err=True
            )
            if _debug():
                raise
            sys.exit(InternalError.exit_code)


def _debug() -> bool:
    import os

    return os.environ.get("GRADER_DEBUG") == "1"


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="grader")
def main() -> None:
    """Autograder for the causal / masked / encoder objectives unit.

    \b
    Examples:
      grader demo                       grade the bundled sample class
      grader check exercises/           run the public tests on your work
      grader grade my_submission.zip    full grade of one submission
    """


@main.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    help="Output format.",
)
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the report here (atomically) instead of standard output.",
)
@click.option(
    "--fail-under",
    type=float,
    default=None,
    help="Exit with code 1 when the score (in %) is below this.",
)
@click.option(
    "--metadata",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="gradescope: Gradescope's submission_metadata.json (lateness is recorded).",
)
@visibility_options("gradescope: ")
def grade(
    path: Path,
    fmt: str,
    output: Path | None,
    fail_under: float | None,
    metadata: Path | None,
    tests_visibility: str,
    totals_visibility: str,
) -> None:
    """Grade one submission (a folder, a .zip or a .ipynb) with the hidden tests.

    \b
    Formats: text, json, md, html; gradescope (results.json; an unreadable submission
    still gets one, with 0 points), junit (XML), github (annotations, and a summary
    appended to $GITHUB_STEP_SUMMARY when it is set). See docs/ci.md. ipynb (a notebook
    submission with feedback cells added; see docs/instructor.md).

    \b
    Example:
      grader grade alice.zip --format json --output alice.json
    """
    import time

    started = time.monotonic()
    from grader.export import prepare_export
    from grader.sandbox.launch import launch_zygote

    notebook = prepare_export(path, fmt)  # checked before grading: a wrong path costs no sandbox
    launched = launch_zygote()  # before torch is imported here: both import it in parallel
    from grader.export import below, export_report
    from grader.output import emit
    from grader.pipeline import grade_path
    from grader.render.gradescope import gradescope_options

    report = grade_path(path, launched=launched, grade_unreadable=fmt == "gradescope")
    options = None
    if fmt == "gradescope":
        elapsed = time.monotonic() - started
        options = gradescope_options(metadata, tests_visibility, totals_visibility, elapsed)
    text = export_report(report, fmt, submission=path, notebook=notebook, gradescope=options,
                         color=output is None and _color())  # fmt: skip
    emit(text, output)
    if below(report, fail_under):
        sys.exit(1)


@main.command()
@click.argument("path", type=click.Path(path_type=Path), default=".", required=False)
def check(path: Path) -> None:
    """Run the public tests and the drill's checks (like pytest: exit 0 when all pass).

    \b
    Example:
      grader check exercises/
    """
    from grader.check_cli import run_check  # the handout's `grader check`, the same checks

    sys.exit(run_check(path, color=_color()))


@main.command()
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Also write each report (JSON and Markdown) into this folder.",
)
def demo(out: Path | None) -> None:
    """Grade the bundled sample class end to end and print a summary table.

    \b
    Example:
      grader demo --out demo-reports/
    """
    from grader.demo import run_demo

    run_demo(out=out, color=_color(), echo=click.echo)


@main.command()
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="Folder to write the handout to (must be new or empty).",
)
@click.option("--force", is_flag=True, help="Replace --out if it is not empty.")
def release(out: Path, force: bool) -> None:
    """Write the student handout: stubs, notebook, public self-check; no answers.

    \b
    Example:
      grader release --out handout/ && pip install handout/
    """
    from grader.release import build_handout

    click.echo(f"wrote the student handout to {build_handout(out, force=force)}")


def _color() -> bool:
    import os

    return sys.stdout.isatty() and "NO_COLOR" not in os.environ


def _register_commands() -> None:
    """Commands that live with the library part they drive."""
    from grader.autograder.cli import gradescope
    from grader.batch.cli import batch, render, review, sample_class  # review: batch-aware

    main.add_command(batch)
    main.add_command(review)
    main.add_command(render)
    main.add_command(sample_class)
    main.add_command(gradescope)


_register_commands()
