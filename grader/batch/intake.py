"""Find the submissions of a class in what the instructor downloaded. No student code runs.

Layouts (detected in this order; INPUT may be a folder or a .zip of any of them):

* **Gradescope export**: a `submission_metadata.yml` next to one folder per submission
  (`submission_123456/`); the submitters' names, SIDs and e-mails come from the metadata.
* **Canvas "Download Submissions"**: files named `name_userid_submissionid_filename` (or
  `name_LATE_userid_submissionid_filename`); a student's files are grouped by Canvas user id.
  Canvas renames a re-uploaded file `masks-1.py`; that suffix is dropped.
* **A folder of submissions**: one entry per student, each a folder, a .zip or a .ipynb; the
  student id is the entry's name.

Inside any one student's entry, the exercise files are used when present; otherwise a single
notebook (or a single nested .zip) in it is loaded instead. Every entry becomes an `Entry`
whose `load()` returns a `Submission` or raises `SubmissionError`; anything that is not a
submission at all becomes a `Skipped` record. Neither is ever fatal to the batch.

`open_intake` detects the layout and lists the folders layout itself; each other layout has its
module: `intake_gradescope`, `intake_canvas`, `intake_zip` (a class archive) and
`intake_records` (Identity, Entry, Skipped, Intake). Their public names are importable here.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from grader.batch.intake_canvas import (
    CANVAS_DEDUP,
    CANVAS_NAME,
    canvas_filename,
    canvas_folder,
    canvas_intake,
    canvas_share,
)
from grader.batch.intake_gradescope import (
    GRADESCOPE_META,
    find_gradescope_dir,
    gradescope_dir,
    gradescope_zip,
    parse_gradescope_metadata,
)
from grader.batch.intake_records import Entry, Identity, Intake, Skipped, safe_key, unique_keys
from grader.batch.intake_zip import ZipTree, looks_like_submission, wrapper_prefix, zip_entry
from grader.errors import UsageError
from grader.loading import LoadLimits, Submission, load_submission
from grader.loading.archive import open_zip
from grader.loading.entry import ignored
from grader.loading.model import KNOWN_FILES

_SUBMISSION_SUFFIXES = (".zip", ".ipynb")


@contextmanager
def open_intake(
    path: str | Path, limits: LoadLimits | None = None, *, exclude: tuple[Path, ...] = ()
) -> Iterator[Intake]:
    """Detect the layout of INPUT and list its entries (archives stay open while in use).

    `exclude`: folders that are not submissions even if they sit in INPUT (the batch's OUT).
    """
    p = Path(path)
    limits = limits or LoadLimits()
    if not p.exists():
        raise UsageError(f"{p} does not exist")
    if p.is_dir():
        skip = {e.resolve() for e in exclude}
        intake = _discover_dir(p, limits, skip)
        unique_keys(intake.entries)
        yield intake
        return
    if p.suffix.lower() != ".zip":
        raise UsageError(
            f"{p.name} is not a class: give a folder of submissions, a Canvas submissions "
            "zip or a Gradescope export (use `grader grade` for one submission)"
        )
    try:
        zf = open_zip(p)
    except Exception as exc:  # noqa: BLE001 - any parse failure of hostile bytes
        raise UsageError(f"{p.name} is not a readable zip archive ({exc})") from None
    with zf:
        tree = ZipTree(zf, p.name)
        intake = _discover_zip(tree, p, limits)
        intake.skipped[:0] = tree.bad
        unique_keys(intake.entries)
        yield intake


def _discover_dir(root: Path, limits: LoadLimits, skip: set[Path] | None = None) -> Intake:
    meta = find_gradescope_dir(root)
    if meta is not None:
        return gradescope_dir(meta.parent, meta, limits, root)
    files = sorted(f for f in root.iterdir() if f.is_file() and not ignored(f.name))
    if files and canvas_share([f.name for f in files]) >= 0.5:
        intake = canvas_intake(root, [(f.name, f) for f in files], None, limits, str(root))
        intake.skipped.extend(
            canvas_folder(f"{root.name}/{d.name}/")
            for d in sorted(root.iterdir())
            if d.is_dir() and not ignored(d.name) and not (skip and d.resolve() in skip)
        )
        return intake
    entries: list[Entry] = []
    skipped: list[Skipped] = []
    for child in sorted(root.iterdir()):
        if ignored(child.name) or (skip and child.resolve() in skip):
            continue
        if child.is_symlink():
            skipped.append(Skipped(child.name, "a symbolic link; skipped"))
            continue
        if child.is_dir():
            entries.append(_folder_entry(child.name, child, limits))
        elif child.suffix.lower() in _SUBMISSION_SUFFIXES:
            entries.append(_folder_entry(child.stem, child, limits))
        else:
            if child.name in KNOWN_FILES:
                raise UsageError(
                    f"{root} looks like one submission ({child.name} is in it), not a class; "
                    "use `grader grade` for one submission"
                )
            skipped.append(Skipped(child.name, "not a folder, .zip or .ipynb; skipped"))
    return Intake("folders", str(root), entries, skipped)


def _folder_entry(label: str, path: Path, limits: LoadLimits) -> Entry:
    key = safe_key(label)

    def loader() -> Submission:  # exactly what `grader grade PATH` loads
        return load_submission(path, name=key, limits=limits)

    return Entry(
        key=key,
        display=label,
        source=path.name,
        members=[Identity(name=label, sis_login_id="")],
        loader=loader,
    )


def _discover_zip(tree: ZipTree, path: Path, limits: LoadLimits) -> Intake:
    metas = sorted(
        (r for r in tree.members if r.split("/")[-1] == GRADESCOPE_META),
        key=lambda r: (r.count("/"), r),
    )
    if metas:
        return gradescope_zip(tree, metas[0], limits, path)
    prefix = wrapper_prefix(tree)
    dirs, files = tree.children(prefix)
    if files and canvas_share(files) >= 0.5:
        intake = canvas_intake(path, [(f, prefix + f) for f in files], tree, limits, path.name)
        intake.skipped.extend(canvas_folder(f"{path.name}:{prefix}{d}/") for d in dirs)
        return intake
    if looks_like_submission(tree, prefix):
        raise UsageError(
            f"{path.name} looks like one submission, not a class; use `grader grade` for it"
        )
    entries: list[Entry] = []
    skipped: list[Skipped] = []
    for d in dirs:
        entries.append(zip_entry(d, tree, prefix + d + "/", limits, folder=True))
    for f in files:
        if f.lower().endswith(_SUBMISSION_SUFFIXES):
            entries.append(zip_entry(Path(f).stem, tree, prefix + f, limits, folder=False))
        else:
            skipped.append(
                Skipped(f"{path.name}:{prefix}{f}", "not a folder, .zip or .ipynb; skipped")
            )
    return Intake("folders", str(path), entries, skipped)


__all__ = [
    "CANVAS_DEDUP",
    "CANVAS_NAME",
    "GRADESCOPE_META",
    "Entry",
    "Identity",
    "Intake",
    "Skipped",
    "canvas_filename",
    "open_intake",
    "parse_gradescope_metadata",
    "safe_key",
]
