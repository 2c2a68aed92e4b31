"""Load a .zip submission in memory: nothing is extracted to disk, nothing escapes."""

from __future__ import annotations

import stat
import zipfile
from pathlib import Path

from grader.loading.model import (
    KNOWN_FILES,
    LoadLimits,
    Submission,
    SubmissionError,
    assemble,
    safe_relpath,
)


def load_zip(path: Path, *, name: str, limits: LoadLimits) -> Submission:
    """Read the known files of a zip. Refuses escaping names, links and zip bombs."""
    try:
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise SubmissionError(f"{path.name} is not a readable zip archive ({exc})") from None
    with zf:
        return load_zip_members(zf, name=name, origin=str(path), limits=limits)


def load_zip_members(
    zf: zipfile.ZipFile, *, name: str, origin: str, limits: LoadLimits, prefix: str = ""
) -> Submission:
    """Read known files below `prefix` of an open archive (also used for LMS exports)."""
    infos = zf.infolist()
    if len(infos) > limits.max_members:
        raise SubmissionError(f"the archive holds more than {limits.max_members} entries")
    raw: dict[str, bytes] = {}
    problems: list[str] = []
    total = 0
    for info in infos:
        rel = safe_relpath(info.filename)
        if prefix:
            if not rel.startswith(prefix):
                continue
            rel = rel[len(prefix) :]
        if info.is_dir() or not rel:
            continue
        mode = info.external_attr >> 16
        if stat.S_ISLNK(mode):
            raise SubmissionError(f"the archive member {info.filename!r} is a symbolic link")
        if not any(rel == k or rel.endswith("/" + k) for k in KNOWN_FILES):
            continue
        if info.file_size > limits.max_file_bytes:
            problems.append(
                f"{rel} is larger than {limits.max_file_bytes // 1000} kB and was ignored"
            )
            continue
        if info.compress_size and info.file_size / info.compress_size > limits.max_ratio:
            raise SubmissionError(f"the archive member {rel!r} looks like a zip bomb")
        total += info.file_size
        if total > limits.max_total_bytes:
            raise SubmissionError("the archive is too large once unpacked")
        try:
            with zf.open(info) as f:
                data = f.read(limits.max_file_bytes + 1)
        except (
            zipfile.BadZipFile,
            OSError,
            RuntimeError,
            NotImplementedError,
            EOFError,
            ValueError,
        ) as exc:
            raise SubmissionError(f"the archive member {rel!r} is corrupt ({exc})") from None
        if len(data) > limits.max_file_bytes:
            problems.append(f"{rel} is larger than declared and was ignored")
            continue
        raw[rel] = data
    return assemble(name, origin, raw, problems)
