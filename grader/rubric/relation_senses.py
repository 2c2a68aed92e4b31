"""Relation words read in another sense, or turned round by what is said of them (issue 19,
round 5): `claims.relations` asks these before it counts a sameness or difference phrase.

- `not_a_relation`: "a real match" is the game; "trained on a different task" with no
  comparand sets the objective against the other model's, not training against use.
- `said_gone`: the sameness phrase is the subject of an absence ("the context it was trained
  with is half gone"), so it states a difference.
"""

from __future__ import annotations

import re

from grader.rubric.facts import Hit
from grader.rubric.sentence import ParsedSentence

# "trained on a different task, it predicts the next word": an objective called different with
# no comparand ("from", "than") is set against the other model's objective, not against use
_OTHER_OBJECTIVE = re.compile(
    r"^\W+(?:\w+\W+)?(?:tasks?|objectives?|goals?|jobs?|games?|exercises?|problems?)\b"
    r"(?!\W+(?:\w+\W+)?(?:from|than|to)\b)",
    re.IGNORECASE,
)
# "match" as the game: after an article or a determiner and at most one adjective, and not
# "a match between / with / for" (a correspondence)
_GAME_BEFORE = re.compile(r"\b(?:a|an|the|this|that|each|every|their|her|his)\W+(?:\w+\W+)?$", re.I)
_IN_THE_GAME = re.compile(
    r"\b(?:in|into|during|at|before|after)\W+(?:the|a|an|this|that|each|every|their|our|"
    r"her|his)\W+(?:\w+\W+)?$",
    re.IGNORECASE,
)
_MATCH_OF = re.compile(r"^\W+(?:between|with|for|to|of)\b", re.IGNORECASE)
# the sameness phrase, a verb "to be" and at most one word, then the absence
_IS_BETWEEN = re.compile(r"^\s+(?:is|are|was|were|'s)\s+(?:\w+\s+)?$", re.IGNORECASE)


# "a gap that has nothing after it", "the gap with words on both sides": the blank of the
# masked objective, described by what surrounds it
_BLANK_AFTER = re.compile(
    r"^\W+(?:that|which|with|where)\b[^.;:]{0,30}?\b(?:after|before|around|left|right|"
    r"sides?|words?|tokens?)\b",
    re.IGNORECASE,
)
# a difference noun measured as nothing: "a zero gap", "the gap was exactly 0", "a gap of 0.00"
_ZERO_BEFORE = re.compile(r"\b(?:zero|0(?:\.0+)?|nil)\W+(?:\w+\W+)?$", re.IGNORECASE)
_ZERO_AFTER = re.compile(
    r"^\W+(?:\w+\W+){0,5}?(?:is|was|of|=|equals?|came out at)\W+(?!not\b)(?:\w+\W+)?"
    r"(?:zero|0(?:\.0+)?|nil)"
    r"(?![\w.]*[1-9])",
    re.IGNORECASE,
)


# round 9: a difference noun given a measured value ("my consistency gap was 0.03 for the causal
# model and 1.41 for the MLM", "a gap of 1.2"): a metric read off an experiment, which names
# no relation between a model's training and its use (the student argues it in words)
_VALUE_AFTER = re.compile(
    r"^\W+(?:\w+\W+){0,5}?(?:is|was|of|=|equals?|came out at|at)\W+(?:\w+\W+)?\d", re.I
)
_VALUE_BEFORE = re.compile(r"(?<![\w.])\d+(?:\.\d+)?\W+(?:\w+\W+)?$")


_BETWEEN_TRAINING = re.compile(r"\b(?:between|train\w*|test\w*)\b", re.I)


def measured(norm: str, r: Hit) -> bool:
    """The difference noun `r` ("gap", "difference") is given a number: a measurement, unless
    the sentence says what it lies between ("a gap of 0.3 between training and generation")."""
    if r.key != "diff_relation" or not r.text.lower().startswith(("gap", "difference", "discrep")):
        return False
    if _BETWEEN_TRAINING.search(norm):
        return False
    return bool(_VALUE_AFTER.match(norm[r.end :]) or _VALUE_BEFORE.search(norm[: r.start]))


