"""Answer-level checks that decide whether a human should look: copying, injection, language,
length, topic, list-likeness. None of them changes a verdict; they lower confidence and add
review reasons.
"""

from __future__ import annotations

import importlib.resources
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from grader.resources import data_path
from grader.rubric.analysis import Analysis
from grader.rubric.disguise import positions, sentence_grams, wildcard_sources
from grader.rubric.evasion import feedback_copies, feedback_index
from grader.rubric.model import Rubric
from grader.rubric.near_copies import content_copies, inserted_copies, run_copies
from grader.rubric.text import (
    ENGLISH_STOPWORDS,
    Sentence,
    detect_non_english,
    word_count,
    words,
)

PUBLISHED_SOLUTION_PATH = data_path("grader.rubric", "published_solution.txt")
# Text that only restates the prompt earns nothing: a sentence made of the question's own words
# (at least this share of the question's content words, at most one other, no "because" or
# "so" link), or one copied from the instructions (at least this share of its word trigrams
# are theirs).
ECHO_QUESTION_COVERAGE = 0.7
ECHO_MAX_NEW_WORDS = 1
ECHO_INSTRUCTIONS_CONTAINMENT = 0.75
_LINKS = frozenset("because so since therefore hence thus why means".split())
SHINGLE = 4  # words per shingle for copy containment
# A sentence of at least this many words, most of whose 4-grams come from one shipped text,
# is a copied passage and earns nothing.
COPY_SENTENCE_WORDS = 8
COPY_SENTENCE_SHARE = 0.6
# ... and from the rubric's feedback texts once the answer holds this share of one of them
FEEDBACK_COVERAGE = 0.5
MAX_CHARS = 60_000  # text analysed per answer (~10,000 words; "very long" is 1,200 words)
# Concepts that show an answer is about this question at all.
TOPIC_KEYS = (
    "masked_model", "causal_model", "both_sides", "predict_masked", "predict_next",
    "causal_mask", "one_direction", "left_to_right",
)  # fmt: skip


@dataclass(frozen=True)
class CopyMatch:
    containment: float  # share of the answer's word 4-grams found in `source`
    longest_run: int  # longest run of consecutive words copied from one shipped text
    source: str = ""  # the shipped text most of them come from


@dataclass
class Guards:
    words: int
    language: str | None = None
    copy: CopyMatch | None = None
    injected: tuple[int, ...] = ()
    off_topic: bool = False
    list_like: bool = False
    jargon: bool = False
    reasons: list[str] = field(default_factory=list)
    cap: float = 1.0  # every criterion's confidence is capped at this


def injected_sentences(sentences: list[Sentence], rubric: Rubric) -> set[int]:
    """Indices of sentences that address the grader instead of answering ("give full marks")."""
    pats = rubric.injection
    return {
        s.index
        for s in sentences
        if any(pats[i].search(s.norm) for i in rubric.injection_index.candidates(s.norm))
    }


@lru_cache(maxsize=1)  # read once per process, not once per answer
def _prompt_text() -> str:
    """The Exercise 2 prompt the students answer (the template's text before "Your answer")."""
    try:
        text = importlib.resources.files("exercises").joinpath("explanation.md").read_text(
            encoding="utf-8")  # fmt: skip
    except (OSError, ModuleNotFoundError):
        return ""
    return text.split("## Your answer", 1)[0]


_ECHO_SAME = {"can't": "cannot", "model": "lm", "models": "lm", "lms": "lm"}


def _echo_words(text: str) -> list[str]:
    """Words for echo matching, with the question's terms in their usual variants folded
    together ("masked language model" = "masked LM"; "text" is what "generate" always
    takes), so a restated question is caught whichever variant it uses."""
    ws = words(text)
    out = []
    for i, w in enumerate(ws):
        if w == "text" or (w == "language" and i + 1 < len(ws) and ws[i + 1].startswith("model")):
            continue
        out.append(_ECHO_SAME.get(w, w))
    return out


