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
"""

from __future__ import annotations

import re
import unicodedata
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from grader.batch.late import parse_gradescope_times
from grader.errors import UsageError
from grader.loading import LoadLimits, Submission, SubmissionError, assemble, load_submission
from grader.loading.archive import load_zip_members
from grader.loading.entry import (
    ignored,
    is_notebook,
    load_dir,
    load_zip_bytes,
    read_member,
    several_notebooks,
)
from grader.loading.model import KNOWN_FILES, safe_relpath
from grader.loading.notebook import load_notebook_bytes
from grader.textsafe import clean_name

CANVAS_NAME = re.compile(
    r"^(?P<name>.+?)_(?:(?P<late>LATE)_)?(?P<uid>\d+)_(?P<sid>\d+)_(?P<file>.+)$"
)
CANVAS_DEDUP = re.compile(r"^(?P<stem>.+?)-\d+(?P<ext>\.[A-Za-z0-9]+)$")
GRADESCOPE_META = "submission_metadata.yml"
_SUBMISSION_SUFFIXES = (".zip", ".ipynb")


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


# ----------------------------------------------------------------------------- helpers


def safe_key(text: str, fallback: str = "student") -> str:
    """A file-name-safe id: no path separators, no leading dots, nothing exotic."""
    norm = unicodedata.normalize("NFKD", text)
    norm = norm.encode("ascii", "ignore").decode("ascii")
    norm = re.sub(r"[^A-Za-z0-9._-]+", "_", norm).strip("._-")
    norm = re.sub(r"_+", "_", norm)[:80].strip("._-")
    if not norm or norm.upper() in _WINDOWS_RESERVED:
        norm = f"{fallback}_{norm}" if norm else fallback
    return norm


_WINDOWS_RESERVED = {"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(10)),
                     *(f"LPT{i}" for i in range(10))}


def _unique_keys(entries: list[Entry]) -> None:
    """Make keys unique case-insensitively (two ids may sanitise to the same text)."""
    seen: dict[str, int] = {}
    for e in entries:
        base = e.key
        n = seen.get(base.lower(), 0)
        seen[base.lower()] = n + 1
        if n:
            k = n + 1
            while f"{base}-{k}".lower() in seen:
                k += 1
            e.key = f"{base}-{k}"
            seen[e.key.lower()] = 1


# ----------------------------------------------------------------------------- archives


class _ZipTree:
    """An open class archive: member names made safe, unusable ones remembered."""

    def __init__(self, zf: zipfile.ZipFile, label: str) -> None:
        self.zf = zf
        self.label = label
        self.members: dict[str, zipfile.ZipInfo] = {}
        self.bad: list[Skipped] = []
        for info in zf.infolist():
            try:
                rel = safe_relpath(info.filename)
            except SubmissionError as exc:
                self.bad.append(Skipped(f"{label}:{info.filename}", str(exc)))
                continue
            if not rel or info.is_dir():
                continue
            if any(ignored(p) for p in rel.split("/")):
                continue
            self.members[rel] = info

    def children(self, prefix: str) -> tuple[list[str], list[str]]:
        """(sub-folder names, file names) directly under `prefix` ("" or "dir/")."""
        dirs: set[str] = set()
        files: list[str] = []
        for rel in self.members:
            if not rel.startswith(prefix):
                continue
            rest = rel[len(prefix):]
            if "/" in rest:
                dirs.add(rest.split("/", 1)[0])
            else:
                files.append(rest)
        return sorted(dirs), sorted(files)

    def load_prefix(self, prefix: str, *, name: str, limits: LoadLimits) -> Submission:
        """A student's folder inside the class archive."""
        inner = [r for r in self.members if r.startswith(prefix)]
        if len(inner) > limits.max_members:
            raise SubmissionError(f"the submission holds more than {limits.max_members} files")
        # The loader counts every member of the archive; the class archive is allowed to be big.
        wide = replace(limits, max_members=max(limits.max_members, len(self.zf.infolist())))
        sub = load_zip_members(self.zf, name=name, origin=f"{self.label}:{prefix}",
                               limits=wide, prefix=prefix)
        if sub.files:
            return sub
        notebooks = [r for r in inner if is_notebook(r)]
        if len(notebooks) == 1:
            data = read_member(self.zf, self.members[notebooks[0]], limits,
                                cap=limits.max_total_bytes)
            return load_notebook_bytes(data, name=name, origin=f"{self.label}:{notebooks[0]}",
                                       limits=limits, filename=Path(notebooks[0]).name)
        if len(notebooks) > 1:
            raise several_notebooks(notebooks)
        zips = [r for r in inner if r.lower().endswith(".zip")]
        if len(zips) == 1:
            data = read_member(self.zf, self.members[zips[0]], limits,
                                cap=limits.max_total_bytes)
            return load_zip_bytes(data, name=name, origin=f"{self.label}:{zips[0]}",
                                   limits=limits)
        return sub

    def load_member(self, rel: str, *, name: str, limits: LoadLimits) -> Submission:
        """A student's single .zip or .ipynb inside the class archive."""
        data = read_member(self.zf, self.members[rel], limits, cap=limits.max_total_bytes)
        origin = f"{self.label}:{rel}"
        if rel.lower().endswith(".ipynb"):
            return load_notebook_bytes(data, name=name, origin=origin, limits=limits,
                                       filename=Path(rel).name)
        return load_zip_bytes(data, name=name, origin=origin, limits=limits)

    def read(self, rel: str, limits: LoadLimits, cap: int | None = None) -> bytes:
        return read_member(self.zf, self.members[rel], limits, cap=cap)


