"""Load a submission folder without following links or reading absurd amounts of data.

The folder is hostile input too: symbolic links (to the solutions, to /etc/shadow, to a
folder cycle), named pipes and devices that would block a read forever, folders nested
thousands deep, millions of entries. Only regular files are read, each opened without
following links and without blocking, and checked again after opening; the walk is bounded
in depth and in the number of entries. A refused exercise file makes that part missing with
the reason; the rest of the submission is graded normally.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from grader.loading.model import (
    MAX_NEAR_MISSES,
    LoadLimits,
    Submission,
    SubmissionError,
    assemble,
    is_known,
)

_SKIP_DIRS = {".git", "__pycache__", ".ipynb_checkpoints", "node_modules", ".venv", "venv"}


def load_folder(path: Path, *, name: str, limits: LoadLimits) -> Submission:
    """Read the known files of a folder. Symlinks are refused, sizes and counts are capped."""
    raw: dict[str, bytes] = {}
    mtimes: dict[str, float] = {}
    problems: list[str] = []
    unusable: dict[str, str] = {}
    seen = total = 0
    too_deep = False
    unreadable: list[str] = []
    others: list[str] = []  # unknown files, for a misnamed exercise file's message

    def on_error(err: OSError) -> None:
        unreadable.append(os.path.basename(getattr(err, "filename", "") or "?"))

    for dirpath, dirnames, filenames in os.walk(path, followlinks=False, onerror=on_error):
        rel_dir = Path(dirpath).relative_to(path)
        depth = len(rel_dir.parts)
        seen += len(dirnames) + len(filenames)
        if seen > limits.max_members:
            raise SubmissionError(
                f"the folder holds more than {limits.max_members} files and folders; submit "
                "only the exercise files"
            )
        if depth >= limits.max_depth:
            too_deep = too_deep or bool(dirnames)
            dirnames[:] = []
        else:
            dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
        for fname in sorted(filenames):
            rel = (rel_dir / fname).as_posix()
            if not is_known(rel):
                if len(others) < MAX_NEAR_MISSES:
                    others.append(rel)
                continue
            full = os.path.join(dirpath, fname)
            data, why = _read_regular(full, limits.max_file_bytes)
            if why:
                problems.append(f"{rel} {why} and was ignored")
                unusable[rel] = f"{rel} {why}"
                continue
            total += len(data)
            if total > limits.max_total_bytes:
                raise SubmissionError("the submission is too large")
            raw[rel] = data
            try:
                mtimes[rel] = os.lstat(full).st_mtime
            except OSError:
                pass
    if too_deep:
        problems.append(
            f"folders nested more than {limits.max_depth} levels deep were not searched"
        )
    if unreadable:
        problems.append(f"some folders could not be read: {', '.join(sorted(unreadable)[:5])}")
    return assemble(name, str(path), raw, problems, unusable=unusable, mtimes=mtimes, others=others)


def _read_regular(full: str, cap: int) -> tuple[bytes, str]:
    """(contents, "") of a regular file, or (b"", why it was refused)."""
    try:
        st = os.lstat(full)
    except OSError as exc:
        return b"", f"could not be read ({exc.strerror})"
    if stat.S_ISLNK(st.st_mode):
        return b"", "is a symbolic link (hand in the real file)"
    if not stat.S_ISREG(st.st_mode):
        return b"", "is not a regular file"
    if st.st_size > cap:
        return b"", f"is larger than {cap // 1000} kB"
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(full, flags)
    except OSError as exc:
        return b"", f"could not be read ({exc.strerror})"
    try:
        st = os.fstat(fd)  # what was actually opened (the path may have been swapped)
        if not stat.S_ISREG(st.st_mode):
            return b"", "is not a regular file"
        chunks = []
        size = 0
        while size <= cap:
            chunk = os.read(fd, min(1 << 20, cap + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > cap:
            return b"", f"is larger than {cap // 1000} kB"
        return b"".join(chunks), ""
    except OSError as exc:
        return b"", f"could not be read ({exc.strerror})"
    finally:
        os.close(fd)