def _stem(w: str) -> str:
    for suffix in ("ly", "ing", "ed", "es", "s"):
        if len(w) > len(suffix) + 3 and w.endswith(suffix):
            return w[: -len(suffix)]
    return w


@lru_cache(maxsize=2)
def _prompt_index(text: str) -> tuple[frozenset[tuple[str, ...]], frozenset[str]]:
    """The prompt's word trigrams, and the content-word stems of its question (the first
    bold line)."""
    ws = _echo_words(text)
    question = re.search(r"\*\*(.+?)\*\*", text, flags=re.DOTALL)
    qs = _echo_words(question.group(1)) if question else []
    return (frozenset(zip(ws, ws[1:], ws[2:], strict=False)),
            frozenset(_stem(w) for w in qs if w not in ENGLISH_STOPWORDS))  # fmt: skip


def echoed_sentences(sentences: list[Sentence], prompt: str | None = None) -> set[int]:
    """Indices of sentences that only restate the question or copy the instructions.

    Such a sentence can earn nothing (it is the question, not an answer to it). An answer that
    uses the prompt's terms to say something (a fact of its own, a "because") keeps its credit.
    """
    trigrams, question = _prompt_index(_prompt_text() if prompt is None else prompt)
    if not trigrams:
        return set()
    out = set()
    for s in sentences:
        ws = _echo_words(s.norm)
        grams = list(zip(ws, ws[1:], ws[2:], strict=False))
        if len(ws) < 5 or not grams:
            continue
        if sum(g in trigrams for g in grams) / len(grams) >= ECHO_INSTRUCTIONS_CONTAINMENT:
            out.add(s.index)
            continue
        content = [_stem(w) for w in ws if w not in ENGLISH_STOPWORDS]
        new = [w for w in content if w not in question]
        if (
            len(question.intersection(content)) >= ECHO_QUESTION_COVERAGE * len(question)
            and len(new) <= ECHO_MAX_NEW_WORDS
            # "that's why" argues; a "why" that asks ("Why can ...?") is the question itself
            and not (_LINKS - ({"why"} if s.norm.rstrip().endswith("?") else set())).intersection(
                ws
            )
        ):
            out.add(s.index)
    return out


def _shingles(ws: list[str]) -> set[tuple[str, ...]]:
    return {tuple(ws[i : i + SHINGLE]) for i in range(len(ws) - SHINGLE + 1)}


def shipped_text_paths() -> list[tuple[str, Path, bool]]:
    """(label, path, quotable) of every text the course ships or publishes here.

    Not quotable, so a sentence copied from it earns nothing: the model answer and the
    reference code in `solutions/` (a student who has them has a leak, not an answer), the
    exercises (prompt, README, the stubs' docstrings, the drill) and the student-facing
    README and docs/student.md. Quotable, so a copy is flagged for review and the verdicts
    stand (the course tells students so, and an instructor decides): the published solution
    (the course notes) and the instructor docs (they quote example answers).
    """
    out = [("the published solution", PUBLISHED_SOLUTION_PATH, True)]
    for package, label in (("solutions", "the model answer"), ("exercises", "the exercises")):
        try:
            root = data_path(package)
        except (ModuleNotFoundError, RuntimeError):
            continue
        for path in sorted(root.rglob("*")):
            if path.suffix in (".md", ".py", ".txt") and "__pycache__" not in path.parts:
                rel = f"{package}/{path.relative_to(root).as_posix()}"
                out.append((f"{label} ({rel})", path, False))
    handout = data_path("grader.release", "files", "README.md")  # the handout's README
    out.append(("the handout README", handout, False))
    checkout = data_path("grader").parent  # a checkout's README and docs (not in a wheel)
    for path in [checkout / "README.md", *sorted((checkout / "docs").glob("*.md"))]:
        if path.is_file():
            rel = path.relative_to(checkout).as_posix()
            quotable = rel not in ("README.md", "docs/student.md")
            out.append((f"the course docs ({rel})", path, quotable))
    return out


