"""Helpers for building submissions in tests, benchmarks and the demo (no files needed).

`reference_submission("alice", {"losses.py": buggy_source})` gives the reference solution with
some files replaced: the usual way to express "the reference with exactly one bug".
"""

from __future__ import annotations

from pathlib import Path

from grader.loading import Submission, assemble
from grader.parts import CODE_PARTS
from grader.resources import data_path

# Where the packages are: the repository in a checkout, site-packages in an installed wheel.
SOLUTIONS = data_path("solutions")
STUBS = data_path("exercises")
REPO = data_path("grader").parent


def part_sources(base: Path) -> dict[str, bytes]:
    """The four part modules of `base` (solutions/ or exercises/) as submission files."""
    return {f"{p}.py": (base / f"{p}.py").read_bytes() for p in CODE_PARTS}


def drill_files(base: Path) -> dict[str, bytes]:
    """The drill files of `base` (solutions/: the reference drill; exercises/: the scaffold)."""
    names = ("experiment.py", "results.json", "evidence_note.md")
    return {f"drill/{n}": (base / "drill" / n).read_bytes() for n in names
            if (base / "drill" / n).is_file()}  # fmt: skip


def reference_submission(
    name: str,
    overrides: dict[str, str | bytes | None] | None = None,
    *,
    base: Path = SOLUTIONS,
    explanation: str | None = None,
    drill: bool = False,
) -> Submission:
    """The files of `base` with `overrides` applied (None removes a file); `drill`: with
    base's drill/ folder too."""
    raw: dict[str, bytes] = part_sources(base)
    if drill:
        raw.update(drill_files(base))
    if explanation is not None:
        raw["explanation.md"] = explanation.encode()
    for rel, content in (overrides or {}).items():
        if content is None:
            raw.pop(rel, None)
        else:
            raw[rel] = content.encode() if isinstance(content, str) else content
    return assemble(name, f"<{name}>", raw, [])


def stub_submission(name: str = "stubs") -> Submission:
    """The untouched student stubs."""
    return reference_submission(name, base=STUBS)
