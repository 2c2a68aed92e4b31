"""`grader.diagnosis.evidence.prune`: a diagnosis survives only if the rest of the submission's
evidence is consistent with it."""

from __future__ import annotations

import torch

from grader.diagnosis import evidence, variants
from grader.diagnosis.evidence import Evidence, prune
from grader.diagnosis.variants import matching
from grader.report import TestResult as _Result
from grader.suite.checks import GradeFailure, check_close, collecting, fail


def _failed(tid: str, *ids: str) -> _Result:
    return _Result(id=tid, part="masks", name=tid, score=0.0, max_score=1.0, status="failed",
                   message="wrong", diagnoses=ids)  # fmt: skip


F = "masks.causal_mask"


def test_a_model_refuted_on_another_failing_test_is_dropped_and_the_message_stays():
    results = [_failed("a", "mask_polarity_flipped", "kv_offset_sign_flipped"),
               _failed("b", "kv_offset_sign_flipped")]  # fmt: skip
    evidence = {
        "a": Evidence(matched={(F, "mask_polarity_flipped"), (F, "kv_offset_sign_flipped")}),
        "b": Evidence(matched={(F, "kv_offset_sign_flipped")},
                      refuted={(F, "mask_polarity_flipped")}),
    }  # fmt: skip
    a, b = prune(results, evidence)
    assert a.diagnoses == ("kv_offset_sign_flipped",)
    assert a.message == "wrong"  # the explanation is a renderer's: no message surgery
    assert b == results[1]


def test_a_refutation_counts_only_for_the_same_function_and_only_on_failed_tests():
    results = [_failed("a", "padding_applied_to_queries"),
               _failed("b", "padding_applied_to_queries")]  # fmt: skip
    other = {("masks.padding_mask", "padding_applied_to_queries")}
    evidence = {
        "a": Evidence(matched={("masks.build_attention_mask", "padding_applied_to_queries")}),
        "b": Evidence(matched=set(), refuted=other),
    }
    assert prune(results, evidence)[0].diagnoses == ("padding_applied_to_queries",)
    passed = _Result(id="b", part="masks", name="b", score=1.0, max_score=1.0, status="passed")
    evidence["b"] = Evidence(refuted={("masks.build_attention_mask",
                                       "padding_applied_to_queries")})  # fmt: skip
    assert prune([results[0], passed], evidence)[0].diagnoses == ("padding_applied_to_queries",)


def test_the_broader_explanation_wins_where_both_fit():
    results = [_failed("a", "top_k_off_by_one"), _failed("b", "top_k_off_by_one", "filter_order")]
    out = prune(results, {})
    assert out[1].diagnoses == ("top_k_off_by_one",)
    tie = [_failed("a", "x", "y"), _failed("b", "x", "y")]
    assert prune(tie, {})[0].diagnoses == ("x", "y")  # equal support: both stay


# ---------------------------------------------------------------- passing checks are evidence


def _passed(tid: str) -> _Result:
    return _Result(id=tid, part="masks", name=tid, score=1.0, max_score=1.0, status="passed")


def _deferred_matching(function: str, got, args, want):
    return lambda: matching(function, got, args, want=want)


def test_a_passing_check_refutes_a_named_model_that_would_have_failed_it():
    """A top-left-aligned causal mask: on a 2x3 case it looks like 'diagonal excluded' too, but
    it passes the square 3x3 case, which a mask without its diagonal fails."""
    student = variants.CAUSAL_VARIANTS["top_left_alignment:_top_left"]
    got = student(2, 3)
    found = variants.matching(F, got, (2, 3), want=variants.correct_causal(2, 3))
    assert set(found) == {"diagonal_excluded", "top_left_alignment"}
    failing = found.evidence  # what the failure raised with these ids carries
    square = student(3, 3)
    assert torch.equal(square, variants.correct_causal(3, 3))
    ev = Evidence(deferred=[_deferred_matching(F, square, (3, 3), variants.correct_causal(3, 3))])
    results = [_failed("a", *found), _passed("b")]
    a, b = prune(results, {"a": failing, "b": ev})
    assert a.diagnoses == ("top_left_alignment",)
    assert b == results[1]


