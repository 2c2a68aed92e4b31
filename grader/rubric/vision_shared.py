"""What one model is said to see, carried to the other (vision extractors of `claims.EXTRACTORS`):
"GPT, like BERT, can attend to every position" shares the view with the model it is likened to;
the verb-phrase ellipsis "BERT sees both sides, GPT doesn't" gives the other model the opposite.
"""

from __future__ import annotations

import re

from grader.rubric.extractor import ClaimContext
from grader.rubric.facts import BOTH, CLM, MLM, Claim, Hit
from grader.rubric.sentence import ParsedSentence
from grader.rubric.vision import _LATER_ONLY

_ELLIPSIS = re.compile(
    r"^\s*(?:(?:does|do|did|is|are|was|were|can|could|has|have|would)(?:n't|\s+not)|can't|"
    # the telegraphic "bert is bidirectional, gpt not" (issue-19 round 7)
    r"cannot|won't|not|no)\b[\s\w]{0,8}?[.!?]?\s*$",
    re.IGNORECASE,
)

_LIKE = frozenset({"like", "just like", "similar to", "same as", "as with"})


def shared_by_comparison(c: ClaimContext, found: list[Claim]) -> list[Claim]:
    """ "GPT, like BERT, can attend to every position": what is said of the subject is said of
    the model it is likened to as well. Shared only where it earns that model credit (both
    sides for the masked LM, the left only for the causal LM), never as a false claim."""
    ss, out = c.ss, []
    likes = [
        (h, code)
        for h, code, contrast in ss.subj
        if contrast and code in (MLM, CLM) and _likened(ss, h)
    ]
    for h, code in likes:
        want = "see_both" if code == MLM else "see_left"
        for f in found:
            if f.kind != want or f.subject in (code, None) or f.gen_ctx:
                continue
            if (f.strong or f.direct) and f.text and ss.sent.norm.find(f.text, h.end) >= 0:
                out.append(Claim(want, code, c.idx, f.strong, False, f.text, f.direct))
                break
    return out


def _likened(ss: ParsedSentence, h: Hit) -> bool:
    """`h` is the object of a "like" comparison ("like BERT", "just like GPT")."""
    return any(
        p.text.lower() in _LIKE and p.end <= h.start and 0 <= h.tok - p.tok_end <= 1
        for p in ss.hits.get("contrast_prefix", [])
    )


def elided_contrast(c: ClaimContext, found: list[Claim]) -> list[Claim]:
    """ "BERT sees both sides, GPT doesn't." (see `_ellipsis`)."""
    return _ellipsis(c.ss, found)


def _ellipsis(ss: ParsedSentence, claims: list[Claim]) -> list[Claim]:
    """Verb-phrase ellipsis: "BERT sees both sides, GPT doesn't." gives GPT the opposite of
    what the earlier clause said, as a weak claim (the restriction is implied, not stated)."""
    out: list[Claim] = []
    bounds = ss.bounds + [len(ss.sent.norm)]
    for h, code, contrast in ss.subj:
        if contrast or code not in (MLM, CLM):
            continue
        ci = ss.clause(h.start, strong=False)
        rest = ss.sent.norm[h.end : bounds[ci + 1]]
        if not _ELLIPSIS.match(rest):
            continue
        # a bare "not" / "no" ("gpt not") elides the clause right before it only: in "so gpt
        # trains how it generates and bert not" it denies the training, not a view stated
        # further back
        bare = re.match(r"\s*(?:not|no)\b", rest, re.IGNORECASE) is not None
        for c in claims:
            at = ss.sent.norm.find(c.text) if c.text else -1
            if bare and (at < 0 or ss.clause(at, strong=False) < ci - 1):
                continue
            if c.kind in ("see_both", "see_left") and c.subject not in (code, None, BOTH):
                flipped = "see_left" if c.kind == "see_both" else "see_both"
                # "BERT sees the words after the blank, GPT doesn't" denies the later words
                # themselves (the restriction stated); "..., GPT doesn't" after "both sides"
                # or a label only implies it
                strong = flipped == "see_left" and c.strong and _LATER_ONLY.search(c.text)
                out.append(Claim(flipped, code, c.sentence, bool(strong), c.gen_ctx, h.text))
                break
    return out
