"""Feedback inside the student's own notebook: `grader grade X.ipynb --format ipynb` and, for a
notebook submission in a batch, `OUT/feedback/<student>.ipynb` (+ its HTML by nbconvert).

The student's notebook is copied cell for cell; markdown cells tagged `grader-feedback` are
added:

* one at the top: the score and the report's notes;
* after the code cell that (last) defines a graded function: the tests of that function (a
  test belongs to the exercise function whose name its own name starts with or contains);
* after the last cell of a part's functions: the part's score and its other tests; a part
  with no defining cell gets its cell at the end;
* after the Exercise 2 answer (the cells tagged `explanation`, else the markdown under the
  "Exercise 2" heading): the rubric's feedback on the answer.

Nothing in the notebook runs. Test messages and quotes are put in code fences (or escaped), so
nothing a student wrote is read as markdown or HTML; the HTML is made by nbconvert with its
sanitiser on, and without scripts.
"""

from __future__ import annotations

import ast
import json
import re
import warnings
from pathlib import Path
from typing import Any

from grader.loading.notebook import GRADER_CELL_TAG
from grader.parts import PART_TITLES
from grader.report import GradeReport, ScoreAdjustment, TestResult

FEEDBACK_TAG = GRADER_CELL_TAG
_MAGIC_LINE = re.compile(r"^\s*(?:[%!]|\w[\w.]*\s*=\s*[%!])")
_WRITEFILE = re.compile(r"^%%writefile\s+(?:-a\s+|--append\s+)?(\S+)\s*$")
_EXERCISE2 = re.compile(r"^\s{0,3}(#{1,6})\s+.*\bexercise\s*2\b", re.IGNORECASE | re.MULTILINE)
EMPTY_NOTEBOOK = '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'
_SCRIPT = re.compile(r"<script\b[^>]*>.*?</script>", re.DOTALL | re.IGNORECASE)


def _functions() -> dict[str, str]:
    """Exercise function -> its part module (from the exercises' task table)."""
    from exercises import TASKS

    return {fn: part for part, fn in TASKS.values()}


def _source(cell: Any) -> str:
    src = cell.get("source", "")
    return "".join(str(s) for s in src) if isinstance(src, list) else str(src)


def _defined(cell: Any) -> list[str]:
    """Top-level function names a code cell defines (magics skipped, never run)."""
    src = _source(cell)
    first = src.lstrip().split("\n", 1)[0]
    if first.startswith("%%"):
        if not _WRITEFILE.match(first):
            return []
        src = src.lstrip().split("\n", 1)[1] if "\n" in src.lstrip() else ""
    lines = ["pass" if _MAGIC_LINE.match(line) else line for line in src.splitlines()]
    try:
        tree = ast.parse("\n".join(lines))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    return [n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


def _free_id(base: str, taken: set[Any]) -> str:
    candidate, n = base, 1
    while candidate in taken:
        candidate, n = f"{base}-{n}", n + 1
    return candidate


def _owner(test: TestResult, functions: dict[str, str]) -> str | None:
    name = test.id.split(".", 1)[-1]
    own = [fn for fn, part in functions.items() if part == test.part]
    for fn in sorted(own, key=len, reverse=True):
        if name.startswith(fn) or fn in name:
            return fn
    return None


def _fence(text: str) -> str:
    ticks = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, ticks + 1)
    return f"{fence}text\n{text}\n{fence}"


def _md_escape(text: str) -> str:
    return re.sub(r"([\\`*_{}\[\]<>()#+\-.!|~&])", r"\\\1", " ".join(text.split()))


def _test_lines(tests: list[TestResult]) -> list[str]:
    """One entry per check, except that the "missing" checks of one function (a stub, or a
    function the notebook does not define) share one entry and one message, as in the
    other reports' not-attempted section (`grader.render.view`)."""
    from grader.render.view import function_key

    lines = []
    keys = {t.id: function_key(t.message) for t in tests if t.status == "missing"}
    missing: dict[str, list[TestResult]] = {}
    for t in tests:
        if t.id in keys:
            missing.setdefault(keys[t.id]["key"], []).append(t)
    for t in tests:
        group = missing.get(keys[t.id]["key"], []) if t.id in keys else []
        if len(group) > 1:
            if group[0] is not t:
                continue
            pts = sum(g.max_score for g in group)
            first = next((g for g in group if not keys[g.id]["via"]), t)
            lines.append(f"- {len(group)} checks (0 / {pts:g}): **missing**")
            lines.append("")
            lines.append("  " + _fence(first.message).replace("\n", "\n  "))
            lines.append("")
            lines.append("  Checks: " + ", ".join(f"`{g.id}`" for g in group))
            continue
        mark = "passed" if t.status == "passed" else t.status
        lines.append(f"- `{t.id}` ({t.score:g} / {t.max_score:g}): **{mark}**")
        if t.status != "passed" and t.message:
            lines.append("")
            lines.append("  " + _fence(t.message).replace("\n", "\n  "))
        if t.diagnoses:
            from grader.diagnosis import describe

            for d in t.diagnoses:
                m = describe(d)
                title = m.title if m else d
                lines.append(f"  - likely cause: {_md_escape(title)}")
    return lines


