"""Spoken explanations transcribed by speech-to-text, read as the student said them.

Office-hours recordings come back as "um so bird the mast language model it's it's trained
by hiding words ... gee pee tee only sees the words before". The scorer's lexicon is written
for the written names, so one layer undoes what the transcription did to the course's words
before a sentence is parsed (`unspoken`):

- a spelled-out acronym of the course ("gee pee tee", "g p t", "em el em", "el el em") becomes
  the acronym; only letter runs that spell one of the course's acronyms are joined;
- the sound-alikes a recogniser writes for the model names ("bird" or "burt" for BERT, "mast"
  or "massed" for masked, "casual" for causal, "in coder" / "day coder" for encoder /
  decoder, "by directional" for bidirectional, "auto regressive") become the names, but
  only in an answer about language models (`about_language_models`) and only where the
  sound-alike stands as a name (not "a bird", "the ship's mast");
- filler sounds ("um", "uh", "erm") are dropped, with the comma they bring;
- in a spoken answer (`spoken_answer`) a run-on of 40 words or more is cut into sentences
  before the words a speaker opens a sentence with (`split_run_ons`), and "and" before a
  new subject gets a comma;
- in a spoken answer, a restart that repeats a word ("the the masked LM", "it's it's
  trained") keeps one copy, and one that gives up a pronoun or a modal for another ("it they
  just predict", "can does it") keeps the second;
- a spoken repair ("gpt sees everything no wait it only sees the left") gets the comma a
  writer would type before the repair marker, so `retraction.withdrawn_spans` withdraws the
  clause the student corrected and the correction stands as the claim.

An honest written answer has none of these (a written answer spells its acronyms, names BERT
and writes no "um"), so it comes back unchanged. Pure functions, one regex pass per rule.
"""

from __future__ import annotations

import re

from grader.rubric.text import Sentence

# Letter names a recogniser writes for a spelled-out acronym, and the acronyms of the course
# a run of them may spell (a run that spells anything else is left alone).
_LETTER: dict[str, str] = {
    "gee": "g", "jee": "g", "g": "g", "pee": "p", "p": "p", "tee": "t", "t": "t",
    "em": "m", "m": "m", "el": "l", "ell": "l", "l": "l", "see": "c", "cee": "c", "c": "c",
    "bee": "b", "b": "b", "ee": "e", "e": "e", "ar": "r", "r": "r",
    "en": "n", "n": "n", "cue": "q", "q": "q", "ay": "a", "a": "a",
}  # fmt: skip
_ACRONYMS: dict[str, str] = {
    "gpt": "GPT", "bert": "BERT", "lm": "LM", "lms": "LMs", "mlm": "MLM", "clm": "CLM",
    "llm": "LLM", "llms": "LLMs", "nlp": "NLP", "ner": "NER", "qa": "QA", "rnn": "RNN",
}  # fmt: skip
_L = r"(?:gee|jee|pee|tee|em|ell?|see|cee|bee|ee|ar|en|cue|ay|[a-z])"
# a run of letter names, each a whole word, joined by spaces, dots or hyphens
_SPELLED = re.compile(rf"(?<![\w'-]){_L}(?:(?:\.?[ -]|\.){_L})+\.?(?![\w-])(?!'(?!s\b))", re.I)
_LETTER_PART = re.compile(r"[a-z]+", re.I)

# The answer is about language models when it names enough of their vocabulary.
_LM_WORDS = re.compile(
    r"\b(?:tokens?|mask(?:ed|ing|s)?|mast|language models?|lms?|gpt|predict\w*|"
    r"generat\w*|attention|attends?|transformers?|bidirectional|causal|autoregressive|"
    r"encoders?|decoders?|coders?|next word|training|trained|context|blanks?|left to right|"
    r"(?:earlier|previous|later|future|following|hidden) (?:words?|tokens?)|classification|"
    r"both sides|before and after|left and right)\b",
    re.I,
)
_LM_MIN_WORDS = 2

