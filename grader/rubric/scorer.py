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
from grader.rubric.c2_conditions import link_denied, one_half_only
from grader.rubric.certainty import settle
from grader.rubric.coherence import salad_signal
from grader.rubric.criteria import Judgement, judge_all
from grader.rubric.disavowal import disowned_reason, disowned_sentences
from grader.rubric.discourse import expand_tables
from grader.rubric.disguise import disguised_sentences
from grader.rubric.evasion import noncommittal_sentences, visible_text
from grader.rubric.feedback import QUOTE_CHARS, criterion_feedback, declined_feedback, summary
from grader.rubric.guards import (
    MAX_CHARS,
    Guards,
    assess,
    copied_sentences,
    echoed_sentences,
    injected_sentences,
)
from grader.rubric.hedges import drop_hedges
from grader.rubric.judgement import CONF_CONTRADICTED
from grader.rubric.model import Rubric, load_rubric
from grader.rubric.register import register, split_note_lines
from grader.rubric.retraction import blank_struck_passages, drop_struck
from grader.rubric.spoken import about_language_models, split_run_ons, spoken_answer, unspoken
from grader.rubric.text import Sentence, correct_spelling, non_latin_script, split_sentences
from grader.rubric.word_order import scrambled_sentences
from grader.textsafe import clean_text

EVIDENCE_CHARS = 400
# the family a criterion's praise must quote something about (C2, C4, C5 name either)
ABOUT = {"C1": "mlm", "C3": "clm"}
FAMILY_KEY = {"mlm": "masked_model", "clm": "causal_model"}