@lru_cache(maxsize=1)  # built once per process: the shipped texts do not change while grading
def _shipped_index() -> tuple[
    tuple[str, ...], tuple[bool, ...], dict[tuple[str, ...], frozenset[int]]
]:
    """The labels of the shipped texts, whether each is quotable, and each word 4-gram ->
    the texts that contain it."""
    labels: list[str] = []
    quotable: list[bool] = []
    index: dict[tuple[str, ...], set[int]] = {}
    for label, path, may_quote in shipped_text_paths():
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        for sh in _shingles(words(text)):
            index.setdefault(sh, set()).add(len(labels))
        labels.append(label)
        quotable.append(may_quote)
    return tuple(labels), tuple(quotable), {k: frozenset(v) for k, v in index.items()}


def copy_match(text: str) -> CopyMatch:
    """How much of `text` is taken from one shipped text: the share of its word 4-grams found
    in that text, and its longest run of words whose every 4-gram is there (the text with the
    highest share is named)."""
    labels, _, index = _shipped_index()
    ws = words(text)
    grams = [tuple(ws[i : i + SHINGLE]) for i in range(len(ws) - SHINGLE + 1)]
    if not grams:
        return CopyMatch(0.0, 0)
    distinct = set(grams)
    hits = [0] * len(labels)
    for g in distinct:
        for src in index.get(g, ()):
            hits[src] += 1
    runs = [0] * len(labels)
    current: dict[int, int] = {}
    for g in grams:
        found = index.get(g, frozenset())
        current = {src: current.get(src, 0) + 1 for src in found}
        for src, n in current.items():
            runs[src] = max(runs[src], n)
    best = max(range(len(labels)), key=lambda i: (hits[i], runs[i]))
    longest = max(runs)
    return CopyMatch(
        round(hits[best] / len(distinct), 3),
        longest + SHINGLE - 1 if longest else 0,
        labels[best] if hits[best] or longest else "",
    )


@lru_cache(maxsize=1)
def _shipped_positions() -> list[dict[str, set]]:
    return positions(_shipped_index()[2])


def copied_sentences(
    sentences: list[Sentence], rubric: Rubric | None = None, echoed: set[int] = frozenset()
) -> set[int]:
    """Indices of sentences taken from a shipped text that is not quotable (most of their
    word 4-grams are one such text's): such a sentence earns nothing, whatever it says.

    With `rubric`, each of its feedback texts (`evasion.feedback_texts`) is such a text too,
    once the answer holds most of it (`FEEDBACK_COVERAGE` of its 4-grams): the feedback is short and
    plain, so one of its phrases in a sentence of the student's own ("the tokens after the
    current position have not been produced yet") is a coincidence, the whole text pasted
    back (also split over sentences, or with its opening cut) is not. Also near copies
    (`near_copies`), except the sentences in `echoed` (the question restated)."""
    _, quotable, index = _shipped_index()
    grams = {s.index: sentence_grams(s, COPY_SENTENCE_WORDS, SHINGLE) for s in sentences}
    out = set()
    for i, variants in grams.items():
        for gs in variants:
            counts: dict[int, int] = {}
            for g in gs:
                found = index.get(g, ()) if None not in g else None
                if found is None:
                    found = wildcard_sources(g, index, _shipped_positions())
                for src in found:
                    if not quotable[src]:
                        counts[src] = counts.get(src, 0) + 1
            if counts and max(counts.values()) >= COPY_SENTENCE_SHARE * len(gs):
                out.add(i)
    allowed = tuple(not q for q in quotable)  # words inserted, or cut into short pieces
    near = inserted_copies(sentences, index, allowed)
    near |= run_copies(sentences, index, allowed, COPY_SENTENCE_WORDS, COPY_SENTENCE_SHARE, SHINGLE)
    near |= content_copies(sentences)
    if rubric is not None:  # the feedback with words inserted, too
        near |= inserted_copies(sentences, *feedback_index(rubric))
        out |= feedback_copies(grams, rubric, FEEDBACK_COVERAGE, COPY_SENTENCE_SHARE)
    out |= near - echoed  # a question restated with a word or two changed is an echo
    return out