def _wrapper_prefix(tree: _ZipTree) -> str:
    """Descend through single wrapper folders (`class/` or `export/`) that hold only a folder."""
    prefix = ""
    for _ in range(3):
        dirs, files = tree.children(prefix)
        wrapper = prefix + dirs[0] + "/" if len(dirs) == 1 else ""
        if wrapper and not files and not _looks_like_submission(tree, wrapper):
            prefix += dirs[0] + "/"
        else:
            break
    return prefix


def _looks_like_submission(tree: _ZipTree, prefix: str) -> bool:
    _, files = tree.children(prefix)
    return any(f in KNOWN_FILES for f in files)


# ----------------------------------------------------------------------------- discovery


@contextmanager
def open_intake(path: str | Path, limits: LoadLimits | None = None, *,
                exclude: tuple[Path, ...] = ()) -> Iterator[Intake]:
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
        _unique_keys(intake.entries)
        yield intake
        return
    if p.suffix.lower() != ".zip":
        raise UsageError(
            f"{p.name} is not a class: give a folder of submissions, a Canvas submissions "
            "zip or a Gradescope export (use `grader grade` for one submission)"
        )
    try:
        zf = zipfile.ZipFile(p)
    except Exception as exc:  # noqa: BLE001 - any parse failure of hostile bytes
        raise UsageError(f"{p.name} is not a readable zip archive ({exc})") from None
    with zf:
        tree = _ZipTree(zf, p.name)
        intake = _discover_zip(tree, p, limits)
        intake.skipped[:0] = tree.bad
        _unique_keys(intake.entries)
        yield intake


def _discover_dir(root: Path, limits: LoadLimits, skip: set[Path] | None = None) -> Intake:
    meta = _find_gradescope_dir(root)
    if meta is not None:
        return _gradescope_dir(meta.parent, meta, limits, root)
    files = sorted(f for f in root.iterdir() if f.is_file() and not ignored(f.name))
    if files and _canvas_share([f.name for f in files]) >= 0.5:
        intake = _canvas(root, [(f.name, f) for f in files], None, limits, str(root))
        intake.skipped.extend(
            _canvas_folder(f"{root.name}/{d.name}/") for d in sorted(root.iterdir())
            if d.is_dir() and not ignored(d.name) and not (skip and d.resolve() in skip))
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

    return Entry(key=key, display=label, source=path.name,
                 members=[Identity(name=label, sis_login_id="")], loader=loader)


def _discover_zip(tree: _ZipTree, path: Path, limits: LoadLimits) -> Intake:
    metas = sorted((r for r in tree.members if r.split("/")[-1] == GRADESCOPE_META),
                   key=lambda r: (r.count("/"), r))
    if metas:
        return _gradescope_zip(tree, metas[0], limits, path)
    prefix = _wrapper_prefix(tree)
    dirs, files = tree.children(prefix)
    if files and _canvas_share(files) >= 0.5:
        intake = _canvas(path, [(f, prefix + f) for f in files], tree, limits, path.name)
        intake.skipped.extend(_canvas_folder(f"{path.name}:{prefix}{d}/") for d in dirs)
        return intake
    if _looks_like_submission(tree, prefix):
        raise UsageError(
            f"{path.name} looks like one submission, not a class; use `grader grade` for it"
        )
    entries: list[Entry] = []
    skipped: list[Skipped] = []
    for d in dirs:
        entries.append(_zip_entry(d, tree, prefix + d + "/", limits, folder=True))
    for f in files:
        if f.lower().endswith(_SUBMISSION_SUFFIXES):
            entries.append(_zip_entry(Path(f).stem, tree, prefix + f, limits, folder=False))
        else:
            skipped.append(Skipped(f"{path.name}:{prefix}{f}",
                                   "not a folder, .zip or .ipynb; skipped"))
    return Intake("folders", str(path), entries, skipped)


