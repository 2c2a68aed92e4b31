"""The student's `grader` command in the handout (`grader release`): only `check`.

It runs the public tests, exactly as the instructor's `grader check` does, from pinned
expected values: the handout holds no reference solution. Then Exercise 3, the drill, exactly
as `grader grade` checks it (docs/drill.md): its rerun in the sandbox and every check of the
results and the note. Nothing of the drill is hidden: its checks read only the student's own
files and the rerun of the student's own command. Exit codes: 0 every check passed, 1 some
failed (or the drill is not there yet), 2 unreadable work or bad usage, 3 internal error.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from grader import __version__
from grader.errors import GraderError, InternalError


class _Group(click.Group):
    def main(self, *args, **kwargs):  # type: ignore[override]
        try:
            return super().main(*args, standalone_mode=False, **kwargs)
        except click.exceptions.Abort:
            sys.exit(130)
        except click.ClickException as exc:
            exc.show()
            sys.exit(2)
        except click.exceptions.Exit as exc:
            sys.exit(exc.exit_code)
        except GraderError as exc:  # every grader error carries its exit code
            click.echo(f"Error: {exc.format_message()}", err=True)
            sys.exit(exc.exit_code)
        except Exception as exc:  # noqa: BLE001 - the last line of defence: exit 3, short text
            click.echo(f"Internal grader error: {type(exc).__name__}: {exc}", err=True)
            if os.environ.get("GRADER_DEBUG") == "1":
                raise
            sys.exit(InternalError.exit_code)


def run_check(path: Path, *, color: bool = False) -> int:
    """Run the public self-check on `path` (the public tests and the drill's checks), print
    the report, return the exit code: 0 when every check passed."""
    from grader.loading.entry import work_for
    from grader.sandbox.launch import launch_zygote

    path = work_for(path)
    launched = launch_zygote()  # before torch is imported here: both import it in parallel
    from grader.pipeline import GradeOptions, grade_path
    from grader.render import render_report

    report = grade_path(path, GradeOptions(suite="public", grade_written=False), launched=launched)
    click.echo(render_report(report, "text", color=color, title="Public self-check"))
    failed = [t for t in report.tests if t.status != "passed"]
    return 1 if failed or not report.tests else 0


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="grader")
def main() -> None:
    """Self-check for the causal / masked / encoder objectives exercises.

    \b
    Example:
      grader check              run the public tests on the work in this folder
    """


@main.command()
@click.argument("path", type=click.Path(path_type=Path), required=False)
def check(path: Path | None) -> None:
    """Run the public tests and the drill's checks on your work (exit 0 when all pass).

    PATH is a folder, a .zip or your notebook; without it, this folder (or its exercises/).
    The drill (drill/experiment.py, results.json, evidence_note.md) is rerun and checked
    exactly as when it is graded.

    \b
    Example:
      grader check student.ipynb
    """
    color = sys.stdout.isatty() and "NO_COLOR" not in os.environ
    from grader.loading.entry import default_work_folder

    sys.exit(run_check(path or default_work_folder(Path.cwd()), color=color))