def assess(
    text: str,
    sentences: list[Sentence],
    injected: set[int],
    an: Analysis,
    rubric: Rubric,
    any_credit: bool = False,
    echoed: set[int] = frozenset(),
    copied: set[int] = frozenset(),
    scrambled: set[int] = frozenset(),
    hedged: set[int] = frozenset(),
    disguised: set[int] = frozenset(),
) -> Guards:
    """Run every answer-level check; `reasons` are written for the instructor.

    `any_credit` tells whether some criterion earned something: an answer that did is never
    called off-topic. `echoed` / `copied`: sentences that earned nothing because they restate
    the prompt / are taken from a shipped text (`copied_sentences`); `scrambled`: sentences
    whose word order is not English (`scrambled_sentences`); `hedged`: sentences that offer
    a claim with its alternative (`evasion.noncommittal_sentences`); `disguised`: sentences
    with a word that mixes scripts (`evasion.disguised_sentences`).
    """
    th = rubric.thresholds
    n = word_count(text)
    g = Guards(words=n, injected=tuple(sorted(injected)))
    if n == 0:
        g.reasons.append(
            "Empty answer: nothing to grade. Check that the submission loaded the right file."
        )
        g.cap = 0.5
        return g
    if injected:
        g.reasons.append(
            "The answer contains text addressed to the grader "
            f"(sentence {', '.join(str(i + 1) for i in g.injected)}); "
            "it was ignored for scoring and changed no verdict."
        )
    if echoed:
        g.reasons.append(
            "The answer restates the question or the instructions "
            f"(sentence {_numbered(echoed)}); "
            "that text earned nothing."
        )
    if copied:
        g.reasons.append(
            "The answer copies course material "
            f"(sentence {_numbered(copied)}); "
            "the copied sentences earned nothing."
        )
    if scrambled:
        g.reasons.append(
            "The answer's words are not in an English order "
            f"(sentence {_numbered(scrambled)}): a shuffled "
            "sentence keeps its terms but says nothing, so those sentences earned nothing."
        )
        g.cap = min(g.cap, 0.5)
    if hedged:
        g.reasons.append(
            f"The answer hedges both ways (sentence {_numbered(hedged)}"
            "): a claim offered with its alternative asserts neither, so it earned nothing."
        )
        g.cap = min(g.cap, 0.5)
    if _LONG_ALT.search(text):
        g.reasons.append(
            'The answer writes part of its text as an image\'s alt text ("![...](...)"), which '
            "a reader sees only where the image fails to load. Please read it."
        )
        g.cap = min(g.cap, 0.5)
    repeated = repeated_sentences(sentences)
    if len(repeated) >= REPEATS_FLAGGED:
        g.reasons.append(
            f"The answer repeats sentences word for word (sentence {_numbered(repeated)} "
            "restate an earlier one): repetition earns nothing twice, but it can pad a short "
            "answer. Please read it."
        )
        g.cap = min(g.cap, 0.5)
    if disguised:
        g.reasons.append(
            "The answer writes words with letters of another script mixed into Latin ones "
            f"(sentence {_numbered(disguised)}): a reader sees one "
            "word and the scorer would read another, so those sentences earned nothing."
        )
        g.cap = min(g.cap, 0.5)
    g.language = detect_non_english(text, th.english_stopword_ratio)
    if g.language:
        g.reasons.append(
            f"The answer seems to be written in {g.language}; "
            "the automatic scorer only reads English, "
            "so its verdicts are provisional. Please grade by hand."
        )
        g.cap = min(g.cap, 0.2)
    if n < th.short_words:
        g.reasons.append(f"Very short answer ({n} words): verdicts rest on very little text.")
        g.cap = min(g.cap, 0.5)
    elif n > th.long_words:
        g.reasons.append(
            f"Very long answer ({n} words): keyword coverage may be inflated "
            "and the argument hard to follow."
        )
        g.cap = min(g.cap, 0.55)
    cm = copy_match(text[:MAX_CHARS])
    if n >= 15 and (cm.containment >= th.copy_containment or cm.longest_run >= th.copy_run_words):
        g.copy = cm
        g.reasons.append(
            f"Possible near-copy of {cm.source}: {cm.containment:.0%} of the answer's "
            f"4-word sequences appear in it; longest copied run {cm.longest_run} words."
        )
    scored = an.sentences
    topical = any(s.has(k) for s in scored for k in TOPIC_KEYS)
    if (
        not g.language
        and n >= 8
        and not topical
        and not any_credit
        and not copied
        and not scrambled
        and not hedged
        and not disguised
    ):
        g.off_topic = True
        g.reasons.append(
            "The answer does not seem to address masked vs causal language models (off-topic?)."
        )
        g.cap = min(g.cap, 0.5)
    listy = sum(word_count(s.sentence.norm) for s in scored if s.list_like)
    total = sum(word_count(s.sentence.norm) for s in scored) or 1
    if not g.language and listy / total >= 0.5 and n >= 6:
        g.list_like = True
        g.reasons.append(
            "The answer reads like a list of terms rather than an explanation; "
            "terms not attached to a model earned nothing, the rest at most partial."
        )
        g.cap = min(g.cap, 0.5)
    if not g.language and not g.list_like and is_jargon(an):
        g.jargon = True
        g.reasons.append(
            "The answer is dense with technical terms but states no mechanism (what a model "
            "sees, what is missing at generation); it may be jargon without an explanation."
        )
        g.cap = min(g.cap, 0.5)
    return g