def _zip_entry(label: str, tree: _ZipTree, rel: str, limits: LoadLimits, *,
               folder: bool) -> Entry:
    key = safe_key(label)

    def loader() -> Submission:
        if folder:
            return tree.load_prefix(rel, name=key, limits=limits)
        return tree.load_member(rel, name=key, limits=limits)

    return Entry(key=key, display=label, source=f"{tree.label}:{rel}",
                 members=[Identity(name=label)], loader=loader)


# ----------------------------------------------------------------------------- Canvas


def _canvas_share(names: list[str]) -> float:
    if not names:
        return 0.0
    return sum(1 for n in names if CANVAS_NAME.match(n)) / len(names)


def canvas_filename(original: str) -> str:
    """The student's own file name: Canvas's `-1` re-upload suffix dropped for known files."""
    m = CANVAS_DEDUP.match(original)
    if m and (m.group("stem") + m.group("ext")) in KNOWN_FILES:
        return m.group("stem") + m.group("ext")
    return original


def _canvas_folder(where: str) -> Skipped:
    """A folder beside Canvas's files: Canvas downloads are flat, so it is nobody's
    submission here (a student folder mixed in, or a Canvas file name holding a "/")."""
    return Skipped(where, "a folder inside a Canvas download (Canvas gives flat files, and a "
                   "file name with a '/' lands in a folder too); not graded: grade it "
                   "separately, or rename the files Canvas-style")


def _canvas(root: Path, files: list[tuple[str, object]], tree: _ZipTree | None,
            limits: LoadLimits, label: str) -> Intake:
    """Group `name_[LATE_]uid_sid_file` files by Canvas user id."""
    groups: dict[str, dict] = {}
    skipped: list[Skipped] = []
    for fname, handle in files:
        m = CANVAS_NAME.match(fname)
        if not m:
            skipped.append(Skipped(f"{label}:{fname}",
                                   "not named like a Canvas submission file; skipped"))
            continue
        g = groups.setdefault(m.group("uid"), {"name": m.group("name"), "late": False,
                                               "files": []})
        g["late"] = g["late"] or bool(m.group("late"))
        g["files"].append((canvas_filename(m.group("file")), int(m.group("sid")), fname, handle))
    entries = []
    for uid, g in sorted(groups.items(), key=lambda kv: (kv[1]["name"], kv[0])):
        key = safe_key(f"{g['name']}_{uid}")
        entries.append(Entry(
            key=key, display=g["name"], source=f"{label}:{g['files'][0][2]}",
            members=[Identity(name=g["name"], canvas_id=uid)],
            loader=_canvas_loader(key, g["files"], tree, limits, label), late=g["late"],
        ))
    return Intake("canvas", str(root), entries, skipped)


def _canvas_loader(key: str, files: list[tuple[str, int, str, object]], tree: _ZipTree | None,
                   limits: LoadLimits, label: str) -> Callable[[], Submission]:
    def read(handle: object, cap: int) -> bytes:
        if tree is not None:
            return tree.read(str(handle), limits, cap=cap)
        path = Path(str(handle))
        if path.is_symlink():
            raise SubmissionError(f"{path.name} is a symbolic link")
        if path.stat().st_size > cap:
            raise SubmissionError(f"{path.name} is larger than {cap // 1000} kB")
        return path.read_bytes()

    def loader() -> Submission:
        known = [f for f in files if f[0] in KNOWN_FILES]
        notebooks = [f for f in files if f[0].lower().endswith(".ipynb")]
        zips = [f for f in files if f[0].lower().endswith(".zip")]
        if not known and len(notebooks) == 1:
            own, _sid, canvas_name, handle = notebooks[0]
            return load_notebook_bytes(read(handle, limits.max_total_bytes), name=key,
                                       origin=f"{label}:{canvas_name}", limits=limits,
                                       filename=own)
        if not known and len(notebooks) > 1:
            raise several_notebooks([f[0] for f in notebooks])
        if not known and len(zips) == 1:
            own, _sid, canvas_name, handle = zips[0]
            return load_zip_bytes(read(handle, limits.max_total_bytes), name=key,
                                   origin=f"{label}:{canvas_name}", limits=limits)
        if not known and len(zips) > 1:
            raise SubmissionError("the submission holds several .zip files and no exercise "
                                  "files; hand in one .zip")
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
        return assemble(key, f"{label}:{key}", raw, problems)

    return loader


# ----------------------------------------------------------------------------- Gradescope