# round 9 (C4): "gap" as the blank by where it is or what is done to it: "the words in front of
# the gap", "behind the gap", "either side of the gap", "fill in the gap"; not "the gap between
# training and use" (a difference, whatever comes before it). ("gap-filling" is left to the
# relation reading: measured, it takes away credit a grader gives.)
_GAP_PLACE_BEFORE = re.compile(
    r"\b(?:before|after|behind|beyond|around|beside|next to|across|into|inside|in|in front of|"
    r"to the (?:left|right) of|(?:sides?|end|edge|left|right|middle) of|"
    r"fill(?:s|ed|ing)?(?:\s+in)?|plug(?:s|ged|ging)?|guess(?:es|ed|ing)?)\s+"
    r"(?:the\s+|a\s+|an\s+|each\s+|every\s+|that\s+|this\s+|its\s+)?$",
    re.IGNORECASE,
)
_GAP_BETWEEN = re.compile(r"^\s+(?:between|in (?:what|how)|from)\b", re.IGNORECASE)


def blank_gap(norm: str, r: Hit) -> bool:
    """The word "gap" at `r` is the masked objective's blank, by a place word or a filling
    verb right before it, and no "between" after it."""
    if _GAP_BETWEEN.match(norm[r.end :]):
        return False
    return bool(_GAP_PLACE_BEFORE.search(norm[: r.start]))


# round 9 (C4): a difference between the two models, not between training and use: its
# comparand is the other model ("different from the other", "differs from BERT"), it is a
# property of theirs ("this difference in difficulty"), or it is predicated of a model with no
# comparand at all ("GPT is different: ...")
_MODEL_WORD = (
    r"(?:the other(?: one| model| family)?|each other|one another|bert|gpt(?:-?\d)?|"
    r"(?:the )?(?:masked|causal|encoder|decoder)(?: lms?| models?| ones?| language models?)?|"
    r"encoders?|decoders?|mlms?|clms?)"
)
_COMPARAND_MODEL = re.compile(rf"^\s+(?:from|than|to)\s+{_MODEL_WORD}\b", re.IGNORECASE)
_PROPERTY = re.compile(
    r"^\s+(?:in|of)\s+(?:the\s+|their\s+|its\s+)?(?:difficulty|size|loss(?:es)?|architecture|"
    r"objectives?|speed|quality|performance|accuracy|parameters?|layers?|capacity|perplexity|"
    r"hardness|scores?|length|numbers?|values?)\b",
    re.IGNORECASE,
)
_MODEL_IS = re.compile(
    rf"\b(?:{_MODEL_WORD}|it|they)\s+(?:is|are|was|were|'s|looks?|seems?)\s+"
    r"(?:(?:very|quite|completely|totally|fundamentally|really|so)\s+)?$",
    re.IGNORECASE,
)
_NO_COMPARAND = re.compile(r"^\s*(?:[:;.!]|,\s+(?:because|since|as)\b|$)", re.IGNORECASE)


def models_compared(norm: str, r: Hit) -> bool:
    """The difference word `r` compares the two models, not training with use."""
    after = norm[r.end :]
    if _COMPARAND_MODEL.match(after) or _PROPERTY.match(after):
        return True
    return bool(_MODEL_IS.search(norm[: r.start]) and _NO_COMPARAND.match(after))


def measured_zero(norm: str, r: Hit) -> bool:
    """The difference word `r` is measured as nothing ("GPT's zero gap", "the gap was exactly
    0"): no difference is stated (the sameness, when meant, is said in other words)."""
    if r.key != "diff_relation":
        return False
    return bool(_ZERO_BEFORE.search(norm[: r.start]) or _ZERO_AFTER.match(norm[r.end :]))


def not_a_relation(norm: str, r: Hit) -> bool:
    """The relation hit `r` in `norm` is no relation between training and use: a game
    ("sent into a real match"), a different objective with no comparand, or a difference
    measured as zero."""
    if measured_zero(norm, r) or measured(norm, r):
        return True
    word = r.text.lower()
    if word in ("gap", "gaps") and _BLANK_AFTER.match(norm[r.end :]):
        return True  # "a gap that has nothing after it": the blank, placed in its context
    if word in ("gap", "gaps", "blank") and blank_gap(norm, r):
        return True  # "the words behind the gap", "fill the gap": the blank, a place

    if word.startswith("differ") and _OTHER_OBJECTIVE.match(norm[r.end :]):
        return True
    if word.startswith("differ") and models_compared(norm, r):
        return True  # "GPT is different:", "trained differently from the other"
    if word in ("match", "matches"):
        if _IN_THE_GAME.search(norm[: r.start]):
            return True  # "in the match with no one shouting": a place one is in, an event
        return bool(_GAME_BEFORE.search(norm[: r.start])) and not _MATCH_OF.match(norm[r.end :])
    return False