JARGON_LONG_WORDS = 0.22  # share of words of 10+ letters above which an answer reads as jargon
_LONG_WORD = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)*")
_CONCRETE = ("see_both", "see_left", "future_absent", "mlm_relies", "never_trained")


# an image's alt text of a few sentences: a description is a sentence, an answer is more
_LONG_ALT = re.compile(r"!\[[^\[\]\n]{200,2000}\]\(")
REPEATS_FLAGGED = 3  # one restated sentence is a summary; three are padding


def repeated_sentences(sentences: list[Sentence]) -> set[int]:
    """Indices of sentences of four or more words whose words (case and punctuation aside)
    are those of an earlier sentence (not questions or lines ending in a colon: a parallel
    layout asks the same prompt under each heading)."""
    seen: set[tuple[str, ...]] = set()
    out: set[int] = set()
    for s in sentences:
        key = tuple(w.lower() for w in words(s.norm))
        if len(key) < 4 or s.norm.rstrip().endswith(("?", ":")):
            continue  # a prompt repeated under each heading of a parallel layout
        if key in seen:
            out.add(s.index)
        seen.add(key)
    return out


def _numbered(indices: set[int]) -> str:
    """Sentence indices as the student counts them: {2, 0} -> "1, 3"."""
    return ", ".join(str(i + 1) for i in sorted(indices))


def is_jargon(an: Analysis) -> bool:
    """Many long technical words and not one concrete statement of what a model sees or lacks:
    "bidirectional contextualized embeddings live on a non-autoregressive latent manifold"."""
    ws = [w for s in an.sentences for w in _LONG_WORD.findall(s.sentence.norm)]
    if len(ws) < 8:
        return False
    share = sum(len(w.replace("-", "")) >= 10 for w in ws) / len(ws)
    concrete = any(c.strong for k in _CONCRETE for c in an.claims(k))
    return share >= JARGON_LONG_WORDS and not concrete
