"""Score the Exercise 2 written explanation against the rubric.

    score_explanation(text, rubric=None) -> WrittenResult

Steps: split into sentences; drop sentences addressed to the grader (prompt injection is data:
it can earn nothing and changes no verdict, it is only flagged); extract claims
(`analysis.py`); judge each criterion (`criteria.py`); run answer-level checks (`guards.py`:
language, length, copy, off-topic, list-likeness) which cap confidence and add review reasons;
write feedback from the rubric's level texts (`feedback.py`).

Deterministic: no randomness, no clock, no network; the same text and rubric always give the
same result.
"""

from __future__ import annotations

from dataclasses import replace

from grader.report import CriterionResult, WrittenResult
from grader.rubric import reader
from grader.rubric.analysis import Analysis, analyse
from grader.rubric.certainty import settle
from grader.rubric.coherence import salad_signal
from grader.rubric.criteria import Judgement, judge_all
from grader.rubric.discourse import expand_tables
from grader.rubric.disguise import disguised_sentences
from grader.rubric.evasion import noncommittal_sentences, visible_text
from grader.rubric.feedback import criterion_feedback, declined_feedback, summary
from grader.rubric.guards import (
    MAX_CHARS,
    Guards,
    assess,
    copied_sentences,
    echoed_sentences,
    injected_sentences,
    scrambled_sentences,
)
from grader.rubric.model import Rubric, load_rubric
from grader.rubric.register import register, split_note_lines
from grader.rubric.text import Sentence, correct_spelling, non_latin_script, split_sentences
from grader.textsafe import clean_text

EVIDENCE_CHARS = 400


def score_explanation(
    text: str, rubric: Rubric | None = None, *, reader_weights: dict | None = None
) -> WrittenResult:
    """Score one written explanation.

    Returns a `WrittenResult` whose `criteria` follow the rubric's order, each with a verdict,
    the student's own sentence(s) as evidence ("" when nothing earned credit), feedback text,
    a confidence in [0, 1] and `needs_review` when the confidence is below the rubric's
    `review_confidence` or the answer contradicts itself. `review_reasons` explains every flag
    (criterion-specific reasons start with the criterion id and a colon). Never raises on odd
    input: `None` or non-text is treated as an empty answer. `reader_weights` replaces the
    second reader's fitted weights (`reader_weights.json`; used by cross-validation).
    """
    rubric = rubric or load_rubric()
    # read what a person reads: no invisible characters (as the loader already does for a
    # submission; the Python API may be handed raw text) and nothing the rendered Markdown
    # hides (comments, reference-definition comments, hidden HTML)
    text = visible_text(clean_text(text)) if isinstance(text, str) else ""
    full_text = text
    text = text[:MAX_CHARS]  # bounded work per answer; longer answers are flagged below
    sentences, injected, an, (copied, scrambled, hedged, disguised) = _read(text, rubric)
    copied = copied & an.skipped - injected
    scrambled = scrambled & an.skipped - injected - copied
    hedged = hedged & an.skipped - injected - copied - scrambled
    disguised = disguised & an.skipped - injected - copied - scrambled - hedged
    echoed = an.skipped - injected - copied - scrambled - hedged - disguised
    judgements, settled = settle(an, judgements=judge_all(an, rubric), rubric=rubric)
    ops = reader.opinions(an, judgements, reader_weights)
    rule = {c: j.verdict for c, j in judgements.items()}
    premise = any(judgements[c].verdict == "contradicted" for c in ("C1", "C3") if c in judgements)
    for cid, op in ops.items():
        if cid in judgements:
            judgements[cid] = reader.second_read(
                cid, judgements[cid], op, reader_weights, false_premise=premise
            )
    credit = any(j.verdict in ("met", "partial") for j in judgements.values())
    guards = assess(
        full_text,
        sentences,
        injected,
        an,
        rubric,
        any_credit=credit,
        echoed=echoed,
        copied=copied,
        scrambled=scrambled,
        hedged=hedged,
        disguised=disguised,
    )
    # template salads ("BERT predicts the masked tokens, therefore GPT uses a causal mask"):
    # grammatical clauses joined by links no argument makes; a person decides (no verdict moves)
    if not (guards.language or guards.list_like) and salad_signal(an).high:
        guards.reasons.append(
            "The answer joins claims by links that argue nothing (a cause about one model, an "
            "effect about the other) or gives one model the other's properties; it may be a "
            "keyword template rather than an explanation. Please read it."
        )
        guards.cap = min(guards.cap, 0.5)
    if len(full_text) > MAX_CHARS:
        guards.reasons.append(
            f"Only the first {MAX_CHARS} characters of this {len(full_text)}-character answer "
            "were scored."
        )
    review_at = rubric.thresholds.review_confidence
    # Where the second reader expects clearly more points than the verdicts give, the scorer
    # may be under-crediting an argument made in words the rules do not know: say so.
    # The reader counts co-occurring words and cannot tell a false claim from a true one, so
    # on an answer with a contradicted verdict its expectation is no evidence of a missed
    # argument (the false claim is reported on its own): `reader.doubt_points`.
    short = reader.doubt_points(
        {c: j.verdict for c, j in judgements.items()},
        ops,
        {c.id: c.weight for c in rubric.criteria},
        reader_weights,
    )
    doubts: dict[str, str] = dict(settled)  # a false claim read from an uncertain sentence
    final = {c: j.verdict for c, j in judgements.items()}
    risk = reader.review_risk(
        reader.review_features(rule, final, ops, sum(short.values()), text), reader_weights
    )
    if risk >= reader.review_at(reader_weights):
        guards.reasons.append(
            f"The second reader's review model puts the chance that a grader would change at "
            f"least one verdict at about {risk:.0%}. Please read it."
        )
    if sum(short.values()) >= reader.shortfall_at(reader_weights) and not (
        guards.language or guards.off_topic or guards.list_like or guards.jargon
    ):
        guards.reasons.append(
            f"The second reader expects about {sum(short.values()):.1f} more points than the "
            "verdicts give: the argument may be made in words the rules do not recognise. "
            "Please read it."
        )
        for cid, pts in short.items():
            if pts >= 0.25:
                v = judgements[cid].verdict
                doubts[cid] = " ".join(
                    x
                    for x in (
                        doubts.get(cid),
                        f"{cid}: {v}, but the second reader expects about {pts:.1f} more point(s).",
                    )
                    if x
                )

    results: list[CriterionResult] = []
    crit_reasons: list[str] = []
    # sentences that carry a false claim: never quoted under "What was good"
    wrong_sentences = {
        i for j in judgements.values() if j.verdict == "contradicted" for i in j.evidence
    }
    for crit in rubric.criteria:
        j = judgements.get(crit.id)
        declined = ""
        if guards.language:
            declined = (
                f"The answer seems to be written in {guards.language}, "
                "and the scorer only reads English."
            )
        if j is None:
            j = Judgement("missing", (), 0.0)
            declined = "No automatic judge exists for this criterion."
            crit_reasons.append(
                f"{crit.id}: no automatic judge exists for this criterion; grade it by hand."
            )
        conf = round(min(j.confidence, guards.cap), 3)
        doubt = crit.id in doubts
        if doubt:
            conf = min(conf, review_at - 0.01)
            crit_reasons.append(doubts[crit.id])
        if j.conflicted:
            crit_reasons.append(
                f"{crit.id}: the answer both states this point and contradicts it; "
                "check which one the student means."
            )
        evidence = _evidence(sentences, j.evidence)
        if declined:
            feedback = declined_feedback(declined)
        else:
            praised = j.verdict == "contradicted" or not set(j.evidence) & wrong_sentences
            quoted = evidence if praised else ""
            feedback = criterion_feedback(rubric, crit.id, j.verdict, quoted, j.claim)
        results.append(
            CriterionResult(
                id=crit.id,
                verdict=j.verdict,
                evidence=evidence,
                feedback=feedback,
                confidence=conf,
                needs_review=conf < review_at or j.conflicted or doubt,
            )
        )

    criteria = tuple(results)
    score = round(sum(rubric.points(c.id, c.verdict) for c in criteria), 4)
    reasons = tuple(guards.reasons + crit_reasons)
    needs_review = bool(reasons) or any(c.needs_review for c in criteria)
    return WrittenResult(
        score=score,
        max_score=rubric.max_score,
        needs_review=needs_review,
        criteria=criteria,
        summary=summary(
            rubric,
            criteria,
            score,
            language=guards.language,
            empty=guards.words == 0,
            off_topic=guards.off_topic,
            list_like=guards.list_like,
            review=needs_review,
        ),
        review_reasons=reasons,
    )


