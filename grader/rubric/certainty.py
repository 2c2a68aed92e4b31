"""The precision rule of last resort: a false claim needs a sentence read with certainty.

    settle(an, judgements, rubric) -> (judgements, doubts)

A contradicted verdict tells the student they wrote something false and quotes them, so it is
the costliest error the scorer can make. The frames of `polarity.py` already drop what the
student reports, denies, asks, supposes, quotes or concedes; this pass catches what is left
uncertain. When the sentence a contradiction quotes still carries a mark of uncertain polarity:

- a quotation of three or more words ('... "BERT writes fine" ...'), unless it is introduced
  as the example a worked example works on ('the sentence: "The weather today is [MASK]"'),
- a question mark,
- an attribution ("apparently", "supposedly", "according to", "I read / heard / was told"),
- a stated doubt ("I'm not sure", "no idea whether"),

the criterion is judged again without that sentence's claims, and the criterion is flagged
for review with the sentence named: a person decides whether it is the student's false claim.
A contradiction from an instructor's own `[[false_claims]]` pattern is explicit and stays.
Deterministic; the second judging happens only for such sentences.
"""

from __future__ import annotations

import re
from dataclasses import replace

from grader.rubric.criteria import Judgement, judge_all
from grader.rubric.facts import Analysis, SentenceFacts
from grader.rubric.model import Rubric

_QUOTATION = re.compile(r"\"[^\"]*?\w+\W+\w+\W+\w+[^\"]*?\"")
_ATTRIBUTION = re.compile(
    r"\b(?:apparently|supposedly|allegedly|reportedly|according to|rumou?red|"
    r"i(?:'ve| have)? (?:read|heard|seen it said)|i was told|we were told|it seems)\b",
    re.IGNORECASE,
)
_DOUBT = re.compile(
    r"\b(?:not (?:sure|certain)|unsure|no idea (?:if|whether)|(?:don't|do not) know "
    r"(?:if|whether))\b",
    re.IGNORECASE,
)
# round 10 (teachers' voice): a quotation introduced as the example input ('put a [MASK] at the
# end of the sentence: "The weather today is [MASK]"', 'the prompt "Once upon a time"')
_EXAMPLE_INTRO = re.compile(
    r"\b(?:sentence|example|prompt|input|phrase|string|sequence|e\.g\.|such as)\s*[:,]?\s*$",
    re.IGNORECASE,
)
_NOT_CONTENT = frozenset({"negation", "only", "contrast_prefix"})
MAX_PASSES = 3  # uncertain sentences set aside per criterion before the verdict stands


def uncertain(f: SentenceFacts) -> str | None:
    """Why a sentence's polarity is uncertain ("a quotation", ...), or None. A quotation
    counts when it quotes what the scorer reads (a model, a concept), not a phrase
    ('I call this "peeking at the answers"')."""
    norm = f.sentence.norm
    for m in _QUOTATION.finditer(norm):
        if _EXAMPLE_INTRO.search(norm, 0, m.start()):
            continue  # the example a worked example works on is data, not a claim quoted
        if any(
            m.start() <= h.start < m.end()
            for k, hits in f.hits.items()
            if k not in _NOT_CONTENT
            for h in hits
        ):
            return "a quotation"
    if "?" in norm:
        return "a question mark"
    if _ATTRIBUTION.search(norm):
        return "an attribution"
    if _DOUBT.search(norm):
        return "a stated doubt"
    return None


def settle(
    an: Analysis, judgements: dict[str, Judgement], rubric: Rubric
) -> tuple[dict[str, Judgement], dict[str, str]]:
    """`judgements` with every contradiction quoted from an uncertain sentence re-judged
    without that sentence's claims, and per such criterion a review reason naming it."""
    by_index = {s.sentence.index: s for s in an.sentences}
    out, doubts = dict(judgements), {}
    for cid, j in judgements.items():
        dropped: set[int] = set()
        reasons: list[str] = []
        while j.verdict == "contradicted" and j.evidence and len(dropped) < MAX_PASSES:
            i = j.evidence[0]
            if i not in by_index:
                break
            why = uncertain(by_index[i])
            if why is None or _instructor_pattern(cid, by_index[i].sentence.norm, rubric):
                break
            dropped.add(i)
            reasons.append(f'"{_short(by_index[i].sentence.text)}" ({why})')
            j = judge_all(_without(an, dropped), rubric)[cid]
        if not reasons:
            continue
        if j.verdict == "contradicted" and j.evidence and j.evidence[0] in dropped:
            continue  # nothing changed: the claim does not come from the uncertain sentence
        out[cid] = replace(j, confidence=min(j.confidence, 0.5))
        doubts[cid] = (
            f"{cid}: {' and '.join(reasons)} could state a false claim, but its polarity is "
            "uncertain, so it was not counted; check whether the student asserts it."
        )
    return out, doubts


def _instructor_pattern(cid: str, norm: str, rubric: Rubric) -> bool:
    return any(fc.criterion == cid and fc.pattern.search(norm) for fc in rubric.false_claims)


def _without(an: Analysis, dropped: set[int]) -> Analysis:
    sentences = [replace(s, claims=[]) if s.sentence.index in dropped else s for s in an.sentences]
    return Analysis(sentences, an.skipped)


def _short(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " \u2026"
