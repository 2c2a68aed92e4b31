"""Turn an answer into claims: which model is said to do what, and with what polarity.

Pipeline per sentence:
1. lexicon hits (`Hit`) for every concept in `Rubric.lexicon`;
2. subjects: model mentions, minus comparison objects ("unlike BERT"), with attribution of any
   phrase to the nearest subject of its clause, else of the sentence, else of the previous
   sentence (pronouns: "It only sees ...");
3. negation scope: negation cues earlier in the same clause within a few words flip the
   polarity; two cues cancel ("can't predict without the later tokens" = needs them);
4. claims: what each model sees (`see_both` / `see_left`), and the sentence-level facts the
   criteria need (future tokens absent at generation, reliance, train-vs-generation relation,
   uses of each family).

The output is plain data (`Analysis`) that `criteria.py` judges. Nothing here knows weights.

Where each step lives: `facts.py` the data types; `sentence.py` steps 1-3 (`ParsedSentence`);
`claims.py` step 4, as small extractors registered in order (`claims.EXTRACTORS`, each reading
a `ClaimContext` from `extractor.py`; what each model sees is in `vision.py`, the catalogue
of wrong mechanisms in `mechanisms.py`). This module walks the sentences and carries the
subject from one sentence to the next.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from grader.rubric.claims import sentence_claims, telegraphic_claims
from grader.rubric.discourse import aliases, carried_frame, question_frame
from grader.rubric.experiment import unattributed_conditions
from grader.rubric.facts import BOTH, CLM, MLM, OTHER, Analysis, Claim, Hit, SentenceFacts, Subject
from grader.rubric.judgement import SHORT_LINK_WORDS
from grader.rubric.model import Rubric
from grader.rubric.polarity import affirms, blank
from grader.rubric.reference import GENERIC_SINGULAR, code_names, is_heading
from grader.rubric.retraction import withdraws_previous
from grader.rubric.sentence import ParsedSentence
from grader.rubric.teacher_voice import identified_model
from grader.rubric.text import Sentence, is_list_like, word_count, words
from grader.rubric.uses import use_question_frame
from grader.rubric.vision import _bare_label

__all__ = [
    "BOTH",
    "CLM",
    "MLM",
    "OTHER",
    "Analysis",
    "Claim",
    "Hit",
    "ParsedSentence",
    "SentenceFacts",
    "Subject",
    "analyse",
]


def analyse(
    sentences: list[Sentence],
    rubric: Rubric,
    skip: set[int] | None = None,
    disowned: dict[int, str] | None = None,
) -> Analysis:
    """Extract `SentenceFacts` (hits, subjects, claims) for each sentence not in `skip`.
    `disowned`: sentences the answer disowns (`disavowal.disowned_sentences`), read as
    asserting nothing."""
    skip = skip or set()
    disowned = disowned or {}
    facts: list[SentenceFacts] = []
    inherited: Subject | None = None
    named: tuple[Subject, ...] = ()
    hops = 0
    prev_train = prev_gen = False
    scene_gap = None
    recent: set[Subject] = set()  # model families the last sentences named as subjects
    last_fams: set[Subject] = set()
    names = dict(aliases([s for s in sentences if s.index not in skip], rubric))
    for key, pats in code_names([s.norm for s in sentences], _families(rubric)).items():
        names[key] = (*names.get(key, ()), *pats)
    family_of = _families(rubric)
    topic: Subject | None = None  # the family the last heading names
    for k, sent in enumerate(sentences):
        if sent.index in skip:
            continue
        yes = k + 1 < len(sentences) and affirms(sentences[k + 1].norm)
        withdrawn = k + 1 < len(sentences) and withdraws_previous(sentences[k + 1].norm)
        withdrawn = withdrawn or sent.index in disowned
        prev = sentences[k - 1] if k > 0 and sentences[k - 1].index not in skip else None
        frame = question_frame(prev, sent, rubric) if prev is not None else ()
        frame = frame or carried_frame(prev_gen and prev is not None, sent, rubric)
        prev_scene = scene_gap is not None and scene_gap <= SHORT_LINK_WORDS
        frame = frame or _absence_goes_on(prev_scene and prev is not None, sent, rubric)
        if prev is not None:
            frame = (*frame, *use_question_frame(prev.norm, sent.norm, rubric))
        carried = inherited
        nxt = sentences[k + 1] if k + 1 < len(sentences) else None
        if nxt is not None and nxt.index not in skip and not family_of(sent.norm):
            # "Pupils guess the bleeped word from both sides. That's masked LM (BERT).": the
            # activity described is the model the next sentence names (round 10)
            key = identified_model(nxt.norm, family_of)
            carried = {"masked_model": MLM, "causal_model": CLM}.get(key or "", inherited)
        ss = ParsedSentence(
            sent, rubric, carried, named, yes, names, frame, len(recent) > 1, topic, withdrawn
        )
        if is_heading(sent.norm):
            fams = {c for _, c, _ in ss.subj} & {MLM, CLM}
            topic = next(iter(fams)) if len(fams) == 1 else None
        pair = tuple(dict.fromkeys(c for _, c, _ in ss.subj if c in (MLM, CLM)))
        named = pair if len(pair) >= 2 else named  # the pair "former/latter" refer to
        f = SentenceFacts(
            sentence=sent,
            hits=ss.hits,
            list_like=is_list_like(sent.norm, rubric.thresholds.list_stopword_ratio)
            and not _formula_line(sent.norm),
        )
        f.label_spans = tuple(
            (h.start, h.end)
            for k in ("both_sides", "one_direction")
            for h in ss.hits.get(k, [])
            if _bare_label(ss, h) or (k == "one_direction" and "triangular" not in h.text.lower())
        )
        # a comparison object ("unlike GPT, BERT sees ...") is not what the sentence is about
        f.compared = tuple((h.start, h.end) for h, _, k in ss.subj if k)
        hidden = ss.unasserted + ss.conceded + list(f.label_spans) + list(f.compared)
        f.asserted = blank(sent.norm, hidden)
        f.mentions = {c for _, c, _ in ss.subj}
        f.subjects = {c for _, c, k in ss.subj if not k}
        own = [c for _, c, k in ss.subj if not k]
        if ss.topic_label is not None and ss.inherited is not None:
            own = [ss.inherited]  # "- encoder, ..." under "**GPT**" is about GPT
        if own:
            # the families named as subjects in this sentence and the one before it
            fams = {c for c in own if c in (MLM, CLM)}
            recent = fams | (last_fams if hops == 0 else set())
            last_fams = fams
            inherited, hops = own[-1], 0
        elif hops < 2:
            hops += 1
        else:
            inherited = None
        f.primary = inherited
        f.claims = sentence_claims(ss, prev_train) if not f.list_like else telegraphic_claims(ss)
        f.claims = unattributed_conditions(ss, f.claims)  # a drill's or a trial's input
        if not f.mentions and GENERIC_SINGULAR.search(sent.norm):
            f.claims = [replace(c, attributed=False) for c in f.claims]  # "a model does ..."
        # the condition a relation in the next sentence compares generation with: training,
        # the causal mask (the training condition as a device: "the mask puts -inf on every
        # later position. That's also all it has when it generates.") or the only-earlier
        # restriction stated ("It is only ever shown the words before. Is that any different
        # when it generates? No, the same situation."); a bare question passes it on
        asks = not f.claims and sent.norm.rstrip().endswith("?")
        prev_train = (prev_train and asks) or any(
            ss.hits.get(k) for k in ("training", "never_trained", "causal_mask")
        )
        prev_train = prev_train or any(c.kind == "see_left" and c.strong for c in f.claims)
        prev_gen = bool(ss.hits.get("generation_time"))
        # words since the last sentence describing generation (None: no such sentence yet)
        if any(ss.hits.get(k) for k in ("generation", "generation_time", "left_to_right")):
            scene_gap: int | None = 0
        elif scene_gap is not None:
            scene_gap += word_count(sent.norm)
        facts.append(f)
    return Analysis(facts, frozenset(skip), dict(disowned))


def _families(rubric: Rubric) -> Callable[[str], set[str]]:
    """The model keys (masked_model / causal_model) a text names, by the lexicon."""
    pats = {k: rubric.lexicon[k] for k in ("masked_model", "causal_model")}

    def family_of(text: str) -> set[str]:
        return {k for k, ps in pats.items() if any(p.search(text) for p in ps)}

    return family_of


_CONTEXT_NOUN = re.compile(r"\b(?:context|tokens?|words?|information)\b", re.IGNORECASE)


# a training word that sets the time of the sentence ("during training", "in pretraining")
_TRAIN_TIME = re.compile(
    r"\b(?:during|in|at|while|when|throughout)\s+(?:its\s+|the\s+)?(?:pre-?\s?)?training\b|"
    r"\btrain(?:ing)?\s+time\b",
    re.IGNORECASE,
)
_RELIANCE_VERB = re.compile(
    r"\b(?:rel(?:y|ies|ied|ying)|depend\w*|lean(?:s|ed|t)?|needs?|needed|assum\w*|expect\w*)\b",
    re.IGNORECASE,
)


def _untimed_training(norm: str, rubric: Rubric) -> bool:
    """The sentence has no training word, or its training words describe what is now absent
    rather than setting the time: "the right-hand words BERT learned to lean on are not
    there", "the inputs it relied on are simply not there, a situation it was never optimised
    for", "x_>t undefined at step t, so the conditional cannot be evaluated as trained". A
    training time ("during training the later words are hidden") is training, not the
    generation scene."""
    if not any(rubric.says(norm, k) for k in ("training", "never_trained")):
        return True
    if _TRAIN_TIME.search(norm):
        return False
    if rubric.says(norm, "never_trained") or _RELIANCE_VERB.search(norm):
        return True
    first_train = min(
        (m.start() for p in rubric.lexicon["training"] for m in p.finditer(norm)), default=-1
    )
    first_absent = min(
        (m.start() for p in rubric.lexicon["absent"] for m in p.finditer(norm)), default=-1
    )
    return 0 <= first_absent < first_train


def _absence_goes_on(prev_scene: bool, sent: Sentence, rubric: Rubric) -> tuple[str, ...]:
    """ "Generation is one word at a time. The next words are not there.": an absence stated
    right after a sentence describing generation, with no training word of its own, is the
    generation condition (read at generation time, like `discourse.carried_frame`)."""
    if not prev_scene or not rubric.says(sent.norm, "absent"):
        return ()
    if rubric.says(sent.norm, "generation_time") or not _untimed_training(sent.norm, rubric):
        return ()
    # what is absent is context ("the next words", "the right side"), not "the support"
    refs = any(rubric.says(sent.norm, k) for k in ("future_ref", "whole_seq", "both_sides"))
    # round 12: a quoted piece of the example as the subject ('"of tea" hasn't happened yet')
    # is words of the text
    quoted = _QUOTED_SUBJECT.match(sent.norm) is not None
    return ("generation_time",) if refs or quoted or _CONTEXT_NOUN.search(sent.norm) else ()


_QUOTED_SUBJECT = re.compile(r"^\W*[\"\u201c][^\"\u201d]{1,60}[\"\u201d]\s+(?!is\s+a\b)\w+")


def _formula_line(norm: str) -> bool:
    """A line whose content is a written conditional ("MLM: log p(x_t | x_{<t}, x_{>t})")
    states what is predicted from what: a claim in symbols, not a list of terms, however few
    function words it has. A conditional that is one item of an enumeration of terms
    ("bidirectional, [MASK], p(x_t | x_<t), exposure bias, ...") stays a term."""
    if not _CONDITIONAL.search(norm):
        return False
    rest = _CONDITIONAL.sub(" ", norm)
    return len([i for i in re.split(r"[,;]", rest) if words(i)]) < 4


# "p(x_t | x_1..x_{t-1})", "q(x_t | x_{-t})", "p_\theta(x_t \mid x_{<t})": a probability with a
# conditioning bar inside its parentheses
_CONDITIONAL = re.compile(r"\b[pq](?:_\{?\\?\w+\}?)?\s*\([^()|]*?(?:\||\\mid\b)[^()]*\)")
