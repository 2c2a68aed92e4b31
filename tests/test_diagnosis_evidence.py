"""`grader.diagnosis.evidence.prune`: a diagnosis survives only if the rest of the submission's
evidence is consistent with it."""

from __future__ import annotations

from grader.diagnosis import explain_ids
from grader.diagnosis.evidence import Evidence, prune
from grader.report import TestResult as _Result


def _failed(tid: str, *ids: str) -> _Result:
    return _Result(id=tid, part="masks", name=tid, score=0.0, max_score=1.0, status="failed",
                   message="wrong" + explain_ids(ids), diagnoses=ids)  # fmt: skip


F = "masks.causal_mask"


def test_a_model_refuted_on_another_failing_test_is_dropped_and_the_message_follows():
    results = [_failed("a", "mask_polarity_flipped", "kv_offset_sign_flipped"),
               _failed("b", "kv_offset_sign_flipped")]  # fmt: skip
    evidence = {
        "a": Evidence(matched={(F, "mask_polarity_flipped"), (F, "kv_offset_sign_flipped")}),
        "b": Evidence(matched={(F, "kv_offset_sign_flipped")},
                      refuted={(F, "mask_polarity_flipped")}),
    }  # fmt: skip
    a, b = prune(results, evidence)
    assert a.diagnoses == ("kv_offset_sign_flipped",)
    assert a.message == "wrong" + explain_ids(["kv_offset_sign_flipped"])
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
