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
from grader.loading.folder import load_folder
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
    be read."""
    p = Path(path)
    limits = limits or LoadLimits()
    if p.is_symlink():
        raise SubmissionError(f"{p.name} is a symbolic link; submit the real folder or file")
    if not p.exists():
        raise SubmissionError(f"{p} does not exist")
    label = name or (p.stem if p.is_file() else p.name)
    if p.is_dir():
        return load_folder(p, name=label, limits=limits)
    if p.suffix.lower() == ".zip":
        return load_zip(p, name=label, limits=limits)
    if p.suffix.lower() == ".ipynb":
        return load_notebook(p, name=label, limits=limits)
    if p.suffix.lower() == ".py" or p.suffix.lower() == ".md":
        raise SubmissionError(
            f"{p.name} is a single file; submit the folder (or a .zip of it) holding "
            "masks.py, corruption.py, losses.py, generation.py and explanation.md"
        )
    raise SubmissionError(f"{p.name} is not a folder, a .zip archive or a .ipynb notebook")
