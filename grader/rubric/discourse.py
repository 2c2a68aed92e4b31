"""Answer-level reading: names the student gives the models and the two conditions.

Some answers name the models or the conditions once and then argue with their own names: an
analogy mapped onto the models ("the crossword-solver is BERT"), a label introduced with a
gloss ("Objective B (causal)", "the exam (writing)"), a table or a list keyed by those labels.
`aliases` reads the whole answer first and returns, per lexicon key, extra patterns that stand
for that concept in *every* sentence of this answer, before or after the mapping ("analogies
mapped onto the models late"). `ParsedSentence` adds their hits to the lexicon's.

A mapping is kept only when it is unambiguous: a name mapped to two different concepts (two
students, one "BERT" and one "GPT") maps to neither, and a name that already means something
to the lexicon, or is a generic word ("the model", "the sentence"), is never an alias.
Deterministic and linear in the answer's length.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from grader.rubric.figures import STOP_WORDS, content_words, told_apart
from grader.rubric.model import Rubric
from grader.rubric.text import Sentence, piece_spans, split_sentences

# Concepts a name can stand for, and the one-word glosses the lexicon leaves to context.
_TARGETS = ("masked_model", "causal_model", "generation", "training")
_GLOSS_WORDS = {
    "masked": "masked_model",
    "bidirectional": "masked_model",
    "causal": "causal_model",
    "autoregressive": "causal_model",
    "unidirectional": "causal_model",
}
_MODEL_KEYS = ("masked_model", "causal_model")
_NAME = r"[A-Za-z][\w-]*"
# "Objective B (causal)", "the exam (writing)": the last one or two words before a gloss
_GLOSSED = re.compile(rf"\b(?P<np>{_NAME}(?: {_NAME})?) ?\((?P<gloss>[^()]{{1,40}})\)")
_DET = r"(?:the|a|an|my|our|this|that)"
_COPULA = r"(?:is|are|=|means|stands for|represents|plays|would be|corresponds to)"
# "the crossword-solver is BERT", "the book = BERT"
_NP_IS_MODEL = re.compile(rf"\b{_DET} (?P<np>{_NAME}(?: {_NAME})?) {_COPULA} (?P<target>\S+)", re.I)
# "BERT is the crossword-solver", "GPT is like a student who ...", "BERT = the book"
# the name ends the phrase: "a student who ...", not "a masked language model"
_NP_END = r"(?=\s*(?:[,.;:!?)]|$)|\s+(?:who|that|which|and|with|in|on|at|does|can|has)\b)"
_MODEL_IS_NP = re.compile(
    rf"(?<![\w-])(?P<target>(?:[\w-]+ ){{0,2}}[\w-]+) "
    rf"(?:{_COPULA}|is like|are like|acts like|works like)"
    rf"(?: like)? {_DET} (?P<np>{_NAME}(?: {_NAME})??){_NP_END}",
    re.I,
)
# "Think of BERT as a student who ...", "picture GPT as the pianist": an analogy's figure
# named by a verb of imagining
_MODEL_AS_NP = re.compile(
    rf"\b(?:think of|imagine|picture|view|regard|treat|see|consider)\s+(?P<target>[\w-]+)"
    rf" as {_DET} (?P<np>{_NAME}(?: {_NAME})??){_NP_END}",
    re.I,
)
_STOP = STOP_WORDS  # words that are no name (`_head_name`)
_ORDINAL = frozenset("first second third former latter last next previous".split())


def aliases(
    sentences: Iterable[Sentence], rubric: Rubric
) -> dict[str, tuple[re.Pattern[str], ...]]:
    """Per lexicon key, patterns for the student's own names of that concept in this answer.

    A name maps to a key when the answer glosses it ("B (causal)") or equates it with a model
    ("the book is BERT", "GPT is like a student who ..."). Names made of one or two letters
    ("A", "B") match case-sensitively, so an article "a" never becomes a model.
    """
    found: dict[str, set[str]] = {}
    figures: dict[str, dict[str, set[str]]] = {}  # figure -> model key -> its description
    also: dict[str, set[str]] = {}  # the figures a multi-word model name is mapped onto
    for s in sentences:
        text = s.norm
        for m in _GLOSSED.finditer(text):
            key = _concept(m.group("gloss"), rubric, whole=True)
            if key is None:
                continue
            named = _in_lexicon(m.group("np"), rubric, _MODEL_KEYS)  # "the masked LM (BERT)"
            np = None if named else _head_name(m.group("np"), rubric)
            # "attention (bidirectional)" describes; "Objective B (causal)" names: a model
            # gloss makes an alias only of a label ("A", "B", "M1")
            if key in ("masked_model", "causal_model") and np and len(np) > 2:
                continue
            if key and np:
                found.setdefault(np, set()).add(key)
        for rx in (_NP_IS_MODEL, _MODEL_IS_NP, _MODEL_AS_NP):
            for m in rx.finditer(text):
                key = _concept(m.group("target").split()[-1], rubric, whole=False, glosses=False)
                # "A causal LM is a student who ...": a figure mapped onto a model named in
                # more than one word tells figures apart but makes no alias of its own
                weak = key is None and _RELATIVE.match(text, m.end("np")) is not None
                key = _target_key(m.group("target"), rubric) if weak else key
                if key not in _MODEL_KEYS:
                    continue
                np = _head_name(m.group("np"), rubric, whole=True)
                if np and rx is _MODEL_IS_NP and _another_figure(m, np, s, sentences):
                    continue
                if np:
                    (also if weak else found).setdefault(np, set()).add(key)
                    if rx is not _NP_IS_MODEL:  # "GPT is a student who ...": its description
                        said = figures.setdefault(np, {}).setdefault(key, set())
                        said.update(content_words(text[m.end("np") :]))
    for np, key in _mapped_back(list(sentences), rubric):
        found.setdefault(np, set()).add(key)
    out: dict[str, list[re.Pattern[str]]] = {}
    for key, pat in _ordinal_pair(sentences, rubric):
        out.setdefault(key, []).append(pat)
    told = " ".join(s.norm for s in sentences) if figures else ""
    for key, pat in told_apart(figures, told):
        out.setdefault(key, []).append(pat)
    for np, keys in sorted(found.items()):
        if len(keys | also.get(np, set())) != 1:
            continue  # two students, one per model: the name decides nothing
        (key,) = keys
        body = r"[\s-]+".join(re.escape(w) for w in np.split())
        flags = 0 if len(np) <= 2 else re.IGNORECASE
        suffix = r"(?:'s)?(?:-style|-like)?(?![\w-])"
        if np in ("A", "I"):  # also English words: only as a name before punctuation
            suffix += r"(?=\s*[^\w\s]|\s*$)"
        # "the player whose practice matches the match": a definite name narrowed by a relative
        # clause picks out whichever figure fits the description, not the one mapped to a model
        narrowed = rf"(?!(?<=(?i:the) ){body}\s+(?i:who|whose|that)\b)"
        out.setdefault(key, []).append(re.compile(rf"(?<![\w-]){narrowed}{body}{suffix}", flags))
    return {k: tuple(v) for k, v in out.items()}


def _target_key(target: str, rubric: Rubric) -> str | None:
    """The model a mapping's target names: the longest tail of its words that is a model's
    name ("A causal LM" -> "causal LM", "so BERT" -> "BERT")."""
    words = target.split()
    for k in range(len(words)):
        key = _concept(" ".join(words[k:]), rubric, whole=False, glosses=False)
        if key is not None:
            return key
    return None


# "GPT is the pupil who practised ...": a definite figure narrowed by a relative clause
_THE = re.compile(r"the\s", re.I)
_RELATIVE = re.compile(r"\s+(?:who|whose|that)\b", re.I)


def _another_figure(
    m: re.Match[str], np: str, here: Sentence, sentences: Iterable[Sentence]
) -> bool:
    """The mapping picks one figure out of several of the same noun: "GPT is the pupil who
    practised 'what comes next'" after "Imagine you are a pupil who has only done gap-fills"
    (round 10, the teachers' voice): a pupil introduced in another sentence ("a pupil who")
    is another figure, so the noun stands for neither model."""
    text = here.norm
    if not (_THE.match(text, m.start("np") - 4) and _RELATIVE.match(text, m.end("np"))):
        return False
    intro = re.compile(rf"\b(?:a|an)\s+{re.escape(np)}\s+(?:who|whose|that)\b", re.I)
    return any(s.index != here.index and intro.search(s.norm) for s in sentences)


# "That's the masked LM." / "This is GPT." right after an analogy's sentence: the figure just
# described is that model
_MAPS_BACK = re.compile(
    r"^\W*(?:that|this)(?:'s|\s+is|\s+was|\s+would be|\s+describes|\s+represents)\s+"
    r"(?:exactly |basically |just |essentially )?(?:the |a |an |our |your )?"
    r"(?P<target>[\w -]{2,30}?)\W*$",
    re.I,
)


# the figure an analogy opens with: "A pianist who ...", "The chef in this story ..."
_FIGURE = re.compile(rf"^\W*{_DET} (?P<np>{_NAME}(?: {_NAME})??){_NP_END}", re.I)


def _mapped_back(sentences: list[Sentence], rubric: Rubric) -> list[tuple[str, str]]:
    """(figure, model key) for a sentence that opens with a figure, names no model, and is
    mapped to a model by the next one ("A pianist who only filled in missing bars ...
    That's the masked LM.")."""
    out: list[tuple[str, str]] = []
    for k in range(len(sentences) - 1):
        m = _MAPS_BACK.match(sentences[k + 1].norm)
        fig = _FIGURE.match(sentences[k].norm)
        if m is None or fig is None:
            continue
        if any(_mentions(sentences[k].norm, key, rubric) for key in _MODEL_KEYS):
            continue  # a sentence naming a model is about that model
        key = _concept(m.group("target"), rubric, whole=False, glosses=False)
        np = _head_name(fig.group("np"), rubric, whole=True)
        if key in _MODEL_KEYS and np:
            out.append((np, key))
    return out


_ORD = r"(?P<ord>first|second)(?: (?P<noun>[a-z]+))?"
_ORD_MAPS = (
    # "The first musician is BERT", "the second is GPT"
    re.compile(
        rf"\bthe {_ORD} (?:is|=|would be|stands for|represents|plays) (?P<target>[\w-]+)", re.I
    ),
    # "BERT is the first student", "and GPT the second"
    re.compile(rf"(?P<target>[\w-]+) (?:is|=|would be|plays) the {_ORD}\b", re.I),
    re.compile(rf"\band (?P<target>[\w-]+) the {_ORD}\b", re.I),
)


def _ordinal_pair(
    sentences: Iterable[Sentence], rubric: Rubric
) -> list[tuple[str, re.Pattern[str]]]:
    """An analogy's two figures mapped by position ("The first musician is BERT, the second is
    GPT"): "the first one" / "the second musician" then stand for those models in this answer.
    Only a complete pair of different models with a figure's noun counts (a bare "the first is
    BERT" names by position), and only the ordinal with "one", "of them" or the mapping's own
    noun ("the first token" is still a token)."""
    keys: dict[str, set[str]] = {}
    nouns: set[str] = set()
    for s in sentences:
        for rx in _ORD_MAPS:
            for m in rx.finditer(s.norm):
                key = _concept(m.group("target"), rubric, whole=False, glosses=False)
                if key in _MODEL_KEYS:
                    keys.setdefault(m.group("ord").lower(), set()).add(key)
                    noun = (m.group("noun") or "").lower()
                    if noun and noun not in _STOP:
                        nouns.add(noun)
    first, second = keys.get("first", set()), keys.get("second", set())
    # a figure of an analogy ("the first musician"), not a bare position ("the first is BERT")
    if len(first) != 1 or len(second) != 1 or first == second or not nouns:
        return []
    tail = "|".join(["one", r"of (?:them|the two)", *sorted(re.escape(n) for n in nouns)])
    return [
        (next(iter(k)), re.compile(rf"(?<![\w-])the {o}[\s-]+(?:{tail})(?![\w-])", re.I))
        for o, k in (("first", first), ("second", second))
    ]


def question_frame(question: Sentence, answer: Sentence, rubric: Rubric) -> tuple[str, ...]:
    """The condition a question sets for the answer after it: "What does it have when it
    writes? Only the words before." states what the model has *at generation*. Returns the
    lexicon keys ("generation_time", "training") the answer inherits; none when `question`
    is no question, `answer` is one too, or the answer names its own condition."""
    q, a = question.norm.rstrip(" \"')"), answer.norm.rstrip(" \"')")
    if not q.endswith("?") or a.endswith("?"):
        return ()
    own = ("generation", "generation_time", "training", "never_trained")
    if any(_mentions(a, k, rubric) for k in own):
        return ()
    frame = []
    if _mentions(q, "generation", rubric) or _mentions(q, "generation_time", rubric):
        frame.append("generation_time")
    if _mentions(q, "training", rubric) or _mentions(q, "never_trained", rubric):
        frame.append("training")
    return tuple(frame)


_GOES_ON = re.compile(
    # "Then again, ..." turns to another point (round 9): it goes on with no scenario
    r"^\W*(?:so|then(?!\s+again\b)|thus|hence|therefore|that means|this means)\b"
    r"|\b(?:would|'d)\b",
    re.I,
)


def carried_frame(prev_at_generation: bool, sent: Sentence, rubric: Rubric) -> tuple[str, ...]:
    """A scenario set at generation time goes on in the next sentence when that sentence
    continues it ("At generation time positions 4-5 don't exist yet. So BERT would be asked to
    predict without the context it always had in training."): it opens with a consequence
    word or supposes with "would", and names no generation condition of its own. What the
    model is said to lack there is the generation condition, not a claim about its training."""
    if not prev_at_generation or not _GOES_ON.search(sent.norm):
        return ()
    if _mentions(sent.norm, "generation", rubric) or _mentions(
        sent.norm, "generation_time", rubric
    ):
        return ()
    return ("generation_time",)


def _mentions(text: str, key: str, rubric: Rubric) -> bool:
    gate = rubric.lexicon_gate[key]
    if gate.pattern and not gate.search(text):
        return False
    return any(p.search(text) for p in rubric.lexicon.get(key, ()))


def _concept(text: str, rubric: Rubric, whole: bool, glosses: bool = True) -> str | None:
    """The one target concept `text` names (a gloss, or the model after "is"), else None.
    `glosses`: one-word glosses ("causal") count; after "is" only a model's name does ("the
    attention is masked" describes the attention)."""
    t = text.strip(" .,;:!?\"'`").lower()
    if not t:
        return None
    words = re.findall(r"[a-z]+", t) if glosses else []
    keys = {_GLOSS_WORDS[w] for w in words if w in _GLOSS_WORDS}
    for key in _TARGETS if glosses else _MODEL_KEYS:
        gate = rubric.lexicon_gate[key]
        if gate.pattern and not gate.search(t):
            continue
        for p in rubric.lexicon.get(key, ()):
            m = p.match(t) if not whole else p.search(t)
            if m and (not whole or m.group(0) == t or key in ("masked_model", "causal_model")):
                keys.add(key)
                break
    models = keys & {"masked_model", "causal_model"}
    if len(models) > 1:
        return None
    if models:
        return models.pop()
    return keys.pop() if len(keys) == 1 else None


def _head_name(np: str, rubric: Rubric, whole: bool = False) -> str | None:
    """The student's name in `np`: its last word (or the whole phrase after an article),
    unless it is a generic word or already a lexicon concept."""
    words = re.split(r"[\s-]+", np.strip())
    if not whole:
        words = words[-1:]

    def generic(w: str) -> bool:
        return w.lower() in _STOP and not (len(w) <= 2 and w.isupper())  # "A" is a name

    while words and generic(words[0]):
        words = words[1:]
    if not words or any(generic(w) for w in words):
        return None
    name = " ".join(words)
    if len(words) == 1 and name.lower() in _ORDINAL:
        return None  # "the first is BERT" names by position, which every sentence reuses
    if len(name) <= 2 and not name.isupper():
        return None
    return None if _in_lexicon(name, rubric) else name


def _in_lexicon(name: str, rubric: Rubric, keys: tuple[str, ...] | None = None) -> bool:
    gate: Mapping[str, re.Pattern[str]] = rubric.lexicon_gate
    for key, pats in rubric.lexicon.items():
        if keys is not None and key not in keys:
            continue
        if key in ("negation", "only") or (gate[key].pattern and not gate[key].search(name)):
            continue
        if any(p.search(name) for p in pats):
            return True
    return False


_TABLE_RULE = re.compile(r"\|?(?:\s*:?-{2,}:?\s*\|)+(?:\s*:?-{2,}:?\s*)?")


def table_statements(norm: str, rubric: Rubric) -> list[tuple[str, str]]:
    """A Markdown table written as one block, read as statements: each cell is said of its
    row label and its column header ("| BERT | left + right | left only |" under "| model |
    sees in training | sees when generating |" reads "BERT sees in training left + right" and
    "BERT sees when generating left only"; under "| | training | generation |" a cell that
    names no verb is what the model sees: "BERT in training sees left + right"). The model
    comes first, so it is the statement's subject, and each statement has only its own
    condition. Text before the header and after the last row stays a sentence of its own.
    Returns (text as written, text to read) pairs in order; [] for text that is no table (no
    `|---|` rule, fewer than two columns, no row that fits the header)."""
    rule = _TABLE_RULE.search(norm)
    if rule is None or norm.count("|") < 6:
        return []
    n = len(re.findall(r":?-{2,}:?", rule.group(0)))
    before = _cells(norm[: rule.start()])
    if n < 2 or len(before) < n:
        return []
    lead, header = before[:-n], before[-n:]
    body = _cells(norm[rule.end() :])
    rows: list[list[str]] = []
    i = 0
    while i + n <= len(body):
        rows.append(body[i : i + n])
        i += n
        while i < len(body) and not body[i]:
            i += 1  # the boundary between two rows written on one line
    if not rows:
        return []
    by_column = any(_in_lexicon(h, rubric, _MODEL_KEYS) for h in header[1:])
    out: list[tuple[str, str]] = [(t, t) for t in [" ".join(c for c in lead if c)] if t]
    for row in rows:
        written = "| " + " | ".join(row) + " |"
        for head, cell in zip(header[1:], row[1:], strict=True):
            if not cell:
                continue
            first, second = (head, row[0]) if by_column else (row[0], head)
            second, cell = _answered(second, cell)
            link = " in " if second and len(second.split()) == 1 else " "  # "BERT in training"
            verb = "" if _has_verb(f"{second} {cell}", rubric) else "sees "
            if _USE_HEAD.search(second):  # "| Typical use | chat |": GPT is used for chat
                link, verb = " ", "is used for "
            if not _SIDE_NOUN.search(cell):  # a cell "left only" under a context header
                cell = _BARE_SIDE.sub(r"\1 context", cell)
            out.append((written, f"{first}{link}{second} {verb}{cell}".strip() + "."))
    rest = " ".join(c for c in body[i:] if c)
    return out + ([(rest, rest)] if rest else [])


_USE_HEAD = re.compile(
    r"^\W*(?:typical |main |common |usual )?(?:uses?|used for|applications?|tasks?|use cases?)"
    r"\W*$",
    re.I,
)
_YES_NO = re.compile(r"^\W*(?:(yes|yep|yeah|true)|(no|nope|not|never|false))\b\W*", re.I)
_AUX_SUBJECT = re.compile(
    r"^\W*(?:can|could|does|do|did|is|are|was|were|has|have|will|would)\s+"
    r"(?:it|they|the model|the models|this model)?\s*",
    re.I,
)


def _answered(head: str, cell: str) -> tuple[str, str]:
    """A question header answered by its cell ("| Can it see later tokens? | no - only the
    earlier ones |") is a statement: the question becomes its claim ("see later tokens"),
    denied by a "no" ("not see later tokens"), and the cell keeps what follows the yes/no.
    Other headers and cells come back unchanged."""
    yn = _YES_NO.match(cell)
    if not head.rstrip().endswith("?") or yn is None:
        return head, cell
    claim = _AUX_SUBJECT.sub("", head.rstrip(" ?"), count=1)
    return ("not " if yn.group(2) else "") + claim + ":", cell[yn.end() :]


_SIDE_NOUN = re.compile(r"\b(?:context|side|sides|tokens?|words?|part|half)\b", re.I)
_BARE_SIDE = re.compile(r"\b(left|right)\b", re.I)


def _has_verb(text: str, rubric: Rubric) -> bool:
    keys = ("view_verb", "available_verb", "absent", "predict_masked", "predict_next")
    return _in_lexicon(text, rubric, keys) or bool(re.search(r"\b(?:is|are|has|have)\b", text))


def expand_tables(sentences: list[Sentence], rubric: Rubric) -> list[Sentence]:
    """`sentences` with each Markdown table replaced by one sentence per cell statement
    (`table_statements`; its text is the row as written, so evidence quotes the row) and the
    text around the table split into sentences again, all renumbered in order. Answers
    without a table come back unchanged."""
    if not any("|" in s.norm for s in sentences):
        return sentences
    out: list[Sentence] = []
    for s in _rejoin_rows(sentences):
        stated = table_statements(s.norm, rubric) if "|" in s.norm else []
        rows = _written_rows(s.text, [t for t, n in stated if t != n])
        parts: list[tuple[str, str]] = []
        for text, norm in stated:
            if text == norm:  # prose around the table
                parts.extend((p.text, p.norm) for p in split_sentences(text))
            else:  # a cell statement, quoted as the student wrote its row, read in bounded pieces
                parts.extend((rows.get(text, text), norm[i:j]) for i, j in piece_spans(norm))
        for text, norm in parts or [(s.text, s.norm[i:j]) for i, j in piece_spans(s.norm)]:
            out.append(Sentence(len(out), s.start, s.end, text, norm))
    return out


def _written_rows(text: str, read: list[str]) -> dict[str, str]:
    """Each row `table_statements` rebuilt from the read cells -> that row as the student
    wrote it (its line of `text`), so evidence quotes the student's characters ("left +
    right", not the register's "left and right"). Rows are matched in order, one per line
    below the table rule; {} when the lines do not line up (two rows on one line)."""
    distinct = list(dict.fromkeys(read))
    lines = [ln.strip() for ln in text.splitlines() if "|" in ln]
    rule = next((i for i, ln in enumerate(lines) if _TABLE_RULE.fullmatch(ln)), None)
    if rule is None:
        return {}
    body = lines[rule + 1 :]
    if len(body) != len(distinct):
        return {}
    return dict(zip(distinct, body, strict=True))


def _rejoin_rows(sentences: list[Sentence]) -> list[Sentence]:
    """The sentence splitter ends a sentence at a "?" or "." inside a table cell ("| Same as
    training? | no | yes |"): a sentence holding a table rule that stops inside a row is
    joined with the sentences after it that go on with cells."""
    out: list[Sentence] = []
    for s in sentences:
        prev = out[-1] if out else None
        if (
            prev is not None
            and _TABLE_RULE.search(prev.norm)
            and not prev.norm.rstrip().endswith("|")
            and "|" in s.norm
        ):
            out[-1] = Sentence(
                prev.index, prev.start, s.end, f"{prev.text} {s.text}", f"{prev.norm} {s.norm}"
            )
        else:
            out.append(s)
    return out


def _cells(text: str) -> list[str]:
    t = text.strip()
    if not t.startswith("|") and "|" not in t:
        return []
    return [c.strip() for c in t.strip("|").split("|")]