def _cell(text: str, **meta: Any) -> Any:
    """A feedback cell: what ``nbformat.v4.new_markdown_cell(text, metadata=...)`` builds,
    without its check of each new cell against the schema (a jsonschema run per cell, most
    of a notebook's feedback cost): a str source and str metadata are valid by construction,
    and `nbformat.writes` validates the whole notebook anyway."""
    from nbformat import NotebookNode
    from nbformat.v4.nbbase import random_cell_id

    cell = NotebookNode(
        id=random_cell_id(), cell_type="markdown", source=text, metadata=NotebookNode()
    )
    cell.update(metadata={"tags": [FEEDBACK_TAG], "grader": meta})
    return cell


def _explanation_end(cells: list[Any]) -> int | None:
    """Index of the last cell of the Exercise 2 answer, or None."""
    tagged = [
        i for i, c in enumerate(cells) if "explanation" in (c.get("metadata", {}).get("tags") or [])
    ]
    if tagged:
        return tagged[-1]
    for i, c in enumerate(cells):
        if c.get("cell_type") == "markdown" and _EXERCISE2.search(_source(c)):
            end = i
            while end + 1 < len(cells) and cells[end + 1].get("cell_type") == "markdown":
                end += 1
            return end
    return None


def _student_cells(cells: list[Any]) -> list[Any]:
    """The student's cells, without any that passes for the grader's: the tag and the
    `grader` metadata mark only the cells this grading adds. Markdown cells that carry them
    (the feedback of an earlier grading handed in again, or a forged "Grader feedback ... 130
    / 130 points" cell) are dropped; another cell keeps its content and loses the marks."""
    out = []
    for c in cells:
        meta = c.get("metadata")
        tags = meta.get("tags") if isinstance(meta, dict) else None
        marked = isinstance(tags, list) and any(
            str(t).strip().lower() == FEEDBACK_TAG for t in tags
        )
        if (marked or (isinstance(meta, dict) and "grader" in meta)) and c.get(
            "cell_type"
        ) == "markdown":
            continue
        if marked:
            meta["tags"] = [t for t in tags if str(t).strip().lower() != FEEDBACK_TAG]
        if isinstance(meta, dict):
            meta.pop("grader", None)
        out.append(c)
    return out


def _well_formed(cell: Any) -> Any:
    """The cell as a valid nbformat-4 cell. The loader reads a notebook tolerantly (a cell
    without a `cell_type`, metadata that is no mapping, a source that is no text: it takes
    what it can), so the same notebook reaches this copy: every cell is rebuilt from its
    parts, and one that is no cell at all becomes a raw cell showing what it held (an error
    here failed the whole `grader batch`, run after run)."""
    from nbformat import NotebookNode

    if not isinstance(cell, dict) or cell.get("cell_type") not in ("code", "markdown", "raw"):
        return NotebookNode(
            cell_type="raw", metadata=NotebookNode(), source=json.dumps(cell, default=str)[:20_000]
        )
    meta = cell.get("metadata")
    out = NotebookNode(
        cell_type=cell["cell_type"],
        metadata=meta if isinstance(meta, dict) else NotebookNode(),
        source=_source(cell) if isinstance(cell.get("source", ""), str | list) else "",
    )
    if isinstance(cell.get("id"), str):
        out["id"] = cell["id"]
    if cell["cell_type"] == "code":
        outputs, count = cell.get("outputs"), cell.get("execution_count")
        out["outputs"] = [o for o in outputs if _output_ok(o)] if isinstance(outputs, list) else []
        out["execution_count"] = count if type(count) is int and count >= 0 else None
    elif isinstance(cell.get("attachments"), dict):
        out["attachments"] = {
            k: v for k, v in cell["attachments"].items() if isinstance(k, str) and _bundle_ok(v)
        }
    return out


