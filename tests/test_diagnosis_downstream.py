"""One mistake named once (`grader.diagnosis.downstream`): a sampler that draws from the global
RNG is named where the global state changed, and the seeded failures it causes (the sampler's
own seeded tests, and `sample_generate`'s, which calls it) are shown under that mistake, not
as failures no known mistake explains. Points never change."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from grader.diagnosis.downstream import callees, explain
from grader.diagnosis.evidence import Evidence
from grader.loading.model import Submission
from grader.pipeline import GradeOptions
from grader.render.view import feedback_view
from grader.report import GradeReport
from grader.report import TestResult as _Result
from grader.suite.proxy import StudentProxy

ROOT = Path(__file__).resolve().parents[1]
PARTS = ("masks", "corruption", "losses", "generation")
DRAW = "    return torch.multinomial(probs, 1, generator=generator).squeeze(-1)  # (B,)\n"


def _failed(tid: str, *ids: str, message: str = "wrong") -> _Result:
    return _Result(id=tid, part="generation", name=tid, score=0.0, max_score=1.0,
                   status="failed", message=message, diagnoses=ids)  # fmt: skip


SAMPLER, GENERATE = "generation.sample_next_token", "generation.sample_generate"


def _gen() -> torch.Generator:
    return torch.Generator().manual_seed(0)


def test_the_call_graph_is_followed_from_caller_to_callee_only():
    assert SAMPLER in callees(GENERATE) and GENERATE not in callees(SAMPLER)
    assert "masks.causal_mask" in callees("model_forward")  # through build_attention_mask


def test_a_seeded_mistake_explains_seeded_failures_of_its_function_and_its_callers():
    results = [
        _failed("rng", "global_rng"),
        _failed("own_seeded"),
        _failed("caller_seeded"),
        _failed("caller_unseeded"),
        _failed("greedy_seeded"),
        _failed("named", "top_p_inverted"),
    ]
    calls = {
        "rng": frozenset({(SAMPLER, True)}),
        "own_seeded": frozenset({(SAMPLER, True)}),
        "caller_seeded": frozenset({(GENERATE, True)}),
        "caller_unseeded": frozenset({(GENERATE, False)}),
        "greedy_seeded": frozenset({("generation.greedy_generate", True)}),
        "named": frozenset({(SAMPLER, True)}),
    }
    out = {r.id: r for r in explain(results, calls, {})}
    assert out["own_seeded"].diagnoses == out["caller_seeded"].diagnoses == ("global_rng",)
    assert "found by rng: Global random number generator used" in out["caller_seeded"].message
    # not reached: no generator given, a function that does not call the sampler, a failure
    # with a diagnosis of its own
    for tid in ("caller_unseeded", "greedy_seeded", "named", "rng"):
        assert out[tid] == next(r for r in results if r.id == tid), tid
    # naming only: the points and statuses are the same
    assert [(r.score, r.status) for r in out.values()] == [(r.score, r.status) for r in results]


def test_the_function_a_diagnosis_was_found_in_comes_from_its_evidence():
    """Found in sample_generate (its evidence says so): a seeded failure of the sampler alone,
    which sample_generate calls, is not downstream of it."""
    results = [_failed("gen", "ignores_generator"), _failed("sampler")]
    calls = {"gen": frozenset({(GENERATE, True), (SAMPLER, True)}),
             "sampler": frozenset({(SAMPLER, True)})}  # fmt: skip
    ev = {"gen": Evidence(matched={(GENERATE, "ignores_generator")})}
    assert explain(results, calls, ev) == tuple(results)


def test_mistakes_without_a_downstream_scope_explain_nothing_else():
    results = [_failed("a", "in_place_edit"), _failed("b")]
    calls = {"a": frozenset({(SAMPLER, True)}), "b": frozenset({(SAMPLER, True)})}
    assert explain(results, calls, {}) == tuple(results)


def test_consequences_are_listed_under_their_mistake_but_do_not_outweigh_another():
    """Four seeded failures explained by one global-RNG finding count as one finding: a
    top-p mistake found twice in the same part is still shown, not moved to "unexplained"."""
    results = [_failed("rng", "global_rng"), _failed("p1", "top_p_inverted"),
               _failed("p2", "top_p_inverted"), *(_failed(f"s{i}") for i in range(4))]  # fmt: skip
    calls = {r.id: frozenset({(SAMPLER, True)}) for r in results}
    report = GradeReport(grader_version="t", submission="s", tests=explain(results, calls, {}))
    view = feedback_view(report)
    fixes = {f["id"]: f["tests"] for f in view["fixes"]}
    assert fixes == {"top_p_inverted": ["p1", "p2"],
                     "global_rng": ["rng", "s0", "s1", "s2", "s3"]}  # fmt: skip
    assert view["unexplained"] == []


def test_a_gates_probes_are_not_the_tests_own_calls():
    """`require_working` probes the sampler with generators; a property test failing after
    that gate is not about seeded draws."""
    side = StudentProxy.__new__(StudentProxy)  # no sandbox: only the call record is used
    side._remember("generation", "greedy_generate", (), {}, (None,))
    with side.uncounted():
        side._remember("generation", "sample_generate", (), {"generator": _gen()}, (None,))
    assert side.functions_called() == {("generation.greedy_generate", False)}
    side.forget_calls()
    side._remember("generation", "sample_generate", (), {"generator": _gen()}, (None,))
    assert side.functions_called() == {(GENERATE, True)}


# ----------------------------------------------------------------------------- end to end


@pytest.fixture(scope="module")
def grader(grader_as):
    options = GradeOptions(grade_written=False, grade_drill=False, keyword="sampl")
    with grader_as(options) as g:  # the session's warm grader (tests/conftest.py)
        yield g


def _sources(draw: str) -> dict[str, str]:
    sources = {m: (ROOT / "solutions" / f"{m}.py").read_text(encoding="utf-8") for m in PARTS}
    assert sources["generation"].count(DRAW) == 1
    sources["generation"] = sources["generation"].replace(DRAW, draw)
    return sources


@pytest.mark.parametrize(
    "draw",
    [
        "    return torch.multinomial(probs, 1).squeeze(-1)\n",
        "    torch.manual_seed(0)\n    return torch.multinomial(probs, 1).squeeze(-1)\n",
    ],
    ids=["multinomial_without_generator", "manual_seed_inside"],
)
def test_a_global_rng_sampler_is_the_one_mistake_the_feedback_leads_with(grader, draw):
    sub = Submission(name="rng", origin="tests", sources=_sources(draw), missing={})
    report: GradeReport = grader.grade(sub)
    failed = [t for t in report.tests if t.status == "failed"]
    ids = {t.id for t in failed}
    assert "generation.sample_next_token_seeded" in ids, ids
    assert any(i.startswith("generation.sample_generate_seeded[") for i in ids), ids
    assert all("global_rng" in t.diagnoses for t in failed), [(t.id, t.diagnoses) for t in failed]
    view = feedback_view(report)
    assert view["unexplained"] == [], [t["id"] for t in view["unexplained"]]
    assert view["fixes"][0]["id"] == "global_rng"
    assert set(view["fixes"][0]["tests"]) == ids
