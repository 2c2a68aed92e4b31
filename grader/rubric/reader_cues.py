"""The second reader's cue words (`CUES`, `LEX`) and the register it reads them in.

Students write in many registers: formal prose, exam shorthand, phone-typed texting ("b4",
"w/o", "bc", "toks", "gen"), arrows and equals signs for relations ("train == gen", "x -> y",
"!="), missing apostrophes ("dont"). `register` rewrites a sentence's matching text into plain
words before the cue words are looked up, so a family is found whatever the register; it only
ever feeds the reader's families (never evidence or feedback). It is idempotent, so a rule
layer that already normalises the text (or a future one) changes nothing here.
"""

from __future__ import annotations

import math
import re


def _cue(*words: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w])(?:" + "|".join(words) + r")(?![\w])", re.IGNORECASE)


# Plain English cue words per family, in addition to the rubric's lexicon. Deliberately broad:
# the model weighs them, a cue alone decides nothing.
CUES: dict[str, re.Pattern[str]] = {
    "mlm": _cue(
        r"mask(?:s|ed|ing)?",
        r"blanks?",
        r"cloze",
        r"fill(?:s|ed|ing)?(?: in)?",
        r"hidden",
        r"hid(?:e|es|ing)",
        r"cover(?:s|ed|ing)?",
        r"corrupt\w*",
        r"denois\w*",
        r"bidirectional\w*",
        r"encoders?",
        r"autoencod\w*",
        r"gaps?",
        r"holes?",
        r"bert\w*",
    ),
    "clm": _cue(
        r"gpt\w*",
        r"causal\w*",
        r"decoders?",
        r"autoregress\w*",
        r"next (?:word|token)s?",
        r"upcoming (?:word|token)s?",
        r"unidirectional\w*",
        r"triangular",
        r"tril",
        r"triu",
        r"continu(?:e|es|ing|ation)",
    ),
    "fut": _cue(
        r"after",
        r"ahead",
        r"following",
        r"future",
        r"later",
        r"right(?:-hand)?",
        r"rest",
        r"suffix\w*",
        r"surround\w*",
        r"around",
        r"neighbou?rs?",
        r"both",
        r"whole",
        r"entire",
        r"full",
        r"everything else",
        r"end",
        r"beyond",
        r"next ones?",
    ),
    "past": _cue(
        r"before",
        r"previous(?:ly)?",
        r"preceding",
        r"earlier",
        r"past",
        r"prefix\w*",
        r"so far",
        r"already",
        r"backwards?",
        r"back",
        r"left(?:-hand)?",
        r"history",
        r"behind",
    ),
    "only": _cue(
        r"only",
        r"just",
        r"alone",
        r"nothing else",
        r"restricted",
        r"limited",
        r"cut off",
        r"blocked",
        r"can(?:not|'t) (?:see|look|attend|peek|use|read)",
        r"never (?:sees?|looks?|attends?|peeks?|uses?|reads?)",
    ),
    "gen": _cue(
        r"generat\w*",
        r"writ(?:e|es|ing|ten)",
        r"wrote",
        r"sampl\w*",
        r"decod\w*",
        r"inference",
        r"produc\w*",
        r"emit\w*",
        r"stor(?:y|ies)",
        r"creat\w*",
        r"deploy\w*",
        r"test time",
        r"output\w*",
        r"complet\w*",
    ),
    "train": _cue(
        r"train\w*",
        r"pre-?train\w*",
        r"learn\w*",
        r"practi[cs]\w*",
        r"fit(?:s|ted)?",
        r"optimi[sz]\w*",
        r"rehears\w*",
        r"stud(?:y|ied|ies|ying)",
        r"objective",
        r"taught",
        r"prepar\w*",
        r"all along",
        r"spent",
    ),
    "absent": _cue(
        r"yet",
        r"not there",
        r"(?:is|are)n't there",
        r"(?:do|does)(?:n't| not) exist",
        r"not exist",
        r"gone",
        r"missing",
        r"unknown",
        r"undefined",
        r"unobserved",
        r"empty",
        r"(?:has|have)(?:n't| not) been",
        r"not been",
        r"still to be",
        r"to be (?:produced|written|generated)",
        r"never come",
        r"no (?:right|future|later|after|words? after|tokens? after)",
        r"nothing (?:to the right|after|ahead|beyond)",
        r"(?:don't|do not|doesn't|does not) have",
        r"without",
        r"absent",
        r"unavailable",
        r"not available",
        r"(?:don't|doesn't|do not|does not) know",
        r"isn't written",
        r"not (?:written|produced|generated|decided)",
    ),
    "same": _cue(
        r"same",
        r"identical",
        r"match\w*",
        r"exactly",
        r"consistent\w*",
        r"fits?",
        r"no difference",
        r"nothing changes",
        r"(?:isn't|is not|not) any different",
        r"familiar",
        r"equal",
        r"=",
        r"just what",
        r"what it (?:practi[cs]ed|learned|learnt|trained|always)",
        r"literally",
        r"all along",
        r"like it",
        r"as it",
    ),
    "diff": _cue(
        r"differ\w*",
        r"mismatch\w*",
        r"shift\w*",
        r"never (?:had|saw|seen|practi[cs]\w*|trained|learn\w*|met|faced|contained|been|has|did)",
        r"out of its depth",
        r"surprise\w*",
        r"new situation",
        r"inconsistent\w*",
        r"unfamiliar",
        r"(?:isn't|wasn't|is not|was not|not) (?:trained|used to)",
        r"never",
        r"unlike",
    ),
    "hedge": _cue(
        r"i think",
        r"maybe",
        r"probably",
        r"not sure",
        r"i guess",
        r"kind of",
        r"sort of",
        r"might",
        r"perhaps",
        r"i believe",
        r"seems?",
        r"i'm not",
        r"not 100%",
        r"\?",
    ),
    "und": _cue(r"classif\w*", r"sentiment", r"ner", r"qa", r"retriev\w*", r"understanding"),
    "guse": _cue(r"chat\w*", r"translat\w*", r"summar\w*", r"assistants?"),
    "contrast": _cue(
        r"but",
        r"whereas",
        r"while",
        r"unlike",
        r"however",
        r"instead",
        r"on the other hand",
        r"in contrast",
        r"on the contrary",
    ),
}

