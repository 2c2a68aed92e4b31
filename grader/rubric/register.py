"""Informal registers read as plain English: texting abbreviations, dropped apostrophes,
relation signs and unpunctuated run-ons, with an exact map back to the student's text.

Answers typed on phones and in chat say "bert doesnt see the words after bc its trained w
both sides" or "mlm train cond != gen cond". The scorer's lexicon and negation cues are
written for plain English, so one layer rewrites the register before a sentence is parsed:

- a whole word from a closed table of texting and note-taking abbreviations ("u", "bc",
  "w/o", "ppl", "ctx", "toks") becomes its plain form; "w", "n" and "r" only between two
  words ("trained w both sides", "before n after", "encoders r used");
- an apostrophe-less contraction ("doesnt", "cant", "thats") gets its apostrophe back, so a
  negation is still read as a negation;
- a relation sign between two terms ("!=", "=/=", "≠") becomes the words it stands for;
- a run-on that starts a new clause with a model name and its verb and no punctuation
  ("bert sees both sides gpt only sees the left") gets the clause break a comma would give.

`register` returns the rewritten text with `source`, one offset into the original per
character (plus one for the end), so a span found in the rewrite is quoted from the student's
own words (`Registered.original`). Inserted text maps to the original character it stands
for; nothing of the original is dropped except the abbreviation it replaces. One regex pass
and a table lookup per match: linear in the length of the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from grader.rubric.text import Sentence

# Closed tables: a register's vocabulary, not phrases of any answer.
_WORDS: dict[str, str] = {
    # texting
    "u": "you", "ur": "your", "bc": "because", "b/c": "because", "cuz": "because",
    "coz": "because", "bcz": "because", "becuz": "because", "b4": "before",
    "w/o": "without", "w/out": "without", "w/": "with", "thru": "through", "smth": "something",
    "sth": "something", "ppl": "people", "tho": "though", "altho": "although", "rly": "really",
    "ngl": "honestly", "tbh": "honestly", "imo": "in my opinion", "imho": "in my opinion",
    "idk": "I am unsure", "pls": "please", "plz": "please", "thx": "thanks", "bcs": "because",
    "abt": "about", "wat": "what", "dont": "don't", "nd": "and", "esp": "especially",
    "ofc": "of course", "sry": "sorry", "irl": "in real life", "rn": "now", "bcoz": "because",
    "berts": "bert's", "gpts": "gpt's", "gtp": "gpt", "gonna": "going to", "wanna": "want to",
    "gotta": "has to", "kinda": "kind of", "sorta": "sort of", "dunno": "I am unsure",
    # note-taking words of the course
    "ctx": "context", "tok": "token", "toks": "tokens", "seq": "sequence", "seqs": "sequences",
    "attn": "attention", "prev": "previous", "b/w": "between", "btwn": "between",
    "gen": "generation", "pred": "prediction", "preds": "predictions", "cond": "condition",
    "conds": "conditions", "nxt": "next", "l8r": "later", "nvr": "never", "wrd": "word",
    "wrds": "words", "tkn": "token", "tkns": "tokens", "trn": "training", "trng": "training",
    "bidir": "bidirectional", "bi-dir": "bidirectional", "l2r": "left to right",
    "r2l": "right to left", "bcuz": "because",
}  # fmt: skip
# Only between two words: alone, each is also a variable or a letter ("x_n", "option r").
_BETWEEN_WORDS: dict[str, str] = {"w": "with", "n": "and", "r": "are", "&": "and", "+": "and"}
_NT = ("do does did is are was were has have had could would should must need ca wo ai").split()
_CONTRACTIONS: dict[str, str] = {
    **{f"{w}nt": f"{w}n't" for w in _NT},
    "cant": "can't", "wont": "won't", "thats": "that's", "whats": "what's",
    "theres": "there's", "heres": "here's", "hes": "he's", "shes": "she's", "im": "I'm",
    "ive": "I've", "youre": "you're", "theyre": "they're", "youd": "you'd", "itll": "it'll",
    "isnt": "isn't", "arent": "aren't", "didnt": "didn't",
}  # fmt: skip
# "gen" before these is a cohort of people ("gen z"), not generation
_COHORTS = frozenset("x y z alpha beta boomers".split())
# the lexicon reads "!=" and "≠"; clause breaks are "->" and "=>" (`text.clause_bounds`)
_SIGNS: dict[str, str] = {"=/=": "!=", "\u2192": "->", "\u21d2": "=>"}
# autocorrect's slip for "causal", read as such before the words it qualifies
_CASUAL_BEFORE = frozenset(
    "lm lms model models mask masks masking attention language objective decoder decoders".split()
)

_TOKEN_PATTERN = (
    r"(?<![\w/])(?:b/c|b/w|w/out|w/o|w/(?=\s))|=/=|\u2192|\u21d2|(?<![\w-])bi-dir(?![\w-])"
    r"|(?<![\w'-])[a-z0-9]+(?![\w'-])|[&+]"
)
_TOKEN = re.compile(_TOKEN_PATTERN, re.IGNORECASE)
# Relation signs in words (`register(text, signs=True)`), tried before the words, in this
# order: an arrow before "=" and "<" are read, so "=>" is no "=" and "->" no "later". For a
# reader whose vocabulary has no signs (the second reader's cue words); the rule layer reads
# the signs themselves (the lexicon reads "!=", clause breaks are "->" and "=>").
_SIGN_WORDS: tuple[tuple[str, str], ...] = (
    (r"\bL\s*-+>\s*R\b", "left to right"),
    (r"\bR\s*-+>\s*L\b", "right to left"),
    (r"!=+|=/=|\u2260", "differs from"),
    (r"-+>|=+>|\u2192|\u21d2|\u27f6|~>", "so"),
    (r"<-+|\u2190", "from"),
    (r"==+|\u2261", "="),
    (r"[<\u2264]=?\s*[a-z]\b", "earlier"),  # x_{<t}, positions <= i
    (r"[>\u2265]=?\s*[a-z]\b", "later"),  # x_{>i}
)
_TOKEN_SIGNS = re.compile(
    "|".join(f"(?P<s{k}>{p})" for k, (p, _) in enumerate(_SIGN_WORDS)) + "|" + _TOKEN_PATTERN,
    re.IGNORECASE,
)
_WORDLIKE = re.compile(r"[A-Za-z]{2,}")
# a model name that opens a clause, and the verbs that show it does
_NAME = re.compile(r"(?:bert|gpt(?:-?\d)?|mlms?|clms?|encoders?|decoders?)", re.IGNORECASE)
_CLAUSE_VERB = frozenset(
    """sees see looks look reads read uses use only just predicts predict guesses guess can
    cant can't cannot doesnt doesn't is isnt isn't was has needs attends fills gets learns
    knows never always""".split()
)
# words after which a model name is an object or a comparison, not a new subject
_NOT_BEFORE_SUBJECT = frozenset(
    """a an the like than as and or of for to with vs versus unlike both from by about into
    is are was were be use uses used using make makes call called say says said than but so
    because when while whereas although though since if then also even not no why how that
    which who where what i you we they it he she this these those my your our their its
    between over under on in at""".split()
)


@dataclass(frozen=True)
class Registered:
    """`text` in plain English; `source[i]` is the offset in the original of `text[i]`
    (`len(source) == len(text) + 1`, the last entry the original's length)."""

    text: str
    source: tuple[int, ...]

    def original(self, start: int, end: int) -> tuple[int, int]:
        """The span of the original that `text[start:end]` was read from."""
        if end <= start:
            return self.source[start], self.source[start]
        return self.source[start], self.source[end - 1] + 1


def _word_at(text: str, i: int, forward: bool) -> str:
    """The word just after (forward) or just before position `i`, skipping spaces only."""
    n = len(text)
    if forward:
        j = i
        while j < n and text[j] == " ":
            j += 1
        k = j
        while k < n and (text[k].isalnum() or text[k] == "'"):
            k += 1
        return text[j:k]
    j = i
    while j > 0 and text[j - 1] == " ":
        j -= 1
    k = j
    while k > 0 and (text[k - 1].isalnum() or text[k - 1] == "'"):
        k -= 1
    return text[k:j]


def _replacement(text: str, m: re.Match[str]) -> str | None:
    w = m.group()
    low = w.lower()
    if low in _SIGNS:
        return _SIGNS[low]
    if low in _BETWEEN_WORDS:
        if w.isupper() and w.isalpha():
            return None  # a capital letter is a name ("N to C": the two ends of a protein)
        before, after = _word_at(text, m.start(), False), _word_at(text, m.end(), True)
        ok = _WORDLIKE.fullmatch(before) and _WORDLIKE.fullmatch(after)
        ok = ok and before.lower() not in _MID_PHRASE
        # a sign may touch its words ("left+right"), a letter may not ("x_n")
        spaced = w in "+&" or (m.start() > 0 and text[m.start() - 1] == " ")
        new = _BETWEEN_WORDS[low]
        if not (ok and spaced):
            return None
        if w in "+&":  # "left+right" -> "left and right"
            pad_l = "" if text[m.start() - 1 : m.start()] == " " else " "
            pad_r = "" if text[m.end() : m.end() + 1] == " " else " "
            return f"{pad_l}{new}{pad_r}"
        return new
    if low in _BY_CONTEXT:
        return _BY_CONTEXT[low](text, m)
    if low in _CONTRACTIONS:
        return _CONTRACTIONS[low]
    return _WORDS.get(low)


def _casual(text: str, m: re.Match[str]) -> str | None:
    """A typo of "causal" only before a word the model name takes ("casual LM")."""
    return "causal" if _word_at(text, m.end(), True).lower() in _CASUAL_BEFORE else None


def _gen(text: str, m: re.Match[str]) -> str | None:
    """Generation, except in "gen z", which names people."""
    return None if _word_at(text, m.end(), True).lower() in _COHORTS else _WORDS["gen"]


_DETERMINERS = frozenset("a an the this that one no any some big main key real only".split())


def _diff(text: str, m: re.Match[str]) -> str | None:
    """A difference after a determiner ("the diff between"), else different ("they are diff")."""
    before = _word_at(text, m.start(), False).lower()
    return "difference" if before in _DETERMINERS else "different"


# shorthand whose expansion depends on its neighbours
_BY_CONTEXT = {"casual": _casual, "gen": _gen, "diff": _diff}
# every lowercased token `_replacement` may rewrite: any other token it leaves (returns None),
# so the loops skip the call for the plain words that are most of every text
_REWRITABLE = frozenset([*_SIGNS, *_BETWEEN_WORDS, *_BY_CONTEXT, *_CONTRACTIONS, *_WORDS])


def _sign(text: str, m: re.Match[str]) -> str | None:
    """The words for the relation sign `m` matched (`_SIGN_WORDS`), spaced off its
    neighbours; None when `m` is no sign."""
    k = m.lastgroup
    if k is None or not k.startswith("s"):
        return None
    new = _SIGN_WORDS[int(k[1:])][1]
    pad_l = "" if text[m.start() - 1 : m.start()] in ("", " ") else " "
    pad_r = "" if text[m.end() : m.end() + 1] in ("", " ") else " "
    return f"{pad_l}{new}{pad_r}"


# a finite verb: a run-on needs a clause before the name (a list of terms has none)
_VERB = re.compile(
    r"\b(?:is|are|was|were|sees|looks|reads|uses|predicts|guesses|can|cant|can't|cannot|"
    r"doesnt|doesn't|dont|don't|has|have|needs|attends|fills|gets|learns|knows|works|writes|"
    r"generates|goes|makes|hides|masks)\b",
    re.IGNORECASE,
)


@lru_cache(maxsize=8192)
def _is_name(token: str) -> bool:
    """`token` is a model name (`_NAME`); asked of every token, so remembered per token."""
    return _NAME.fullmatch(token) is not None


def _starts_run_on(text: str, m: re.Match[str], first_verb: int) -> bool:
    """A model name that opens a new clause with no punctuation before it: a verb comes
    earlier in the text (`first_verb`), the word before is a content word (not an article,
    preposition, verb of use or connective) and the word after is one of the verbs a claim
    about a model opens with."""
    if m.start() == 0 or text[m.start() - 1] != " " or first_verb >= m.start():
        return False
    before = _word_at(text, m.start(), False).lower()
    before = (_WORDS.get(before, _BETWEEN_WORDS.get(before, before)).rsplit(None, 1) or [""])[-1]
    after = _word_at(text, m.end(), True).lower()
    if not before or not before.isalpha() or before in _NOT_BEFORE_SUBJECT:
        return False
    return after in _CLAUSE_VERB


def register(text: str, signs: bool = False) -> Registered:
    """`text` with its informal register rewritten (see the module doc) and the offset map
    back to `text`; with `signs`, relation signs too ("!=", "->", "==", "x_{<t}", "L->R": see
    `_SIGN_WORDS`). Text with nothing to rewrite comes back unchanged; rewriting a rewrite
    changes nothing more."""
    parts: list[str] = []
    source: list[int] = []
    pos = 0
    verb = _VERB.search(text)
    first_verb = verb.start() if verb else len(text)
    for m in (_TOKEN_SIGNS if signs else _TOKEN).finditer(text):
        w = m.group()
        if signs and m.lastgroup:
            new = _sign(text, m)
        else:
            new = _replacement(text, m) if w.lower() in _REWRITABLE else None
        brk = new is None and _is_name(w) and _starts_run_on(text, m, first_verb)
        if new is None and not brk:
            continue
        parts.append(text[pos : m.start()])
        source.extend(range(pos, m.start()))
        if new is None:  # "sides gpt only": the comma a writer would have typed, before the name
            while parts and parts[-1].endswith(" "):
                parts[-1] = parts[-1][:-1]
                source.pop()
            parts.append(", ")
            source.extend((m.start() - 1, m.start() - 1))
            piece = m.group()
            source.extend(range(m.start(), m.end()))
        else:
            piece = _keep_case(m.group(), new)
            source.extend(_spread(m.start(), m.end(), len(piece)))
        parts.append(piece)
        pos = m.end()
    if not parts:
        return Registered(text, tuple(range(len(text) + 1)))
    parts.append(text[pos:])
    source.extend(range(pos, len(text) + 1))
    return Registered("".join(parts), tuple(source))


def informal_marks(text: str) -> tuple[int, int]:
    """How many words of `text` `register` rewrites (texting and note-taking abbreviations,
    dropped apostrophes) and how many relation signs (`_SIGN_WORDS`): the register's marks."""
    words = signs = 0
    for m in _TOKEN_SIGNS.finditer(text):
        if m.lastgroup:
            signs += 1
        elif m.group().lower() in _REWRITABLE and _replacement(text, m) is not None:
            words += 1
    return words, signs


def _keep_case(old: str, new: str) -> str:
    """A capitalised abbreviation ("Bc") gives a capitalised word ("Because")."""
    if old[:1].isupper() and not old.isupper() and new[:1].islower():
        return new[:1].upper() + new[1:]
    return new


def _spread(start: int, end: int, n: int) -> list[int]:
    """`n` offsets for a replacement of text[start:end]: the first character of the
    replacement maps to the abbreviation's first, the last to its last, the rest in between."""
    width = end - start
    if n == 1:
        return [start]
    return [start + (i * (width - 1)) // (n - 1) for i in range(n)]


# -- line structure of notes --------------------------------------------------------------------
# Notes typed without full stops join their lines into one sentence ("bert: both sides\ngpt:
# left only"), which gives the second line's claim to the first line's model. A line break is
# an item break when the next line opens with its own short label and a colon, or when a line
# is a bare heading (a name of at most three words, "CLM (GPT)", "Generation"), or the next line
# opens with a model's name (a new subject: "gpt train cond == gen cond"), unless the line
# before ends mid-phrase ("... on the\nleft side" is one wrapped sentence).
_LABEL_LINE = re.compile(r"[ \t]*[A-Za-z][\w-]*(?:[ \t]+[\w-]+){0,2}[ \t]*:(?:[ \t]|$)")
_HEADING_LINE = re.compile(r"[ \t]*[A-Za-z][\w-]*(?:[ \t]+[\w-]+){0,2}[ \t]*(?:\([^()\n]{1,24}\))?")
_MID_PHRASE = frozenset(
    """a an the of on to in at by for with from and or but than as that which who its their
    his her my our your this these those is are was were be not no very why because so when
    while since then if where whereas although like unlike""".split()
)
_NAME_LINE = re.compile(r"[ \t]*(?:bert|gpt(?:-?\d)?|mlms?|clms?)\b", re.IGNORECASE)
_HEADING_VERBS = frozenset(
    """is are was were be sees see looks reads uses predicts guesses can cannot has have
    needs gets learns""".split()
)


def _is_heading(line: str) -> bool:
    if not _HEADING_LINE.fullmatch(line):
        return False
    ws = re.findall(r"[A-Za-z]+", line.split("(", 1)[0])
    if any(w.lower() in _HEADING_VERBS for w in ws):
        return False
    return bool(ws) and (ws[0][0].isupper() or _NAME.fullmatch(ws[0]) is not None)


def _breaks(text: str, whole_first: bool = True) -> list[int]:
    """Offsets in `text` where a new item starts after a line break (see above).
    `whole_first`: the first line of `text` is a whole line of the answer (the sentence does
    not start in the middle of a line, after another sentence's full stop)."""
    out: list[int] = []
    lines = text.split("\n")
    pos = 0
    for k, line in enumerate(lines[:-1]):
        pos += len(line) + 1
        nxt = lines[k + 1]
        last = line.rstrip().rsplit(None, 1)[-1:] or [""]
        if last[0].lower().strip(",") in _MID_PHRASE or line.rstrip().endswith(","):
            continue
        heading = _is_heading(line) and (k > 0 or whole_first)
        if _LABEL_LINE.match(nxt) or _NAME_LINE.match(nxt) or _is_heading(nxt) or heading:
            out.append(pos)
    return out


def split_note_lines(sentences: list[Sentence], answer: str) -> list[Sentence]:
    """`sentences` (of `answer`) with each joined sentence split at its note-line breaks
    (`_breaks`); offsets still index the answer, and the sentences are renumbered in order."""
    if not any("\n" in s.text for s in sentences):
        return sentences
    out: list[Sentence] = []
    for s in sentences:
        whole = answer[: s.start].rstrip(" \t")[-1:] in ("", "\n")
        cuts = _breaks(s.norm, whole) if "\n" in s.norm else []
        bounds = [0, *cuts, len(s.text)]
        for a, b in zip(bounds, bounds[1:], strict=False):
            piece = s.text[a:b]
            lead = len(piece) - len(piece.lstrip())
            trail = len(piece.rstrip())
            if trail <= lead:
                continue
            out.append(
                Sentence(
                    len(out),
                    s.start + a + lead,
                    s.start + a + trail,
                    piece[lead:trail],
                    s.norm[a + lead : a + trail],
                )
            )
    return out
