"""Answers that say nothing of their own while naming everything: claims offered with their
alternative ("BERT sees both sides, or perhaps it does not"), text a reader of the rendered
answer never sees (Markdown comments, hidden HTML), and the grader's own feedback handed back.
Each is read as what it says to a person about the student's understanding: nothing.

Every pattern here is linear (no nested quantifiers) and runs on text already capped by the
scorer.
"""

from __future__ import annotations

import html
import re
import unicodedata
from functools import lru_cache

from grader.rubric.feedback import GOOD, IMPROVE, MISSING, WRONG
from grader.rubric.model import Rubric
from grader.rubric.text import Sentence, words

_AUX = r"(?:do|does|did|is|are|was|were|can|could|might|may|will|would|has|have|had|should)"
_HEDGE = r"(?:perhaps |maybe |possibly |probably |equally |just as likely |it could be )?"
_PRONOUN = r"(?:(?:it|they|he|she|this|that|these|those|the model|the models|neither|both) )?"
_END = r"(?=\s*(?:[.!?;,)]|$))"
# A claim followed by its alternative asserts neither: "..., or perhaps it does not",
# "..., or maybe they do", "..., or the other way round", "X may or may not ...", and a
# sentence that opens "Either ... or ...". None of these occurs in the labelled answers (a
# "whether ... or not" clause is no hedge: `_indifferent`).
_BOTH_WAYS = re.compile(
    "|".join(
        (
            rf"\bor {_HEDGE}{_PRONOUN}(?:{_AUX}(?: ?n't| not)?|not)"
            rf"(?: (?:either|too|so|at all))?{_END}",
            rf"\bor {_HEDGE}(?:the other way (?:a)?round|vice versa|the (?:reverse|opposite)|"
            r"the other way|neither|none of (?:this|that|these|them))\b",
            rf"\b{_AUX} or {_AUX}(?: ?n't| not)\b",
            r"\bcan or cannot\b",
            r"^\W*either\b(?!\s+way)[^.?!]*\bor\b",
        )
    ),
    re.IGNORECASE,
)


def noncommittal(text: str) -> bool:
    """True when `text` offers a claim together with its alternative, so it asserts neither
    (`_BOTH_WAYS`). A question ("Does GPT see it or not?") asks rather than hedges: the
    polarity reader already takes nothing from it as asserted, and an answer to it may follow."""
    if text.rstrip().endswith("?"):
        return False
    return any(not _indifferent(text, m.start()) for m in _BOTH_WAYS.finditer(text))


# "whether X or not" ("..., whether the later text exists or not") says the claim holds
# either way: that is a condition it does not depend on, not a claim and its alternative.
_WHETHER = re.compile(r"\bwhether\b(?![^;:]*[;:])", re.IGNORECASE)


def _indifferent(text: str, at: int) -> bool:
    """True when the alternative at `at` closes a "whether ... or" clause of its own clause."""
    return _WHETHER.search(text, max(0, at - 200), at) is not None


def noncommittal_sentences(sentences: list[Sentence]) -> set[int]:
    """Indices of sentences hedged both ways (`noncommittal`): such a sentence earns nothing,
    whichever side of it is right."""
    return {s.index for s in sentences if noncommittal(s.norm)}


