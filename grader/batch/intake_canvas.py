"""Canvas "Download Submissions": flat files named `name_[LATE_]userid_submissionid_file`.

A student's files are grouped by Canvas user id; Canvas renames a re-uploaded file
`masks-1.py`, and that suffix is dropped for the exercise files.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from grader.batch.intake_records import Entry, Identity, Intake, Skipped, safe_key
from grader.batch.intake_zip import ZipTree
from grader.loading import LoadLimits, Submission, SubmissionError, assemble
from grader.loading.entry import load_zip_bytes, needs_notebook, several_notebooks, with_notebook
from grader.loading.model import KNOWN_FILES
from grader.loading.notebook import load_notebook_bytes

CANVAS_NAME = re.compile(
    r"^(?P<name>.+?)_(?:(?P<late>LATE)_)?(?P<uid>\d+)_(?P<sid>\d+)_(?P<file>.+)$"
)
CANVAS_DEDUP = re.compile(r"^(?P<stem>.+?)-\d+(?P<ext>\.[A-Za-z0-9]+)$")


def canvas_share(names: list[str]) -> float:
    """The fraction of `names` that follow Canvas's download naming (`name_id_id_file`); 0.0 for no
    names."""
    if not names:
        return 0.0
    return sum(1 for n in names if CANVAS_NAME.match(n)) / len(names)


# Canvas keeps no folders: the drill's drill/experiment.py arrives as `..._experiment.py`.
_FLAT_KNOWN = {k.rsplit("/", 1)[-1]: k for k in KNOWN_FILES}


def canvas_filename(original: str) -> str:
    """The student's own file's path: Canvas's `-1` re-upload suffix dropped for known files,
    and a known file that lives in a folder (the drill's) put back there."""
    m = CANVAS_DEDUP.match(original)
    if m and (m.group("stem") + m.group("ext")) in _FLAT_KNOWN:
        original = m.group("stem") + m.group("ext")
    return _FLAT_KNOWN.get(original, original)


def canvas_folder(where: str) -> Skipped:
    """A folder beside Canvas's files: Canvas downloads are flat, so it is nobody's
    submission here (a student folder mixed in, or a Canvas file name holding a "/")."""
    return Skipped(
        where,
        "a folder inside a Canvas download (Canvas gives flat files, and a "
        "file name with a '/' lands in a folder too); not graded: grade it "
        "separately, or rename the files Canvas-style",
    )


def canvas_intake(
    root: Path,
    files: list[tuple[str, object]],
    tree: ZipTree | None,
    limits: LoadLimits,
    label: str,
) -> Intake:
    """Group `name_[LATE_]uid_sid_file` files by Canvas user id."""
    groups: dict[str, dict] = {}
    skipped: list[Skipped] = []
    for fname, handle in files:
        m = CANVAS_NAME.match(fname)
        if not m:
            skipped.append(
                Skipped(f"{label}:{fname}", "not named like a Canvas submission file; skipped")
            )
            continue
        g = groups.setdefault(m.group("uid"), {"name": m.group("name"), "late": False, "files": []})
        g["late"] = g["late"] or bool(m.group("late"))
        g["files"].append((canvas_filename(m.group("file")), int(m.group("sid")), fname, handle))
    entries = []
    for uid, g in sorted(groups.items(), key=lambda kv: (kv[1]["name"], kv[0])):
        key = safe_key(f"{g['name']}_{uid}")
        entries.append(
            Entry(
                key=key,
                display=g["name"],
                source=f"{label}:{g['files'][0][2]}",
                members=[Identity(name=g["name"], canvas_id=uid)],
                loader=_canvas_loader(key, g["files"], tree, limits, label),
                late=g["late"],
            )
        )
    return Intake("canvas", str(root), entries, skipped)


def _canvas_loader(
    key: str,
    files: list[tuple[str, int, str, object]],
    tree: ZipTree | None,
    limits: LoadLimits,
    label: str,
) -> Callable[[], Submission]:
    def read(handle: object, cap: int) -> bytes:
        if tree is not None:
            return tree.read(str(handle), limits, cap=cap)
        path = Path(str(handle))
        if path.is_symlink():
            raise SubmissionError(f"{path.name} is a symbolic link")
        if path.stat().st_size > cap:
            raise SubmissionError(f"{path.name} is larger than {cap // 1000} kB")
        return path.read_bytes()

    def notebook(entry: tuple[str, int, str, object]) -> Submission:
        own, _sid, canvas_name, handle = entry
        return load_notebook_bytes(
            read(handle, limits.max_total_bytes),
            name=key,
            origin=f"{label}:{canvas_name}",
            limits=limits,
            filename=own,
        )

    def loader() -> Submission:
        known = [f for f in files if f[0] in KNOWN_FILES]
        notebooks = [f for f in files if f[0].lower().endswith(".ipynb")]
        zips = [f for f in files if f[0].lower().endswith(".zip")]
        if not known and len(notebooks) == 1:
            return notebook(notebooks[0])
        if not known and len(notebooks) > 1:
            raise several_notebooks([f[0] for f in notebooks])
        if not known and len(zips) == 1:
            own, _sid, canvas_name, handle = zips[0]
            return load_zip_bytes(
                read(handle, limits.max_total_bytes),
                name=key,
                origin=f"{label}:{canvas_name}",
                limits=limits,
            )
        if not known and len(zips) > 1:
            raise SubmissionError(
                "the submission holds several .zip files and no exercise files; hand in one .zip"
            )
        raw: dict[str, bytes] = {}
        problems: list[str] = []
        total = 0
        for own, _sid, _canvas_name, handle in sorted(known, key=lambda f: (f[0], f[1])):
            try:
                data = read(handle, limits.max_file_bytes)
            except SubmissionError as exc:
                problems.append(f"{own} was ignored: {exc}")
                continue
            total += len(data)
            if total > limits.max_total_bytes:
                raise SubmissionError("the submission is too large")
            raw[own] = data  # of two uploads with one name, the later (higher id) wins
        sub = assemble(key, f"{label}:{key}", raw, problems)
        if len(notebooks) == 1 and needs_notebook(sub):  # the notebook beside the drill files
            return with_notebook(sub, notebook(notebooks[0]), notebooks[0][0])
        return sub

    return loader