def test_an_id_with_one_model_like_the_correct_answer_is_not_refuted_by_a_passing_check():
    """'ignores the causal flag' has two models (always causal, never causal): a causal case
    that passes cannot tell the first from a correct mask, so it refutes neither."""
    am = torch.tensor([[1, 1, 0]])
    want = variants._build(am, 3, True)
    ev = Evidence(deferred=[lambda: matching("masks.build_attention_mask", want.clone(),
                                             (am, 3, True), want=want)])  # fmt: skip
    failing = Evidence(matched={("masks.build_attention_mask", "ignores_causal_flag")})
    a, _ = prune([_failed("a", "ignores_causal_flag"), _passed("b")], {"a": failing, "b": ev})
    assert a.diagnoses == ("ignores_causal_flag",)


def test_deferred_diagnoses_run_only_when_a_failure_named_something_and_only_for_its_ids():
    calls: list[object] = []
    thunk = lambda: calls.append(evidence.focus())  # noqa: E731
    passed = [_passed("a"), _passed("b")]
    prune(passed, {"a": Evidence(deferred=[thunk]), "b": Evidence(deferred=[thunk])})
    plain = _Result(id="c", part="masks", name="c", score=0.0, max_score=1.0, status="failed",
                    message="wrong")  # fmt: skip
    prune([*passed, plain], {"a": Evidence(deferred=[thunk])})
    assert calls == []  # a correct submission (or nothing named) evaluates nothing
    prune([*passed, _failed("c", "diagonal_excluded")], {"a": Evidence(deferred=[thunk])})
    assert calls == [frozenset({"diagonal_excluded"})]
    assert evidence.focus() is None


def test_check_close_defers_its_diagnosis_when_it_passes_to_the_running_test_only():
    ran: list[int] = []
    record = Evidence()
    with evidence.deferring_to(record):
        check_close(torch.ones(2), torch.ones(2), what="x", diagnose=lambda: ran.append(1) or [])
    assert ran == [] and len(record.deferred) == 1
    check_close(torch.ones(2), torch.ones(2), what="x", diagnose=lambda: ran.append(1) or [])
    assert len(record.deferred) == 1  # outside a test nothing is kept anywhere


def test_the_match_travels_on_the_failure_it_raises():
    """No module-level evidence: the models a failed check's diagnosis evaluated are on its
    GradeFailure, and its message has no catalogue text (renderers add it from the ids)."""
    student = variants.CAUSAL_VARIANTS["top_left_alignment:_top_left"]
    got, want = student(2, 3), variants.correct_causal(2, 3)
    try:
        check_close(got, want, what="causal_mask(2, 3)",
                    diagnose=lambda: matching(F, got, (2, 3), want=want))  # fmt: skip
    except GradeFailure as exc:
        failure = exc
    assert set(failure.diagnoses) == {"diagonal_excluded", "top_left_alignment"}
    assert (F, "top_left_alignment") in failure.evidence.matched
    assert (F, "mask_polarity_flipped") in failure.evidence.refuted
    assert "Likely mistake" not in failure.message
    assert not any(isinstance(v, Evidence) for v in vars(evidence).values())


def test_collected_checks_report_every_failure_and_merge_their_evidence():
    a = evidence.found("f", ["x"], ["y"])
    b = evidence.found("g", ["z"], [])
    try:
        with collecting() as check:
            with check:
                fail("first is wrong", a)
            with check:
                pass
            with check:
                fail("third is wrong", b)
    except GradeFailure as exc:
        failure = exc
    assert failure.message == "first is wrong\nthird is wrong"
    assert failure.diagnoses == ("x", "z")
    assert failure.evidence.matched == {("f", "x"), ("g", "z")}
    assert failure.evidence.refuted == {("f", "y")}