# What a rendered answer never shows (the HTML standard's rendering, as CommonMark passes raw
# HTML through): a comment, also one left open on a line of its own (it runs to the end); a
# declaration `<!X ...>`, a processing instruction `<? ... ?>`, a CDATA section (all three
# are comments to a browser); a Markdown reference definition used as a comment ("[//]: #
# (...)", "[note]: <> (...)"; a footnote "[^1]: ..." is shown); attribute values (`alt`,
# `title`, `value`: a hover at most) and a link's destination and title; and the content of an
# element that is hidden (`hidden`, inline CSS beyond emphasis - colour, size, position,
# clipping, opacity... hide text in too many ways to list -, a hiding class, zero width or
# height, `<font color|size|face>`), nested or left open (to the end), crossed out (`del`,
# `strike`: the writer took it back), or never rendered
# (`script`, `style`, `template`, `title`, `head`, `datalist`, `noscript`, `noembed`,
# `noframes`, the fallback of `iframe`, `object`, `video`, `audio`, `canvas`, an SVG `desc`
# or `metadata`). Text a reader cannot see earns nothing and is never quoted back.
_REFERENCE = re.compile(
    r"^ {0,3}\[(?!\^)[^\]\n]{1,200}\]:[ \t]*(?:<[^>\n]*>|\S+)"
    r"(?:[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^)\n]*\)))?[ \t]*$",
    re.MULTILINE,
)
_CANDIDATE = re.compile(r"<(?:!--|!\[CDATA\[|![A-Za-z]|\?|/?[A-Za-z])|\]\(")
_VALUE = r"(?:[^\s\"'=<>`]{1,500}|\"[^\"]{0,2000}\"|'[^']{0,2000}')"
_OPEN = re.compile(  # CommonMark's open tag, bounded and atomic (no backtracking)
    rf"<([A-Za-z][A-Za-z0-9-]{{0,30}})((?>\s+[A-Za-z_:][-\w:.]{{0,60}}(?>\s*=\s*{_VALUE})?)"
    r"{0,50}+)\s*(/?)>"
)
_ATTR = re.compile(rf"([A-Za-z_:][-\w:.]*)(?:\s*=\s*({_VALUE}))?")
_CLOSE = re.compile(r"</([A-Za-z][A-Za-z0-9-]{0,30})\s*>")
_LINK_TAIL = re.compile(  # `](destination "title")` of an inline link or image
    r"\]\([ \t]*(?:<[^<>\n]{0,2000}>|[^\s()<>]{1,2000})"
    r"(?:\s+(?:\"[^\"]{0,2000}\"|'[^']{0,2000}'|\([^()]{0,2000}\)))?[ \t]*\)"
)
_VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())
_UNSHOWN = frozenset(
    "script style template title head datalist noscript noembed noframes iframe object video "
    "audio canvas desc metadata".split()
)
# crossed out: shown struck through, which is how a writer takes words back
_STRUCK = frozenset(("del", "strike"))  # not "<s>": a tokenizer's start token
_EMPHASIS_CSS = frozenset(("font-weight", "font-style", "text-decoration", "text-decoration-line"))
_HIDING_CLASS = re.compile(r"hidden|hide|invisible|sr-only|d-none", re.IGNORECASE)
_OVERLONG = re.compile(r"\S{100,}")
_ZERO = re.compile(r"\s*0*(?:\.0*)?\s*(?:px|%|em|rem)?\s*")


def _hides(attrs: str) -> bool:
    """Whether an element with these attributes hides its content from a reader."""
    for m in _ATTR.finditer(attrs):
        name, raw = m.group(1).lower(), m.group(2) or ""
        value = html.unescape(raw.strip("\"'"))  # `display&#58;none` is display:none
        if name in ("hidden", "color", "size", "face"):
            return True
        if name == "class" and _HIDING_CLASS.search(value):
            return True
        if name in ("width", "height") and _ZERO.fullmatch(value):
            return True
        if name == "style" and any(
            prop.strip().lower() not in _EMPHASIS_CSS
            for prop, colon, _ in (d.partition(":") for d in value.split(";"))
            if colon
        ):
            return True
    return False


def _line_start(text: str, i: int) -> bool:
    line = text.rfind("\n", 0, i) + 1
    return i - line <= 3 and not text[line:i].strip()


