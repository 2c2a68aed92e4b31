"""`grader review OUT [--overrides FILE] [--apply]`: instructor review of rubric verdicts.

OUT is a batch output folder holding `results.jsonl` (one GradeReport JSON per line; the
student is the `submission` field). Without options the command lists what needs review.
With `--overrides FILE` it validates the file and previews the changes; adding `--apply`
rewrites results.jsonl atomically (temporary file + os.replace) and prints what changed.
Lines of students without overrides are written back byte for byte.

Register it in the main group with `cli.add_command(review)`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import click

from grader.errors import UsageError
from grader.output import write_atomic
from grader.report import GradeReport
from grader.rubric.model import RubricError, load_rubric
from grader.rubric.overrides import (
    DEFAULT_PART,
    OverridesError,
    apply_overrides,
    load_overrides,
    reason_criterion,
    verdict_changes,
)
from grader.textsafe import clean_name

RESULTS = "results.jsonl"


class ReviewInputError(UsageError):
    """Unreadable input or bad overrides: exit code 2, one clear line, no traceback."""


@dataclass
class _Line:
    raw: str
    report: GradeReport | None  # None for blank lines (kept as they are)


def _results_path(out: Path) -> Path:
    return out if out.is_file() else out / RESULTS


def read_results(path: Path) -> list[_Line]:
    """Parse results.jsonl; any problem raises `ReviewInputError` naming the line."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ReviewInputError(
            f"{path} not found: is this a `grader batch` output folder?"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ReviewInputError(f"cannot read {path}: {exc}") from None
    lines = []
    for n, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            lines.append(_Line(raw, None))
            continue
        try:
            lines.append(_Line(raw, GradeReport.from_dict(json.loads(raw))))
        except json.JSONDecodeError as exc:
            raise ReviewInputError(f"{path}:{n}: not valid JSON ({exc.msg})") from None
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ReviewInputError(
                f"{path}:{n}: not a grade report ({type(exc).__name__}: {exc})"
            ) from None
    return lines


def _clip(s: str, n: int) -> str:
    s = " ".join(clean_name(s).split())
    return s if len(s) <= n else s[: n - 1] + "\u2026"


def _review_rows(reports: list[GradeReport], part: str) -> list[tuple[str, ...]]:
    rows = []
    for r in reports:
        w = r.written.get(part)
        if w is None or not w.needs_review:
            continue
        ids = [c.id for c in w.criteria]
        general = [x for x in w.review_reasons if reason_criterion(x, ids) is None]
        flagged = [c for c in w.criteria if c.needs_review]
        if not flagged:
            rows.append((r.submission, "-", "-", "-", "", "; ".join(general) or "flagged"))
        for c in flagged:
            own = [x.split(": ", 1)[1] for x in w.review_reasons if x.startswith(c.id + ": ")]
            reason = "; ".join(own + general) or "low confidence"
            rows.append((r.submission, c.id, c.verdict, f"{c.confidence:.2f}", c.evidence, reason))
    return rows


def _table(rows: list[tuple[str, ...]]) -> str:
    head = ("student", "crit", "verdict", "conf", "evidence", "reason")
    widths = (18, 5, 13, 5, 38, 60)
    fmt_rows = [head] + [tuple(_clip(v, w) for v, w in zip(r, widths, strict=True)) for r in rows]
    cols = [max(len(r[i]) for r in fmt_rows) for i in range(len(head))]
    lines = ["  ".join(v.ljust(cols[i]) for i, v in enumerate(r)).rstrip() for r in fmt_rows]
    lines.insert(1, "  ".join("-" * c for c in cols))
    return "\n".join(lines)


@click.command("review")
@click.argument("out", type=click.Path(path_type=Path))
@click.option(
    "--overrides",
    "overrides_path",
    type=click.Path(path_type=Path),
    help='TOML file of instructor verdicts: [student.C2] verdict = "met" (see docs/rubric.md).',
)
@click.option(
    "--apply", "apply_", is_flag=True, help="Rewrite results.jsonl with the overrides applied."
)
@click.option("--part", default=DEFAULT_PART, show_default=True, help="Written part to review.")
def review(out: Path, overrides_path: Path | None, apply_: bool, part: str) -> None:
    """List rubric verdicts that need an instructor, and apply instructor overrides.

    \b
    Examples:
      grader review out/                                   # what needs review
      grader review out/ --overrides overrides.toml        # preview the changes
      grader review out/ --overrides overrides.toml --apply
    """
    if apply_ and overrides_path is None:
        raise click.UsageError("--apply needs --overrides FILE")
    path = _results_path(out)
    lines = read_results(path)
    reports = [ln.report for ln in lines if ln.report is not None]
    if overrides_path is None:
        rows = _review_rows(reports, part)
        if not rows:
            click.echo(f"{len(reports)} reports in {path}: nothing needs review.")
            return
        click.echo(_table(rows))
        n = len({r[0] for r in rows})
        click.echo(
            f"\n{n} of {len(reports)} answers need review ({len(rows)} rows). "
            "Record your verdicts in a TOML "
            f"file and run: grader review {out} --overrides FILE --apply"
        )
        return

    try:
        rubric = load_rubric()
        overrides = load_overrides(overrides_path, rubric)
    except (OverridesError, RubricError) as exc:
        raise ReviewInputError(str(exc)) from None
    known = {r.submission for r in reports}
    for student in sorted(set(overrides) - known):
        click.echo(
            f"warning: no submission named {student!r} in {path}; its overrides were skipped",
            err=True,
        )

    changes: list[str] = []
    new_raw: list[str] = []
    for ln in lines:
        rep = ln.report
        if rep is None or rep.submission not in overrides:
            new_raw.append(ln.raw)
            continue
        try:
            updated = apply_overrides(rep, overrides, rep.submission, rubric, part)
        except OverridesError as exc:
            raise ReviewInputError(str(exc)) from None
        changes.extend(_describe(rep, updated, part))
        new_raw.append(json.dumps(updated.to_dict(), ensure_ascii=False))
    verb = "changed" if apply_ else "would change"
    for c in changes:
        click.echo(f"{verb}: {c}")
    if not changes:
        click.echo("The overrides change nothing.")
    if apply_:
        write_atomic(path, "\n".join(new_raw) + "\n")
        left = sum(1 for r in read_results(path) if r.report and _needs(r.report, part))
        click.echo(f"Wrote {path} ({len(changes)} change(s)); {left} answer(s) still need review.")
    elif changes:
        click.echo("Dry run: add --apply to write these changes.")


def _needs(r: GradeReport, part: str) -> bool:
    w = r.written.get(part)
    return bool(w and w.needs_review)


def _describe(old: GradeReport, new: GradeReport, part: str) -> list[str]:
    ow, nw = old.written[part], new.written[part]
    out = verdict_changes(old, new, part)
    if ow.score != nw.score:
        out.append(
            f"{old.submission} {part} score: {ow.score:g} -> {nw.score:g} / {nw.max_score:g}"
        )
    return out
