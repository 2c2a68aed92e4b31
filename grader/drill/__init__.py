"""Exercise 3, the mini drill: rerun the student's experiment, check the note, score 20 points.

    rerun_drill(files, session) -> Rerun             # the sandboxed rerun (the only student code)
    check_drill(files, rerun) -> tuple[TestResult]   # pure: the checks of docs/drill.md
    grade_drill(files, session) = check_drill(files, rerun_drill(files, session))

`files` are the submission's files by relative path (`Submission.files`). The checks are
report rows of part "drill" like the hidden tests' (id `drill.<name>[<case>]`), so every
renderer, the gradebook and the class report show them without special cases. The rerun runs in
a worker of its own, after the other parts' tests, so nothing in the drill can change their
scores; a drill that crashes or hangs costs only the checks that need its results.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from grader.drill.note import (
    RUNS,
    SECTIONS,
    Note,
    command_args,
    command_text,
    numbers,
    parse_note,
    word_count,
)
from grader.drill.results import (
    ATOL,
    MAX_RESULTS_BYTES,
    RTOL,
    RUN_NUMBERS,
    ResultsError,
    Run,
    _leaves,
    differences,
    parse_results,
    quotes_a_measurement,
    runs_of,
    signature,
)
from grader.parts import FUNCTIONS, PART_TITLES
from grader.report import TestResult, TestStatus
from grader.textsafe import clean_text

PART = "drill"
EXPERIMENT, NOTE, RESULTS = "drill/experiment.py", "drill/evidence_note.md", "drill/results.json"
DEFAULT_ARGS = ["--seed", "0"]
SIGNATURE_CASES = ("future_leak", "loss_below_generation", "generation_degraded", "repaired")
NOTE_POINTS = {
    "accepted_claim": 1.5,
    "rejected_alternative": 1.5,
    "limitation": 1.0,
    "reproduction_command": 1.0,
    "measurements": 1.0,
}
# (name, case) -> points, in report order; docs/drill.md lists the same table (tested)
POINTS: dict[tuple[str, str | None], float] = {
    ("rerun", None): 3.0,
    ("reproduced", None): 3.0,
    **{("signature", c): 1.0 for c in SIGNATURE_CASES},
    **{("note_section", s): p for s, p in NOTE_POINTS.items()},
    ("note_numbers", "table"): 3.0,
    ("note_numbers", "prose"): 1.0,
}
TOTAL = sum(POINTS.values())
# the table's columns: result field -> words naming it in a header cell (all must occur)
TABLE_COLUMNS = {
    "final_loss": (("final",), ("train",)),
    "max_prefix_gap": (("gap",),),
    "continuation_accuracy": (("accuracy",),),
}
MIN_WORDS = {"accepted_claim": 12, "rejected_alternative": 12, "limitation": 8}
MAX_MESSAGE = 3000


@dataclass(frozen=True)
class Rerun:
    """What the rerun of the reproduction command gave.

    `status` is "passed" when it wrote a well-formed results.json (`results`, `runs`);
    otherwise the status the checks that need it get, with `message` saying why.
    `results` may be set with `runs` None: valid JSON that lacks documented fields.
    """

    command: str
    origin: str  # where the command came from: "note", "results" or "default"
    status: TestStatus
    message: str = ""
    results: dict[str, Any] | None = None
    runs: dict[str, Run] | None = field(default=None, repr=False)


def choose_command(files: dict[str, str]) -> tuple[list[str], str]:
    """The arguments to rerun and where they come from: the note's Reproduction command, else
    the command in the submitted results.json, else the handout's ``--seed 0``."""
    note = files.get(NOTE)
    if note is not None:
        args = command_args(parse_note(note).sections.get("reproduction_command", ""))
        if args is not None:
            return args, "note"
    submitted = files.get(RESULTS)
    if submitted is not None:
        try:
            cmd = parse_results(submitted, RESULTS).get("command")
        except ResultsError:
            cmd = None
        if isinstance(cmd, str):
            args = command_args(cmd)
            if args is not None:
                return args, "results"
    return list(DEFAULT_ARGS), "default"


def _not_attempted_message(stub: str, detail: str) -> str:
    """What a rerun stopped by a NotImplementedError tells the student: the stub of Exercise 1
    it reached (`stub`: the drill runs the student's own functions), else the drill's own
    scaffold. `detail`: the exception's text in parentheses, or ""."""
    raised = " ".join(("still raises NotImplementedError", detail)).rstrip()
    if stub in _PART_OF:
        part = PART_TITLES[_PART_OF[stub]]
        return (
            f"not attempted: the drill stopped at {stub}() ({part}), which {raised}: "
            "implement it, then run the drill again"
        )
    return f"not attempted: {EXPERIMENT} {raised}"