def visible_text(text: str) -> str:
    """`text` with what a rendered answer never shows (see above), and runs of 100 or more
    characters without a space (no word), replaced by spaces, line breaks kept: the same
    length, so offsets still index the answer. Linear in `text`: each terminator is searched
    once past the last one found (an unclosed run is not rescanned)."""
    n = len(text)
    spans = [m.span() for m in _REFERENCE.finditer(text)]
    found: dict[str, int] = {}  # terminator -> its next position at or after the last search

    def after(needle: str, i: int) -> int:
        at = found.get(needle, -2)
        if at == -1 or at >= i:
            return at
        at = text.find(needle, i)
        found[needle] = at
        return at

    hide: list = []  # [start, tag, depth] of the hidden element the scan is inside
    pos = 0
    while (m := _CANDIDATE.search(text, pos)) is not None:
        i, lead = m.start(), m.group()
        pos = i + 1
        ends = {"<!--": ("-->", 4), "<![CDATA[": ("]]>", 9), "<?": ("?>", 2)}.get(lead)
        if ends is None and lead.startswith("<!"):
            ends = (">", 2)
        if ends is not None:
            end = after(ends[0], i + ends[1])
            if end >= 0:
                spans.append((i, end + len(ends[0])))
                pos = end + len(ends[0])
            elif lead == "<!--" and _line_start(text, i):
                spans.append((i, n))  # an HTML block: a comment to the end of the answer
                break
            continue
        if lead == "](":
            if (link := _LINK_TAIL.match(text, i)) is not None:
                spans.append((i + 2, link.end() - 1))
                pos = link.end()
            continue
        if (tag := _OPEN.match(text, i)) is not None:
            name, attrs, closed = tag.group(1).lower(), tag.group(2), bool(tag.group(3))
            pos = tag.end()
            if "=" in attrs:
                spans.append(tag.span(2))  # attribute values are never the text
            if closed or name in _VOID:
                continue
            if hide:
                hide[2] += name == hide[1]
            elif name in _UNSHOWN or name in _STRUCK or _hides(attrs):
                hide = [i, name, 1]
        elif (close := _CLOSE.match(text, i)) is not None:
            pos = close.end()
            if hide and close.group(1).lower() == hide[1]:
                hide[2] -= 1
                if not hide[2]:
                    spans.append((hide[0], close.end()))
                    hide = []
    if hide:
        spans.append((hide[0], n))  # left open: hidden to the end
    # a run of 100+ characters without a space is no word a reader reads (the longest in the
    # labelled answers is 44: a line of code); read whole, a 59,000-letter one cost the scorer
    # 44 s, its patterns each rescanning the rest of the word from every letter
    spans += [m.span() for m in _OVERLONG.finditer(text)]
    if not spans:
        return text
    out: list[str] = []
    done = 0
    for a, b in sorted(spans):
        if b <= done:
            continue
        a = max(a, done)
        out.append(text[done:a])
        out.append(re.sub(r"[^\r\n]", " ", text[a:b]))
        done = b
    out.append(text[done:])
    return "".join(out)


# A letter a reader reads as an ASCII one: a letter with marks ("t\u0301he", "\u0117", a
# stray combining mark), a compatibility form (circled "\u24e3", superscript "\u207f",
# subscript "\u2092", roman numeral "\u2170"), a Latin small capital or dotless letter
# ("\u1d1b", "\u0131"). The model answer written so kept 7-9/10 of its points: each such
# letter broke the copy check's 4-grams. (Cyrillic and Greek look-alikes: `text.normalize`.)
_LATIN_NAME = re.compile(r"LATIN (?:SMALL |CAPITAL )?LETTER (?:SMALL CAPITAL |DOTLESS )?([A-Z])")
_INNER_HYPHEN = re.compile(r"(?<=[A-Za-z])[-\u00ad\u2010\u2011](?=[A-Za-z])")


@lru_cache(maxsize=4096)
def _read_letter(c: str) -> str:
    if unicodedata.combining(c):
        return ""
    base = "".join(x for x in unicodedata.normalize("NFKD", c) if not unicodedata.combining(x))
    if len(base) == 1 and base.isascii() and base.isalnum():
        return base
    m = _LATIN_NAME.fullmatch(unicodedata.name(c, ""))
    return m.group(1).lower() if m else c