# Lexicon keys that also mark a family.
LEX: dict[str, tuple[str, ...]] = {
    "mlm": ("masked_model", "predict_masked"),
    "clm": ("causal_model", "predict_next", "causal_mask", "one_direction"),
    "fut": ("both_sides", "future_ref", "whole_seq"),
    "past": ("earlier_ref",),
    "only": ("only", "one_direction"),
    "gen": ("generation", "generation_time", "left_to_right"),
    "train": ("training", "never_trained"),
    "absent": ("absent",),
    "same": ("same_relation",),
    "diff": ("diff_relation", "never_trained"),
    "neg": ("negation",),
    "both": ("both_sides",),
    "mask": ("causal_mask", "one_direction"),
    "und": ("understanding",),
    "guse": ("generation_use",),
    "use": ("usage", "suitability"),
}


# Informal and second-language writers drop the apostrophe ("dont exist", "cant see"): read
# those negations as the contractions they are.
_BARE_NT = re.compile(
    r"\b(do|does|did|is|are|was|were|has|have|had|ca|could|would|should|wo)nt\b", re.IGNORECASE
)


def contractions(text: str) -> str:
    """`text` with apostrophe-less negative contractions restored ("dont" -> "don't")."""
    return _BARE_NT.sub(lambda m: m.group(1) + "n't", text)


# Texting abbreviations and relation symbols, in the plain words the cues know; applied in this
# order (an arrow is rewritten before "=" and "<" are read, so "=>" is no "same" and "->" no
# "later"). Only whole tokens: "bc" is "because", "abc" stays.
_REGISTER: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p, re.IGNORECASE), r)
    for p, r in (
        (r"\bL\s*-+>\s*R\b|\bl2r\b", " left to right "),
        (r"\bR\s*-+>\s*L\b|\br2l\b", " right to left "),
        (r"!=+|=/=|≠", " differs from "),
        (r"-+>|=+>|→|⇒|⟶|~>", " so "),
        (r"<-+|←", " from "),
        (r"==+|≡", " = "),
        (r"[<≤]=?\s*[a-z]\b", " earlier "),  # x_{<t}, positions <= i
        (r"[>≥]=?\s*[a-z]\b", " later "),  # x_{>i}
        (r"(?<![\w/])w/o(?![\w/])", " without "),
        (r"(?<![\w/])w/(?=\s)", " with "),
        (r"(?<![\w'])(?:b/c|bc|cuz|coz|bcoz|bcuz|bcs)(?![\w'/])", " because "),
        (r"\bb4\b", "before"),
        (r"\bl8r\b", "later"),
        (r"\bnxt\b", "next"),
        (r"\bprev\b", "previous"),
        (r"\b(?:toks?|tkns?)\b", "tokens"),
        (r"\bwrds?\b", "words"),
        (r"\bgen\b", "generation"),
        (r"\btr(?:ng|n)\b", "training"),
        (r"\bctx\b", "context"),
        (r"\bbi-?dir\b", "bidirectional"),
        (r"\bnvr\b", "never"),
        (r"\bthru\b", "through"),
        (r"\bu\b(?!-)", "you"),
        (r"\bur\b(?!-)", "your"),
        (r"\bdiff\b", "different"),
    )
)


def register(text: str) -> str:
    """`text` read in plain words: apostrophe-less contractions restored (`contractions`),
    texting abbreviations ("b4", "w/o", "bc", "toks", "gen") spelled out and relation symbols
    ("->", "=>", "!=", "x_{<t}") put in words. Idempotent: plain prose is unchanged."""
    text = contractions(text)
    for pat, rep in _REGISTER:
        text = pat.sub(rep, text)
    return text


_ABBREVIATIONS = tuple(p for p, r in _REGISTER[8:])  # the texting words, not the symbols
_SYMBOLS = tuple(p for p, r in _REGISTER[:8])
_STARTS = re.compile(r"(?:^|[.!?]\s+|\n\s*)([^\W\d_])")


def style(text: str) -> dict[str, float]:
    """How informal the register is, length-normalised so that a long answer is not more
    "informal" for its length: the log word count, texting abbreviations and relation symbols
    per 100 words, and the share of sentences that start in lowercase. The review model's
    inputs (`reader.review_features`): the rules read these registers less surely."""
    n = max(len(text.split()), 1)
    starts = _STARTS.findall(text)
    return {
        "log words": math.log(n),
        "texting per 100 words": 100.0 * sum(len(p.findall(text)) for p in _ABBREVIATIONS) / n,
        "symbols per 100 words": 100.0 * sum(len(p.findall(text)) for p in _SYMBOLS) / n,
        "lowercase starts": sum(c.islower() for c in starts) / len(starts) if starts else 0.0,
    }