def said_gone(ss: ParsedSentence, r: Hit, absent: list[Hit]) -> bool:
    """An absence is said of the sameness phrase `r` in its clause ("the context it was
    trained with is gone", "... are now missing")."""
    norm = ss.sent.norm
    return any(
        a.start >= r.end and ss.same_clause(a, r) and _IS_BETWEEN.match(norm[r.end : a.start])
        for a in absent
    )


# a relation written as a sign between a training term and a use term ("CLM: train context =
# decode context", "BERT: practice ≠ match", "train ctx ⊋ decode ctx"); "==" and "≈" are
# lexicon phrases already
_SIGN = re.compile(
    r"(?<=\s)(?P<sign>=|≠|!=|=/=|⊋|⊊|⊃|⊂|(?i:equals|is equal to|(?:is|are) identical to))(?=\s)"
)
_SAME_SIGNS = frozenset({"=", "equals", "is equal to", "is identical to", "are identical to"})
# the occasion of use in an analogy's words ("practice = match", "training = the real exam")
_USE_FIGURE = re.compile(
    r"^\s*(?:the\s+)?(?:real\s+|actual\s+)?(?:match|game|race|exam|test|performance|"
    r"show|trip|use|usage|deployment)\b",
    re.IGNORECASE,
)
_NEAR = 30  # characters between a sign and the term on either side of it


def sign_relations(ss: ParsedSentence, lexicon_read: bool = True) -> list[tuple[str, int, str]]:
    """(relation, offset, sign) for each relation sign with a training term just before it
    and a use term just after it (or the other way round): "same" for "=", "diff" for the
    signs of inequality and strict inclusion (training gives more than use, or less).
    `lexicon_read`: a sign that is also a lexicon phrase was read as one already."""
    norm = ss.sent.norm
    train = ss.hits.get("training", [])
    use = ss.hits.get("generation", []) + ss.hits.get("generation_time", [])
    words = ss.hits.get("same_relation", []) + ss.hits.get("diff_relation", [])
    out = []
    for m in _SIGN.finditer(norm):
        a, b = m.start(), m.end()
        if lexicon_read and any(h.start <= a < h.end for h in words):
            continue  # a lexicon phrase ("≠" where the rubric lists it) is read as a phrase

        used_after = _after(use, b) or bool(_USE_FIGURE.match(norm[b:]))
        if (_before(train, a) and used_after) or (_before(use, a) and _after(train, b)):
            rel = "same" if m.group("sign").lower() in _SAME_SIGNS else "diff"
            if _denied_equation(norm, train + use, a):
                rel = "diff" if rel == "same" else "same"  # "BERT: not train = generation"
            out.append((rel, a, m.group("sign")))
    return out


# a denial right before the equation's left term: "not train = gen", "never training = use"
_NOT_LEFT = re.compile(r"(?:^|\W)(?:not|no|never|isn't|is not|aren't)\s+(?:the\s+)?$", re.I)


def _denied_equation(norm: str, terms: list[Hit], at: int) -> bool:
    """The equation whose sign is at `at` is denied as a whole: its left term (the training
    or use term just before the sign) is preceded by "not" / "never" ("masked LM: not train
    = generation"), so it states the opposite relation."""
    left = [h for h in terms if h.end <= at and at - h.end <= _NEAR]
    if not left:
        return False
    h = max(left, key=lambda x: x.end)
    return bool(_NOT_LEFT.search(norm[: h.start]))


def is_sign(text: str) -> bool:
    """`text` is a relation sign `sign_relations` read between a training and a use term."""
    t = text.strip()
    m = _SIGN.search(f" {t} ")
    return m is not None and m.group("sign") == t


def _before(hs: list[Hit], at: int) -> bool:
    return any(h.end <= at and at - h.end <= _NEAR for h in hs)


def _after(hs: list[Hit], at: int) -> bool:
    return any(h.start >= at and h.start - at <= _NEAR for h in hs)


