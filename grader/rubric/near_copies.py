"""Copies the word 4-gram check misses: a copied text with words inserted, or cut into pieces
too short to be judged one by one.

On 8dbc064 the model answer with "really" after every third word kept 10/10 unflagged (no
4-gram survives an insertion every third word), with "(um)" after every other word 9/10, and
cut into bullets of seven words 7.5/10 (a bullet under `guards.COPY_SENTENCE_WORDS` was never
judged). Both are read as a person reads them:

* `inserted_copies`: the sentence's 4-grams are also taken with one word skipped between
  picked words (each pick at most two words after the last, so 8 grams per start). A word is
  covered when it is in such a gram found in one shipped text, or is a single word between
  two such words; a sentence most of whose words (`INSERTION_COVERAGE`) are covered so by
  one text that is not quotable, with at least `MIN_INSERTED` words between, is that text
  with words inserted;
* `run_copies`: a sentence too short to judge is judged with its neighbours, joined until
  the run is long enough; a run copied (the 4-gram share) makes each of its short sentences
  a copy.

Linear in the sentence's words (8 look-ups per word).
"""

from __future__ import annotations

from functools import lru_cache
from itertools import product

from grader.rubric.text import ENGLISH_STOPWORDS, Sentence, words

INSERTION_COVERAGE = 0.8  # of a sentence's words (a phrase of 6 in 10 own words is 0.6)
MIN_INSERTED = 2  # words inserted between copied ones
# ... in a sentence of at least this many words: a short one that shares a stock phrase
# ("encoders (BERT) for understanding tasks, decoders (GPT) for generation", 9 words, 3 of
# them between the model answer's) is a coincidence
INSERTION_MIN_WORDS = 12
# the offsets of the picked words from the first, one tuple per choice of gaps (1 or 2 each)
_OFFSETS = {
    n: tuple(tuple(sum(steps[:k]) for k in range(n)) for steps in product((1, 2), repeat=n - 1))
    for n in (3, 4)
}


def _covered(
    ws: list[str], index: dict, allowed: tuple[bool, ...], picks_per_gram: int = 4
) -> dict[int, tuple[set[int], set[int]]]:
    """Source -> (the positions of `ws` in skip-grams found in it, the positions those grams
    skipped), for the `allowed` sources."""
    out: dict[int, tuple[set[int], set[int]]] = {}
    get, keys = index.get, index.keys()
    # Hot loop (every sentence, 8 grams per word): zip of shifted slices builds every gram
    # of one gap pattern at C speed, and one set test (also C) skips a pattern none of whose
    # grams is indexed (most of them: about 1 in 13 has any).
    for off in _OFFSETS[picks_per_gram]:
        grams = list(zip(*(ws[o:] for o in off), strict=False))
        if keys.isdisjoint(grams):
            continue
        for i, gram in enumerate(grams):
            srcs = get(gram)
            if not srcs:
                continue
            for src in srcs:
                if allowed[src]:
                    picked, _ = out.setdefault(src, (set(), set()))
                    picked.update(i + o for o in off)
    for picked, skipped in out.values():
        skipped.update(p for p in range(min(picked), max(picked)) if p not in picked)
        skipped.intersection_update(p for p in skipped if p - 1 in picked and p + 1 in picked)
    return out


def inserted_copies(sentences: list[Sentence], index: dict, allowed: tuple[bool, ...]) -> set[int]:
    """Indices of sentences that are one allowed source's text with at least `MIN_INSERTED`
    words inserted (see the module docstring): a sentence of `INSERTION_MIN_WORDS` words is
    judged alone; a shorter one with the sentences after it, joined until the run is that
    long (at most 4 sentences), so cutting a copy into short pieces does not hide it."""
    out = set()
    lengths = [len(words(s.norm)) for s in sentences]
    for k, s in enumerate(sentences):
        ws: list[str] = []
        for t in sentences[k : k + (1 if lengths[k] >= INSERTION_MIN_WORDS else 4)]:
            ws += words(t.norm)
            if len(ws) >= INSERTION_MIN_WORDS:
                break
        if len(ws) < INSERTION_MIN_WORDS:
            continue
        for picked, skipped in _covered(ws, index, allowed).values():
            covered = picked | skipped
            own = sum(p < lengths[k] for p in covered)  # this sentence's own words, too
            enough = len(covered) >= INSERTION_COVERAGE * len(ws)
            if len(skipped) >= MIN_INSERTED and enough and own >= INSERTION_COVERAGE * lengths[k]:
                out.add(s.index)
                break
    return out


