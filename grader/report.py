"""GradeReport: the one typed record every renderer and exporter reads.

The JSON form (`GradeReport.to_json`) is the stable contract of `../shared/design/grader.md`;
`grader/schema/grade_report.schema.json` describes it and the tests validate against it.
Everything here is plain data: no torch, no student code, no I/O besides (de)serialising.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from functools import cached_property
from typing import Any, Literal

from grader.diagnosis import explain_ids, strip_explanations
from grader.parts import CODE_PARTS, PART_IDS, PART_TITLES  # noqa: F401 - also the report's names
from grader.resources import data_path
from grader.textsafe import clean_name

TestStatus = Literal["passed", "failed", "error", "timeout", "missing"]
# how the message of a "missing" check starts when the submission does not define the function
# at all (`grader.sandbox.client.not_defined`; grouped by `grader.render.view`)
NOT_DEFINED = "not defined: "
Verdict = Literal["met", "partial", "missing", "contradicted"]


@dataclass(frozen=True)
class TestResult:
    """One graded check. `id` is `<part>.<name>[<case>]`, stable across runs."""

    id: str
    part: str
    name: str
    score: float
    max_score: float
    status: TestStatus
    message: str = ""
    diagnoses: tuple[str, ...] = ()
    duration: float = 0.0  # seconds; excluded from the JSON so reports are deterministic


@dataclass(frozen=True)
class CriterionResult:
    """The verdict on one rubric criterion of a written answer.

    `evidence` quotes the student's own sentence; `feedback` is what the student should read.
    `confidence` (0-1) and `needs_review` are for the instructor.
    """

    id: str
    verdict: Verdict
    evidence: str
    feedback: str
    confidence: float = 1.0
    needs_review: bool = False
    overridden: bool = False


@dataclass(frozen=True)
class WrittenResult:
    """A rubric-scored written answer (Exercise 2's explanation, later Exercise 3's note)."""

    score: float
    max_score: float
    needs_review: bool
    criteria: tuple[CriterionResult, ...]
    summary: str = ""
    review_reasons: tuple[str, ...] = ()


@dataclass(frozen=True)
class PartScore:
    score: float
    max_score: float


@dataclass(frozen=True)
class ScoreAdjustment:
    """A change to a report's total made outside grading (a batch's late penalty): `score` is
    the total that counts, `label` names the change ("late penalty") and `reason` says how
    `score` follows from the report's own total. Shown by the renderers; never in the JSON."""

    score: float
    label: str
    reason: str