# Sound-alikes of the model names (closed table). `bird`/`burt` must stand as a name: not after
# an article, a determiner or a possessive, which make it the animal or a person.
_NAME_ALIKE = re.compile(r"(?<![\w'-])(?:bird|burt)(?P<tail>'s|s)?(?![\w'-])", re.I)
_ARTICLE_BEFORE = re.compile(
    r"(?:\b(?:a|an|the|this|every|each|some|my|your|his|her|our|their|little|blue|"
    r"black|early)|'s)\s+$",
    re.I,
)
# "the bird model", "the bird one" still name the model
_NAME_AFTER = re.compile(
    r"^\s+(?:model|models|one|ones|type|style|like|family|encoders?|objective|thing|base)\b",
    re.I,
)
# "mast"/"massed" misheard for "masked" before what it qualifies; "mask" (the "-ed" lost)
# only before a name of the model, since a "mask token" is a token
_MASKED_ALIKE = re.compile(
    r"(?<![\w'-])(?:(?:mast|massed|masted)(?=\s+(?:language|lm|lms|model|models|one|ones|"
    r"objective|token|tokens|word|words|thing|position|positions|training|prediction|"
    r"modell?ing|approach|version|task|type|kind|bird|bert)\b)|"
    r"mask(?=\s+(?:language models?|lms?|models?|one|ones|objective|version|approach)\b))",
    re.I,
)
# "casual" for "causal" before what the model is called in speech ("the casual one");
# `register` already reads it before "model", "LM", "mask", "attention"
_CASUAL_ALIKE = re.compile(
    r"(?<![\w'-])casual(?=\s+(?:one|ones|version|approach|type|kind|side|family|variant|"
    r"gpt|decoder|decoders|training|objective)\b)",
    re.I,
)
# a compound the recogniser writes in two words
_AUTO_REGRESSIVE = re.compile(r"(?<![\w'-])auto[ -]regressive(ly)?(?![\w'-])", re.I)
# a "mast" standing alone after "the" in an answer about language models ("bird is the mast
# one" is covered above; "it's mast" is "masked")
_MAST_PREDICATE = re.compile(r"(?<![\w'-])(?P<v>is|it's|are|was) mast(?![\w'-])", re.I)
_CODER = re.compile(r"(?<![\w'-])(?:in|en|day|dee) coders?(?![\w'-])", re.I)
_BY_DIRECTIONAL = re.compile(r"(?<![\w'-])(?:by|buy|bye|bi) directional(ly)?(?![\w'-])", re.I)

# Filler sounds: never words of a claim.
# A filler before a repair ("uh, no wait") is left to `retraction`, which reads it as part of
# the marker.
_FILLER = re.compile(
    r"(?<![\w'-])(?:u+m+|u+h+m*|e+r+m+)(?![\w'-])(?!\W*(?:no|sorry|wait|nope)\b)[,.]?\s*", re.I
)
# A restart: the same word twice in a row (not "that that" or "had had", which English uses).
_REPEAT = re.compile(r"(?<![\w'-])(?P<w>[a-z]+(?:'[a-z]+)?)\s+(?P=w)(?![\w'-])", re.I)
_KEEP_DOUBLE = frozenset("that had is do it".split())
# "you you're", "it it's": a restart on the first sound of the next word
_STUTTER = re.compile(r"(?<![\w'-])(?P<w>you|it|we|they|i|he|she)\s+(?=(?P=w)'[a-z]+\b)", re.I)
# A restart on another word of the same kind: a subject pronoun, or a copula or modal, given up
# for the next one ("so it they just predict", "gpt can does it only look left"): the speaker
# keeps the second
_RESTART_PAIR = re.compile(
    r"(?<![\w'-])(?:(?:it|they|we|he|she) (?=(?:it|they|we|he|she)\b)|"
    r"(?:is|are|was|were|can|could|will|would|should|must) (?=(?:is|are|was|were|has|had|"
    r"does|did|can|could|will|would|should|must|isn't|doesn't|can't|won't)\b))",
    re.I,
)
# Spoken repairs with no comma before them: the comma a writer would type
_SPOKEN_REPAIR = re.compile(
    r"(?<=[a-z0-9])\s+(?=(?:no wait|wait no|no sorry|sorry no|sorry i mean|no i mean|"
    r"oops no|scratch that|i take that back)\b)",
    re.I,
)
# In a spoken answer "and" before a new subject starts a new clause: the comma a writer types
# there ends a negation's scope ("it can't peek ahead and that's the same restriction").
_AND_CLAUSE = re.compile(
    r"(?<=[a-z0-9])[ \t]+(?=and (?:that's|that is|there's|there is|there are|it's|it is|it|"
    r"they|they're|this is|so)\b)",
    re.I,
)
_MEAN_REPAIR = re.compile(r"(?<![\w'-])(?P<m>sorry|no|wait),? i mean\b", re.I)


# words one of the rules below rewrites: a rule runs only when one occurs (`unspoken`)
_FILLER_KEYS = ("um", "uh", "erm")
_ALIKE_KEYS = ("bird", "burt", "mast", "massed", "mask", "casual", "auto", "coder", "direction")
_REPAIR_KEYS = ("wait", "sorry", "oops", "scratch", "take that", "i mean")