_PART_OF = {name: part for part, names in FUNCTIONS.items() for name in names}


def rerun_drill(files: dict[str, str], session: Any) -> Rerun:
    """Rerun the reproduction command in the sandbox (`session.run_drill`); never raises for
    anything the student did (a SandboxUnavailable is the grader's and propagates)."""
    from grader.sandbox.client import NotAttempted, StudentError

    args, origin = choose_command(files)
    command = command_text(args)
    source = files.get(EXPERIMENT)
    if source is None:
        return Rerun(command, origin, "missing", f"{EXPERIMENT} was not found in your submission")
    try:
        text = session.run_drill(source, args, max_bytes=MAX_RESULTS_BYTES)
    except StudentError as err:
        message = err.message
        if isinstance(err, NotAttempted):
            detail = message.partition("NotImplementedError")[2].strip()
            message = _not_attempted_message(err.stub, detail)
        return Rerun(command, origin, err.status, message.rstrip())
    if text is None:
        return Rerun(command, origin, "failed", f"`{command}` finished but wrote no {RESULTS}")
    try:
        results = parse_results(text, f"the {RESULTS} the rerun wrote")
    except ResultsError as exc:
        return Rerun(command, origin, "failed", f"`{command}` ran, but {exc}")
    try:
        runs = runs_of(results, f"the {RESULTS} the rerun wrote")
    except ResultsError as exc:
        return Rerun(command, origin, "failed", f"`{command}` ran, but {exc}", results)
    return Rerun(command, origin, "passed", "", results, runs)


def grade_drill(files: dict[str, str], session: Any) -> tuple[TestResult, ...]:
    """Rerun the student's drill (`files`) in the sandbox `session` and check the submitted results
    and evidence note against the rerun: one TestResult per drill check."""
    return check_drill(files, rerun_drill(files, session))


def missing_drill(reason: str) -> tuple[TestResult, ...]:
    """Every drill check at 0 with `reason` (the drill was not graded at all)."""
    return tuple(_result(n, c, "missing", reason) for n, c in POINTS)


def check_drill(files: dict[str, str], rerun: Rerun) -> tuple[TestResult, ...]:
    """Every drill check, from the files and the rerun (no student code runs here)."""
    if EXPERIMENT not in files and NOTE not in files:
        return missing_drill(
            f"{EXPERIMENT} and {NOTE} were not found in your submission: Exercise 3 (the "
            "drill) was not handed in, so it scores 0"
        )
    note = parse_note(files[NOTE]) if NOTE in files else None
    out = [_result("rerun", None, rerun.status, _rerun_message(rerun))]
    out.append(_reproduced(files, rerun))
    if rerun.runs is None:
        why = _not_checked(rerun)
        out += [_result("signature", c, _dependent(rerun), why) for c in SIGNATURE_CASES]
    else:
        for case, (shown, said) in signature(rerun.runs).items():
            out.append(
                _result(
                    "signature",
                    case,
                    "passed" if shown else "failed",
                    ""
                    if shown
                    else (
                        f"in the rerun's measurements {said}: the controlled failure's "
                        "signature does not show"
                    ),
                )
            )
    sections = [_section(note, sid, rerun) for sid in NOTE_POINTS]
    if note is not None and all(not note.sections.get(sid) for sid in NOTE_POINTS):
        why = f"{NOTE} is still the template: its five sections are empty or missing"
        sections = [replace(t, message=why) for t in sections]
    out += sections
    out += _note_numbers(note, rerun)
    return tuple(out)


def _result(name: str, case: str | None, status: TestStatus, message: str) -> TestResult:
    points = POINTS[(name, case)]
    tid = f"{PART}.{name}" + (f"[{case}]" if case else "")
    return TestResult(
        id=tid,
        part=PART,
        name=name,
        score=points if status == "passed" else 0.0,
        max_score=points,
        status=status,
        message=clean_text(message, MAX_MESSAGE),
    )


def _dependent(rerun: Rerun) -> TestStatus:
    return "failed" if rerun.status == "passed" else rerun.status


def _not_checked(rerun: Rerun) -> str:
    """Why a check that needs the rerun's numbers has none. Not attempted (a missing script,
    the scaffold's stubs): the rerun's own message, so a report lists the cause once."""
    first = rerun.message.splitlines()[0] if rerun.message else "it gave none"
    if rerun.status == "missing":
        return first
    if len(first) > 160:
        first = first[:157] + "..."
    return f"not checked without the rerun's results (the rerun: {first})"