# training and the use named as the two things compared: "train vs use", "how they're trained
# and how they're used", "training / deployment"
USE_PAIRED = re.compile(
    r"\btrain(?:ing|ed|s)?\s*(?:vs\.?|versus|/|&|\bn\b|\band\b|\bor\b)\s*(?:the\s+)?"
    r"(?:use|usage|using|deployment|inference|test(?:ing)?)\b|"
    r"\b(?:how|the way)\s+(?:\S+\s+){0,2}?(?:trained|train)\b[^.;:]{0,30}?\b"
    r"(?:and|vs\.?|versus|from|to)\s+(?:how|the way)\s+(?:\S+\s+){0,2}?(?:used|use)\b|"
    # "training differs from use", "its training is different from its use" (round 9), "for
    # BERT, training is different from using it" (round 11)
    r"\btrain(?:ing|ed|s)?\s+(?:\w+\s+)?(?:differs?|(?:is|are|was|were)\s+different)\s+"
    r"(?:from|to|than)\s+(?:its\s+|their\s+|the\s+)?(?:use|usage|deployment|using)\b|"
    # round 10: the use as the object of the comparison, in a clause of its own ("trained in
    # a different setting from the one you use it in", "its training is closer to how it's
    # used")
    # round 12: or as its complement ("the setting it trains in isn't the one it's used in")
    r"\btrain(?:ing|ed|s)?\b[^.;:]{0,50}?(?:\b(?:from|as|than|to|is|isn't|are|aren't|was|"
    r"wasn't)|'s|\bis\s+not)\s+(?:the\s+one|the\s+way|how)"
    r"\s+(?:\S+\s+){0,3}?(?:use[sd]?|using)\b",
    re.IGNORECASE,
)


def use_paired(norm: str) -> bool:
    """The sentence names training and the use side by side ("train vs use differ for BERT",
    "no difference between how they are trained and how they are used"): the use is the
    condition a relation there compares training with."""
    return bool(USE_PAIRED.search(norm))


_PLURAL = re.compile(r"\b(?:they|they're|them|their|both)\b", re.IGNORECASE)


def plural_pair(norm: str, r: Hit) -> bool:
    """The relation `r` is set between training and use said of "they" ("there is no real
    difference between how they're trained and how they're used"): the pair starts at most a
    few words after the relation word (or contains it) and speaks of the models together."""
    for m in USE_PAIRED.finditer(norm):
        near = m.start() - 40 <= r.start <= m.end()
        if near and _PLURAL.search(norm[min(r.start, m.start()) : m.end()]):
            return True
    return False


def inherited_wrong_side(ss: ParsedSentence, subj: str | None, right: str) -> bool:
    """The relation's subject `subj` is only inherited (this sentence names no model as a
    subject), is the side the relation would be false of (`right` is the side it is true
    of), and nothing here points back at it as a subject: no singular pronoun subject ("The
    way it is trained is the same as the way it is used" points back), only an expletive
    ("it's about consistency"), an object ("consistency decides it"), a plural ("how they are
    trained vs how they are used") or a generic "the model"; or the sentence names that very
    model as its comparison object ("Its training matches generation, unlike the masked
    LM's"). Such a sentence states the principle in general, and charges no model with it."""
    if subj is None or subj != ss.inherited or ss.own_subjects or subj == right:
        return False
    if any(code == subj and k for _, code, k in ss.subj):
        return True  # the inherited model is this sentence's comparison object
    return _SINGULAR_SUBJECT_REF.search(_EXPLETIVE_ABOUT.sub(" ", ss.sent.norm)) is None


_EXPLETIVE_ABOUT = re.compile(
    r"\bit(?:'s|\s+is|\s+was)\s+(?:\w+\s+)?(?:about|that|to|worth|why|because|what|how)\b", re.I
)
# a singular pronoun in subject position ("it is trained", "it sees", "its training")
_SINGULAR_SUBJECT_REF = re.compile(
    r"\b(?:its|itself|this model|that model|the former|the latter)\b|\bit(?:'s|\s+(?:is|was|"
    r"has|had|does|did|can|could|cannot|can't|will|would|trains?|trained|learn\w*|sees?|saw|"
    r"gets?|got|uses?|used|only|never|always|just|also|then|still|predicts?|reads?)\b)",
    re.I,
)
