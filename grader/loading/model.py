"""The Submission record and the rules shared by every loader."""

from __future__ import annotations

import difflib
import hashlib
import posixpath
import re
from dataclasses import dataclass, field

from grader.errors import UsageError
from grader.parts import CODE_PARTS
from grader.textsafe import clean_name, clean_text

EXPLANATION_FILE = "explanation.md"
DRILL_FILES = ("drill/experiment.py", "drill/evidence_note.md", "drill/results.json")
KNOWN_FILES = tuple(f"{p}.py" for p in CODE_PARTS) + (EXPLANATION_FILE,) + DRILL_FILES


class SubmissionError(UsageError):
    """The submission as a whole cannot be read. The message is for the student.

    It often names a file, folder or archive member the student chose: it is made one line of
    plain text (`clean_name`) here, so every printer and report gets it safe."""

    def __init__(self, message: object = "") -> None:
        super().__init__(clean_name(message, 1000))


@dataclass(frozen=True)
class LoadLimits:
    """Caps on what a loader reads. Submissions are hostile input: nothing is unbounded.

    max_file_bytes: one exercise file; max_total_bytes: all of them together;
    max_members: entries of an archive, or files and folders of a folder;
    max_ratio: zip members unpacking to more than this many times their packed size are bombs;
    max_archive_bytes: the .zip file itself (its central directory is parsed whole);
    max_depth: folder nesting below the submission folder that is still searched;
    max_seconds: wall clock one entry may take to load (`grader.loading.guarded`);
    max_memory_mb: address space the loading child may add to what it inherited.
    """

    max_file_bytes: int = 1_000_000
    max_total_bytes: int = 20_000_000
    max_members: int = 2_000
    max_ratio: int = 200  # zip: uncompressed / compressed, per member
    max_archive_bytes: int = 50_000_000
    max_depth: int = 16
    max_seconds: float = 20.0
    max_memory_mb: int = 2048


# Uploaded one by one (Gradescope's drag and drop, Canvas) the drill's files lose their folder.
FLAT_DRILL = {f.rsplit("/", 1)[-1]: f for f in DRILL_FILES}


def is_known(rel: str) -> bool:
    """Whether a relative path names one of the exercise files (at any folder depth), or a
    drill file without its drill/ folder (`assemble` decides whether it is one)."""
    return rel.rsplit("/", 1)[-1] in FLAT_DRILL or any(
        rel == k or rel.endswith("/" + k) for k in KNOWN_FILES
    )


@dataclass(frozen=True)
class Submission:
    """What was handed in, as text.

    sources: part module name -> Python source (only parts that were found and readable).
    missing: part -> message, for code parts that could not be used (absent, unreadable).
    written: "explanation" -> the answer text (the part under "## Your answer" if present).
    files: every known file found, by relative path (drill files included), as text.
    problems: messages about the submission that cost nothing by themselves.
    notebook: a notebook submission's own JSON text, for feedback inside it (never graded,
    not in the digest); "" for any other submission.
    cell_lines: a notebook's files -> runs (first line in the file, cell, first line in that
    cell, count) saying where their lines came from (`grader.loading.cells`); {} otherwise.
    """

    name: str
    origin: str
    sources: dict[str, str] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)
    written: dict[str, str] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    problems: tuple[str, ...] = ()
    notebook: str = ""
    cell_lines: dict[str, tuple[tuple[int, int, int, int], ...]] = field(default_factory=dict)

    @property
    def digest(self) -> str:
        """Content hash of everything graded (stable across copies and archive formats).

        Each name and text is length-prefixed: a file's text may hold NULs, so with separators
        alone one file could spell out the files after it ("E\\0generation.py\\0G" in
        explanation.md hashed as explanation.md plus generation.py), and a batch would serve
        one submission's cached report to another."""
        h = hashlib.sha256()
        for path in sorted(self.files):
            for field_ in (path.encode(), self.files[path].encode("utf-8", "surrogatepass")):
                h.update(len(field_).to_bytes(8, "big"))
                h.update(field_)
        return h.hexdigest()


def _copies(paths: list[str]) -> dict[str, set[str]]:
    """Folder -> the exercise files directly in it (each folder holding any is one copy)."""
    out: dict[str, set[str]] = {}
    for p in paths:
        for known in KNOWN_FILES:
            if p == known or p.endswith("/" + known):
                out.setdefault(p[: len(p) - len(known)].rstrip("/"), set()).add(p)
    return out


def find_root(paths: list[str], mtimes: dict[str, float] | None = None) -> str:
    """The folder inside a submission that holds its files (see `choose_root`)."""
    return choose_root(paths, mtimes)[0]