def _texts_ok(value: Any) -> bool:
    return isinstance(value, str) or (
        isinstance(value, list) and all(isinstance(v, str) for v in value)
    )


def _bundle_ok(bundle: Any) -> bool:
    """A mimebundle nbformat can write: mime type -> text, lines or (JSON types) a mapping."""
    return isinstance(bundle, dict) and all(
        isinstance(k, str) and (_texts_ok(v) or isinstance(v, dict)) for k, v in bundle.items()
    )


def _output_ok(o: Any) -> bool:
    """An output of a code cell that nbformat can write (anything else is left out)."""
    if not isinstance(o, dict) or not isinstance(o.get("metadata", {}), dict):
        return False
    kind = o.get("output_type")
    if kind == "stream":
        return isinstance(o.get("name"), str) and _texts_ok(o.get("text"))
    if kind in ("display_data", "execute_result"):
        return _bundle_ok(o.get("data"))
    if kind == "error":
        return all(isinstance(o.get(k), str) for k in ("ename", "evalue")) and _texts_ok(
            o.get("traceback")
        )
    return False


def read_notebook(path: Path, max_bytes: int | None = None) -> str:
    """The text of a notebook submission for `feedback_notebook` (size-capped like the
    loader). Raises `UsageError` for anything that is not a readable .ipynb file."""
    from grader.errors import UsageError
    from grader.loading import LoadLimits

    cap = max_bytes or LoadLimits().max_total_bytes
    p = Path(path)
    if p.suffix.lower() != ".ipynb" or not p.is_file():
        raise UsageError(f"--format ipynb needs a notebook submission (.ipynb), not {p.name}")
    try:
        with open(p, "rb") as f:
            data = f.read(cap + 1)
    except OSError as exc:
        raise UsageError(f"{p.name} could not be read ({exc.strerror})") from None
    if len(data) > cap:
        raise UsageError(f"{p.name} is larger than {cap // 1_000_000} MB")
    return data.decode("utf-8-sig", errors="replace")


