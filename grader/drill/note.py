"""Reading Exercise 3's evidence note: its sections, its command, its table and its numbers.

Plain text in, plain data out; no torch. The note is student text: it arrives capped by the
loader, is capped again here (`MAX_NOTE_CHARS`), and every pattern below is linear in it.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

from grader.loading.model import strip_comments
from grader.textsafe import clean_text

MAX_NOTE_CHARS = 50_000

# section id -> (its heading in the template, the word that names it in any heading)
SECTIONS: dict[str, tuple[str, str]] = {
    "accepted_claim": ("Accepted claim", "accepted"),
    "rejected_alternative": ("Rejected alternative", "rejected"),
    "limitation": ("Limitation", "limitation"),
    "reproduction_command": ("Reproduction command", "reproduc"),
    "measurements": ("Measurements", "measurement"),
}
RUNS = ("causal", "masked", "failure", "repaired")

_HEADING = re.compile(r"^#{1,6}[ \t]+(.{1,200}?)[ \t#]*$", re.MULTILINE)
_COMMAND = re.compile(r"\bpython3?[ \t]+(?:\./)?drill/experiment\.py\b([^\n`]{0,300})")
# 0.0660, 3.58e-06, 1e-3, 86% (a number with a decimal point, an exponent or a percent sign;
# plain integers such as a seed or a step count are not checked), not part of a version (2.13.0)
# or of a word.
NUMBER = re.compile(
    r"(?<![\w.])[-+]?(\d{1,20}\.\d{1,20}(?:[eE][-+]?\d{1,3})?|\d{1,20}[eE][-+]?\d{1,3}|\d{1,20}(?=%))"
    r"(%?)"
    r"(?![\w]|\.\d)"
)
_WORD = re.compile(r"[A-Za-z]{2,}")
MAX_RESOLUTION = 0.5  # a quoted number matches at most as loosely as an integer does
_SHELL = set("|&;<>$`\\(){}")
MAX_ARGS = 20


@dataclass(frozen=True)
class Quoted:
    """A number as the student wrote it: its text, its value, and the line it stands in."""

    text: str
    value: float
    line: str
    resolution: float  # half a unit of the last digit written: 0.0660 -> 0.00005 (<= 0.5)
    at: int = -1  # where `text` starts in `line` (-1: unknown)

    def excerpt(self, width: int = 160) -> str:
        """The part of `line` around the number (a paragraph can be one long line): the
        number itself is never cut off, whatever the line's length."""
        line = clean_text(self.line)
        if len(line) <= width:
            return line
        at = self.at if 0 <= self.at < len(line) else max(line.find(self.text), 0)
        start = max(0, min(at - width // 2, len(line) - width))
        cut = line[start : start + width]
        return ("..." if start else "") + cut + ("..." if start + width < len(line) else "")

    def matches(self, value: float, rtol: float, atol: float) -> bool:
        """Whether `value`, rounded as written, gives this number (within the tolerance)."""
        return abs(self.value - value) <= self.resolution + atol + rtol * abs(value)


@dataclass(frozen=True)
class Note:
    """The parsed note. `sections`: id -> body (comments removed, stripped); absent ids had no
    heading. `table`: run name -> {column: cell text}; `columns`: the table's header cells."""

    sections: dict[str, str]
    table: dict[str, dict[str, str]] = field(default_factory=dict)
    table_lines: dict[str, str] = field(default_factory=dict)
    columns: tuple[str, ...] = ()


def parse_note(text: str) -> Note:
    """Split the note into its five sections by their headings (any level, any case)."""
    text = clean_text(strip_comments(text[:MAX_NOTE_CHARS]), MAX_NOTE_CHARS)
    heads = []
    for m in _HEADING.finditer(text):
        sid = _section_of(m.group(1))
        if sid is not None:
            heads.append((sid, m.start(), m.end()))
    sections: dict[str, str] = {}
    for i, (sid, _start, end) in enumerate(heads):
        stop = heads[i + 1][1] if i + 1 < len(heads) else len(_cut_at_next_heading(text, end))
        body = text[end:stop]
        sections.setdefault(sid, body.strip())
    table, lines, columns = _table(sections.get("measurements", ""))
    return Note(sections=sections, table=table, table_lines=lines, columns=columns)


def _cut_at_next_heading(text: str, end: int) -> str:
    """`text` up to the first heading after `end` that is not one of the five sections
    (a later `## Appendix` does not belong to the last section)."""
    for m in _HEADING.finditer(text, end):
        if _section_of(m.group(1)) is None and m.group(0).startswith("## "):
            return text[: m.start()]
    return text


def _section_of(heading: str) -> str | None:
    words = heading.lower()
    for sid, (_title, key) in SECTIONS.items():
        if key in words:
            return sid
    return None


def _table(body: str) -> tuple[dict[str, dict[str, str]], dict[str, str], tuple[str, ...]]:
    """The first Markdown table of the Measurements section whose rows name the runs."""
    rows = [line.strip() for line in body.splitlines() if line.strip().startswith("|")]
    if not rows:
        return {}, {}, ()
    header = _cells(rows[0])
    table: dict[str, dict[str, str]] = {}
    lines: dict[str, str] = {}
    for line in rows[1:]:
        cells = _cells(line)
        if not cells or set("".join(cells)) <= set("-: "):
            continue
        name = cells[0].strip("*_` ").lower()
        if name in RUNS and name not in table:
            table[name] = dict(zip(header, cells, strict=False))
            lines[name] = line
    return table, lines, tuple(header)


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def command_args(section: str) -> list[str] | None:
    """The arguments of the first ``python drill/experiment.py ...`` in `section`, or None.

    Only plain arguments: a shell construct (pipe, redirection, variable, subshell) makes the
    command unusable (the grader runs the script itself, never a shell)."""
    m = _COMMAND.search(section)
    if m is None:
        return None
    rest = m.group(1).split("#", 1)[0].strip()
    if any(ch in _SHELL for ch in rest):
        return None
    try:
        args = shlex.split(rest)
    except ValueError:
        return None
    if len(args) > MAX_ARGS:
        return None
    return args


def command_text(args: list[str]) -> str:
    """The command line that runs the drill with `args`, as the note should quote it."""
    return " ".join(["python drill/experiment.py", *args])


def numbers(text: str) -> list[Quoted]:
    """Every checked number in `text` (see `NUMBER`), with the line it stands in."""
    found = []
    for line in text.splitlines():
        indent = len(line) - len(line.lstrip())
        for m in NUMBER.finditer(line):
            digits = m.group(1)
            mantissa, _, exponent = digits.lower().partition("e")
            decimals = len(mantissa.partition(".")[2])
            scale = 10.0 ** int(exponent or 0) / (100.0 if m.group(2) == "%" else 1.0)
            value = float(mantissa) * scale * (-1.0 if m.group(0).startswith("-") else 1.0)
            # never looser than an integer: '0e2' would otherwise be 0 +-50, any measurement
            resolution = min(0.5 * 10.0**-decimals * scale, MAX_RESOLUTION)
            at = m.start() + m.group(0).startswith("+") - indent
            found.append(Quoted(m.group(0).lstrip("+"), value, line.strip(), resolution, at))
    return found


def word_count(text: str) -> int:
    """The number of words in `text`."""
    return len(_WORD.findall(text))