def choose_root(paths: list[str], mtimes: dict[str, float] | None = None) -> tuple[str, str]:
    """(root, note): the folder inside a submission whose exercise files are graded.

    Students zip the folder itself, its contents, or a wrapper around it (`alice/exercises/`):
    the root is the folder holding the exercise files. When several folders hold some (`old/`
    and `final/`, or a top-level copy and `backup/`), that is never silent: the copy with the
    most recently modified file is graded (`mtimes`: path -> modification time, as the folder
    or archive records it), then the one with the most files, then the shallowest, then the
    first by name; `note` says which was graded and which were ignored ("" for one copy).
    """
    copies = _copies(paths)
    if not copies:
        return "", ""
    times = mtimes or {}

    def newest(root: str) -> float:
        return max((times.get(p, float("-inf")) for p in copies[root]), default=float("-inf"))

    ranked = sorted(copies, key=lambda r: (-newest(r), -len(copies[r]), r.count("/"), r))
    root = ranked[0]
    if len(ranked) == 1:
        return root, ""

    def label(r: str) -> str:
        return f"{r}/" if r else "the top folder"

    why = (
        "its files were modified most recently"
        if newest(root) > newest(ranked[1])
        else "it has the most exercise files"
        if len(copies[root]) > len(copies[ranked[1]])
        else "no copy is newer or more complete, so the shallowest (then first by name)"
    )
    note = (
        f"{_COPIES_START}{len(ranked)}{_COPIES_MIDDLE}"
        f"{', '.join(label(r) for r in sorted(ranked))}): {label(root)}{_COPIES_GRADED}{why}); "
        f"{', '.join(label(r) for r in ranked[1:])} ignored. Hand in only one copy."
    )
    return root, note


_COPIES_START = "the submission holds "
_COPIES_MIDDLE = " copies of the exercise files ("
_COPIES_GRADED = " was graded ("


def read_copies_note(text: str) -> tuple[int, str] | None:
    """(how many copies, the copy graded) when `text` is `choose_root`'s note, else None.

    For the notes of a report read back (the class report lists these submissions). Plain
    string search, linear in `text`: folder names in it are the student's."""
    if not text.startswith(_COPIES_START) or _COPIES_MIDDLE not in text:
        return None
    count = text[len(_COPIES_START) :].partition(_COPIES_MIDDLE)[0]
    head, found, _ = text.rpartition(_COPIES_GRADED)
    if not count.isdigit() or not found:
        return None
    return int(count), head.rpartition("): ")[2]


def safe_relpath(name: str) -> str:
    """Normalise an archive member name; raise SubmissionError if it escapes the folder."""
    if "\0" in name:
        raise SubmissionError("the archive contains a file name with a NUL byte")
    n = name.replace("\\", "/")
    if n.startswith("/") or re.match(r"^[A-Za-z]:", n):
        raise SubmissionError(f"the archive member {name!r} has an absolute path")
    norm = posixpath.normpath(n)
    if norm == ".." or norm.startswith("../") or "/../" in f"/{norm}/":
        raise SubmissionError(f"the archive member {name!r} points outside the folder")
    return "" if norm == "." else norm


# Linear on any input: `\s*` cannot cross the `#` that starts the next candidate line, and
# the trailing `\s*$` backtracks over one line's whitespace at most once per heading.
ANSWER_HEADING = re.compile(r"^#{1,6}\s*your answer\s*$", re.IGNORECASE | re.MULTILINE)
MAX_ANSWER_CHARS = 100_000  # the rubric reads 60,000 and flags longer answers; this bounds it


def strip_comments(text: str) -> str:
    """`text` without HTML comments. An unclosed `<!--` is kept as text, like the regex
    `<!--.*?-->` would, but found with `str.find` (linear: that regex rescans to the end
    of the text from every `<!--` when no `-->` follows)."""
    out: list[str] = []
    pos = 0
    while True:
        start = text.find("<!--", pos)
        end = text.find("-->", start + 4) if start >= 0 else -1
        if end < 0:
            out.append(text[pos:])
            return "".join(out)
        out.append(text[pos:start])
        pos = end + 3


def extract_answer(markdown: str) -> str:
    """The student's answer: the text under a 'Your answer' heading, or the whole file."""
    m = ANSWER_HEADING.search(markdown)
    text = markdown[m.end() :] if m else markdown
    return strip_comments(text).strip()


MAX_NEAR_MISSES = 500  # other file names looked at for a misnamed exercise file


def near_miss(known: str, others: list[str]) -> str | None:
    """The handed-in file that is most likely `known` under another name (`Masks.py`,
    `loss.py`, `explanation.txt`, `masks (1).py`), or None."""
    base = known.rsplit("/", 1)[-1]
    stem, ext = base.rsplit(".", 1)
    kinds = {"md": ("md", "txt", "markdown")}.get(ext, (ext,))  # masks.ipynb is no masks.py
    names = {
        n: o
        for o in others[:MAX_NEAR_MISSES]
        if not any(part.startswith((".", "__MACOSX")) for part in o.split("/"))
        and (
            (n := o.rsplit("/", 1)[-1]).rsplit(".", 1)[-1].lower() in kinds
            or n.lower().startswith(base.lower() + ".")
        )
    }
    copy = re.compile(rf"{re.escape(stem)}[ _-]*(?:\(\d+\)|\d+|copy)?", re.IGNORECASE)
    for n, full in names.items():
        if n.lower() == base.lower() or n.lower().startswith(base.lower() + "."):
            return full  # another case, or masks.py.txt
        if copy.fullmatch(n.rsplit(".", 1)[0]):
            return full  # a download's copy: masks (1).py, masks-2.py
    close = difflib.get_close_matches(stem, [n.rsplit(".", 1)[0] for n in names], n=1, cutoff=0.8)
    if close:
        return next(full for n, full in names.items() if n.rsplit(".", 1)[0] == close[0])
    return None


