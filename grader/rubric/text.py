"""Plain-text machinery for the scorer: normalisation, sentences, tokens, clauses, language.

Everything here is language-agnostic string processing with no knowledge of the rubric.
All functions are pure and deterministic.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

# One-to-one character replacements, so offsets in the normalised text are offsets in the
# original and evidence can be quoted exactly as the student wrote it.
_CHAR_MAP = str.maketrans(
    {
        "\u2018": "'", "\u2019": "'", "\u201b": "'", "\u2032": "'",
        "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u00ab": '"', "\u00bb": '"',
        "\u00a0": " ", "\u2009": " ", "\u202f": " ", "\u2011": "-", "\u2010": "-",
    }
)  # fmt: skip

_ABBREVIATIONS = frozenset(
    "e.g i.e etc vs cf approx fig eq mr mrs ms dr al resp incl ca no".split()
)
_BULLET = re.compile(r"^\s*(?:[-*\u2022\u25aa>]+|\d{1,2}[.)]|[a-z][.)]|=>|->)\s+", re.IGNORECASE)
# Only the first mark of a run may start a match, and the run is taken possessively: a plain
# `[.!?]+` rescans the rest of a long "....." from every one of its positions (quadratic).
_SENT_END = re.compile(r"(?<![.!?])[.!?]++[\"')\]]*+(?=\s|$)")
# what follows a dot that fills a slot of a formula: its conditioning bar or separator
_PLACEHOLDER = re.compile(r"[ \t]*(?:\||\\mid\b|,)")
_FENCE = re.compile(r"^\s*```[\w+-]*\s*$")  # a fence line: ``` and at most a language name
_LAST_WORD_WINDOW = 64  # longer than any abbreviation or initial
_LOWER_NEXT = re.compile(r"[ \t]+[a-z]")  # the next word, on the same line, in lower case
_TOKEN = re.compile(r"[^\W_]+(?:'[^\W_]+)?|[^\w\s]", re.UNICODE)
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W_]+)?", re.UNICODE)
# Clause boundaries. Strong ones end the scope of a negation; weak ones only change the
# grammatical subject a phrase is attributed to.
_AUX = ("is", "are", "was", "were", "be", "been", "has", "have", "had", "can", "will", "would")
_STRONG = re.compile(
    r"[;:,()]|\s[\u2014\u2013]\s?|\u2014|\s-\s|->|=>|"
    r"(?<!nothing )(?<!anything )\bbut\b|"  # "nothing but the prefix" is not a contrast
    r"\b(?:while|whereas|although|though|because|bc|b/c|cuz|coz|since|however|unlike|whilst)\b|"
    # round 12: a connective adverb after an auxiliary is inside its clause ("later tokens are
    # therefore available", "it is then asked"), not the start of a new one
    + "".join(rf"(?<!\b{a}\s)" for a in _AUX)
    + r"\b(?:then|therefore|hence|thus)\b|"
    # "so" links clauses; "so far" is an adverb inside one ("what was said so far")
    r"\bso\b(?!\s+far\b)",
    re.IGNORECASE,
)
_WEAK = re.compile(r"\b(?:and|which|who|whose|where)\b", re.IGNORECASE)

ENGLISH_STOPWORDS = frozenset(
    """a an the and or but if of to in on at by for with from as is are was were be been being
    it its this that these those there their they them he she we you i not no can cannot could
    would should will do does did has have had so than then when while which who what how why
    only also just all any each both more most other some such into about after before over
    because since until what's it's don't doesn't isn't aren't can't won't there's that's
    our your his her my me us very""".split()
)
OTHER_STOPWORDS: dict[str, frozenset[str]] = {
    "French": frozenset(
        """le la les un une des du de et ou mais est sont à au aux en dans sur pour par avec
        sans ce cette ces qui que quoi dont il elle ils elles on nous vous je ne pas plus
        se sa son ses leur leurs être avoir fait comme lors donc car y n'a c'est qu'il
        d'un d'une l'entraînement l'on lui même aussi très""".split()
    ),
    "Spanish": frozenset(
        """el la los las un una unos unas y o pero es son en de del al por para con sin
        que qué cual como cuando donde se su sus lo le les yo tú él ella nosotros
        vosotros ellos ellas no más muy también ya esto este esta estos estas eso ese esa
        todavía porque hay ser estar""".split()
    ),
    "German": frozenset(
        """der die das den dem des ein eine einen einem einer und oder aber ist sind war
        nicht kein keine mit von zu im in am auf für bei aus nach wie als auch nur noch
        es er sie wir ihr ich sich dass wird werden hat haben beim dabei genau deshalb
        kann gut""".split()
    ),
    "Italian": frozenset(
        """il lo la i gli le un una uno e o ma è sono di del della dei delle da dal in
        nel nella con su per tra fra che chi come quando dove non più anche solo già
        ancora quindi perché si suo sua loro questo questa viene stato""".split()
    ),
}


@dataclass(frozen=True)
class Sentence:
    """One sentence (or bullet item). `start`/`end` index the original answer text."""

    index: int
    start: int
    end: int
    text: str  # as the student wrote it
    norm: str  # same length as `text`, quotes/spaces normalised for matching


# Letters of other scripts that look like Latin ones (Cyrillic "а" and "е", Greek "Ο"). In a
# word that also has a Latin letter, or is made of such letters only, they are the Latin letter
# a reader sees: "thе" with a Cyrillic "е" hid a copy of the model answer from the copy check
# and kept its points. A word of another script ("сон") keeps its letters.
_LOOKALIKE = str.maketrans(
    "\u0430\u0435\u0456\u0458\u043e\u0440\u0441\u0443\u0445\u0455\u04bb\u0501\u051b\u051d"
    "\u0410\u0412\u0415\u0406\u0408\u041a\u041c\u041d\u041e\u0420\u0421\u0422\u0425\u0405"
    "\u03bf\u0391\u0392\u0395\u0396\u0397\u0399\u039a\u039c\u039d\u039f\u03a1\u03a4\u03a5\u03a7",
    "aeijopcyxshdqw" "ABEIJKMHOPCTXS" "oABEZHIKMNOPTYX",
)  # fmt: skip
# ... and the compatibility forms of ASCII (fullwidth "ｔｈｅ．", mathematical bold or italic
# "𝐭𝐡𝐞"), which a reader also reads as those characters
_COMPAT = {
    c: ord(folded)
    for block in (range(0xFF01, 0xFF5F), range(0x1D400, 0x1D800))
    for c in block
    if len(folded := unicodedata.normalize("NFKC", chr(c))) == 1 and "!" <= folded <= "~"
}
_LOOKALIKE.update(_COMPAT)
_NON_ASCII_WORD = re.compile(r"\w*[^\x00-\x7f]\w*|[\uff01-\uff5e]")


def _fold_lookalikes(m: re.Match[str]) -> str:
    w = m.group()
    folded = w.translate(_LOOKALIKE)
    return folded if folded.isascii() or any("a" <= c.lower() <= "z" for c in w) else w


def normalize(text: str) -> str:
    """Straighten quotes and odd spaces, and read look-alike letters of other scripts inside
    Latin words as the Latin letters (`_LOOKALIKE`); the result has exactly the same length
    as `text`."""
    text = text.translate(_CHAR_MAP)
    return text if text.isascii() else _NON_ASCII_WORD.sub(_fold_lookalikes, text)


def split_sentences(text: str) -> list[Sentence]:
    """Split an answer into sentences and list items, keeping offsets into `text`.

    Lines are joined unless the next line starts a bullet/number item, the line is blank, or
    the previous line ends a sentence. Within a line, a sentence ends at `.`, `!` or `?`
    followed by a space or the end (abbreviations such as "e.g." and single letters do not
    end a sentence; nor does a trailing-off ellipsis before a lower-case word, "you have...
    a prefix"). Bullet markers are not part of a sentence. A Markdown table (a run of
    lines starting with "|") is one sentence whatever its cells end with ("| Same as
    training? |"): `discourse.expand_tables` reads it cell by cell. Inside a ``` code fence
    each line is a sentence of its own, so a comment ("# masked LM: every position attends
    to every other") is read with nothing but its own line; the fence lines are dropped.
    """
    norm = normalize(text)
    blocks: list[tuple[int, int]] = []  # spans of text that sentence punctuation splits
    whole: set[int] = set()  # starts of blocks that are one sentence (tables, code lines)
    pos = 0
    cur_start: int | None = None
    cur_end = 0
    in_code = in_table = False
    for line in norm.splitlines(keepends=True):
        lstart, lend = pos, pos + len(line.rstrip("\r\n"))
        pos += len(line)
        body = norm[lstart:lend]
        fence = _FENCE.match(body) is not None
        row = body.lstrip().startswith("|")
        if fence or in_code or not body.strip() or row != in_table:
            if cur_start is not None:  # a fence, a code line, a blank or a table edge
                blocks.append((cur_start, cur_end))
                cur_start = None
            in_table = row and not in_code
        if fence:
            in_code = not in_code
            continue
        if in_code:
            if body.strip():  # one sentence per code line (in pieces, if it is that long)
                for span in piece_spans(norm, lstart, lend):
                    blocks.append(span)
                    whole.add(span[0])
            continue
        if not body.strip():
            continue
        if row:  # a table row joins its table, whatever the row before ended with
            if cur_start is None:
                cur_start = lstart
                whole.add(lstart)
            cur_end = lend
            continue
        m = _BULLET.match(body)
        starts_item = m is not None
        if starts_item and m is not None:
            lstart += m.end()
        prev_closed = cur_start is not None and norm[cur_start:cur_end].rstrip()[-1:] in ".!?:"
        if cur_start is not None and (starts_item or prev_closed):
            blocks.append((cur_start, cur_end))
            cur_start = None
        if cur_start is None:
            cur_start = lstart
        cur_end = lend
    if cur_start is not None:
        blocks.append((cur_start, cur_end))

    out: list[Sentence] = []
    for bstart, bend in blocks:
        if bstart in whole:
            _add(out, text, norm, bstart, bend)
            continue
        s = bstart
        for m in _SENT_END.finditer(norm, bstart, bend):
            # only the last word counts, and the window keeps each check short (splitting the
            # whole sentence so far was quadratic in a sentence of skipped "e.g." / "A.")
            before = norm[max(s, m.start() - _LAST_WORD_WINDOW) : m.start()].rsplit(None, 1)
            last = before[-1].lower().rstrip(".") if before else ""
            # an initial ("J. Smith") does not end a sentence; a lower-case variable does
            # ("position i can't attend to j > i. An encoder ...")
            if last in _ABBREVIATIONS or (
                len(last) == 1 and last.isalpha() and m.group() == "." and before[-1][-1:].isupper()
            ):
                continue
            # a trailing-off ellipsis before a lower-case word goes on with the same sentence
            # ("At inference you have... a prefix", "positions t+1.. haven't been produced")
            if m.group().startswith("..") and _LOWER_NEXT.match(norm, m.end(), bend):
                continue
            # a dot standing for an argument in notation ("p_theta(. | x_<t)", "f(., y)")
            # is a placeholder, not the end of a sentence
            slot = m.start() > 0 and norm[m.start() - 1] in "([{"
            if slot or _PLACEHOLDER.match(norm, m.end(), bend):
                continue
            _add_bounded(out, text, norm, s, m.end())
            s = m.end()
        _add_bounded(out, text, norm, s, bend)
    return out


# The longest sentence of the labelled answers has 1,082 characters. Reading a sentence costs
# the scorer more than linear time in its length (each claim pattern is tried at each of its
# mentions), so one 60,000-character sentence of commas cost ~100 s: a longer sentence is read
# as pieces of at most this many characters, cut at its last clause mark (or space) before
# the limit, which keeps the cost of an answer linear in its length.
MAX_SENTENCE_CHARS = 1_200
_CLAUSE_MARK = re.compile(r"[,;:](?=\s)")


def piece_spans(norm: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """`norm[start:end]` as spans of at most MAX_SENTENCE_CHARS: each cut after the last
    clause mark in the piece's last quarter, else at its last space there, else at the limit.
    Linear in the length."""
    end = len(norm) if end is None else end
    out = []
    while end - start > MAX_SENTENCE_CHARS:
        limit = start + MAX_SENTENCE_CHARS
        window = limit - MAX_SENTENCE_CHARS // 4
        marks = [m.end() for m in _CLAUSE_MARK.finditer(norm, window, limit)]
        space = max(norm.rfind(" ", window, limit), norm.rfind("\n", window, limit))
        cut = marks[-1] if marks else space if space > window else limit
        out.append((start, cut))
        start = cut
    out.append((start, end))
    return out


def _add_bounded(out: list[Sentence], text: str, norm: str, start: int, end: int) -> None:
    for a, b in piece_spans(norm, start, end):
        _add(out, text, norm, a, b)


def _add(out: list[Sentence], text: str, norm: str, start: int, end: int) -> None:
    while start < end and norm[start].isspace():
        start += 1
    while end > start and norm[end - 1].isspace():
        end -= 1
    if start < end and _WORD.search(norm, start, end):
        out.append(Sentence(len(out), start, end, text[start:end], norm[start:end]))


def tokens(s: str) -> list[tuple[int, int, str]]:
    """Word and punctuation tokens of `s` as (start, end, lowercased text)."""
    return [(m.start(), m.end(), m.group().lower()) for m in _TOKEN.finditer(s)]


def words(s: str) -> list[str]:
    """The lowercased words (letters, with inner apostrophes) of `s`."""
    if len(s) > _CACHED_CHARS:
        return [w.lower() for w in _WORD.findall(normalize(s))]
    return list(_words(s))


_CACHED_CHARS = 2_000  # a sentence, not a whole long answer: bounds the cache's memory


@lru_cache(maxsize=2048)  # the guards and the second reader ask it of the same sentences
def _words(s: str) -> tuple[str, ...]:
    return tuple(w.lower() for w in _WORD.findall(normalize(s)))


def word_count(s: str) -> int:
    return len(_WORD.findall(s)) + len(re.findall(r"(?<![\w])\d+(?![\w])", s))


def clause_bounds(s: str) -> tuple[list[int], list[int]]:
    """Sorted clause-start offsets in `s`: (strong boundaries, all boundaries).

    Offset 0 is always included. A negation's scope stops at a strong boundary; attribution of
    a phrase to a grammatical subject stops at any boundary.
    """
    strong = sorted({0} | {m.start() for m in _STRONG.finditer(s)})
    weak = {m.start() for m in _WEAK.finditer(s)}
    return strong, sorted(set(strong) | weak)


def stopword_ratios(text: str) -> dict[str, float]:
    """Share of words that are stopwords of English and of a few other languages."""
    ws = words(text)
    if not ws:
        return {"English": 0.0, **{k: 0.0 for k in OTHER_STOPWORDS}}
    n = len(ws)
    ratios = {"English": sum(w in ENGLISH_STOPWORDS for w in ws) / n}
    for lang, sw in OTHER_STOPWORDS.items():
        ratios[lang] = sum(w in sw for w in ws) / n
    return ratios


def detect_non_english(text: str, min_english_ratio: float) -> str | None:
    """Name the language if `text` looks not to be English, else None.

    Stopword-ratio heuristic: English function words make up roughly 35-55% of English prose.
    A text is called non-English when its English ratio is below `min_english_ratio` and
    another language's ratio is higher, or when another language's ratio is clearly higher
    (1.5x) than English's. Short texts (< 3 words) are never classified.
    """
    script = _non_latin_script(text)
    if script is not None:
        return script
    if len(words(text)) < 3:
        return None
    r = stopword_ratios(text)
    en = r.pop("English")
    lang, best = max(r.items(), key=lambda kv: (kv[1], kv[0]))
    if best > 0 and ((en < min_english_ratio and best > en) or best > 1.5 * en + 0.05):
        return lang
    return None


_SCRIPTS = {
    "CJK": "Chinese or Japanese", "HIRAGANA": "Japanese", "KATAKANA": "Japanese",
    "HANGUL": "Korean", "CYRILLIC": "a Cyrillic-script language", "ARABIC": "Arabic",
    "GREEK": "Greek", "HEBREW": "Hebrew", "DEVANAGARI": "Hindi (Devanagari script)",
    "THAI": "Thai",
}  # fmt: skip
NON_LATIN_SHARE = 0.3  # of the letters: above this, the answer is not English prose


def non_latin_script(text: str) -> str | None:
    """The language or script an answer is written in when it is not Latin (at least
    NON_LATIN_SHARE of its first 20,000 letters are of another script), else None."""
    return _non_latin_script(text)


_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def _non_latin_script(text: str) -> str | None:
    """The language (or script) most letters are written in, when at least NON_LATIN_SHARE
    of the letters are not Latin; None otherwise. Formulas and a few Greek symbols stay far
    below that share."""
    text = text[:20_000]
    if text.isascii():  # no letter of another script: most answers, told at C speed
        return None
    counts: dict[str, int] = {}
    letters = sum(map(str.isalpha, text))
    for ch in _NON_ASCII.findall(text):  # an ASCII letter is Latin
        if not ch.isalpha() or ord(ch) in _COMPAT:
            continue
        try:
            first = unicodedata.name(ch).split(" ", 1)[0]
        except ValueError:
            first = ""
        if first != "LATIN":
            counts[first] = counts.get(first, 0) + 1
    if not letters or sum(counts.values()) < NON_LATIN_SHARE * letters:
        return None
    top = max(counts.items(), key=lambda kv: (kv[1], kv[0]))[0]
    return _SCRIPTS.get(top, "a language in a non-Latin script")


def is_list_like(s: str, max_stopword_ratio: float) -> bool:
    """True when a sentence reads as a list of terms rather than a claim.

    Function words (articles, auxiliaries, pronouns, prepositions) are what turn terms into a
    claim; lists have almost none. A sentence is list-like when it is a fragment of <= 3
    words with no verb, or of 4-5 words with no verb, no relation sign ("BERT: cloze",
    "encoders -> classification") and a function-word share below `max_stopword_ratio`, or
    has >= 6 words and its function-word share is below
    `max_stopword_ratio` while it also looks enumerated (>= 5 comma-separated items of <= 3
    words on average: then up to 0.1 above the ratio, or >= 15 words with no punctuation at
    all), or it has >= 15 words and is below half that ratio.
    """
    ws = words(s)
    if not ws:
        return True
    ratio = sum(w in ENGLISH_STOPWORDS for w in ws) / len(ws)
    if len(ws) <= 3:
        return not any(w in _VERBISH for w in ws)
    if len(ws) < 6:  # a short item with no verb, link or function words: a term, not a claim
        return (
            not any(w in _VERBISH for w in ws)
            and not _RELATION.search(s)
            and ratio < max_stopword_ratio
        )
    if ratio < max_stopword_ratio / 2 and len(ws) >= 15:
        return True
    items = [i for i in re.split(r"[,;]", s) if words(i)]
    enumerated = len(items) >= 5 and sum(len(words(i)) for i in items) / len(items) <= 3.0
    if enumerated and ratio < max_stopword_ratio + 0.1:
        return True
    unpunctuated = len(ws) >= 15 and not re.search(r"[,;:.!?()]", s.rstrip(".!? "))
    return unpunctuated and ratio < max_stopword_ratio


# Telegraphic answers state relations with signs instead of verbs.
_RELATION = re.compile(r"[:=\u2192\u21d2\u2248]|->|=>")
_VERBISH = frozenset(
    """is are was were be has have had can cannot can't does doesn't do don't sees see uses use
    predicts predict needs need fails works generate generates learns""".split()
)


# Spelling: domain words a student may mistype ("previus", "rigth", "bidirectinal"). Only the
# common slips are undone: one letter left out (not the first; nor a final "s", "d" or "r") or
# two neighbouring letters swapped (not the first), in a word of at least 5 letters that is not
# itself a word listed here or a stopword. Substitutions are never guessed: too many real words
# are one letter from a domain word ("layer", "marked").
SPELLING_TARGETS = frozenset(
    """bidirectional unidirectional bidirectionally previous preceding following generation
    generate generates generating generated generator autoregressive autoregressively
    classification classify classifier context contexts sequence sentence sentences tokens
    masked masking training trained prediction predicts predict future causal decoder decoders
    encoder encoders inference attention attends because right after before earlier later
    words objective exactly mismatch consistent condition conditions understanding available
    exist written produced sampling decoding position positions language models learned
    surrounding neighbours neighbors blanks hidden cannot doesn't haven't hasn't isn't
    aren't""".split()
)


# -- issue-19 round 6: real words one slip from a domain word are never "corrected" ----------
# ("making" is not "masking", "modes" not "models", "BERT encodes" not "encoders")
REAL_WORDS = frozenset("making modes leaned decodes encodes banks exits".split())


def _spelling_index() -> dict[str, str]:
    known = SPELLING_TARGETS | ENGLISH_STOPWORDS | REAL_WORDS
    found: dict[str, set[str]] = {}
    for t in SPELLING_TARGETS:
        variants = set()
        for i in range(1, len(t)):
            # a dropped final "s" or "d" is a plural or a tense, and a dropped final "r" of an
            # agent noun is the verb it names ("decode", "encode"): real words, not slips
            if i == len(t) - 1 and t[i] in "sdr":
                continue
            variants.add(t[:i] + t[i + 1 :])
        for i in range(1, len(t) - 1):
            if t[i] != t[i + 1]:
                variants.add(t[:i] + t[i + 1] + t[i] + t[i + 2 :])
        for v in variants:
            if len(v) >= 5 and v not in known:
                found.setdefault(v, set()).add(t)
    return {v: next(iter(ts)) for v, ts in found.items() if len(ts) == 1}


_SPELLING = _spelling_index()
_ALPHA = re.compile(r"[A-Za-z']+")


def correct_spelling(s: str) -> str:
    """`s` with common slips in domain words undone (see SPELLING_TARGETS); other words and
    all punctuation unchanged. The result may differ in length from `s`."""

    def fix(m: re.Match[str]) -> str:
        w = m.group()
        return _SPELLING.get(w.lower(), w)

    return _ALPHA.sub(fix, s)