def about_language_models(text: str) -> bool:
    """The answer names enough of the vocabulary of language models (tokens, masking,
    prediction, generation, attention...) that a sound-alike of a model's name is the name."""
    return len(_LM_WORDS.findall(text)) >= _LM_MIN_WORDS


def _acronym(m: re.Match[str]) -> str:
    """The run of letter names `m` with every stretch that spells one of the course's acronyms
    joined ("a gee pee tee" -> "a GPT"); a stretch of bare single letters needs three of them
    ("g p t") or capitals ("L M"), since "a b" or "i e" are words."""
    raw = m.group()
    parts = list(_LETTER_PART.finditer(raw))
    out: list[str] = []
    pos = 0
    i = 0
    while i < len(parts):
        for n in range(min(4, len(parts) - i), 1, -1):
            run = parts[i : i + n]
            names = [p.group().lower() for p in run]
            bare = all(len(x) == 1 for x in names)
            if bare and n < 3 and not all(p.group().isupper() for p in run):
                continue
            word = "".join(_LETTER.get(x, "?") for x in names)
            if word in _ACRONYMS:
                out.append(raw[pos : run[0].start()])
                out.append(_ACRONYMS[word])
                pos = run[-1].end()
                i += n
                break
        else:
            i += 1
    out.append(raw[pos:])
    return "".join(out)


def _name(text: str, m: re.Match[str]) -> str:
    before = text[: m.start()]
    if _ARTICLE_BEFORE.search(before[-24:]) and not _NAME_AFTER.match(text[m.end() :]):
        return m.group()
    tail = m.group("tail") or ""
    return "BERT" + tail


def _names(text: str) -> str:
    out: list[str] = []
    pos = 0
    for m in _NAME_ALIKE.finditer(text):
        out.append(text[pos : m.start()])
        out.append(_name(text, m))
        pos = m.end()
    out.append(text[pos:])
    return "".join(out)


def _coder(m: re.Match[str]) -> str:
    w = m.group().lower()
    plural = "s" if w.endswith("s") else ""
    return ("decoder" if w.startswith(("day", "dee")) else "encoder") + plural


def _repeat(m: re.Match[str]) -> str:
    w = m.group("w")
    return m.group() if w.lower() in _KEEP_DOUBLE else w


def unspoken(text: str, about_lms: bool = True, spoken: bool = False) -> str:
    """`text` (one sentence, or a whole answer) with speech-to-text's marks undone (see the
    module doc). `about_lms`: the answer is about language models, so sound-alikes of the
    model names may be read as the names; `spoken`: the answer is transcribed speech
    (`spoken_answer`), so a word said twice is a restart and "and" before a new subject opens
    a new clause. Text without such marks comes back unchanged. Each rule runs only when a
    word it rewrites occurs (a substring test), which keeps a written answer's cost low."""
    if not text:
        return text
    low = text.lower()
    out = _SPELLED.sub(_acronym, text)
    if any(k in low for k in _FILLER_KEYS):
        out = _FILLER.sub("", out)
    if spoken:
        out = _STUTTER.sub("", out)
        out = _REPEAT.sub(_repeat, out)
        out = _RESTART_PAIR.sub("", out)
    if about_lms and any(k in low for k in _ALIKE_KEYS):
        out = _names(out)
        out = _MASKED_ALIKE.sub("masked", out)
        out = _CASUAL_ALIKE.sub("causal", out)
        out = _AUTO_REGRESSIVE.sub(lambda m: "autoregressive" + (m.group(1) or ""), out)
        out = _MAST_PREDICATE.sub(lambda m: m.group("v") + " masked", out)
        out = _CODER.sub(_coder, out)
        out = _BY_DIRECTIONAL.sub(lambda m: "bidirectional" + (m.group(1) or ""), out)
    if any(k in low for k in _REPAIR_KEYS):
        out = _SPOKEN_REPAIR.sub(", ", out)
        out = _MEAN_REPAIR.sub(lambda m: m.group("m") + ", I mean", out)
    if spoken:
        out = _AND_CLAUSE.sub(", ", out)
    return out


