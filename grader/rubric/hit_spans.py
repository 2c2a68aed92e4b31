"""Span helpers for lexicon hits (`facts.Hit`), shared by `sentence.py` and the extractors."""

from __future__ import annotations

from grader.rubric.facts import Hit

__all__ = ["_dedupe", "_inside", "_overlap"]


def _overlap(a: Hit, b: Hit) -> bool:
    return a.start < b.end and b.start < a.end


def _inside(h: Hit, others: list[Hit]) -> bool:
    return any(_overlap(h, o) for o in others)


def _dedupe(hits: list[Hit]) -> list[Hit]:
    """Drop hits contained in a longer hit of the same key; sort by position."""
    if len(hits) == 1:
        return list(hits)
    hits = sorted(set(hits), key=lambda h: (h.start, -(h.end - h.start)))
    out: list[Hit] = []
    for h in hits:
        if out and h.start >= out[-1].start and h.end <= out[-1].end:
            continue
        out.append(h)
    return out
