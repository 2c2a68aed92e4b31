"""Turn what a student handed in into a typed `Submission`. No student code runs here.

`load_submission(path)` dispatches on what the path is: a folder or a .zip (notebooks and LMS
exports slot in as further loaders). Problems that cost only one part (a missing file, a file
that is not UTF-8) are recorded on the Submission; problems that make the whole thing
unreadable (a corrupt zip, an archive that tries to escape, absurd sizes) raise
`SubmissionError` with a message in the student's terms.
"""

from __future__ import annotations

from pathlib import Path

from grader.loading.archive import load_zip
from grader.loading.entry import load_dir, load_file
from grader.loading.folder import load_folder
from grader.loading.guarded import UNREADABLE, Loaded, load_entries, load_one
from grader.loading.model import (
    CODE_PARTS,
    LoadLimits,
    Submission,
    SubmissionError,
    assemble,
)
from grader.loading.notebook import load_notebook

__all__ = [
    "CODE_PARTS",
    "UNREADABLE",
    "Loaded",
    "load_entries",
    "load_one",
    "LoadLimits",
    "Submission",
    "SubmissionError",
    "assemble",
    "load_submission",
    "load_folder",
    "load_notebook",
    "load_zip",
]


def load_submission(
    path: str | Path, *, name: str | None = None, limits: LoadLimits | None = None
) -> Submission:
    """Load a submission folder, .zip or .ipynb notebook. Raises SubmissionError when it cannot
    be read. A folder or .zip without exercise files is read from its one notebook (or one
    nested .zip) instead; `grader batch` loads each folder-of-submissions entry with this too.
    Student bytes: call it through `load_one` / `load_entries` (bounded time and memory)."""
    p = Path(path)
    limits = limits or LoadLimits()
    if p.is_symlink():
        raise SubmissionError(f"{p.name} is a symbolic link; submit the real folder or file")
    if not p.exists():
        raise SubmissionError(f"{p} does not exist")
    label = name or (p.stem if p.is_file() else p.name) or p.resolve().name  # "." has no name
    if p.is_dir():
        return load_dir(p, name=label, limits=limits)
    if p.suffix.lower() in (".zip", ".ipynb"):
        return load_file(p, name=label, limits=limits)
    if p.suffix.lower() == ".py" or p.suffix.lower() == ".md":
        raise SubmissionError(
            f"{p.name} is a single file; submit the folder (or a .zip of it) holding "
            "masks.py, corruption.py, losses.py, generation.py and explanation.md"
        )
    raise SubmissionError(f"{p.name} is not a folder, a .zip archive or a .ipynb notebook")
