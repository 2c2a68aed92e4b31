"""Gradescope exports: `submission_metadata.yml` beside one folder per submission.

The submitters' names, SIDs and e-mails and the submission times come from the metadata,
read with a line parser (no YAML library); unknown structure is ignored.
"""

from __future__ import annotations

import re
from pathlib import Path

from grader.batch.intake_records import Entry, Identity, Intake, Skipped, safe_key
from grader.batch.intake_zip import ZipTree, zip_entry
from grader.batch.late import parse_gradescope_times
from grader.loading import LoadLimits, Submission, SubmissionError
from grader.loading.entry import ignored, load_dir

GRADESCOPE_META = "submission_metadata.yml"


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
            out[current].append(
                Identity(
                    name=person.get("name", ""),
                    sis_user_id=person.get("sid", ""),
                    email=person.get("email", ""),
                )
            )
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


def find_gradescope_dir(root: Path) -> Path | None:
    """The `submission_metadata.yml` of a Gradescope export rooted at `root` or in its single sub-
    folder, else None."""
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


def gradescope_dir(base: Path, meta: Path, limits: LoadLimits, root: Path) -> Intake:
    """The submissions of an unzipped Gradescope export (`base` holds `meta`): one entry per
    `submission_*` folder, named by its submitters from the metadata (unreadable metadata falls
    back to folder names); anything else is skipped with a reason."""
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

        entries.append(
            Entry(
                key=key,
                display=display,
                source=child.name,
                members=submitters or [Identity(name=child.name)],
                loader=loader,
                submitted_at=times.get(child.name, ""),
            )
        )
    return Intake("gradescope", str(root), entries, skipped)


def gradescope_zip(tree: ZipTree, meta_rel: str, limits: LoadLimits, path: Path) -> Intake:
    """As `gradescope_dir`, for a Gradescope export still zipped (`meta_rel` is the metadata's path
    inside `tree`)."""
    base = meta_rel[: -len(GRADESCOPE_META)]
    try:
        text = tree.read(meta_rel, limits, cap=limits.max_total_bytes).decode("utf-8", "replace")
    except SubmissionError:
        text = ""
    people, times = parse_gradescope_metadata(text), parse_gradescope_times(text)
    dirs, files = tree.children(base)
    entries: list[Entry] = []
    skipped = [
        Skipped(f"{path.name}:{base}{f}", "not a submission folder; skipped")
        for f in files
        if f != GRADESCOPE_META
    ]
    for d in dirs:
        submitters = people.get(d, [])
        key, display = _gradescope_identity(d, submitters)
        entry = zip_entry(d, tree, base + d + "/", limits, folder=True)
        entry.key = key
        entry.display = display
        entry.members = submitters or [Identity(name=d)]
        entry.submitted_at = times.get(d, "")
        prefix = base + d + "/"
        entry.loader = lambda prefix=prefix, key=key: tree.load_prefix(
            prefix, name=key, limits=limits
        )
        entries.append(entry)
    return Intake("gradescope", str(path), entries, skipped)
