"""Student-facing text: per-criterion feedback and the overall paragraph.

`CriterionResult.feedback` is plain text, one labelled paragraph per line:

    What was good: ... You wrote: "..."
    What is missing: ...        (or "What is wrong: ..." for a contradicted verdict)
    How to improve: ...
    Instructor note: ...        (added by overrides)

so the JSON stays readable on its own and renderers can lay the parts out (`split_feedback`).
The text comes from the rubric's levels; nothing here depends on how the verdict was reached,
which is what lets overrides regenerate it without re-running the scorer.
"""

from __future__ import annotations

from grader.report import CriterionResult, Verdict
from grader.rubric.model import Rubric

GOOD = "What was good"
MISSING = "What is missing"
WRONG = "What is wrong"
IMPROVE = "How to improve"
NOTE = "Instructor note"
NOT_JUDGED = "Not judged"
LABELS = (GOOD, MISSING, WRONG, IMPROVE, NOTE, NOT_JUDGED)
QUOTE_CHARS = 320
# the "good" line of a criterion credited from a sentence that also makes a wrong claim
WITHHELD = "This point earned credit from a sentence that also makes the wrong claim quoted under"


def quote(evidence: str, limit: int = QUOTE_CHARS) -> str:
    """The student's words, shortened at a word boundary if long."""
    e = " ".join(evidence.split())
    if len(e) <= limit:
        return e
    cut = e[:limit].rsplit(" ", 1)[0]
    return cut + " \u2026"


def criterion_feedback(
    rubric: Rubric,
    cid: str,
    verdict: Verdict,
    evidence: str = "",
    claim: str | None = None,
    note: str = "",
    *,
    withheld: str = "",
) -> str:
    """Feedback for one criterion from the rubric's level texts.

    `claim` (a key of `rubric.claims`) replaces the generic "what is wrong" text of a
    contradicted verdict; `note` is an instructor's note appended as its own line.
    What to fix comes first (what is wrong or missing, then how to improve), then what was
    good. Praise is never given without the student's words: with no `evidence` the level's
    "good" text is left out, and `withheld` (the id of the criterion whose wrong claim the
    credited sentence also makes) says where the credit came from instead of quoting it.
    """
    level = rubric.criterion(cid).levels[verdict]
    q = f' You wrote: "{quote(evidence)}"' if evidence else ""
    lines: list[str] = []
    if verdict == "contradicted":
        wrong = rubric.claims.get(claim, level.gap) if claim else level.gap
        lines.append(f"{WRONG}: {wrong}{q}")
    elif level.gap:
        lines.append(f"{MISSING}: {level.gap}")
    if level.improve:
        lines.append(f"{IMPROVE}: {level.improve}")
    if verdict != "contradicted" and level.good:
        if evidence:
            lines.append(f"{GOOD}: {level.good}{q}")
        elif withheld:
            lines.append(f"{GOOD}: {WITHHELD} {withheld}.")
    if verdict == "met" and lines and lines[0].startswith(IMPROVE):
        lines.append(lines.pop(0))  # nothing to fix: what was good leads
    if note.strip():
        lines.append(f"{NOTE}: {' '.join(note.split())}")
    return "\n".join(lines)


def declined_feedback(reason: str) -> str:
    """Feedback for a criterion the scorer declines to judge (an answer not in English, a
    criterion without an automatic judge): it says so and nothing else, because any verdict
    text would be a claim about an answer it did not read."""
    return f"{NOT_JUDGED}: {reason} An instructor will grade this criterion by hand."


def split_feedback(feedback: str) -> list[tuple[str, str]]:
    """Parse feedback into (label, text) pairs; unlabelled lines get the label ""."""
    out: list[tuple[str, str]] = []
    for line in feedback.splitlines():
        line = line.strip()
        if not line:
            continue
        for label in LABELS:
            if line.startswith(label + ":"):
                out.append((label, line[len(label) + 1 :].strip()))
                break
        else:
            out.append(("", line))
    return out


def summary(
    rubric: Rubric,
    criteria: tuple[CriterionResult, ...],
    score: float,
    *,
    language: str | None = None,
    empty: bool = False,
    off_topic: bool = False,
    list_like: bool = False,
    review: bool = False,
    declined: str = "",
) -> str:
    """A short overall paragraph in a teaching assistant's voice (deterministic).

    What to fix leads: a wrong claim, then the biggest gain, then the strongest part.
    `declined` (why the scorer read nothing it could judge) replaces the verdict sentences:
    no criterion was judged, so the paragraph says so and why, and nothing else."""
    total = f"{_fmt(score)}/{_fmt(rubric.max_score)}"
    if declined and not (empty or language):
        return (
            f"{declined} So no criterion was judged automatically; an instructor will read "
            "and grade this submission by hand."
        )
    if empty:
        return (
            "No explanation was submitted, so there is nothing to give feedback on yet. "
            "Write a paragraph explaining why a masked LM cannot generate coherently "
            "while a causal LM can; "
            "an instructor will check this submission."
        )
    if language:
        return (
            f"Your answer appears to be written in {language}. "
            "The automatic check only reads English, "
            "so an instructor will read and grade it by hand; no criterion below was judged "
            "automatically."
        )
    if off_topic:
        return (
            f"Provisional score {total}. Your answer does not yet engage with the question: "
            "compare what a masked LM and a causal LM see while they train with what is "
            "available when text is generated left to right. "
            "An instructor will look at it."
        )
    by_id = {c.id: c for c in criteria}
    known = [c for c in rubric.criteria if c.id in by_id]
    met = [c for c in known if by_id[c.id].verdict == "met"]
    wrong = [c for c in known if by_id[c.id].verdict == "contradicted"]
    gaps = [c for c in known if by_id[c.id].verdict in ("missing", "partial")]
    parts = [f"Your explanation scores {total}."]
    if wrong:
        c = wrong[0]
        parts.append(
            f"One statement needs correcting first ({c.id}, {_short(c.title)}): see the "
            f"feedback on {c.id}, because a wrong claim about what a model can see undermines "
            "the rest of the argument."
        )
    if gaps:
        biggest = max(
            gaps,
            key=lambda c: (c.weight * (1 - rubric.scoring[by_id[c.id].verdict]), -known.index(c)),
        )
        parts.append(
            f"The biggest gain is in {biggest.id} ({_short(biggest.title)}): "
            f"{_lower_first(biggest.levels[by_id[biggest.id].verdict].improve)}"
        )
    if len(met) == len(known):
        parts.append(
            "It covers every part of the argument: what each objective trains on, why "
            "generation breaks the masked LM, and why training-generation consistency decides "
            "the architecture split. Well done."
        )
    elif met:
        names = _join([_short(c.title) for c in met[:2]])
        parts.append(f"The strongest part is {names}.")
    if list_like:
        parts.append(
            "Write full sentences that connect the terms: a list of the right words is not yet "
            "an explanation."
        )
    if review:
        parts.append("An instructor will also read this answer, so the score may still change.")
    return " ".join(parts)


def _short(title: str) -> str:
    t = title.split(":")[0].strip()
    return t[0].lower() + t[1:] if t[:2] != t[:2].upper() else t


def _lower_first(s: str) -> str:
    return s[0].lower() + s[1:] if s and not s[:2].isupper() else s


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _fmt(x: float) -> str:
    return f"{x:g}"