def score_explanation(
    text: str, rubric: Rubric | None = None, *, reader_weights: dict | None = None
) -> WrittenResult:
    """Score one written explanation.

    Returns a `WrittenResult` whose `criteria` follow the rubric's order, each with a verdict,
    the student's own sentence(s) as evidence ("" when nothing earned credit), feedback text,
    a confidence in [0, 1] and `needs_review` when the confidence is below the rubric's
    `review_confidence` or the answer contradicts itself on it where the review model puts the
    answer at risk (`reader.conflict_at`). `review_reasons` explains every flag
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
    # C2 is not raised past partial where the answer says one half of its link only, or gives
    # the train / generation gap to the causal LM (`link_denied`)
    half = one_half_only(an) or bool(link_denied(an))
    for cid, op in ops.items():
        if cid in judgements:
            judgements[cid] = reader.second_read(
                cid, judgements[cid], op, reader_weights, false_premise=premise, one_half=half
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
    disowned = disowned_reason(an.disowned, len(sentences))
    if disowned:  # a person decides what the answer holds (`disavowal.py`)
        guards.reasons.append(disowned)
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
    conflicted = [c for c, j in judgements.items() if j.conflicted]
    risk = reader.review_risk(
        reader.review_features(rule, final, ops, sum(short.values()), text, conflicted=conflicted),
        reader_weights,
    )
    # a criterion the answer both states and contradicts is contradicted; a person checks it
    # when the review model puts the answer at risk (`reader.conflict_at`; 0: always)
    conflict_flag = risk >= reader.conflict_at(reader_weights)
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
        i: c for c, j in judgements.items() if j.verdict == "contradicted" for i in j.evidence
    }
    unread = _unread(guards, sentences, injected, an.skipped, copied=copied, echoed=echoed)
    for crit in rubric.criteria:
        j = judgements.get(crit.id)
        declined = unread
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
        # an unflagged conflict is as sure as any contradicted verdict
        own = CONF_CONTRADICTED if j.conflicted and not conflict_flag else j.confidence
        conf = round(min(own, guards.cap), 3)
        doubt = crit.id in doubts
        if doubt:
            conf = min(conf, review_at - 0.01)
            crit_reasons.append(doubts[crit.id])
        if j.conflicted and conflict_flag:
            crit_reasons.append(
                f"{crit.id}: the answer both states this point and contradicts it; "
                "check which one the student means."
            )
        evidence = _evidence(sentences, _answered(sentences, j.evidence))
        if declined:
            feedback = declined_feedback(declined)
        else:
            shared = sorted({wrong_sentences[i] for i in j.evidence if i in wrong_sentences})
            praised = j.verdict == "contradicted" or not shared
            quoted = evidence if praised else ""
            family = ABOUT.get(crit.id)
            if quoted and family and j.verdict != "contradicted":
                # praise quotes what is said of the criterion's model: not a sentence about the
                # other model only, nor a long sentence cut before the model is named
                own = _about(an, _answered(sentences, j.evidence), family)
                quoted = (
                    _evidence(sentences, own, focus=(rubric, FAMILY_KEY[family])) if own else ""
                )
            feedback = criterion_feedback(
                rubric, crit.id, j.verdict, quoted, j.claim, withheld="" if praised else shared[0]
            )
        results.append(
            CriterionResult(
                id=crit.id,
                verdict=j.verdict,
                evidence=evidence,
                feedback=feedback,
                confidence=conf,
                needs_review=conf < review_at or (j.conflicted and conflict_flag) or doubt,
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
            declined=unread,
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
    text = blank_struck_passages(text)  # a passage struck through over several sentences
    lms = about_language_models(text)
    sentences = split_note_lines(split_sentences(text), text)
    spoken = spoken_answer(text)
    if spoken:
        sentences = split_run_ons(sentences)
    sentences = [
        replace(
            s,
            norm=drop_hedges(
                correct_spelling(register(unspoken(drop_struck(s.norm), lms, spoken)).text)
            ),
        )
        for s in sentences
    ]
    sentences = expand_tables(sentences, rubric)
    injected = injected_sentences(sentences, rubric)
    echoed = echoed_sentences(sentences)
    copied = copied_sentences(sentences, rubric, echoed)
    # a transcript's restarts ("it they", "can does") are read where speech is undone
    scrambled = scrambled_sentences(
        [replace(s, text=s.norm) for s in sentences] if spoken else sentences
    )
    hedged = noncommittal_sentences(sentences)
    disguised = set() if non_latin_script(text) else disguised_sentences(sentences)
    skip = injected | echoed | copied | scrambled | hedged | disguised
    an = analyse(sentences, rubric, skip=skip, disowned=disowned_sentences(text, sentences))
    return sentences, injected, an, (copied, scrambled, hedged, disguised)


def _unread(
    guards: Guards,
    sentences: list[Sentence],
    injected: set[int],
    skipped: frozenset[int],
    *,
    copied: set[int],
    echoed: set[int],
) -> str:
    """Why the scorer has nothing it may read as an explanation, or "": no words, or every
    sentence left out, or only text addressed to the grader besides off-topic words
    (addressed to the grader, restating the question, copied from a text
    the course ships, words out of English order, a claim offered with its alternative).
    Then no criterion is judged: a verdict text would describe an answer it did not read."""
    if guards.words == 0:
        return "No answer was submitted."
    if injected and guards.off_topic:
        return "The answer is addressed to the grader and does not discuss the question."
    if not sentences or not all(s.index in injected or s.index in skipped for s in sentences):
        return ""
    why = [
        what
        for found, what in (
            (injected, "is addressed to the grader"),
            (echoed, "restates the question"),
            (copied, "copies course material"),
        )
        if found
    ] or ["states no claim the scorer can read as the student's own"]
    return f"Every sentence of the answer {' or '.join(why)}."


def _answered(sentences: list[Sentence], idx: tuple[int, ...]) -> tuple[int, ...]:
    """`idx` with the sentence after each quoted question that is not itself a question
    ("Does BERT see the later words? Yes."): a question quoted alone says nothing the
    student asserted; its answer does."""
    by_index = {s.index: s for s in sentences}
    out = set(idx)
    for i in idx:
        s, nxt = by_index.get(i), by_index.get(i + 1)
        if s and nxt and s.text.rstrip().endswith("?") and not nxt.text.rstrip().endswith("?"):
            out.add(i + 1)
    return tuple(sorted(out))


def _about(an: Analysis, idx: tuple[int, ...], family: str) -> tuple[int, ...]:
    """The sentences of `idx` not about the other family only (a sentence that names only
    the causal LM is no evidence of what the masked LM does, so it is not quoted as praise;
    with none left the praise is left out)."""
    facts = {f.sentence.index: f for f in an.sentences}
    keep = tuple(
        i
        for i in idx
        if i not in facts
        or not facts[i].mentions
        or family in facts[i].mentions
        or "both" in facts[i].mentions
    )
    return keep


def _evidence(
    sentences: list[Sentence],
    idx: tuple[int, ...],
    focus: tuple[Rubric, str] | None = None,
) -> str:
    """The student's sentences `idx`, as written: neighbours joined by a space, sentences
    with others between them by " \u2026 ", so every piece of a quote is verbatim; a
    sentence read twice (a table row stating two cells) is quoted once."""
    by_index = {s.index: s for s in sentences}
    parts: list[str] = []
    seen: set[str] = set()
    last = None
    for i in sorted(set(idx)):
        if i not in by_index:
            continue
        t = " ".join(by_index[i].text.split())
        if not t or t in seen:
            continue
        if parts:
            parts.append(" " if last is not None and i == last + 1 else " \u2026 ")
        parts.append(t)
        seen.add(t)
        last = i
    text = "".join(parts)
    if focus is not None and len(text) > QUOTE_CHARS:
        text = _focused(text, *focus)
    if len(text) > EVIDENCE_CHARS:
        text = text[:EVIDENCE_CHARS].rsplit(" ", 1)[0] + " \u2026"
    return text


def _focused(text: str, rubric: Rubric, key: str) -> str:
    """A long quote cut to start at the clause where lexicon concept `key` (the criterion's
    model) is first named, when the plain cut would end before it: "\u2026 whereas a causal
    model like GPT is only ever allowed ...". Unchanged when it is named early or not at all."""
    hits = [m.start() for p in rubric.lexicon.get(key, ()) if (m := p.search(text))]
    if not hits or min(hits) < QUOTE_CHARS - 80:
        return text
    at = min(hits)
    cut = max(text.rfind(", ", 0, at), text.rfind("; ", 0, at), text.rfind(": ", 0, at))
    start = cut + 2 if cut >= 0 and at - cut < 120 else at
    return "\u2026 " + text[start:]


__all__ = ["score_explanation", "Guards"]
