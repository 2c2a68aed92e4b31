"""The batch cache: what was graded, keyed by what was graded and by what graded it.

`cache_key(submission, fingerprint)` hashes the submission's content (`Submission.digest`, plus
the loader's problems and a notebook's cell lines, which the digest does not cover) together
with the grader fingerprint: the hidden tests, the reference solutions, the diagnosis
catalogue, the rubric, the sandbox and suite machinery, the grader version and the grading
options. Change any of them and every
key changes; change one student's file and only that student's key changes.

Results are kept in an append-only journal, `OUT/.cache/journal.jsonl`: one JSON line per
graded submission, flushed and fsynced before the next is written. A batch killed with
`kill -9` loses at most the submissions in flight; a torn last line is cut off on the next open
and never read. Lookups go by key, so a result is never used twice for the same student and
never duplicated in the outputs (they are rebuilt from the journal at the end of every run).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
from dataclasses import asdict
from pathlib import Path
from typing import Any

from grader import __version__
from grader.errors import UsageError
from grader.loading import Submission
from grader.report import GradeReport
from grader.resources import data_path

# The folder holding the grader, solutions and exercises packages (a checkout or site-packages).
REPO = data_path("grader").parent
FINGERPRINT_SOURCES = (
    "grader/suites",
    "grader/suite",
    "grader/diagnosis",
    "grader/rubric",
    "grader/drill",
    "grader/sandbox",
    "grader/loading",  # what is read as the answer and the code (e.g. notebook cells)
    "grader/textsafe.py",  # the answer as scored is cleaned text (invisible characters)
    "grader/pipeline.py",
    "grader/batch/poolworker.py",  # what of a submission reaches the worker that grades it
    "grader/parts.py",  # the handout's functions and call graph: what is charged where
    "grader/report.py",
    "solutions",
    "exercises/tinylm.py",
)
_SKIP_PARTS = {"__pycache__", ".pytest_cache", ".ruff_cache"}
JOURNAL_VERSION = 1


def grader_fingerprint(options: Any = None, *, root: Path = REPO) -> str:
    """A hash of everything besides the submission that decides a grade."""
    from grader.suite.cases import resolve_secret, secret_id  # imports torch: only to grade

    h = hashlib.sha256()
    h.update(f"grader {__version__}\0journal {JOURNAL_VERSION}\0".encode())
    # another instructor secret draws other test inputs: never reuse a report made with it
    h.update(f"cases {secret_id(resolve_secret(getattr(options, 'case_secret', None)))}\0".encode())
    if options is not None:
        h.update(json.dumps(_options_dict(options), sort_keys=True, default=str).encode())
        h.update(b"\0")
    for rel in FINGERPRINT_SOURCES:
        base = root / rel
        if base.is_file():
            files = [base]
        elif base.is_dir():
            files = sorted(
                p
                for p in base.rglob("*")
                if p.is_file()
                and not (_SKIP_PARTS & set(p.relative_to(base).parts))
                and p.suffix not in (".pyc", ".pyo")
            )
        else:
            continue
        for f in files:
            h.update(f.relative_to(root).as_posix().encode())
            h.update(b"\0")
            h.update(hashlib.sha256(f.read_bytes()).digest())
    return h.hexdigest()


def _options_dict(options: Any) -> Any:
    if isinstance(options, dict):
        return options
    try:
        spec = asdict(options)
        spec.pop("case_secret", None)  # hashed as its secret_id above, never as itself
        return spec
    except TypeError:
        return {"repr": repr(options)}


def cache_key(submission: Submission, fingerprint: str) -> str:
    """The cache key of `submission` graded by the grader whose code and suites hash to
    `fingerprint`: SHA-256 over the fingerprint, the submission's content digest, its load problems
    and (for a notebook) its cell map, so any change to one of them regrades."""
    h = hashlib.sha256()
    h.update(fingerprint.encode())
    h.update(b"\0")
    h.update(submission.digest.encode())
    h.update(b"\0")
    h.update(json.dumps(sorted(submission.problems)).encode())
    if submission.cell_lines:  # a notebook: the cells its messages point to
        h.update(json.dumps(sorted(submission.cell_lines.items())).encode())
    return h.hexdigest()


class Journal:
    """Append-only, fsynced store of graded reports by cache key. One writer at a time."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self.path = self.directory / "journal.jsonl"
        self._lock_fd: int | None = None
        self._fh = None
        self.entries: dict[str, dict[str, Any]] = {}
        # the reports read from the file, parsed once (reading validates them by parsing)
        self._parsed: dict[str, GradeReport] = {}
        self.discarded_lines = 0

    # -- lifecycle
    def open(self) -> Journal:
        """Take the journal's exclusive lock, repair a torn last line and read every stored report;
        UsageError when another `grader batch` holds the lock. Returns self."""
        self.directory.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.directory / "lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise UsageError(
                f"another `grader batch` is writing to {self.directory.parent}; wait for it "
                "to finish (or pick another --out)"
            ) from None
        self._lock_fd = fd
        self._repair_tail()
        self._read()
        self._fh = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 - closed in close()
        return self

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def __enter__(self) -> Journal:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def inherited_fds(self) -> list[int]:
        """Descriptors a forked worker must close (so it never holds the lock or the file)."""
        fds = [] if self._lock_fd is None else [self._lock_fd]
        if self._fh is not None:
            fds.append(self._fh.fileno())
        return fds

    # -- reading
    def _repair_tail(self) -> None:
        """Cut a torn last line (a kill in the middle of a write) so appends stay line-aligned."""
        if not self.path.exists():
            return
        with open(self.path, "rb+") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            if size == 0:
                return
            f.seek(size - 1)
            if f.read(1) == b"\n":
                return
            pos = size
            chunk = 4096
            while pos > 0:
                start = max(0, pos - chunk)
                f.seek(start)
                block = f.read(pos - start)
                nl = block.rfind(b"\n")
                if nl >= 0:
                    f.truncate(start + nl + 1)
                    break
                pos = start
            else:
                f.truncate(0)
            f.flush()
            os.fsync(f.fileno())

    def _read(self) -> None:
        self.entries = {}
        self._parsed = {}
        if not self.path.exists():
            return
        with open(self.path, encoding="utf-8", errors="replace") as f:
            for line in f:
                try:
                    rec = json.loads(line)
                    key = rec["key"]
                    report = rec["report"]
                    parsed = GradeReport.from_dict(report)  # refuse what is not a report
                except (ValueError, KeyError, TypeError):
                    self.discarded_lines += 1
                    continue
                self.entries[str(key)] = rec
                self._parsed[str(key)] = parsed

    # -- access
    def get(self, key: str) -> dict[str, Any] | None:
        rec = self.entries.get(key)
        return None if rec is None else rec["report"]

    def get_report(self, key: str) -> GradeReport | None:
        """`get`'s report as the `GradeReport` it was parsed into when the journal was read
        (None for a key appended since, or not known): frozen, so callers share it."""
        rec = self.entries.get(key)
        parsed = self._parsed.get(key)
        return parsed if rec is not None and parsed is not None else None

    def append(self, key: str, report: dict[str, Any], **meta: Any) -> None:
        """Durably record one result (flush + fsync before returning)."""
        assert self._fh is not None, "journal is not open"
        rec = {"key": key, **meta, "report": report}
        self._fh.write(json.dumps(rec, ensure_ascii=False, separators=(",", ":")) + "\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())
        self.entries[key] = rec
        self._parsed.pop(key, None)  # `get_report` never answers with an older report

    def compact(self, keep: set[str]) -> int:
        """Rewrite the journal atomically with only the `keep` keys; returns lines dropped."""
        assert self._fh is not None, "journal is not open"
        kept = [self.entries[k] for k in sorted(keep) if k in self.entries]
        on_disk = sum(1 for _ in open(self.path, encoding="utf-8", errors="replace"))
        if on_disk == len(kept):
            return 0
        from grader.output import write_atomic

        text = "".join(
            json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in kept
        )
        self._fh.close()
        write_atomic(self.path, text)
        self._fh = open(self.path, "a", encoding="utf-8")  # noqa: SIM115
        self.entries = {r["key"]: r for r in kept}
        self._parsed = {k: p for k, p in self._parsed.items() if k in self.entries}
        return on_disk - len(kept)
