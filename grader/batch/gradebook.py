"""The Canvas gradebook CSV (`OUT/gradebook.csv`) and its companion notes file.

Canvas's importer (instructure/canvas-lms `lib/gradebook_importer.rb`) reads a header whose
first cells are `Student`, `ID`, then optionally `SIS User ID`, `SIS Login ID`, with `Section`
as the last student column; every later column is an assignment, matched by the id in
`Title (1234)` or else by exact title (an unknown title creates a new assignment). A row
starting `Points Possible` sets the points. Students are matched by Canvas `ID`, then SIS User
ID, then SIS Login ID, then name. A blank cell leaves a grade unchanged.

So the CSV carries only those columns; anything the importer would mistake for an assignment
(notes, unreadable submissions, ids that could not be mapped) goes to
`OUT/gradebook_notes.csv` instead. A Canvas gradebook export given as `--roster` fills in the
Canvas ID, SIS ids and section of students found by the layout's id, SIS id, login, e-mail or
name.
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path

from grader.batch.intake import Identity
from grader.batch.late import format_points
from grader.errors import UsageError
from grader.textsafe import clean_text

HEADER = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
NOTES_HEADER = [
    "Student",
    "ID",
    "SIS User ID",
    "SIS Login ID",
    "Entry",
    "Score",
    "Note",
    "Raw score",
    "Late penalty",
]
EMAIL_COLUMNS = ("Email", "E-mail", "Email Address")
_TITLE_ID = re.compile(r"\s\((\d+)\)$")


@dataclass(frozen=True)
class GradebookLine:
    """One student (one member of a graded entry) as the gradebook sees them."""

    key: str
    identity: Identity
    score: float | None  # None: not graded (unreadable, internal error)
    note: str = ""
    withheld: bool = False  # graded, but the score is for the instructor to place (notes only)
    raw: float | None = None  # the score before a late penalty (None: no penalty)
    penalty: str = ""  # the penalty, e.g. "-20% (2 points)"


def assignment_header(title: str) -> str:
    """The assignment column header. `Unit 3 (1234)` targets assignment 1234 in Canvas."""
    title = " ".join(title.split())
    if not title:
        raise UsageError("--assignment must not be empty")
    if title.startswith("Points Possible") or title in HEADER:
        raise UsageError(f"--assignment {title!r} would be read as a student column by Canvas")
    return title


def assignment_has_id(title: str) -> bool:
    """True when `title` ends in Canvas's `(assignment id)`, so an import updates that assignment
    instead of creating a column."""
    return bool(_TITLE_ID.search(title))


# ----------------------------------------------------------------------------- roster


def _norm(text: str) -> str:
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]", "", text.lower())


def name_keys(name: str) -> set[str]:
    """`Doe, Jane` -> {doejane, janedoe}; `Jane Doe` -> {janedoe, doejane}."""
    if not name.strip():
        return set()
    keys = {_norm(name)}
    if "," in name:
        last, _, first = name.partition(",")
        keys.add(_norm(first + last))
    else:
        words = name.split()
        if len(words) >= 2:
            keys.add(_norm(words[-1] + "".join(words[:-1])))
    keys.discard("")
    return keys


class Roster:
    """Students from a Canvas gradebook export (Student, ID, SIS User ID, SIS Login ID, ...)."""

    def __init__(self, rows: list[Identity]) -> None:
        self.rows = rows
        self._by: dict[str, dict[str, list[Identity]]] = {
            "id": {},
            "sis": {},
            "login": {},
            "name": {},
        }
        for r in rows:
            if r.canvas_id:
                self._by["id"].setdefault(r.canvas_id, []).append(r)
            if r.sis_user_id:
                self._by["sis"].setdefault(r.sis_user_id.lower(), []).append(r)
            for value in {r.sis_login_id.lower(), r.email.lower()} - {""}:
                self._by["login"].setdefault(value, []).append(r)
                local = value.split("@", 1)[0]
                if local != value:
                    self._by["login"].setdefault(local, []).append(r)
            for k in name_keys(r.name):
                self._by["name"].setdefault(k, []).append(r)

    @classmethod
    def load(cls, path: Path) -> Roster:
        """Read a Canvas gradebook export (UTF-8 with or without BOM, comma or semicolon separated,
        header starting `Student, ID`). Every unreadable or malformed roster raises UsageError
        naming the file and what to do; nothing is written."""
        try:
            text = Path(path).read_text(encoding="utf-8-sig")
        except UnicodeDecodeError as exc:
            line = Path(path).read_bytes()[: exc.start].count(b"\n") + 1
            raise UsageError(
                f"the roster {path} is not UTF-8 text (line {line}): Excel's \"CSV (Comma "
                "delimited)\" saves names like Müller in the Windows code page. Use Canvas's "
                'export as downloaded, or save it as "CSV UTF-8" (nothing was written)'
            ) from None
        except OSError as exc:
            raise UsageError(f"the roster {path} could not be read ({exc.strerror})") from None
        first = text.split("\n", 1)[0]
        delim = ";" if first.count(";") > first.count(",") else ","
        reader = csv.reader(io.StringIO(text), delimiter=delim)
        try:
            header = [h.strip() for h in next(reader)]
        except StopIteration:
            raise UsageError(f"the roster {path} is empty") from None
        if len(header) < 2 or "Student" not in header[0] or "ID" not in header[1]:
            raise UsageError(
                f"the roster {path} is not a Canvas gradebook export (its header must start "
                "with Student, ID)"
            )
        col = {name: header.index(name) for name in (*HEADER, *EMAIL_COLUMNS) if name in header}
        email = next((c for c in EMAIL_COLUMNS if c in col), "")
        rows: list[Identity] = []
        for cells in reader:
            if not cells or not any(c.strip() for c in cells):
                continue
            student = cells[0].strip()
            if student.startswith("Points Possible") or _norm(student) in (
                "studenttest",
                "teststudent",
            ):
                continue

            def cell(name: str, cells: list[str] = cells) -> str:
                i = col.get(name)
                return cells[i].strip() if i is not None and i < len(cells) else ""

            rows.append(
                Identity(
                    name=student,
                    canvas_id=cell("ID"),
                    sis_user_id=cell("SIS User ID"),
                    sis_login_id=cell("SIS Login ID"),
                    section=cell("Section"),
                    email=cell(email) if email else "",
                )
            )
        _check_unique(rows, path)
        return cls(rows)

    def match(self, who: Identity, *, extra_names: tuple[str, ...] = ()) -> Identity | None:
        """The roster row for `who`, trying Canvas ID, SIS id, login/e-mail, then name.

        `extra_names` (the entry's own name, e.g. a folder `jdoe@uni.edu/` or `20231234/`)
        are tried as a SIS id, login, e-mail or Canvas ID after `who`'s ids, then as names."""
        tries: list[tuple[str, str]] = []
        if who.canvas_id:
            tries.append(("id", who.canvas_id))
        if who.sis_user_id:
            tries.append(("sis", who.sis_user_id.lower()))
            tries.append(("login", who.sis_user_id.lower()))
        for login in (who.sis_login_id, who.email):
            if login:
                tries.append(("login", login.lower()))
                tries.append(("login", login.lower().split("@", 1)[0]))
        for label in dict.fromkeys(v.strip() for v in (who.name, *extra_names) if v.strip()):
            tries += [("sis", label.lower()), ("login", label.lower()), ("id", label)]
            if "@" in label:
                tries.append(("login", label.lower().split("@", 1)[0]))
        for name in (who.name, *extra_names):
            for k in sorted(name_keys(name)):
                tries.append(("name", k))
        for kind, value in tries:
            found = self._by[kind].get(value, [])
            if len({id(r) for r in found}) == 1:
                return found[0]
        return None


def _check_unique(rows: list[Identity], path: Path) -> None:
    """Two roster rows with one id would send one grade to either student: refuse the roster."""
    for label, get in (
        ("Canvas ID", lambda r: r.canvas_id),
        ("SIS User ID", lambda r: r.sis_user_id.lower()),
        ("SIS Login ID", lambda r: r.sis_login_id.lower()),
        ("e-mail", lambda r: r.email.lower()),
    ):
        seen: dict[str, Identity] = {}
        for r in rows:
            value = get(r)
            if not value:
                continue
            if value in seen:
                raise UsageError(
                    f"the roster {path} gives two students the {label} {value!r} "
                    f"({seen[value].name} and {r.name}): fix the roster and run again "
                    "(nothing was written)"
                )
            seen[value] = r


def resolve(who: Identity, roster: Roster | None, *, entry_name: str = "") -> Identity:
    """`who` completed from the roster (roster values win: they are Canvas's own)."""
    if roster is None:
        return who
    row = roster.match(who, extra_names=(entry_name,) if entry_name else ())
    if row is None:
        return who
    return replace(
        who,
        name=row.name or who.name,
        canvas_id=row.canvas_id or who.canvas_id,
        sis_user_id=row.sis_user_id or who.sis_user_id,
        sis_login_id=row.sis_login_id or who.sis_login_id,
        section=row.section or who.section,
    )


# ----------------------------------------------------------------------------- writing


def points_possible(max_scores: list[float]) -> float | None:
    """The assignment's points possible: the most common max score among the graded reports, None
    when nothing was graded."""
    if not max_scores:
        return None
    return Counter(max_scores).most_common(1)[0][0]


def render_gradebook(
    lines: list[GradebookLine], assignment: str, points: float | None, *, roster_given: bool = False
) -> tuple[str, str]:
    """(gradebook.csv text, gradebook_notes.csv text). `roster_given`: a --roster was used
    (the notes then say a student was not found in it instead of suggesting one)."""
    title = assignment_header(assignment)
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\r\n")
    w.writerow([*HEADER, title])
    w.writerow(["Points Possible", "", "", "", "", "" if points is None else format_points(points)])
    notes = io.StringIO()
    nw = csv.writer(notes, lineterminator="\r\n")
    nw.writerow(NOTES_HEADER)
    for line in sorted(lines, key=lambda g: (_norm(g.identity.name), g.key)):
        who = line.identity
        score = "" if line.score is None else format_points(line.score)
        note = line.note
        if line.score is not None and not line.withheld:
            w.writerow(
                [
                    *map(
                        _cell,
                        (
                            who.name or line.key,
                            who.canvas_id,
                            who.sis_user_id,
                            who.sis_login_id,
                            who.section,
                        ),
                    ),
                    score,
                ]
            )
            if not (who.canvas_id or who.sis_user_id or who.sis_login_id):
                note = (note + "; " if note else "") + (
                    "no Canvas ID or SIS id known: Canvas will match this row by name only; "
                    "check it in the import preview"
                    + (
                        " (not found in the --roster by id, login, e-mail or name)"
                        if roster_given
                        else " (or pass --roster)"
                    )
                )
        if note or line.penalty:
            row = [
                *map(_cell, (who.name, who.canvas_id, who.sis_user_id, who.sis_login_id, line.key)),
                score,
                _cell(note),
            ]
            if line.penalty:  # the last two columns are only filled for a late penalty
                raw = "" if line.raw is None else format_points(line.raw)
                row += [raw, _cell(line.penalty)]
            nw.writerow(row)
    return out.getvalue(), notes.getvalue()


def _cell(text: object) -> str:
    """A text cell spreadsheet apps will not run as a formula (CSV injection), with no control
    characters or bidi overrides. Every text column goes through it: names, ids and sections
    can come from student-chosen file names, a Gradescope export or a roster."""
    text = " ".join(clean_text("" if text is None else str(text)).split())
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text
