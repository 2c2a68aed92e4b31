"""A function the submission does not define at all is one omission, charged and named once.

It takes the stub's path: its checks are "missing" (0 points, as before), the reports list it
once with where the grader looked and what to do, and the checks of functions that need it
(`build_attention_mask` calling a missing `causal_mask`, the grader's TinyLM on the masks) are
listed under that one entry, never as errors of their own.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from grader.batch.poolworker import submission_from_dict, submission_to_dict
from grader.loading import LoadLimits
from grader.loading.notebook import load_notebook_bytes, notebook_json
from grader.render import render_report
from grader.render.github import annotations
from grader.render.gradescope import gradescope_results
from grader.render.ipynb import feedback_notebook
from grader.render.view import feedback_view
from grader.report import GradeReport
from grader.report import TestResult as Check
from grader.sandbox.client import NotDefined, SandboxSession
from grader.testing import SOLUTIONS, reference_submission


def _renamed(module: str, function: str) -> str:
    src = (SOLUTIONS / f"{module}.py").read_text()
    assert f"def {function}(" in src
    return src.replace(f"def {function}(", f"def {function}_v2(", 1)


@pytest.fixture(scope="module")
def grader(shared_grader):
    return shared_grader  # the session's warm grader (tests/conftest.py): same options


@pytest.fixture(scope="module")
def report(grader) -> GradeReport:
    """The reference without causal_lm_loss (losses.py) and causal_mask (masks.py, which its
    build_attention_mask calls)."""
    return grader.grade(
        reference_submission(
            "nodef",
            {
                "losses.py": _renamed("losses", "causal_lm_loss"),
                "masks.py": _renamed("masks", "causal_mask"),
            },
        )  # fmt: skip
    )


def _lost(report: GradeReport) -> list[Check]:
    return [t for t in report.tests if t.status != "passed"]


def test_every_lost_check_is_missing_with_one_clear_message(report):
    lost = _lost(report)
    assert lost and all(t.status == "missing" and t.score == 0 for t in lost)
    assert not any("AttributeError" in t.message or "NameError" in t.message for t in lost)
    losses = [t for t in lost if t.part == "losses"]
    assert losses and all(
        t.message.startswith("not defined: losses.py does not define causal_lm_loss()")
        for t in losses
    )
    # the parts that define everything keep every point
    for part in ("corruption", "generation"):
        assert report.parts[part].score == report.parts[part].max_score


def test_the_feedback_has_one_entry_per_missing_function_with_its_consequences(report):
    view = feedback_view(report)
    assert view["unexplained"] == [] and view["fixes"] == []
    entries = {e["function"]: e for e in view["not_attempted"]}
    assert set(entries) == {"causal_mask()", "causal_lm_loss()"}
    clm, cm = entries["causal_lm_loss()"], entries["causal_mask()"]
    assert clm["reason"] == "losses.py does not define it" and "define a function" in clm["advice"]
    assert clm["count"] == sum(1 for t in _lost(report) if t.part == "losses")
    assert cm["count"] == sum(1 for t in _lost(report) if t.part == "masks")
    follows = set(cm["follows"])
    assert any(t.startswith("masks.build_attention_mask") for t in follows)
    assert "masks.model_forward[causal]" in follows
    assert not any(t.startswith("masks.causal_mask[") for t in follows)
    assert view["not_attempted_heading"] == "Functions you have not attempted yet"


@pytest.mark.parametrize("fmt", ["text", "md", "html"])
def test_text_reports_name_each_omission_once(report, fmt):
    out = render_report(report, fmt)
    assert out.count("does not define it") == 2
    assert out.count("causal_lm_loss()") == 1
    assert "Functions you have not attempted yet (2)" in out
    assert "AttributeError" not in out


def test_platform_exports_say_not_defined_not_error(report):
    data = gradescope_results(report)
    entries = [e for e in data["tests"] if "total" not in e["tags"]]
    lost = [e for e in entries if e["score"] < e["max_score"]]
    assert lost and all("not defined: " in e["output"] for e in lost)
    totals = {e["tags"][0]: e["output"] for e in data["tests"] if "total" in e["tags"]}
    assert totals["losses"].count("Not attempted: causal_lm_loss()") == 1
    assert "losses.py does not define it" in totals["losses"]
    lines = [ln for ln in annotations(report).splitlines() if ln.startswith("::error")]
    assert len(lines) == 2 and all("does not define" in ln for ln in lines)
    js = json.loads(report.to_json())
    assert {t["status"] for t in js["tests"] if t["score"] < t["max_score"]} == {"missing"}


def test_a_call_of_an_undefined_function_is_never_sent(grader):
    """Found once, when the module is loaded: the calls themselves cost no round trip."""
    sub = reference_submission("nodef2", {"losses.py": _renamed("losses", "causal_lm_loss")})
    grader.start()
    with SandboxSession(grader.zygote, sub.sources, missing=sub.missing) as session:
        sent = []
        exchange = session._exchange
        session._exchange = lambda g, h, *a, **k: sent.append(h["op"]) or exchange(g, h, *a, **k)
        for _ in range(3):
            with pytest.raises(NotDefined) as err:
                session.call("losses", "causal_lm_loss", (), {})
        assert err.value.status == "missing" and err.value.function == "losses.causal_lm_loss"
        assert sent == ["load"]
        assert session.undefined == {"losses": frozenset({"causal_lm_loss"})}


NOTEBOOK_CELLS = [
    {"cell_type": "markdown", "source": "# Exercises"},
    *(
        {"cell_type": "code", "source": (SOLUTIONS / f"{p}.py").read_text()}
        for p in ("masks", "corruption", "generation")
    ),
    # the losses cell has a syntax error: the loader skips it, so nothing defines its functions
    {"cell_type": "code",
     "source": (SOLUTIONS / "losses.py").read_text().replace("def causal_lm_loss(", "def (", 1)},
]  # fmt: skip


def test_a_notebook_says_the_notebook_does_not_define_it_and_why(grader):
    data = notebook_json(NOTEBOOK_CELLS).encode()
    sub = load_notebook_bytes(data, name="nb", origin="nb.ipynb", limits=LoadLimits())
    report = grader.grade(sub)
    losses = [t for t in report.tests if t.part == "losses"]
    assert losses and all(t.status == "missing" for t in losses)
    assert all(t.message.startswith("not defined: your notebook does not define") for t in losses)
    assert "syntax error was skipped" in losses[0].message
    view = feedback_view(report)
    assert {e["function"] for e in view["not_attempted"]} == {
        "causal_lm_loss()",
        "masked_lm_loss()",
    }
    md = render_report(report, "md")
    assert md.count("your notebook does not define it") == 2
    nb = json.loads(feedback_notebook(sub.notebook, report))
    text = "\n".join(
        "".join(c["source"])
        for c in nb["cells"]
        if "grader-feedback" in c["metadata"].get("tags", [])
    )
    assert text.count("your notebook does not define causal_lm_loss()") == 1
    # a batch sends its worker the submission as JSON, without the notebook's text: the
    # report must be the same, not "losses.py does not define it" without the hint, nor
    # tracebacks in lines of the combined code instead of cells
    sent = json.loads(json.dumps(submission_to_dict(replace(sub, notebook=""))))
    assert submission_from_dict(sent).cell_lines == sub.cell_lines != {}
    batch = grader.grade(submission_from_dict(sent))
    assert [t.message for t in batch.tests] == [t.message for t in report.tests]


def _missing(tid: str, part: str, message: str) -> Check:
    return Check(
        id=tid, part=part, name=tid, score=0.0, max_score=1.0, status="missing", message=message
    )


def test_the_section_heading_is_true_of_a_drill_file():
    """The drill's note is a file, not a function: the heading and the entry say so."""
    note = _missing("drill.note_section[a]", "drill", "drill/evidence_note.md was not found")
    stub = _missing(
        "losses.x", "losses", "not attempted: calling causal_lm_loss() raised NotImplementedError"
    )
    files_only = GradeReport(grader_version="t", submission="s", tests=(note,))
    both = GradeReport(grader_version="t", submission="s", tests=(note, stub))
    assert feedback_view(files_only)["not_attempted_heading"] == "Files you have not attempted yet"
    assert feedback_view(both)["not_attempted_heading"] == (
        "Functions and files you have not attempted yet"
    )
    md = render_report(files_only, "md")
    assert "## Files you have not attempted yet (1)" in md
    assert "`drill/evidence_note.md" not in md  # a file's message is no code name