def parse_gradescope_metadata(text: str) -> dict[str, list[Identity]]:
    """`submission_metadata.yml` -> folder -> submitters.

    The file is YAML written by Ruby (keys like `:submitters:`). Only the few fields needed are
    read, with a line parser, so no YAML library is required; unknown structure is ignored.
    """
    out: dict[str, list[Identity]] = {}
    current: str | None = None
    in_submitters = False
    sub_indent = -1
    person: dict[str, str] | None = None

    def flush() -> None:
        nonlocal person
        if person is not None and current is not None:
            out[current].append(Identity(
                name=person.get("name", ""), sis_user_id=person.get("sid", ""),
                email=person.get("email", ""),
            ))
        person = None

    for raw_line in text.splitlines():
        if not raw_line.strip() or raw_line.lstrip().startswith("#"):
            continue
        indent = len(raw_line) - len(raw_line.lstrip(" "))
        line = raw_line.strip()
        if indent == 0:
            flush()
            in_submitters = False
            m = re.match(r"^:?([^:\s][^:]*?):\s*$", line)
            current = _unquote(m.group(1)) if m else None
            if current is not None:
                out.setdefault(current, [])
            continue
        if current is None:
            continue
        if re.match(r"^:?submitters:\s*$", line):
            flush()
            in_submitters, sub_indent = True, indent
            continue
        if in_submitters:
            if indent <= sub_indent and not line.startswith("- "):
                flush()
                in_submitters = False
                continue
            if line.startswith("- "):
                flush()
                person = {}
                line = line[2:].strip()
            m = re.match(r"^:?(\w+):\s*(.*)$", line)
            if m and person is not None and m.group(1) in ("name", "sid", "email"):
                person[m.group(1)] = _unquote(m.group(2))
    flush()
    return out


def _unquote(v: str) -> str:
    v = v.strip()
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
        v = v[1:-1]
        v = v.replace("''", "'") if v and "'" in v else v
    return v


def _find_gradescope_dir(root: Path) -> Path | None:
    direct = root / GRADESCOPE_META
    if direct.is_file():
        return direct
    subdirs = [d for d in root.iterdir() if d.is_dir() and not ignored(d.name)]
    if len(subdirs) == 1 and (subdirs[0] / GRADESCOPE_META).is_file():
        return subdirs[0] / GRADESCOPE_META
    return None


def _gradescope_identity(folder: str, submitters: list[Identity]) -> tuple[str, str]:
    names = [s.name for s in submitters if s.name]
    display = " & ".join(names) if names else folder
    number = folder.removeprefix("submission_")
    key = safe_key(f"{names[0]}_{number}") if names else safe_key(folder)
    return key, display


def _gradescope_dir(base: Path, meta: Path, limits: LoadLimits, root: Path) -> Intake:
    try:
        text = meta.read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    people, times = parse_gradescope_metadata(text), parse_gradescope_times(text)
    entries: list[Entry] = []
    skipped: list[Skipped] = []
    for child in sorted(base.iterdir()):
        if ignored(child.name) or child.name == GRADESCOPE_META:
            continue
        if child.is_symlink() or not child.is_dir():
            skipped.append(Skipped(child.name, "not a submission folder; skipped"))
            continue
        submitters = people.get(child.name, [])
        key, display = _gradescope_identity(child.name, submitters)

        def loader(path: Path = child, key: str = key) -> Submission:
            return load_dir(path, name=key, limits=limits)

        entries.append(Entry(key=key, display=display, source=child.name,
                             members=submitters or [Identity(name=child.name)], loader=loader,
                             submitted_at=times.get(child.name, "")))
    return Intake("gradescope", str(root), entries, skipped)


def _gradescope_zip(tree: _ZipTree, meta_rel: str, limits: LoadLimits, path: Path) -> Intake:
    base = meta_rel[: -len(GRADESCOPE_META)]
    try:
        text = tree.read(meta_rel, limits, cap=limits.max_total_bytes).decode("utf-8", "replace")
    except SubmissionError:
        text = ""
    people, times = parse_gradescope_metadata(text), parse_gradescope_times(text)
    dirs, files = tree.children(base)
    entries: list[Entry] = []
    skipped = [Skipped(f"{path.name}:{base}{f}", "not a submission folder; skipped")
               for f in files if f != GRADESCOPE_META]
    for d in dirs:
        submitters = people.get(d, [])
        key, display = _gradescope_identity(d, submitters)
        entry = _zip_entry(d, tree, base + d + "/", limits, folder=True)
        entry.key = key
        entry.display = display
        entry.members = submitters or [Identity(name=d)]
        entry.submitted_at = times.get(d, "")
        prefix = base + d + "/"
        entry.loader = (lambda prefix=prefix, key=key:
                        tree.load_prefix(prefix, name=key, limits=limits))
        entries.append(entry)
    return Intake("gradescope", str(path), entries, skipped)