@dataclass(frozen=True)
class GradeReport:
    """Everything known about one graded submission."""

    grader_version: str
    submission: str
    tests: tuple[TestResult, ...]
    written: dict[str, WrittenResult] = field(default_factory=dict)
    errors: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # the submission's name is the student's (or their file's): one plain line in every
        # format, also for a report read back from a results.jsonl someone edited
        if type(self.submission) is not str or not self.submission.isprintable():
            object.__setattr__(self, "submission", clean_name(self.submission, 300))

    @property
    def parts(self) -> dict[str, PartScore]:
        """Score and maximum per part, in report order (tests and written parts together)."""
        return dict(self._part_scores)

    @cached_property
    def _part_scores(self) -> tuple[tuple[str, PartScore], ...]:
        # Computed once per report: rendering a class asks for scores thousands of times. A
        # report never changes (overrides build a new one with dataclasses.replace).
        totals: dict[str, list[float]] = {}
        for t in self.tests:
            acc = totals.setdefault(t.part, [0.0, 0.0])
            acc[0] += t.score
            acc[1] += t.max_score
        for part, w in self.written.items():
            acc = totals.setdefault(part, [0.0, 0.0])
            acc[0] += w.score
            acc[1] += w.max_score
        order = {p: i for i, p in enumerate(PART_IDS)}
        return tuple(
            (p, PartScore(_round(s), _round(m)))
            for p, (s, m) in sorted(totals.items(), key=lambda kv: order.get(kv[0], 99))
        )

    @property
    def score(self) -> float:
        """The total of every part's score, rounded like the parts."""
        return _round(sum(p.score for _, p in self._part_scores))

    @property
    def max_score(self) -> float:
        """The total of every part's maximum."""
        return _round(sum(p.max_score for _, p in self._part_scores))

    @property
    def diagnoses(self) -> list[str]:
        """Distinct misconception ids named anywhere in the report, in first-seen order."""
        seen: dict[str, None] = {}
        for t in self.tests:
            for d in t.diagnoses:
                seen.setdefault(d, None)
        return list(seen)

    def to_dict(self) -> dict[str, Any]:
        """The design's JSON shape (timings and internal fields left out)."""
        return {
            "grader_version": self.grader_version,
            "submission": self.submission,
            "score": self.score,
            "max_score": self.max_score,
            "parts": {p: asdict(s) for p, s in self.parts.items()},
            "tests": [
                {
                    "id": t.id,
                    "part": t.part,
                    "name": t.name,
                    "score": _round(t.score),
                    "max_score": _round(t.max_score),
                    "status": t.status,
                    # a message read on its own (JSON, a platform) carries its explanations
                    "message": t.message + explain_ids(t.diagnoses),
                    "diagnoses": list(t.diagnoses),
                }
                for t in self.tests
            ],
            "written": {
                name: {
                    "score": _round(w.score),
                    "max_score": _round(w.max_score),
                    "needs_review": w.needs_review,
                    "summary": w.summary,
                    "review_reasons": list(w.review_reasons),
                    "criteria": [
                        {
                            "id": c.id,
                            "verdict": c.verdict,
                            "evidence": c.evidence,
                            "feedback": c.feedback,
                            "confidence": round(c.confidence, 3),
                            "needs_review": c.needs_review,
                            "overridden": c.overridden,
                        }
                        for c in w.criteria
                    ],
                }
                for name, w in self.written.items()
            },
            "errors": list(self.errors),
        }

    def to_json(self, indent: int | None = 2) -> str:
        """`to_dict` as JSON text, non-ASCII characters kept, keys in the schema's order."""
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False, sort_keys=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GradeReport:
        """Rebuild a report from its JSON form (used by re-rendering and batch resume)."""
        tests = tuple(
            TestResult(
                id=t["id"],
                part=t["part"],
                name=t["name"],
                score=float(t["score"]),
                max_score=float(t["max_score"]),
                status=t["status"],
                message=strip_explanations(t.get("message", "")),
                diagnoses=tuple(t.get("diagnoses", ())),
            )
            for t in data.get("tests", [])
        )
        written = {
            name: WrittenResult(
                score=float(w["score"]),
                max_score=float(w["max_score"]),
                needs_review=bool(w.get("needs_review", False)),
                criteria=tuple(
                    CriterionResult(
                        id=c["id"],
                        verdict=c["verdict"],
                        evidence=c.get("evidence", ""),
                        feedback=c.get("feedback", ""),
                        confidence=float(c.get("confidence", 1.0)),
                        needs_review=bool(c.get("needs_review", False)),
                        overridden=bool(c.get("overridden", False)),
                    )
                    for c in w.get("criteria", [])
                ),
                summary=w.get("summary", ""),
                review_reasons=tuple(w.get("review_reasons", ())),
            )
            for name, w in data.get("written", {}).items()
        }
        return cls(
            grader_version=data["grader_version"],
            submission=data["submission"],
            tests=tests,
            written=written,
            errors=tuple(data.get("errors", ())),
        )


def _round(x: float) -> float:
    """Round scores so float summation order never changes the JSON bytes."""
    return round(float(x) + 0.0, 4)


SCHEMA_PATH = data_path("grader", "schema", "grade_report.schema.json")


def validate_report_dict(data: dict[str, Any]) -> None:
    """Raise jsonschema.ValidationError unless `data` follows the published report schema."""
    import jsonschema

    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.validate(data, schema)
