"""Autograder-platform bundles: the Gradescope zip (`bundle.py`, `grader gradescope`).

Also the one list of Gradescope's visibility values and the click options that choose them,
shared by `grader gradescope` and `grader grade --format gradescope` (this module imports
nothing heavy: the CLI reads it at start-up).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

Visibility = Literal["hidden", "after_due_date", "after_published", "visible"]
VISIBILITIES: tuple[str, ...] = ("hidden", "after_due_date", "after_published", "visible")


def visibility_options(help_prefix: str = "") -> Callable[[Any], Any]:
    """Decorator adding ``--tests-visibility`` and ``--totals-visibility`` to a click command."""
    import click

    def text(s: str) -> str:
        return f"{help_prefix}{s}" if help_prefix else s[0].upper() + s[1:]

    def apply(command: Any) -> Any:
        command = click.option(
            "--totals-visibility",
            type=click.Choice(VISIBILITIES),
            default="visible",
            show_default=True,
            help=text(
                "when students see part totals, the written-answer feedback and the drill's checks."
            ),
        )(command)
        return click.option(
            "--tests-visibility",
            type=click.Choice(VISIBILITIES),
            default="after_published",
            show_default=True,
            help=text("when students see each hidden test's result."),
        )(command)

    return apply