def letters_as_read(text: str) -> str:
    """`text` with every letter as a reader reads it (above) and hyphens inside a word dropped
    ("t-he m-odel" is "the model" to a reader): a form for finding copies, not for quoting
    (its length may differ). ASCII text comes back as it is, hyphens joined."""
    if not text.isascii():
        text = "".join(c if c.isascii() else _read_letter(c) for c in text)
    return _INNER_HYPHEN.sub("", text)


def feedback_texts(rubric: Rubric) -> tuple[str, ...]:
    """Every text the grader shows a student about this rubric: the criteria's titles and
    requirements, each level's feedback (what was good, what is missing, how to improve) and
    the false-claim messages. A student who handed in a weak answer reads them in the
    feedback, so pasting them back is a copy of shipped text, not an answer."""
    return _feedback_texts(_feedback_key(rubric))


def _feedback_key(rubric: Rubric) -> tuple:
    """The rubric's own feedback strings, as a hashable key (a `Rubric` holds mappings)."""
    return (
        rubric.title,
        tuple((c.title, c.requires, tuple(c.levels.values())) for c in rubric.criteria),
        tuple(rubric.claims.values()),
    )


@lru_cache(maxsize=2)  # one per rubric in use: built once per process, not once per answer
def _feedback_texts(key: tuple) -> tuple[str, ...]:
    title, criteria, claims = key
    out = [title]
    for c_title, requires, levels in criteria:
        out += [c_title, requires]
        for lv in levels:  # as the feedback shows them, labels included
            out += [f"{GOOD}: {lv.good}", f"{MISSING}: {lv.gap}", f"{WRONG}: {lv.gap}"]
            out += [f"{IMPROVE}: {lv.improve}"]
    out += [f"{WRONG}: {m}" for m in claims]
    return tuple(t for t in out if t and not t.endswith(": "))


@lru_cache(maxsize=2)
def _field_grams(key: tuple) -> tuple[dict[tuple[str, ...], tuple[int, ...]], tuple[int, ...]]:
    """Each word 4-gram of the feedback texts -> the texts holding it, and each text's number
    of distinct 4-grams."""
    index: dict[tuple[str, ...], tuple[int, ...]] = {}
    sizes = []
    for k, t in enumerate(_feedback_texts(key)):
        ws = words(t)
        grams = set(zip(*(ws[i:] for i in range(4)), strict=False))
        for g in grams:
            index[g] = (*index.get(g, ()), k)
        sizes.append(len(grams))
    return index, tuple(sizes)


def feedback_index(
    rubric: Rubric,
) -> tuple[dict[tuple[str, ...], tuple[int, ...]], tuple[bool, ...]]:
    """Each word 4-gram of the rubric's feedback texts -> the texts holding it, and a True per
    text (every one may be matched: `near_copies.inserted_copies`)."""
    index, sizes = _field_grams(_feedback_key(rubric))
    return index, (True,) * len(sizes)


def feedback_copies(
    grams: dict[int, list[list[tuple[str, ...]]]], rubric: Rubric, coverage: float, share: float
) -> set[int]:
    """Indices of sentences copied from the rubric's feedback (`feedback_texts`): `grams` maps
    each sentence to its word 4-grams (as read and as written). Once the answer holds
    `coverage` of one feedback text's 4-grams, a sentence `share` of whose 4-grams are the
    feedback's is a copy (also one that runs two texts together: a title and the praise after
    it); before that, a phrase of the feedback in an own sentence is a coincidence."""
    index, sizes = _field_grams(_feedback_key(rubric))
    held = [0] * len(sizes)
    for g in {g for variants in grams.values() for gs in variants for g in gs}:
        for k in index.get(g, ()):
            held[k] += 1
    if not any(n and n >= coverage * size for n, size in zip(held, sizes, strict=True)):
        return set()
    return {
        i
        for i, variants in grams.items()
        if any(sum(g in index for g in gs) >= share * len(gs) for gs in variants)
    }