def test_a_load_reply_counts_only_the_handouts_names():
    """The reply comes from the student's process: names outside `parts.FUNCTIONS` (or not
    strings) are ignored, and a listed function can only lose its own points."""
    session = SandboxSession(None, {"losses": ""})  # type: ignore[arg-type]
    lie = ["causal_lm_loss", "bogus", 3, ["masked_lm_loss"], "causal_mask"]
    session._exchange = lambda *a, **k: ({"ok": True, "undefined": lie}, [])
    session._load("losses", "losses")
    assert session.undefined == {"losses": frozenset({"causal_lm_loss"})}
    with pytest.raises(NotDefined) as err:
        session.call("losses", "causal_lm_loss", (), {})
    assert err.value.status == "missing"


def test_a_stub_reached_through_the_graders_tinylm_is_listed_under_the_stub():
    """The TinyLM (`model_forward`, the grader's code) stops at the student's stub: the check
    belongs to the function the student has to write, not to a name the handout never asks for."""
    from grader.render.view import function_key
    from grader.sandbox.errors import _reply_error

    tb = (
        '  File "masks.py", line 61, in build_attention_mask\n'
        '    raise NotImplementedError("Task 1.3")'
    )
    reply = {"kind": "not_implemented", "message": "Task 1.3", "traceback": tb}
    through = str(_reply_error(reply, "calling model_forward()"))
    assert function_key(through)["key"] == "build_attention_mask()"
    assert "through the grader's model_forward()" in through
    # a handout function keeps its own name, and no student frame leaves the message as it was
    own = str(_reply_error(reply, "calling build_attention_mask()"))
    assert function_key(own)["key"] == "build_attention_mask()"
    bare = str(_reply_error({"kind": "not_implemented", "message": ""}, "calling model_forward()"))
    assert function_key(bare)["key"] == "model_forward()"