FLAT_DRILL_SCRIPT = "experiment.py"


def root_join(root: str, rel: str) -> str:
    """`rel` under the archive folder `root` ('' is the top level)."""
    return f"{root}/{rel}" if root else rel


def assemble(
    name: str,
    origin: str,
    raw: dict[str, bytes],
    problems: list[str],
    *,
    unusable: dict[str, str] | None = None,
    mtimes: dict[str, float] | None = None,
    others: list[str] | None = None,
) -> Submission:
    """Build a Submission from relative path -> bytes of the files found (any loader).

    `unusable` maps relative paths of exercise files that were found but refused (a link, a
    bomb, a pipe...) to the reason: a code part refused this way is missing *with that reason*
    instead of "not found". `mtimes` (path -> modification time) decides between two copies
    of the exercise files (`choose_root`); the choice is noted in `problems`. `others`: the
    names of the other files seen, so that a misnamed exercise file is named in the message.
    """
    unusable = dict(unusable or {})
    root, note = choose_root(list(raw) + list(unusable), mtimes)
    if note:
        problems = [*problems, note]
    files: dict[str, str] = {}
    missing: dict[str, str] = {}
    inside = {
        (rel[len(root) + 1 :] if root else rel): rel
        for rel in raw
        if not root or rel.startswith(root + "/")
    }
    if FLAT_DRILL_SCRIPT in inside and not any(f in inside for f in DRILL_FILES):
        # the drill's files beside the code (its script among them): they are the drill
        raw = {**raw, **{root_join(root, FLAT_DRILL[f]): raw[inside[f]] for f in FLAT_DRILL
                         if f in inside}}  # fmt: skip
    for rel, data in raw.items():
        inner = rel[len(root) + 1 :] if root and rel.startswith(root + "/") else rel
        if root and not rel.startswith(root + "/"):
            continue
        if inner not in KNOWN_FILES:
            continue
        try:
            files[inner] = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            if inner.endswith(".md"):  # prose from an editor that saves Windows-1252: read it
                files[inner] = data.decode("cp1252", errors="replace")
                problems.append(
                    f"{inner} is not UTF-8 text: it was read as Windows-1252 (save it as UTF-8 "
                    "so that every character is read as you wrote it)"
                )
                continue
            problems.append(f"{inner} is not UTF-8 text and was ignored")
            stem = inner.removesuffix(".py")
            if stem in CODE_PARTS:
                missing[stem] = f"{inner} could not be read: it is not UTF-8 text"
    sources = {p: files[f"{p}.py"] for p in CODE_PARTS if f"{p}.py" in files}
    for p in [p for p, text in sources.items() if not text.strip()]:
        # an empty upload (a failed upload, the wrong file saved): one cause, not one
        # "does not define it" per function of the part
        del sources[p]
        missing[p] = f"{p}.py is empty: there is no code in it to grade (upload the file you wrote)"
    for rel, why in sorted(unusable.items()):
        inner = rel[len(root) + 1 :] if root and rel.startswith(root + "/") else rel
        stem = inner.removesuffix(".py")
        if stem in CODE_PARTS and stem not in sources and stem not in missing:
            missing[stem] = f"{why}, so it could not be graded"
    for p in CODE_PARTS:
        if p not in sources and p not in missing:
            missing[p] = f"{p}.py was not found in your submission"
            other = near_miss(f"{p}.py", others or [])
            if other:
                missing[p] += f" (there is {other}: name it {p}.py, file names are exact)"
    if EXPLANATION_FILE not in files and (other := near_miss(EXPLANATION_FILE, others or [])):
        problems.append(
            f"{EXPLANATION_FILE} was not found; there is {other}: name it {EXPLANATION_FILE}"
        )
    written = {}
    if EXPLANATION_FILE in files:
        # quoted back in feedback: no terminal escapes or bidi overrides may survive
        answer = clean_text(extract_answer(files[EXPLANATION_FILE]))
        if len(answer) > MAX_ANSWER_CHARS:
            problems.append(
                f"{EXPLANATION_FILE} is longer than {MAX_ANSWER_CHARS:,} characters; "
                "only the beginning was read"
            )
            answer = answer[:MAX_ANSWER_CHARS]
        written["explanation"] = answer
    if not files:
        problems.append(
            "no exercise files were found (expected masks.py, corruption.py, losses.py, "
            "generation.py, explanation.md)"
        )
    return Submission(
        # names and member names reach every report format: one line each, no controls
        name=clean_name(name, 300),
        origin=origin,
        sources=sources,
        missing={p: clean_name(why, 1000) for p, why in missing.items()},
        written=written,
        files=files,
        problems=tuple(clean_name(p, 1000) for p in problems),
    )