def _rerun_message(rerun: Rerun) -> str:
    if rerun.status == "passed":
        return ""
    origin = {
        "note": "the command in your note",
        "results": f"the command in your {RESULTS} (none found in the note)",
        "default": "the handout's command (none found in your note or results.json)",
    }[rerun.origin]
    return f"{rerun.message}\n(the grader ran {origin}: `{rerun.command}`)"


def _reproduced(files: dict[str, str], rerun: Rerun) -> TestResult:
    if rerun.results is None:
        return _result("reproduced", None, _dependent(rerun), _not_checked(rerun))
    submitted = files.get(RESULTS)
    if submitted is None:
        return _result(
            "reproduced",
            None,
            "failed",
            (
                f"{RESULTS} is not in your submission: hand in the file your run of "
                f"`{rerun.command}` wrote, so that the rerun can be compared with it"
            ),
        )
    try:
        data = parse_results(submitted, f"your {RESULTS}")
    except ResultsError as exc:
        return _result("reproduced", None, "failed", str(exc))
    diffs = differences(data, rerun.results)
    if not diffs:
        return _result("reproduced", None, "passed", "")
    torch_note = ""
    if data.get("torch") != rerun.results.get("torch"):
        torch_note = (
            f"\n(your run used torch {clean_text(data.get('torch'), 40)}, the rerun "
            f"torch {clean_text(rerun.results.get('torch'), 40)})"
        )
    # the measurements the note quotes first, then the rest (loss curves, gaps per position)
    key = ("command", *(f".{k}" for k in (*RUN_NUMBERS, "continuation")))
    diffs.sort(key=lambda d: not d.split(":", 1)[0].endswith(key))
    count = f"{len(diffs)}{'+' if len(diffs) > 8 else ''}"
    shown = "\n".join(f"  {d}" for d in diffs[:8])
    return _result(
        "reproduced",
        None,
        "failed",
        (
            f"the rerun of `{rerun.command}` does not reproduce your {RESULTS}: {diffs[0]} "
            f"({count} difference(s); numbers must agree within rtol {RTOL:g} / atol {ATOL:g}, "
            f"everything else exactly):\n{shown}{torch_note}"
        ),
    )


def _section(note: Note | None, sid: str, rerun: Rerun) -> TestResult:
    title = SECTIONS[sid][0]
    if note is None:
        return _result("note_section", sid, "missing", f"{NOTE} was not found in your submission")
    body = note.sections.get(sid)
    if body is None:
        return _result(
            "note_section",
            sid,
            "missing",
            (
                f"your note has no '## {title}' section (the grader finds the five sections by "
                "their headings; keep them as in the template)"
            ),
        )
    if not body:
        return _result(
            "note_section",
            sid,
            "missing",
            (f"the '## {title}' section of your note is empty (only the template's comments)"),
        )
    problem = _section_problem(sid, body, note, rerun)
    if problem:
        quote = clean_text(" ".join(body.split()), 300)
        return _result(
            "note_section", sid, "failed", f"'## {title}': {problem}\nYou wrote: \"{quote}\""
        )
    return _result("note_section", sid, "passed", "")


def _section_problem(sid: str, body: str, note: Note, rerun: Rerun) -> str:
    words = word_count(body)
    if sid in MIN_WORDS and words < MIN_WORDS[sid]:
        return f"{words} words; write at least {MIN_WORDS[sid]} (a sentence or two)"
    if sid in ("accepted_claim", "rejected_alternative") and not numbers(body):
        return (
            "it quotes no measurement: name the run and the number from results.json "
            "that supports it (e.g. a max prefix-consistency gap of 0.0123)"
        )
    if sid in ("accepted_claim", "rejected_alternative") and not quotes_a_measurement(
        body, rerun.results
    ):
        quoted = ", ".join(q.text for q in numbers(body)[:4])
        return (
            f"the numbers it quotes ({quoted}) are not measurements of the rerun: a setting "
            "(config, seed, data) supports no claim; name the run and the number from "
            "results.json that supports it (e.g. a max prefix-consistency gap of 0.0123)"
        )
    if sid == "accepted_claim" and not any(r in body.lower() for r in RUNS):
        return f"it names no run ({', '.join(RUNS)}): say which runs the claim compares"
    if sid == "reproduction_command" and command_args(body) is None:
        return (
            "no usable `python drill/experiment.py ...` command found (plain arguments "
            "only, no pipes or redirections); the grader ran "
            f"`{rerun.command}` instead"
        )
    if sid == "measurements":
        absent = [r for r in RUNS if r not in note.table]
        if absent:
            return (
                f"its table has no row for {', '.join(absent)} (one row per run, the run's "
                "name in the first cell)"
            )
    return ""


