"""The checks every attack in the corpus must pass, shared by the jail and basic-mode tests.

`make_context` builds what an attack is aimed at (a class folder with another student's
submission and a gradebook holding canaries, a marker folder, listeners on a TCP port and an
abstract Unix socket, the secrets that must never reach a report); `check_attack` grades the
attack with a warm Grader and asserts: bounded time; nothing escaped (marker folder empty,
write canary in no file of the package, solutions, exercises, class folder, host /tmp or
site-packages, the other submission unchanged, no listener contacted, no sandbox process left
over); no secret in the JSON or any rendered report; the attacked tests explained to the
student; every other part exactly as the reference; the reference graded next unchanged.
"""

from __future__ import annotations

import json
import os
import re
import socket
import sys
import time
import uuid
from pathlib import Path

import pytest

from attacks import harness
from grader.loading import SubmissionError, load_submission
from grader.pipeline import Grader


def _listen(ctx: harness.Context) -> None:
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tcp.bind(("127.0.0.1", 0))
    tcp.listen(8)
    tcp.setblocking(False)
    ctx.port = tcp.getsockname()[1]
    abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    abstract.bind(f"\0grader-attack-{ctx.port}")
    abstract.listen(8)
    abstract.setblocking(False)
    ctx.listeners += [tcp, abstract]


def _contacted(ctx: harness.Context) -> list[str]:
    hits = []
    for s in ctx.listeners:
        try:
            conn, addr = s.accept()
            conn.close()
            hits.append(f"{s.family.name} {addr!r}")
        except BlockingIOError:
            pass
    return hits


def make_context(tmp_path: Path, secret_token: str) -> harness.Context:
    """The class folder, canaries, secrets and listeners one attack is graded against."""
    submissions = tmp_path / "class"
    other = submissions / "other_student"
    harness.write_reference(other)
    other_canary = f"CANARY-OTHER-{uuid.uuid4().hex}"
    # Large enough that the interpreter allocates it outside its small-object arenas: a
    # worker forked from a zygote that once held this text could find it in its own memory.
    padding = "# " + "padding " * 30_000 + "\n"
    (other / "masks.py").write_text(
        f"# OTHER-STUDENT-CANARY {other_canary}\n{padding}"
        + harness.reference_source("masks")
        + f"\nOTHER_STUDENT_CANARY = {other_canary!r}\n",
        encoding="utf-8",
    )
    gradebook_canary = f"CANARY-GRADEBOOK-{uuid.uuid4().hex}"
    (submissions / "gradebook.csv").write_text(f"student,score\nsecret,{gradebook_canary}\n")
    marker_dir = tmp_path / "markers"
    marker_dir.mkdir()
    os.chmod(marker_dir, 0o777)  # writable by anyone: only invisibility keeps attacks out
    os.chmod(tmp_path, 0o755)
    os.chmod(submissions, 0o777)
    solutions_init = (harness.REPO / "solutions" / "__init__.py").read_text()
    reference_text = "\n".join(harness.reference_source(p) for p in harness.PARTS)
    secrets = {
        "environment token": secret_token,
        "other student's code": other_canary,
        "class gradebook": gradebook_canary,
    }
    for i, line in enumerate(
        harness.secret_lines(harness.REPO / "solutions" / "__init__.py", reference_text)
    ):
        secrets[f"solutions/__init__.py line {i}"] = line
    assert "never sent to the sandboxed worker" in solutions_init
    hidden = harness.REPO / "grader" / "suites" / "hidden"
    for f in sorted(hidden.glob("*.py")):  # the tests and their helper modules
        for i, line in enumerate(harness.secret_lines(f, reference_text, n=2)):
            secrets[f"{f.name} line {i}"] = line
    c = harness.Context(
        root=tmp_path,
        marker_dir=marker_dir,
        submissions=submissions,
        other=other,
        write_canary=f"CANARY-WRITE-{uuid.uuid4().hex}",
        secrets=secrets,
    )
    _listen(c)
    return c


def _renderings(report) -> dict[str, str]:
    out = {"json": json.dumps(report.to_dict(), ensure_ascii=False)}
    try:
        from grader.render import render_report
    except ImportError:
        return out
    for fmt in ("text", "md", "html"):
        out[fmt] = render_report(report, fmt)
    return out


def _by_id(report_dict) -> dict[str, dict]:
    return {t["id"]: t for t in report_dict["tests"]}


def _wait_no_sandbox_processes(zygote_pid: int, before: set[int], timeout: float = 3.0):
    end = time.monotonic() + timeout
    left = harness.sandbox_processes(zygote_pid, before)
    while left and time.monotonic() < end:
        time.sleep(0.05)
        left = harness.sandbox_processes(zygote_pid, before)
    return left