# -- sentence boundaries in run-ons ------------------------------------------------------------
# A transcript often has no full stops at all: the whole explanation is one "sentence", so the
# model a later clause is about is read as the subject the first clause named. A speaker marks
# a new sentence with a discourse word instead ("... both sides so when you generate ...",
# "... okay and then gpt ..."): in a spoken answer (`spoken_answer`) a long sentence is cut
# before those words, where a writer would have typed the full stop.
_RUN_ON_WORDS = 40  # a sentence shorter than this is left whole
_MIN_PIECE = 6  # nor is a piece of fewer words cut off
_NEW_SENTENCE = re.compile(
    r"(?<=[a-z0-9'])[ \t]+(?=(?:(?:and|but|um|uh|okay|ok|alright|yeah) )?"
    r"(?:so(?! (?:far|that|much|many|long|yeah\b)\b)|okay|ok|alright|and then|anyway|"
    r"whereas|meanwhile)\b)",
    re.I,
)
# ... and before a model's name (as said, before `unspoken` reads it) that opens a new clause
# with its verb ("... never learned without them gee pee tee predicts the next word"), after a
# content word (`register` gives the same clause a comma when the answer is not spoken)
_SPOKEN_NAME = (
    r"(?:bert|bird|burt|gpt|gee pee tee|g p t|jee pee tee|mlm|clm|"
    r"(?:masked|mast|causal) (?:lm|model|language model))"
)
_SUBJECT = re.compile(
    rf"(?<=[a-z0-9'])[ \t]+(?=(?:(?:and|but|um|uh|okay|so) )?(?:the )?{_SPOKEN_NAME}"
    rf"(?:[ \t]+{_SPOKEN_NAME})?(?:[ \t]+(?:kind of|sort of|basically|really|actually|just))?"
    r"[ \t]+(?:sees|looks|reads|uses|only|predicts|guesses|can|can't|cannot|doesn't|is|"
    r"isn't|was|has|had|needs|attends|fills|gets|got|learns|learned|knows|never|always|"
    r"trains|trained|practiced|practised|practices|relies|depended|depends|generates|works)\b)",
    re.I,
)
_NOT_BEFORE_CUT = frozenset(
    """a an the like than as and or of for to with vs versus unlike both from by about into
    is are was were be use uses used using make makes call called say says said but so
    because when while whereas although though since if then also even not no why how that
    which who where what this these those between over under on in at""".split()
)
_WORD_RX = re.compile(r"[^\W\d_]+(?:'[^\W_]+)?")
_SPEECH = re.compile(r"\b(?:you know|so yeah|okay so|ok so|alright so|i mean)\b", re.I)


def _content_before(text: str, at: int) -> bool:
    words = _WORD_RX.findall(text, max(0, at - 30), at)
    return bool(words) and words[-1].lower() not in _NOT_BEFORE_CUT


def spoken_answer(text: str) -> bool:
    """The answer reads as transcribed speech: it has filler sounds ("um", "uh"), a spelled-out
    acronym or a sound-alike of a model's name (`unspoken` reads one), or at least two of the
    discourse phrases of speech ("you know", "so yeah", "okay so", "I mean")."""
    if _FILLER.search(text) or len(_SPEECH.findall(text)) >= 2:
        return True
    return _names(text) != text or _SPELLED.sub(_acronym, text) != text


def split_run_ons(sentences: list[Sentence]) -> list[Sentence]:
    """`sentences` (of a spoken answer) with each sentence of at least `_RUN_ON_WORDS` words cut
    before the discourse words that open a new spoken sentence (`_NEW_SENTENCE`), each piece at
    least `_MIN_PIECE` words; offsets still index the answer, sentences renumbered in order."""
    out: list[Sentence] = []
    for s in sentences:
        cuts = []
        if len(_WORD_RX.findall(s.norm)) >= _RUN_ON_WORDS:
            last = 0
            found = sorted(
                [m.end() for m in _NEW_SENTENCE.finditer(s.norm)]
                + [m.end() for m in _SUBJECT.finditer(s.norm) if _content_before(s.norm, m.start())]
            )
            for at in found:
                if len(_WORD_RX.findall(s.norm, last, at)) >= _MIN_PIECE:
                    cuts.append(at)
                    last = at
            if cuts and len(_WORD_RX.findall(s.norm, cuts[-1])) < _MIN_PIECE:
                cuts.pop()
        bounds = [0, *cuts, len(s.text)]
        for a, b in zip(bounds, bounds[1:], strict=False):
            piece = s.norm[a:b]
            lead = len(piece) - len(piece.lstrip())
            trail = len(piece.rstrip())
            if trail > lead:
                out.append(
                    Sentence(
                        len(out),
                        s.start + a + lead,
                        s.start + a + trail,
                        s.text[a + lead : a + trail],
                        s.norm[a + lead : a + trail],
                    )
                )
    return out
