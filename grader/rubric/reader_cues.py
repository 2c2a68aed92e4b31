"""The second reader's cue words (`CUES`, `LEX`) and the register it reads them in.

Students write in many registers: formal prose, exam shorthand, phone-typed texting ("b4",
"w/o", "bc", "toks", "gen"), arrows and equals signs for relations ("train == gen", "x -> y",
"!="), missing apostrophes ("dont"). The cue words are looked up in `plain(text)`: the rule
layer's own rewrite (`register.register`, one table of abbreviations for both layers) with
relation signs put in words as well, so a family is found whatever the register. `style`
measures the register (from the same tables) for the review model.
"""

from __future__ import annotations

import math
import re

from grader.rubric.register import informal_marks, register


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


def plain(text: str) -> str:
    """`text` in the register the cue words are written in: `register.register` with relation
    signs in words too (the cue words have no signs). The one rewrite of informal registers:
    the rule layer reads sentences through the same function (without `signs`), and rewriting
    a rewrite changes nothing more, so the reader may be handed either."""
    return register(text, signs=True).text


_STARTS = re.compile(r"(?:^|[.!?]\s+|\n\s*)([^\W\d_])")


def style(text: str) -> dict[str, float]:
    """How informal the register is, length-normalised so that a long answer is not more
    "informal" for its length: the log word count, texting abbreviations and relation symbols
    per 100 words, and the share of sentences that start in lowercase. The review model's
    inputs (`reader.review_features`): the rules read these registers less surely."""
    n = max(len(text.split()), 1)
    starts = _STARTS.findall(text)
    texting, signs = informal_marks(text)
    return {
        "log words": math.log(n),
        "texting per 100 words": 100.0 * texting / n,
        "symbols per 100 words": 100.0 * signs / n,
        "lowercase starts": sum(c.islower() for c in starts) / len(starts) if starts else 0.0,
    }