def run_copies(
    sentences: list[Sentence],
    index: dict,
    allowed: tuple[bool, ...],
    min_words: int,
    share: float,
    shingle: int,
) -> set[int]:
    """Indices of sentences under `min_words` words that, joined with the sentences after
    them until the run has `min_words`, make a run `share` of whose 4-grams are one allowed
    source's (each run starts at a short sentence and holds at most 4 sentences)."""
    out = set()
    lengths = [len(words(s.norm)) for s in sentences]
    for k in range(len(sentences)):
        if lengths[k] >= min_words:
            continue
        ws: list[str] = []
        run = []
        for t in sentences[k : k + 4]:
            run.append(t.index)
            ws += words(t.norm)
            if len(ws) >= min_words:
                break
        if len(ws) < min_words or len(run) < 2:
            continue
        grams = [tuple(ws[i : i + shingle]) for i in range(len(ws) - shingle + 1)]
        counts: dict[int, int] = {}
        for g in grams:
            for src in index.get(g, ()):
                if allowed[src]:
                    counts[src] = counts.get(src, 0) + 1
        if counts and max(counts.values()) >= share * len(grams):
            out.update(
                i for i, n in zip(run, lengths[k : k + len(run)], strict=True) if n < min_words
            )
    return out


# A copy with its small words changed ("a" for "the", "was" for "is", "within" for "in") keeps
# its content words in their order: the model answer so edited kept 10/10 (flagged only as a
# possible near-copy of the whole answer). Its content words (not `ENGLISH_STOPWORDS`) are
# compared as 3-grams, with one word skipped as above.
CONTENT_MIN_WORDS = 12  # content words a sentence needs to be judged so: a shorter one that
# names the models the course's way ("Anna is a masked LM like BERT and Ben is a causal LM like
# GPT") shares stock phrases, not a passage
CONTENT_PICKED = 0.6  # ... of which at least this share in the 3-grams themselves


@lru_cache(maxsize=1)  # built once per process, like `guards._shipped_index`
def _content_index() -> tuple[dict[tuple[str, ...], frozenset[int]], tuple[bool, ...]]:
    from grader.rubric.guards import shipped_text_paths  # guards imports this module

    index: dict[tuple[str, ...], set[int]] = {}
    allowed: list[bool] = []
    for _, path, quotable in shipped_text_paths():
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        cw = content_words(text)
        for g in zip(cw, cw[1:], cw[2:], strict=False):
            index.setdefault(g, set()).add(len(allowed))
        allowed.append(not quotable)
    return {k: frozenset(v) for k, v in index.items()}, tuple(allowed)


def content_words(text: str) -> list[str]:
    return [w for w in words(text) if w not in ENGLISH_STOPWORDS]


def content_copies(sentences: list[Sentence]) -> set[int]:
    """Indices of sentences whose content words, in order, are one non-quotable shipped
    text's (`INSERTION_COVERAGE` of them covered by its content 3-grams, one word skipped at
    most between picks): the text with its small words changed."""
    index, allowed = _content_index()
    out = set()
    for s in sentences:
        cw = content_words(s.norm)
        if len(cw) < CONTENT_MIN_WORDS:
            continue
        for picked, skipped in _covered(cw, index, allowed, 3).values():
            if len(picked | skipped) >= INSERTION_COVERAGE * len(cw) and len(
                picked
            ) >= CONTENT_PICKED * len(cw):
                out.add(s.index)
                break
    return out
