"""Load a submission folder without following links or reading absurd amounts of data."""

from __future__ import annotations

import os
from pathlib import Path

from grader.loading.model import KNOWN_FILES, LoadLimits, Submission, SubmissionError, assemble

_SKIP_DIRS = {".git", "__pycache__", ".ipynb_checkpoints", "node_modules", ".venv", "venv"}


def load_folder(path: Path, *, name: str, limits: LoadLimits) -> Submission:
    """Read the known files of a folder. Symlinks are refused, sizes and counts are capped."""
    raw: dict[str, bytes] = {}
    problems: list[str] = []
    seen = total = 0
    for dirpath, dirnames, filenames in os.walk(path, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
        for fname in sorted(filenames):
            seen += 1
            if seen > limits.max_members:
                raise SubmissionError(
                    f"the folder holds more than {limits.max_members} files; submit only the "
                    "exercise files"
                )
            full = Path(dirpath) / fname
            rel = full.relative_to(path).as_posix()
            if not any(rel == k or rel.endswith("/" + k) for k in KNOWN_FILES):
                continue
            if full.is_symlink():
                problems.append(f"{rel} is a symbolic link and was ignored; submit the real file")
                continue
            size = full.stat().st_size
            if size > limits.max_file_bytes:
                problems.append(
                    f"{rel} is larger than {limits.max_file_bytes // 1000} kB and was ignored"
                )
                continue
            total += size
            if total > limits.max_total_bytes:
                raise SubmissionError("the submission is too large")
            try:
                raw[rel] = full.read_bytes()
            except OSError as exc:
                problems.append(f"{rel} could not be read ({exc.strerror})")
    return assemble(name, str(path), raw, problems)