def check_attack(
    name: str, grader: Grader, baseline: dict, reference_dir: Path, ctx: harness.Context
) -> None:
    """Grade attack `name` with `grader` and assert it was contained (see the module doc)."""
    attack = harness.load(name)
    exp = attack.expect
    other_before = harness.tree_digest(ctx.other)
    orphans_before = harness.orphaned_sandbox_pids()
    if attack.grade_other_first:
        grader.grade(load_submission(ctx.other))
    path = harness.build(attack, ctx)

    start = time.monotonic()
    if exp.load_error:
        with pytest.raises(SubmissionError) as info:
            load_submission(path)
        assert re.search(exp.load_error, str(info.value), re.I), str(info.value)
        report = None
    else:
        report = grader.grade(load_submission(path))
    elapsed = time.monotonic() - start
    assert elapsed <= exp.max_seconds, f"grading took {elapsed:.1f} s"

    # -- nothing escaped
    assert sorted(os.listdir(ctx.marker_dir)) == [], "the attack wrote into the marker folder"
    left = _wait_no_sandbox_processes(grader.zygote._proc.pid, orphans_before)
    assert not left, f"sandbox processes survived grading: {left}"
    assert not _contacted(ctx), "a listener on the host was contacted"
    assert harness.tree_digest(ctx.other) == other_before, "another submission was changed"
    pkg = harness.REPO / "grader"
    written = harness.files_containing(
        ctx.write_canary,
        [pkg, harness.REPO / "solutions", harness.REPO / "exercises", ctx.submissions],
        skip=(ctx.submissions / attack.name,),
    ) + harness.files_containing(
        ctx.write_canary,
        [Path("/tmp"), Path(next(p for p in sys.path if p.endswith("site-packages")))],
        top_level_only=True,
    )
    assert not written, f"the attack wrote outside its scratch folder: {written}"

    if report is None:
        return
    _check_written_and_feedback(attack, path, report)

    # -- no secret in any output
    texts = _renderings(report)
    for fmt, text in texts.items():
        for label, secret in ctx.secrets.items():
            assert secret not in text, f"{label} leaked into the {fmt} report"
    for s in exp.forbidden:
        assert s not in texts["json"], f"{s!r} reached the JSON report"
    for s in exp.forbidden_html:
        if "html" in texts:
            assert s not in texts["html"], f"{s!r} reached the HTML report"
    if exp.problems:
        assert any(re.search(exp.problems, e, re.I) for e in report.errors), report.errors
    assert not [e for e in report.errors if e.startswith("internal")], report.errors

    # -- marks: unaffected parts exactly as the reference, attacked ones explained
    got, want = _by_id(report.to_dict()), _by_id(baseline)
    assert set(got) == set(want), "the set of graded tests changed"
    affected = []
    for tid, w in want.items():
        g = got[tid]
        same = (g["status"], g["score"]) == (w["status"], w["score"])
        if w["part"] not in attack.parts:
            assert same, f"{tid} (not attacked) changed: {g['status']} {g['message'][:300]}"
            continue
        if same or g["status"] == "passed":  # (a drill's checks pass where the baseline has none)
            continue
        affected.append(tid)
        assert g["status"] in exp.statuses, f"{tid}: {g['status']}: {g['message'][:500]}"
        assert g["score"] == 0.0 or g["status"] == "passed"
        assert g["message"].strip(), f"{tid} has no message for the student"
        if exp.message:
            assert re.search(exp.message, g["message"], re.I | re.S), (
                f"{tid}: unclear message: {g['message'][:500]}"
            )
    assert len(affected) >= exp.min_affected, "the attack did not fire"
    security_doc = (harness.REPO / "docs" / "security.md").read_text(encoding="utf-8")
    for tid in exp.forged:
        assert got[tid]["status"] == "passed", f"{tid}: the documented forgery did not work"
        assert f"`{tid}`" in security_doc, f"docs/security.md does not list {tid} as forgeable"
    parts = report.to_dict()["parts"]
    kept = sum(parts[p]["score"] for p in attack.parts if p in parts)
    total = sum(parts[p]["max_score"] for p in attack.parts if p in parts)
    assert kept <= exp.max_fraction * total + 1e-9, f"the attack kept {kept} of {total} points"

    # -- the grader is intact: the next submission (the reference) is graded exactly as before.
    # (Archive and folder attacks run only the reference's own code; for them the checks above
    # already compared every part with the baseline.)
    if attack.module is not None or attack.grade_other_first:
        again = grader.grade(load_submission(reference_dir)).to_dict()
        assert again == baseline


def _check_written_and_feedback(attack: harness.Attack, path: Path, report) -> None:
    """The written answer scored as in grading (the module Grader skips it: it costs the
    code attacks nothing) and the feedback notebook the grader writes for a notebook."""
    exp = attack.expect
    if exp.written_max is not None or exp.written_flagged:
        from grader.pipeline import grade_explanation

        written = grade_explanation(load_submission(path))
        assert exp.written_max is None or written.score <= exp.written_max, (
            f"the written answer earned {written.score}: {written.review_reasons}"
        )
        assert written.needs_review or not exp.written_flagged, "the answer was not flagged"
    if exp.feedback_forbidden:
        from grader.render.ipynb import feedback_notebook

        notebook = load_submission(path).notebook
        assert notebook is not None, "feedback_forbidden needs a notebook submission"
        text = feedback_notebook(notebook, report)
        for s in exp.feedback_forbidden:
            assert s not in text, f"{s!r} reached the feedback notebook"
