"""A class archive (.zip) as a tree of safe member names, and a student's entry inside it."""

from __future__ import annotations

import zipfile
from dataclasses import replace
from pathlib import Path

from grader.batch.intake_records import Entry, Identity, Skipped, safe_key
from grader.loading import LoadLimits, Submission, SubmissionError
from grader.loading.archive import load_zip_members
from grader.loading.entry import (
    ignored,
    is_notebook,
    load_zip_bytes,
    needs_notebook,
    read_member,
    several_notebooks,
    with_notebook,
)
from grader.loading.model import KNOWN_FILES, safe_relpath
from grader.loading.notebook import load_notebook_bytes


class ZipTree:
    """An open class archive: member names made safe, unusable ones remembered."""

    def __init__(self, zf: zipfile.ZipFile, label: str) -> None:
        self.zf = zf
        self.label = label
        self.members: dict[str, zipfile.ZipInfo] = {}
        # folders the archive records on their own (an empty submission folder has no member
        # inside it): listed like the folders on disk are, so a zip and its unzipped folder
        # give the same entries
        self.dirs: set[str] = set()
        self.bad: list[Skipped] = []
        for info in zf.infolist():
            try:
                rel = safe_relpath(info.filename)
            except SubmissionError as exc:
                self.bad.append(Skipped(f"{label}:{info.filename}", str(exc)))
                continue
            if not rel or any(ignored(p) for p in rel.split("/")):
                continue
            if info.is_dir():
                self.dirs.add(rel.rstrip("/"))
                continue
            self.members[rel] = info

    def children(self, prefix: str) -> tuple[list[str], list[str]]:
        """(sub-folder names, file names) directly under `prefix` ("" or "dir/")."""
        dirs: set[str] = set()
        files: list[str] = []
        for rel in self.members:
            if not rel.startswith(prefix):
                continue
            rest = rel[len(prefix) :]
            if "/" in rest:
                dirs.add(rest.split("/", 1)[0])
            else:
                files.append(rest)
        for rel in self.dirs:
            if rel.startswith(prefix) and rel[len(prefix) :]:
                dirs.add(rel[len(prefix) :].split("/", 1)[0])
        return sorted(dirs), sorted(files)

    def load_prefix(self, prefix: str, *, name: str, limits: LoadLimits) -> Submission:
        """A student's folder inside the class archive."""
        inner = [r for r in self.members if r.startswith(prefix)]
        if len(inner) > limits.max_members:
            raise SubmissionError(f"the submission holds more than {limits.max_members} files")
        # The loader counts every member of the archive; the class archive is allowed to be big.
        wide = replace(limits, max_members=max(limits.max_members, len(self.zf.infolist())))
        sub = load_zip_members(
            self.zf, name=name, origin=f"{self.label}:{prefix}", limits=wide, prefix=prefix
        )
        if not needs_notebook(sub):
            return sub
        notebooks = [r for r in inner if is_notebook(r)]
        if len(notebooks) == 1:
            data = read_member(
                self.zf, self.members[notebooks[0]], limits, cap=limits.max_total_bytes
            )
            nb = load_notebook_bytes(
                data,
                name=name,
                origin=f"{self.label}:{notebooks[0]}",
                limits=limits,
                filename=Path(notebooks[0]).name,
            )
            return with_notebook(sub, nb, Path(notebooks[0]).name)
        if sub.files:
            return sub
        if len(notebooks) > 1:
            raise several_notebooks(notebooks)
        zips = [r for r in inner if r.lower().endswith(".zip")]
        if len(zips) == 1:
            data = read_member(self.zf, self.members[zips[0]], limits, cap=limits.max_total_bytes)
            return load_zip_bytes(data, name=name, origin=f"{self.label}:{zips[0]}", limits=limits)
        return sub

    def load_member(self, rel: str, *, name: str, limits: LoadLimits) -> Submission:
        """A student's single .zip or .ipynb inside the class archive."""
        data = read_member(self.zf, self.members[rel], limits, cap=limits.max_total_bytes)
        origin = f"{self.label}:{rel}"
        if rel.lower().endswith(".ipynb"):
            return load_notebook_bytes(
                data, name=name, origin=origin, limits=limits, filename=Path(rel).name
            )
        return load_zip_bytes(data, name=name, origin=origin, limits=limits)

    def read(self, rel: str, limits: LoadLimits, cap: int | None = None) -> bytes:
        return read_member(self.zf, self.members[rel], limits, cap=cap)


def wrapper_prefix(tree: ZipTree) -> str:
    """Descend through single wrapper folders (`class/` or `export/`) that hold only a folder."""
    prefix = ""
    for _ in range(3):
        dirs, files = tree.children(prefix)
        wrapper = prefix + dirs[0] + "/" if len(dirs) == 1 else ""
        if wrapper and not files and not looks_like_submission(tree, wrapper):
            prefix += dirs[0] + "/"
        else:
            break
    return prefix


def looks_like_submission(tree: ZipTree, prefix: str) -> bool:
    """True when the folder `prefix` of the zip directly holds one of the exercise files."""
    _, files = tree.children(prefix)
    return any(f in KNOWN_FILES for f in files)


def zip_entry(label: str, tree: ZipTree, rel: str, limits: LoadLimits, *, folder: bool) -> Entry:
    """A batch entry for the zip member (or, with `folder`, the folder) `rel`, loaded lazily within
    `limits` when the pool grades it."""
    key = safe_key(label)

    def loader() -> Submission:
        if folder:
            return tree.load_prefix(rel, name=key, limits=limits)
        return tree.load_member(rel, name=key, limits=limits)

    return Entry(
        key=key,
        display=label,
        source=f"{tree.label}:{rel}",
        members=[Identity(name=label)],
        loader=loader,
    )
