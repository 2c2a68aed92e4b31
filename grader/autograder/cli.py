"""`grader gradescope`: build the Gradescope autograder zip (options only; see bundle.py)."""

from __future__ import annotations

from pathlib import Path

import click

from grader.autograder import visibility_options
from grader.autograder.bundle import CPU_TORCH_INDEX


@click.command()
@click.option(
    "--out",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write the zip (upload it on Gradescope's Configure Autograder page).",
)
@visibility_options()
@click.option(
    "--torch",
    "torch_spec",
    default=None,
    help="pip requirement for torch [default: the grader's own, e.g. torch<2.14,>=2.2].",
)
@click.option(
    "--torch-index-url",
    default=CPU_TORCH_INDEX,
    show_default=True,
    help='Index setup.sh installs torch from ("" for PyPI\'s default).',
)
@click.option(
    "--python",
    "python",
    default="python3.11",
    show_default=True,
    help="Interpreter setup.sh uses (apt-installed when the image lacks it).",
)
@click.option(
    "--wheel",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=None,
    help="A prebuilt wheel of objectives-grader [default: build one from this checkout].",
)
def gradescope(
    out: Path,
    tests_visibility: str,
    totals_visibility: str,
    torch_spec: str | None,
    torch_index_url: str,
    python: str,
    wheel: Path | None,
) -> None:
    """Build the Gradescope autograder zip (setup.sh, run_autograder and the grader's wheel).

    \b
    Example:
      grader gradescope --out autograder.zip
    """
    from grader.autograder.bundle import BundleOptions, build_bundle

    fields: dict[str, object] = {
        "tests_visibility": tests_visibility,
        "totals_visibility": totals_visibility,
        "torch_index_url": torch_index_url,
        "python": python,
        "apt_packages": (python, f"{python}-venv"),
        "wheel": wheel,
    }
    if torch_spec:
        fields["torch"] = torch_spec
    path = build_bundle(out, BundleOptions(**fields))  # type: ignore[arg-type]
    click.echo(f"wrote {path}: upload it on Gradescope (Configure Autograder); see docs/ci.md")