def _column(columns: tuple[str, ...], field_name: str) -> str | None:
    for col in columns:
        low = col.lower()
        if any(all(w in low for w in words) for words in TABLE_COLUMNS[field_name]):
            if field_name != "final_loss" or "prefix" not in low:
                return col
    return None


def _note_numbers(note: Note | None, rerun: Rerun) -> list[TestResult]:
    if note is None:
        why = f"{NOTE} was not found in your submission"
        return [_result("note_numbers", c, "missing", why) for c in ("table", "prose")]
    if rerun.runs is None or rerun.results is None:
        why = _not_checked(rerun)
        return [_result("note_numbers", c, _dependent(rerun), why) for c in ("table", "prose")]
    return [_table_numbers(note, rerun.runs), _prose_numbers(note, rerun.results)]


def _table_numbers(note: Note, runs: dict[str, Run]) -> TestResult:
    if not note.table:
        return _result(
            "note_numbers",
            "table",
            "failed",
            ("the Measurements section has no table with a row per run (see the template)"),
        )
    problems = []
    columns = {f: _column(note.columns, f) for f in TABLE_COLUMNS}
    absent = [f for f, c in columns.items() if c is None]
    if absent:
        problems.append(
            f"the table has no column for {', '.join(absent)} (header cells "
            "like 'final loss', 'max gap', 'continuation accuracy')"
        )
    for name in RUNS:
        row = note.table.get(name)
        if row is None:
            problems.append(f"no row for the {name} run")
            continue
        for field_name, col in columns.items():
            if col is None:
                continue
            want = getattr(runs[name], field_name)
            quoted = numbers(row.get(col, "")) or _integer(row.get(col, ""))
            if not quoted:
                problems.append(f"{name}, {col}: no number (the rerun gives {want:.4g})")
            elif not quoted[0].matches(want, RTOL, ATOL):
                problems.append(
                    f"{name}, {col}: you wrote {quoted[0].text}, the rerun gives "
                    f'{want:.4g}; the row: "{note.table_lines[name]}"'
                )
    if problems:
        shown = "\n".join(f"  {p}" for p in problems[:8])
        return _result(
            "note_numbers",
            "table",
            "failed",
            (
                f"the Measurements table does not match the rerun: {problems[0]} ({len(problems)} "
                f"problem(s); to the digits you wrote, within rtol {RTOL:g} / atol {ATOL:g}):"
                f"\n{shown}"
            ),
        )
    return _result("note_numbers", "table", "passed", "")


def _integer(cell: str) -> list[Any]:
    """A cell holding an integer (an accuracy of 1, a gap of 0) as a quoted number."""
    from grader.drill.note import Quoted

    text = cell.strip().strip("*_` ")
    if text.isdigit() and len(text) < 10:
        return [Quoted(text, float(text), cell, 0.5)]
    return []


def _prose_numbers(note: Note, results: dict[str, Any]) -> TestResult:
    values = list(_leaves(results))
    table_lines = set(note.table_lines.values())
    wrong = []
    for sid, body in note.sections.items():
        if sid == "reproduction_command":
            continue
        for q in numbers(body):
            # the Measurements table is checked cell by cell; a line starting "|" elsewhere
            # is prose like any other (a wrong number hidden in one kept the prose point)
            if q.line in table_lines or (sid == "measurements" and q.line.startswith("|")):
                continue
            if not any(q.matches(v, RTOL, ATOL) for v in values):
                wrong.append(f'{q.text} in "{q.excerpt()}"')
    if wrong:
        shown = "\n".join(f"  {w}" for w in wrong[:8])
        return _result(
            "note_numbers",
            "prose",
            "failed",
            (
                f"a number in your note is not in the rerun's results.json: {wrong[0]} "
                f"({len(wrong)} in all; every number you quote must come from it, to the digits "
                f"you wrote):\n{shown}"
            ),
        )
    return _result("note_numbers", "prose", "passed", "")


def points_table() -> list[tuple[str, float]]:
    """(test id, points) in report order, for the docs."""
    return [(f"{PART}.{n}" + (f"[{c}]" if c else ""), p) for (n, c), p in POINTS.items()]


__all__ = [
    "POINTS",
    "TOTAL",
    "Rerun",
    "check_drill",
    "grade_drill",
    "missing_drill",
    "rerun_drill",
]