def read_answer(text: str, rubric: Rubric) -> tuple[list[Sentence], set[int], Analysis]:
    """Sentences (with an informal register read as plain English, `register.register`, and
    common slips in domain words undone in their matching text, `norm`, and
    a Markdown table read as one sentence per cell, `discourse.expand_tables`),
    the indices of sentences addressed to the grader, and the claims of the rest (sentences
    that only restate the question, copy a shipped text, have their words out of English
    order, offer a claim with its alternative or mix scripts inside a word are skipped too:
    `Analysis.skipped`)."""
    sentences, injected, an, _ = _read(text, rubric)
    return sentences, injected, an


def _read(
    text: str, rubric: Rubric
) -> tuple[list[Sentence], set[int], Analysis, tuple[set[int], set[int], set[int], set[int]]]:
    """`read_answer`, plus the sentences copied, scrambled, hedged and disguised
    (`copied_sentences`, `scrambled_sentences`, `noncommittal_sentences`,
    `disguised_sentences`), so the scorer need not find them twice. An answer written in a
    non-Latin script is routed to a person whole (`guards.assess`), so its words that mix
    scripts ("GPT\u0448\u043a\u0430") are not held against it."""
    sentences = [
        replace(s, norm=correct_spelling(register(s.norm).text))
        for s in split_note_lines(split_sentences(text), text)
    ]
    sentences = expand_tables(sentences, rubric)
    injected = injected_sentences(sentences, rubric)
    echoed = echoed_sentences(sentences)
    copied = copied_sentences(sentences, rubric, echoed)
    scrambled = scrambled_sentences(sentences)
    hedged = noncommittal_sentences(sentences)
    disguised = set() if non_latin_script(text) else disguised_sentences(sentences)
    skip = injected | echoed | copied | scrambled | hedged | disguised
    an = analyse(sentences, rubric, skip=skip)
    return sentences, injected, an, (copied, scrambled, hedged, disguised)


def _evidence(sentences: list[Sentence], idx: tuple[int, ...]) -> str:
    by_index = {s.index: s for s in sentences}
    text = " ".join(by_index[i].text.strip() for i in idx if i in by_index)
    text = " ".join(text.split())
    if len(text) > EVIDENCE_CHARS:
        text = text[:EVIDENCE_CHARS].rsplit(" ", 1)[0] + " \u2026"
    return text


__all__ = ["score_explanation", "Guards"]
