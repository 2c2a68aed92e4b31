"""The records of a class intake: who a submission belongs to, and what was (not) found.

`Entry` is one student's submission not yet loaded, `Skipped` something that is no submission
at all, `Intake` the whole listing; `safe_key` makes the file-name-safe ids they carry.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from grader.loading import Submission
from grader.textsafe import clean_name


@dataclass(frozen=True)
class Identity:
    """Who a submission belongs to, as far as the layout tells. Any field may be empty."""

    name: str = ""
    canvas_id: str = ""
    sis_user_id: str = ""
    sis_login_id: str = ""
    email: str = ""
    section: str = ""

    def __post_init__(self) -> None:
        # every field can come from a student-chosen file name or an export: no terminal
        # escapes, controls, bidi overrides or surrogates reach a gradebook or a report
        for k, v in self.__dict__.items():
            object.__setattr__(self, k, clean_name(v, 300))

    def to_dict(self) -> dict[str, str]:
        return {k: v for k, v in self.__dict__.items() if v}


@dataclass
class Entry:
    """One student's (or one group's) submission, not yet loaded."""

    key: str  # unique, safe as a file name; the report's `submission`
    display: str  # human-readable name
    source: str  # where it came from, for messages
    members: list[Identity]
    loader: Callable[[], Submission] = field(repr=False)
    late: bool = False
    submitted_at: str = ""  # ISO 8601, when the export says (Gradescope's created_at)

    def __post_init__(self) -> None:
        self.display = clean_name(self.display, 300)
        self.source = clean_name(self.source, 1000)

    def load(self) -> Submission:
        sub = self.loader()
        return replace(sub, name=self.key)


@dataclass(frozen=True)
class Skipped:
    """Something in INPUT that could not be used at all."""

    source: str
    message: str
    key: str = ""
    display: str = ""
    members: tuple[Identity, ...] = ()

    def __post_init__(self) -> None:
        for k in ("source", "message", "display"):
            object.__setattr__(self, k, clean_name(getattr(self, k), 1000))


@dataclass
class Intake:
    layout: str  # "folders" | "canvas" | "gradescope"
    input: str
    entries: list[Entry]
    skipped: list[Skipped]


def safe_key(text: str, fallback: str = "student") -> str:
    """A file-name-safe id: no path separators, no leading dots, nothing exotic."""
    norm = unicodedata.normalize("NFKD", text)
    norm = norm.encode("ascii", "ignore").decode("ascii")
    norm = re.sub(r"[^A-Za-z0-9._-]+", "_", norm).strip("._-")
    norm = re.sub(r"_+", "_", norm)[:80].strip("._-")
    if not norm or norm.upper() in _WINDOWS_RESERVED:
        norm = f"{fallback}_{norm}" if norm else fallback
    return norm


_WINDOWS_RESERVED = {
    "CON",
    "PRN",
    "AUX",
    "NUL",
    *(f"COM{i}" for i in range(10)),
    *(f"LPT{i}" for i in range(10)),
}


# Every file a batch writes for one entry is named <key><suffix> (`grader.batch.outputs`:
# feedback/<key>.md, .html, .ipynb and .notebook.html; .cache/notebooks/<key>.ipynb). Keys may
# hold dots, so one key's file can be another's ("alice.notebook" + ".html" is "alice" +
# ".notebook.html"): a student could overwrite a classmate's page, or be shown theirs.
ENTRY_SUFFIXES = (".md", ".html", ".ipynb", ".notebook.html")


def entry_files(key: str) -> set[str]:
    """The names (case-folded) of the files a batch writes for the entry `key`."""
    return {(key + suffix).lower() for suffix in ENTRY_SUFFIXES}


def unique_keys(entries: list[Entry]) -> None:
    """Make keys unique, case-insensitively, and such that no two entries name the same
    output file (two ids may sanitise to the same text; one key plus a suffix may be another
    key's file). First come, first served: a later entry that collides becomes `<key>-2`,
    `<key>-3`, ..."""
    keys: set[str] = set()
    files: set[str] = set()
    for e in entries:
        base, k = e.key, 1
        while e.key.lower() in keys or entry_files(e.key) & files:
            k += 1
            e.key = f"{base}-{k}"
        keys.add(e.key.lower())
        files |= entry_files(e.key)