def feedback_notebook(
    notebook_text: str, report: GradeReport, *, adjustment: ScoreAdjustment | None = None
) -> str:
    """The student's notebook (JSON text) with feedback cells; returns the new notebook JSON.
    `adjustment` (a batch's late penalty): the total shown is the adjusted one, with the
    report's own and the reason.

    Raises ValueError if `notebook_text` is not a notebook."""
    import nbformat
    from nbformat import NotebookNode

    try:
        data = json.loads(notebook_text)
        raw_cells = data.get("cells") if isinstance(data, dict) else None
        if isinstance(raw_cells, list) and data.get("nbformat") == 4:
            # cell ids, made deterministic (nbformat would invent random ones): 4.5 format
            data["nbformat_minor"] = max(5, int(data.get("nbformat_minor") or 0))
            ids = {c.get("id") for c in raw_cells if isinstance(c, dict)}
            for i, c in enumerate(raw_cells):
                if isinstance(c, dict) and not c.get("id"):
                    c["id"] = _free_id(f"cell-{i}", ids)
                    ids.add(c["id"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            nb = nbformat.reads(json.dumps(data), as_version=4)
    except Exception as exc:  # noqa: BLE001 - nbformat raises many types for bad input
        raise ValueError(f"not a readable notebook ({type(exc).__name__})") from None
    raw = nb.get("cells")
    cells = _student_cells([_well_formed(c) for c in (raw if isinstance(raw, list) else [])])
    if not isinstance(nb.get("metadata"), dict):
        nb.metadata = NotebookNode()
    functions = _functions()
    last_def: dict[str, int] = {}
    for i, c in enumerate(cells):
        if c.get("cell_type") == "code":
            for fn in _defined(c):
                if fn in functions:
                    last_def[fn] = i
    by_fn: dict[str, list[TestResult]] = {}
    by_part: dict[str, list[TestResult]] = {}
    for t in report.tests:
        fn = _owner(t, functions)
        if fn is not None and fn in last_def:
            by_fn.setdefault(fn, []).append(t)
        else:
            by_part.setdefault(t.part, []).append(t)

    after: dict[int, list[Any]] = {}
    at_end: list[Any] = []
    for fn, tests in by_fn.items():
        pts = sum(t.score for t in tests), sum(t.max_score for t in tests)
        text = "\n".join(
            [
                f"**Grader feedback: `{fn}`** ({pts[0]:g} / {pts[1]:g} points)",
                "",
                *_test_lines(tests),
            ]
        )
        after.setdefault(last_def[fn], []).append(_cell(text, function=fn))
    for part, score in report.parts.items():
        if part in report.written:
            continue
        title = PART_TITLES.get(part, part)
        rest = by_part.get(part, [])
        text = "\n".join(
            [
                f"**Grader feedback: {_md_escape(title)}** ({score.score:g} / "
                f"{score.max_score:g} points for the part)",
                "",
                *(_test_lines(rest) if rest else ["All its tests are listed above."]),
            ]
        )
        cells_of_part = [
            last_def[fn] for fn, p in functions.items() if p == part and fn in last_def
        ]
        if cells_of_part:
            after.setdefault(max(cells_of_part), []).append(_cell(text, part=part))
        else:
            at_end.append(_cell(text, part=part))
    for part, w in report.written.items():
        from grader.rubric.render import render_written

        text = (
            f"**Grader feedback on your answer** ({w.score:g} / {w.max_score:g} points)"
            f"\n\n{_fence(render_written(w, 'text'))}"
        )
        end = _explanation_end(cells) if part == "explanation" else None
        if end is None:
            at_end.append(_cell(text, part=part))
        else:
            after.setdefault(end, []).append(_cell(text, part=part))

    notes = [f"- {_md_escape(e)}" for e in report.errors if not e.startswith("internal:")]
    total = report.score if adjustment is None else adjustment.score
    late = []
    if adjustment is not None:
        late = [
            "",
            f"{adjustment.label.capitalize()}: {adjustment.reason}. Score before "
            f"it: {report.score:g} / {report.max_score:g}.",
        ]
    top = [
        f"**Grader feedback for {_md_escape(report.submission)}: {total:g} / "
        f"{report.max_score:g} points.** The cells tagged `{FEEDBACK_TAG}` below each "
        "graded function and part, and after your answer, were added by the grader; "
        "nothing in this notebook was run to make them.",
        *late,
        *(["", "Notes:", *notes] if notes else []),
    ]
    new = [_cell("\n".join(top), part="summary")]
    for i, c in enumerate(cells):
        new.append(c)
        new.extend(after.get(i, []))
    new.extend(at_end)
    taken = {c.get("id") for c in cells}
    student = {id(c) for c in cells}
    for n, c in enumerate(c for c in new if id(c) not in student):  # same bytes on a re-render
        c["id"] = _free_id(f"grader-feedback-{n + 1}", taken)
        taken.add(c["id"])
    nb.cells = new
    return nbformat.writes(nb)


def html_exporter() -> Any:
    """The nbconvert exporter `notebook_html` uses: sanitised HTML, no scripts fetched.

    Its templates are compiled on first use: a caller converting many notebooks makes one and
    warms it with `notebook_html(EMPTY_NOTEBOOK, exporter)` once, before forking a bounded
    child per student notebook, which then inherits it warm (~0.04 s saved per notebook)."""
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(
        sanitize_html=True, require_js_url="", mathjax_url="", jquery_url="", mermaid_js_url=""
    )
    exporter.register_filter("clean_html", _CleanHtml())
    return exporter


class _CleanHtml:
    """nbconvert's `clean_html` filter (bleach, ~half of a page's cost), remembering its
    answers for this one exporter: a cell the handout gives everyone, or a function's
    all-passed feedback, is sanitised once per exporter instead of once per notebook. The
    filter is a pure function of the text (its bleach settings are fixed), so a remembered
    answer is the answer; texts over `max_chars` and entries past `max_entries` are not
    kept (bounded memory)."""

    def __init__(self, max_chars: int = 16_384, max_entries: int = 2_048) -> None:
        from nbconvert.filters.strings import clean_html

        self._clean = clean_html
        self._known: dict[str, str] = {}
        self.max_chars, self.max_entries = max_chars, max_entries

    def __call__(self, element: Any) -> str:
        text = element.decode() if isinstance(element, bytes) else str(element)
        known = self._known.get(text)
        if known is None:
            known = self._clean(text)
            if len(text) <= self.max_chars and len(self._known) < self.max_entries:
                self._known[text] = known
        return known


def notebook_html(ipynb_text: str, exporter: Any = None) -> str:
    """The feedback notebook as one HTML page, by nbconvert: sanitised, no scripts."""
    import nbformat

    nb = nbformat.reads(ipynb_text, as_version=4)
    exporter = exporter or html_exporter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "IPython3 lexer unavailable": Python 3 is used
        body, _ = exporter.from_notebook_node(nb)
    return _SCRIPT.sub("", body)
