"""Shared pieces of the batch tests: fast grading options, small classes, report builders."""

from __future__ import annotations

import pytest

from grader.report import CriterionResult, GradeReport, TestResult, WrittenResult

#: Tests pin the fingerprint: teammates editing the hidden suite mid-run must not make the
#: cache tests flaky (the fingerprint itself is tested on its own).
FINGERPRINT = "tests-batch-fixed-fingerprint"


@pytest.fixture(scope="session")
def fast_options():
    from grader.pipeline import GradeOptions
    from grader.sandbox.limits import SandboxLimits

    return GradeOptions(limits=SandboxLimits(call_timeout=3.0, submission_timeout=30.0))


def make_report(
    name: str,
    *,
    score_pattern: str = "pf",
    review: bool = False,
    evidence: str = "",
    errors: tuple[str, ...] = (),
) -> GradeReport:
    """A synthetic report: one test per character of `score_pattern` (p=pass, f=fail, ...)."""
    status = {"p": "passed", "f": "failed", "e": "error", "t": "timeout", "m": "missing"}
    tests = []
    for i, ch in enumerate(score_pattern):
        part = ("masks", "losses", "corruption", "generation")[i % 4]
        st = status[ch]
        tests.append(
            TestResult(
                id=f"{part}.check_{i}",
                part=part,
                name=f"check_{i}",
                score=1.0 if st == "passed" else 0.0,
                max_score=1.0,
                status=st,
                message="" if st == "passed" else f"expected 1, got {evidence or 2}",
                diagnoses=("forgot_shift",) if st == "failed" and part == "losses" else (),
            )
        )
    written = {
        "explanation": WrittenResult(
            score=4.0,
            max_score=10.0,
            needs_review=review,
            criteria=(
                CriterionResult(
                    id="C1",
                    verdict="partial",
                    evidence=evidence or "because",
                    feedback="say more",
                    confidence=0.4,
                    needs_review=review,
                ),
            ),
            summary="partly right",
            review_reasons=("C1 unsure",) if review else (),
        )
    }
    return GradeReport(
        grader_version="test", submission=name, tests=tuple(tests), written=written, errors=errors
    )
