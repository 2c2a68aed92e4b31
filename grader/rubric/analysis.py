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
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Literal

from grader.rubric.model import Rubric
from grader.rubric.polarity import affirms, blank, inside, unasserted_spans
from grader.rubric.text import Sentence, clause_bounds, is_list_like, tokens

Subject = Literal["mlm", "clm", "both", "other"]
MLM: Subject = "mlm"
CLM: Subject = "clm"
BOTH: Subject = "both"
OTHER: Subject = "other"  # another architecture (LSTM, T5, ...): counts for neither family

NEGATION_WINDOW = 6  # words between a negation cue and the phrase it negates
VIEW_WINDOW = 3  # words between a seeing/using verb and the context it governs
PAIR_WINDOW = 6  # words between "only" and "earlier tokens"
_RELIANCE = ("rel", "depend", "need", "assum", "expect", "lean")
# "it is interesting that", "it's worth ...": expletive "it", which points back to nothing.
_EXPLETIVE = re.compile(
    r"\bit(?:'s| is| was)\s+(?:\w+\s+){0,2}?(?:that|to|worth|why|because)\b", re.I
)
_BACKREF = re.compile(
    r"\b(?:it|its|it's|itself|they|their|them|theirs|this model|the model|that model|the network|"
    r"this network|the former|the latter)\b",
    re.IGNORECASE,
)
# Words that state a consequence; "BERT can't generate" counts as (half) an argument only when
# it is presented as following from something.
_CONNECTIVE = re.compile(
    r"\b(?:because|so|therefore|thus|hence|since|that's why|this is why|which is why|as a result|"
    r"consequently|due to|because of)\b",
    re.IGNORECASE,
)
_CONTRAST_WORD = re.compile(r"\b(?:but|however|whereas|while|unlike|although|though)\b", re.I)
_DATA = re.compile(
    r"\b(?:data(?:sets?)?|corpus|corpora|wikipedia|books|web|internet|domains?|topics?|"
    r"genres?|news|vocabulary|languages)\b",
    re.IGNORECASE,
)
_CONTEXT = re.compile(
    r"\b(?:context|tokens?|words?|positions?|left|right|future|later|earlier|previous|"
    r"preceding|following|prefix|suffix|mask\w*|sides?|blanks?|gaps?|sees?|saw|seen|"
    r"visible|attends?|bidirectional|causal)\b",
    re.IGNORECASE,
)
# A range of positions is itself the restriction: "attends to positions <= i".
_RANGE = re.compile(r"[<\u2264]|\bup to\b|\b(?:1|0|one)\s*(?:to|through|\.\.)\s*[a-z]\b", re.I)
_SUBJECT_KEYS: dict[str, Subject] = {
    "masked_model": MLM,
    "causal_model": CLM,
    "both_models": BOTH,
    "other_model": OTHER,
}


@dataclass(frozen=True)
class Hit:
    key: str
    start: int
    end: int
    tok: int  # index of the first token
    tok_end: int  # index one past the last token
    text: str


@dataclass(frozen=True)
class Claim:
    """One extracted statement. `kind` is e.g. "see_both"; `strong` distinguishes an explicit
    statement from a weaker one ("needs the whole sentence" vs "sees both sides")."""

    kind: str
    subject: Subject | None
    sentence: int
    strong: bool = True
    gen_ctx: bool = False
    text: str = ""
    direct: bool = True  # governed by a perception verb (sees, attends to), not "with"/"from"
    # the subject is named in the sentence, pointed to ("it", "the model") or implied by what
    # it describes; False when it is only carried over from an earlier sentence. A false claim
    # needs an attributed subject.
    attributed: bool = True


@dataclass
class SentenceFacts:
    """Everything the criteria need to know about one sentence."""

    sentence: Sentence
    hits: dict[str, list[Hit]]
    list_like: bool
    subjects: set[Subject] = field(default_factory=set)  # explicit, non-contrast
    mentions: set[Subject] = field(default_factory=set)  # any model named, incl. contrast
    primary: Subject | None = None  # last explicit subject (for the next sentence's pronouns)
    claims: list[Claim] = field(default_factory=list)
    # the text with what the student does not assert, and bare labels, blanked out
    asserted: str = ""
    # family labels standing for a mechanism ("BERT is bidirectional", "unidirectional")
    label_spans: tuple[tuple[int, int], ...] = ()
    compared: tuple[tuple[int, int], ...] = ()  # models named only as comparison objects

    def has(self, key: str) -> bool:
        return bool(self.hits.get(key))

    def kinds(self, kind: str) -> list[Claim]:
        return [c for c in self.claims if c.kind == kind]


@dataclass
class Analysis:
    sentences: list[SentenceFacts]
    skipped: frozenset[int] = frozenset()  # indices of sentences left out (see `analyse`)

    def claims(self, kind: str) -> list[Claim]:
        return [c for s in self.sentences for c in s.claims if c.kind == kind]


class _Sent:
    """Per-sentence helper: hits, clause bounds, subject attribution, negation."""

    def __init__(
        self,
        sent: Sentence,
        rubric: Rubric,
        inherited: Subject | None,
        named_before: tuple[Subject, ...] = (),
        affirmed: bool = False,
    ) -> None:
        """`named_before`: the two model families last named together, in order (what "the
        former" and "the latter" refer to when this sentence has not named two)."""
        self.sent = sent
        self.named_before = named_before
        s = sent.norm
        self.toks = tokens(s)
        self.tok_starts = [t[0] for t in self.toks]
        self.strong, self.bounds = clause_bounds(s)
        self.hits: dict[str, list[Hit]] = {}
        for key, pats in rubric.lexicon.items():
            found: list[Hit] = []
            for p in pats:
                for m in p.finditer(s):
                    if m.end() > m.start():
                        found.append(self._hit(key, m.start(), m.end()))
            self.hits[key] = _dedupe(found)
        self._add_contraction_negations()
        self.unasserted = unasserted_spans(s, affirmed)
        self._drop_unasserted()
        names = self.hits.get("masked_model", []) + self.hits.get("causal_model", [])
        self.hits["only"] = [h for h in self.hits.get("only", []) if not _inside(h, names)]
        self.inherited = inherited
        self.subj: list[tuple[Hit, Subject, bool]] = self._subjects()
        self.own_subjects = any(not k for _, _, k in self.subj)
        self.gen_subject = not self.own_subjects and self._generation_is_subject()
        self.anchored = (
            self.own_subjects
            or self._implied_subject() is not None
            or bool(_BACKREF.search(_drop_expletive(self.sent.norm)))
        )

    # -- construction -------------------------------------------------------------------
    def _hit(self, key: str, start: int, end: int) -> Hit:
        t0 = bisect.bisect_right(self.tok_starts, start) - 1
        t1 = bisect.bisect_left(self.tok_starts, end)
        return Hit(key, start, end, max(t0, 0), max(t1, t0 + 1), self.sent.norm[start:end])

    def _add_contraction_negations(self) -> None:
        neg = list(self.hits.get("negation", []))
        for a, b, t in self.toks:
            if t.endswith("n't"):
                neg.append(self._hit("negation", a, b))
        self.hits["negation"] = _dedupe(neg)

    def _drop_unasserted(self) -> None:
        """What the student reports, denies, asks, supposes or quotes in order to reject it
        (`polarity.unasserted_spans`) is not their claim: drop every concept found there,
        except the model names (they stay antecedents for "it")."""
        for key, hits in self.hits.items():
            if key not in _SUBJECT_KEYS:
                self.hits[key] = [h for h in hits if not inside(h.start, self.unasserted)]

    def _subjects(self) -> list[tuple[Hit, Subject, bool]]:
        # "BERT and GPT" is one subject (both); "encoder-decoder" is neither family.
        cover = self.hits.get("both_models", []) + self.hits.get("other_model", [])
        found: list[tuple[Hit, Subject]] = []
        for key, code in _SUBJECT_KEYS.items():
            for h in self.hits.get(key, []):
                if code in (MLM, CLM) and any(_overlap(h, b) for b in cover):
                    continue
                found.append((h, code))
        found.sort(key=lambda x: (x[0].start, x[0].end))
        found = self._former_latter(found)
        out: list[tuple[Hit, Subject, bool]] = []
        for i, (h, code) in enumerate(found):
            earlier = {c for _, c in found[:i]} - {code, OTHER}
            out.append((h, code, self._is_contrast(h, bool(earlier))))
        return out

    def _former_latter(self, found: list[tuple[Hit, Subject]]) -> list[tuple[Hit, Subject]]:
        """ "The former" / "the latter" name the first / last of the two families named just
        before (earlier in this sentence, else in the previous one)."""
        out = list(found)
        for m in _FORMER_LATTER.finditer(self.sent.norm):
            earlier: list[Subject] = []
            for h, code in found:
                if h.start < m.start() and code in (MLM, CLM) and code not in earlier:
                    earlier.append(code)
            order = earlier if len(earlier) >= 2 else list(self.named_before)
            if len(order) < 2:
                continue
            code = order[0] if m.group(1).lower() == "former" else order[-1]
            out.append((self._hit("former_latter", m.start(), m.end()), code))
        out.sort(key=lambda x: (x[0].start, x[0].end))
        return out

    def _is_contrast(self, h: Hit, other_family_before: bool = False) -> bool:
        """A comparison object ("unlike BERT") or a predicate after another model ("BERT is
        not a causal model"): named, but not what the clause is about. "The second family is
        the causal LM" names the topic, so a predicate only counts after another model."""
        if other_family_before and _PREDICATE.search(
            self.sent.norm[max(0, h.start - 20) : h.start]
        ):
            return True
        names = [x for k in _SUBJECT_KEYS for x in self.hits.get(k, [])]
        for c in self.hits.get("contrast_prefix", []):
            if c.end <= h.start and 0 <= h.tok - c.tok_end <= 2:
                if any(c.end <= n.start and n.end <= h.start for n in names):
                    continue  # "unlike BERT, GPT ...": only BERT is the comparison object
                if c.text.lower() == "like":
                    prev = self.toks[c.tok - 1][2] if c.tok > 0 else ""
                    if prev not in {"", ",", ";", ":", "and", "just", "(", "-"}:
                        continue  # "models like BERT": an example, not a comparison
                return True
        return False

    # -- queries ------------------------------------------------------------------------
    def clause(self, pos: int, strong: bool = True) -> int:
        b = self.strong if strong else self.bounds
        return bisect.bisect_right(b, pos) - 1

    def same_clause(self, a: Hit, b: Hit) -> bool:
        return self.clause(a.start) == self.clause(b.start)

    def subject_at(self, pos: int, end: int | None = None, loose: bool = True) -> Subject | None:
        """The grammatical subject a phrase at `pos` is attributed to (see module doc).

        A phrase inside a model's name ("bidirectional encoder") belongs to that model. A
        sentence naming no model inherits the previous sentence's subject when `loose`;
        otherwise only through a pronoun or "the model" ("There is a mismatch between training
        and generation" stays general).
        """
        if end is not None:
            for h, code, _ in self.subj:
                if h.start < end and pos < h.end:
                    return code
        ci = self.clause(pos, strong=False)
        in_clause = [(h, c, k) for h, c, k in self.subj if self.clause(h.start, False) == ci]
        before = [x for x in in_clause if x[0].start < pos and not x[2]]
        if before:
            return before[-1][1]
        clause_start = self.bounds[ci]
        opener = self.sent.norm[clause_start:pos]
        if (clause_start == 0 or opener[:1] in ";:" or opener.lstrip(" ,").lower().startswith(
                ("and ", "but ", "so ", "yet "))) and _DEMONSTRATIVE.match(opener):  # fmt: skip
            # "...; that consistency decides it": the phrase points back at the statement
            # before it, not at the last model that statement named
            return None
        head = self.sent.norm[clause_start : clause_start + 12].strip(" ,;:(").lower()
        if head.startswith(("which", "who", "whose", "that ")):
            prev = [x for x in self.subj if x[0].start < clause_start]
            if prev:
                return prev[-1][1]
        after = [x for x in in_clause if x[0].start >= pos and not x[2]]
        if after:
            return after[0][1]
        prev = [x for x in self.subj if x[0].start < pos and not x[2]]
        if prev:
            return prev[-1][1]
        if self.gen_subject:
            return None
        if loose and not self.own_subjects:
            implied = self._implied_subject()
            if implied is not None:
                return implied
        if self.inherited is not None and (
            (loose and not self.own_subjects) or self._refers_back(ci)
        ):
            return self.inherited
        return None

    def _generation_is_subject(self) -> bool:
        """The sentence is about generation itself ("Autoregressive decoding only ever supplies
        a prefix", "Sampling reveals one word at a time"): it starts with a generation noun,
        not a time phrase ("At generation it sees ..."), so it describes the generation
        condition and does not inherit the previous sentence's model."""
        timed = self.hits.get("generation_time", [])
        for g in self.hits.get("generation", []) + self.hits.get("left_to_right", []):
            if g.tok <= 2 and not _inside(g, timed) and not self._refers_back(0):
                return True
        return False

    def _implied_subject(self) -> Subject | None:
        """A sentence naming no model but describing a causal mask is about the causal LM;
        one describing masked-token prediction is about the masked LM."""
        causal = bool(
            self.hits.get("causal_mask")
            or self.hits.get("one_direction")
            or any(
                h.text.lower().startswith(("predict", "guess")) or "prediction" in h.text.lower()
                for h in self.hits.get("predict_next", [])
            )
        )
        masked = bool(self.hits.get("predict_masked"))
        if causal != masked:
            return CLM if causal else MLM
        return None

    def _refers_back(self, ci: int) -> bool:
        """The clause (or the sentence's first clause) points back to an earlier subject:
        a pronoun ("it", "they") or a definite "the model"."""
        starts = self.bounds + [len(self.sent.norm)]
        spans = [
            (starts[ci], starts[ci + 1]),
            (0, starts[1] if len(starts) > 1 else len(self.sent.norm)),
        ]
        for a, b in spans:
            if _BACKREF.search(_EXPLETIVE.sub(" ", self.sent.norm[a:b])):
                return True
        return False

    def negated(self, h: Hit, window: int = NEGATION_WINDOW) -> bool:
        """Odd number of negation cues before `h` in its clause (within `window` words)."""
        ci = self.clause(h.start)
        n = 0
        for g in self.hits.get("negation", []):
            nxt = self.toks[g.tok_end][2] if g.tok_end < len(self.toks) else ""
            # "not because of the mask": the negation is of the reason the clause gives
            gi = self.clause(g.start)
            reason = nxt in {"because", "since"} and gi == ci - 1
            if g.end > h.start or (gi != ci and not reason) or h.tok - g.tok_end > window:
                continue
            if nxt in {"only", "just"} and not (h.key == "only" and h.tok == g.tok_end):
                continue  # "not only ... but also" is not a negation of what follows
            if nxt in _HEDGES:
                continue  # "not perfectly consistent" concedes a degree, it is no mismatch
            n += 1
        return n % 2 == 1

    def negated_after(self, h: Hit, window: int = NEGATION_WINDOW) -> bool:
        """Odd number of negation cues after `h` in its (weak) clause: "exactly what BERT
        never saw" negates the relation "exactly what"."""
        ci = self.clause(h.start, strong=False)
        n = 0
        owned = [
            x for k in ("same_relation", "diff_relation", "absent") for x in self.hits.get(k, [])
        ]
        for g in self.hits.get("negation", []):
            if g.start < h.end or self.clause(g.start, False) != ci or g.tok - h.tok_end > window:
                continue
            if any(_overlap(g, x) for x in owned):
                continue  # part of "never happens", "no gap": not a negation of `h`
            n += 1
        return n % 2 == 1

    def near_before(self, key: str, h: Hit, window: int) -> Hit | None:
        """The closest `key` hit ending before `h`, in the same clause, within `window` words."""
        best = None
        for g in self.hits.get(key, []):
            if g.end <= h.start and self.same_clause(g, h) and h.tok - g.tok_end <= window:
                best = g
        return best

    def near_after(self, key: str, h: Hit, window: int) -> Hit | None:
        for g in self.hits.get(key, []):
            if g.start >= h.end and self.same_clause(g, h) and g.tok - h.tok_end <= window:
                return g
        return None

    def leading_time(self, h: Hit) -> bool:
        """A generation-time phrase opening the sentence ("When BERT generates, ...") governs
        the clauses after it up to a contrast ("..., but ...")."""
        for g in self.hits.get("generation_time", []):
            if g.tok <= 1 and g.end <= h.start:
                between = self.sent.norm[g.end : h.start]
                return not _CONTRAST_WORD.search(between)
        return False

    def clause_has(self, key: str, h: Hit) -> bool:
        return any(self.same_clause(g, h) for g in self.hits.get(key, []))


def _drop_expletive(s: str) -> str:
    return _EXPLETIVE.sub(" ", s)


def _overlap(a: Hit, b: Hit) -> bool:
    return a.start < b.end and b.start < a.end


def _inside(h: Hit, others: list[Hit]) -> bool:
    return any(_overlap(h, o) for o in others)


def _dedupe(hits: list[Hit]) -> list[Hit]:
    """Drop hits contained in a longer hit of the same key; sort by position."""
    hits = sorted(set(hits), key=lambda h: (h.start, -(h.end - h.start)))
    out: list[Hit] = []
    for h in hits:
        if out and h.start >= out[-1].start and h.end <= out[-1].end:
            continue
        out.append(h)
    return out


def analyse(sentences: list[Sentence], rubric: Rubric, skip: set[int] | None = None) -> Analysis:
    """Extract `SentenceFacts` (hits, subjects, claims) for each sentence not in `skip`."""
    skip = skip or set()
    facts: list[SentenceFacts] = []
    inherited: Subject | None = None
    named: tuple[Subject, ...] = ()
    hops = 0
    prev_train = False
    for k, sent in enumerate(sentences):
        if sent.index in skip:
            continue
        yes = k + 1 < len(sentences) and affirms(sentences[k + 1].norm)
        ss = _Sent(sent, rubric, inherited, named, yes)
        pair = tuple(dict.fromkeys(c for _, c, _ in ss.subj if c in (MLM, CLM)))
        named = pair if len(pair) >= 2 else named  # the pair "former/latter" refer to
        f = SentenceFacts(
            sentence=sent,
            hits=ss.hits,
            list_like=is_list_like(sent.norm, rubric.thresholds.list_stopword_ratio),
        )
        f.label_spans = tuple(
            (h.start, h.end)
            for k in ("both_sides", "one_direction")
            for h in ss.hits.get(k, [])
            if _bare_label(ss, h) or (k == "one_direction" and "triangular" not in h.text.lower())
        )
        # a comparison object ("unlike GPT, BERT sees ...") is not what the sentence is about
        f.compared = tuple((h.start, h.end) for h, _, k in ss.subj if k)
        f.asserted = blank(sent.norm, ss.unasserted + list(f.label_spans) + list(f.compared))
        f.mentions = {c for _, c, _ in ss.subj}
        f.subjects = {c for _, c, k in ss.subj if not k}
        own = [c for _, c, k in ss.subj if not k]
        if own:
            inherited, hops = own[-1], 0
        elif hops < 2:
            hops += 1
        else:
            inherited = None
        f.primary = inherited
        if not f.list_like:
            f.claims = _claims(ss, prev_train)
        prev_train = bool(ss.hits.get("training") or ss.hits.get("never_trained"))
        facts.append(f)
    return Analysis(facts, frozenset(skip))


def _claims(ss: _Sent, prev_train: bool = False) -> list[Claim]:
    """Claims of one sentence. `prev_train`: the sentence before talks about training, so a
    relation here ("At generation it sees its prefix, the same kind of input") compares
    generation with that training condition."""
    out: list[Claim] = []
    idx = ss.sent.index
    gen_sentence = bool(ss.hits.get("generation_time"))
    gen_words = gen_sentence or bool(ss.hits.get("generation"))

    def gen_ctx(h: Hit, with_l2r: bool = True) -> bool:
        """The phrase is about generation time, not training."""
        return (
            gen_sentence
            or ss.clause_has("generation", h)
            or (with_l2r and ss.clause_has("left_to_right", h))
        )

    def vis(h: Hit, left: bool, strong: bool, direct: bool = True) -> None:
        """What a model sees. In a sentence about generation, "cannot see the later tokens"
        describes generation time, not what the model was trained on (`gen_ctx`)."""
        kind = "see_left" if left else "see_both"
        subj = ss.subject_at(h.start, h.end)
        if left and absent_near(h) and (subj in (MLM, None) or absent_in_clause(h)):
            return  # "can't see the end because it hasn't been written": existence, not vision
        out.append(Claim(kind, subj, idx, strong, gen_words, h.text, direct, ss.anchored))
        if left and gen_words and (subj in (MLM, None) or ss.clause_has("generation_time", h)):
            # "when generating, BERT only has the left context": the generation condition
            out.append(Claim("future_absent", subj, idx, True, True, h.text))

    def absent_near(h: Hit) -> bool:
        return any(abs(a.tok - h.tok) <= 12 for a in absent)

    absent = [
        a for a in ss.hits.get("absent", []) if not _inside(a, ss.hits.get("predict_masked", []))
    ]

    def absent_in_clause(h: Hit) -> bool:
        return any(ss.same_clause(a, h) for a in absent)

    def relies(h: Hit) -> None:
        """A context phrase next to an absence ("trained with future context it will never
        have at generation"): not a claim about what the model sees, but still a statement
        that the masked model was trained with / relies on that context."""
        subj = ss.subject_at(h.start, h.end)
        verb = ss.near_before("view_verb", h, VIEW_WINDOW) or ss.near_before(
            "training", h, VIEW_WINDOW
        )
        if subj in (MLM, BOTH) and verb is not None and not ss.negated(verb):
            out.append(Claim("mlm_relies", MLM, idx, True, False, h.text))

    def available(h: Hit) -> None:
        """ "At generation time it can still see the later tokens": availability claimed. A
        "still" ties it to the generation phrase anywhere in the sentence."""
        avail = ss.near_after("available_verb", h, 3) or ss.near_before("available_verb", h, 2)
        if avail is not None and not ss.negated(avail) and not ss.negated(h):
            at_gen = (
                ss.clause_has("generation_time", h)
                or ss.leading_time(h)
                or ("still" in avail.text.lower() and bool(ss.hits.get("generation_time")))
            )
            out.append(Claim("future_available", ss.subject_at(h.start), idx, True, at_gen, h.text))

    # What each model sees -------------------------------------------------------------
    for h in ss.hits.get("both_sides", []):
        available(h)
        if absent_in_clause(h):
            relies(h)
            if any(ss.clause(a.start, False) == ss.clause(h.start, False) for a in absent):
                continue  # "with future context it will never have": not a claim of vision
        vis(h, ss.negated(h), not _bare_label(ss, h))
    predict_next = ss.hits.get("predict_next", [])
    for key, strong in (("future_ref", True), ("whole_seq", False)):
        for h in ss.hits.get(key, []):
            if any(_overlap(h, p) for p in predict_next):
                continue
            if absent_in_clause(h):
                relies(h)
                continue
            if any(_overlap(h, b) for b in ss.hits.get("both_sides", [])):
                continue
            hide = ss.near_after("hide_verb", h, 4)
            active = ss.near_before("hide_verb", h, 3)  # "the mask hides everything after it"
            if hide is None and active is not None and not ss.negated(active):
                hide = active
            view = ss.near_before("view_verb", h, VIEW_WINDOW)
            if (
                view is not None
                and view.text.lower() in {"has", "have", "had"}
                and view.tok_end < len(ss.toks)
                and ss.toks[view.tok_end][2] == "to"
            ):
                view = None  # "has to predict the future tokens" is not seeing them
            if hide is not None:
                vis(h, not ss.negated(h), True)
            elif (
                view is None
                and ss.negated(h)
                and ss.near_before("view_verb", h, 12)
                and any(
                    g.text.lower() in {"never", "not", "no"} and 0 <= h.tok - g.tok_end <= 2
                    for g in ss.hits.get("negation", [])
                )
            ):
                # "conditioned on preceding tokens and never on following ones"
                vis(h, True, True)
            elif view is not None:
                perceptual = bool(_PERCEPTION.match(view.text))
                vis(h, ss.negated(view) or ss.negated(h), strong, perceptual)
            available(h)
    for h in ss.hits.get("only", []):
        pair = ss.near_after("earlier_ref", h, PAIR_WINDOW) or ss.near_before("earlier_ref", h, 3)
        if pair is not None:
            vis(h, not ss.negated(h), True)
    if not ss.hits.get("only"):
        for h in ss.hits.get("earlier_ref", []):
            if _RANGE.search(h.text):  # "tokens <= i", "x_<t", "positions 1 to t-1", "up to i"
                vis(h, not ss.negated(h), True)
                break
    for h in ss.hits.get("one_direction", []):
        # "unidirectional" names the restriction without stating it; a lower-triangular
        # attention pattern states which positions are used
        vis(h, not ss.negated(h), "triangular" in h.text.lower())
    for h in ss.hits.get("causal_mask", []):
        if ss.near_after("hide_verb", h, 4) is not None:
            subj = ss.subject_at(h.start) or CLM
            out.append(Claim("see_left", subj, idx, True, gen_ctx(h), h.text))

    out.extend(_ellipsis(ss, out))
    from grader.rubric.mechanisms import wrong_mechanisms  # it builds on this module

    out.extend(wrong_mechanisms(ss))

    # Mentions that earn partial credit ------------------------------------------------
    for h, code, contrast in ss.subj:
        if code == MLM and not contrast and _OBJECTIVE_NAME.search(h.text):
            out.append(Claim("predicts_masked", MLM, idx, False, False, h.text))  # objective named
    for key, kind in (
        ("predict_masked", "predicts_masked"),
        ("predict_next", "predicts_next"),
        ("causal_mask", "causal_mask"),
        ("earlier_ref", "uses_earlier"),
    ):
        for h in ss.hits.get(key, []):
            if ss.negated(h) or _tautology(ss, h):
                continue
            out.append(Claim(kind, ss.subject_at(h.start), idx, True, gen_ctx(h), h.text))
    for h in ss.hits.get("left_to_right", []):
        if not gen_ctx(h, with_l2r=False) or ss.clause_has("training", h):
            out.append(Claim("left_to_right", ss.subject_at(h.start), idx, True, False, h.text))

    # Generation: what is missing, who relies on what -----------------------------------
    gen_any = (
        ss.hits.get("generation") or ss.hits.get("generation_time") or ss.hits.get("left_to_right")
    )
    refs = [h for k in ("future_ref", "whole_seq", "both_sides") for h in ss.hits.get(k, [])] + [
        h for h in _context_words(ss)
    ]
    for a in absent:
        strong_absent = a.text.lower() != "yet" and not a.text.lower().startswith(
            ("missing", "empty")
        )
        near_ref = any(abs(r.tok - a.tok) <= 12 for r in refs)
        if (near_ref and (gen_any or "yet" in a.text.lower() or _has_yet(ss))) or (
            strong_absent and gen_any
        ):
            out.append(Claim("future_absent", ss.subject_at(a.start), idx, True, True, a.text))
            break
    for g in ss.hits.get("generation", []):
        if ss.subject_at(g.start) == MLM and ss.negated(g):
            # strong = stated as a consequence ("so it can't generate", "because of this")
            causal = bool(_CONNECTIVE.search(ss.sent.norm))
            out.append(Claim("mlm_cannot_generate", MLM, idx, causal, True, g.text))
            break

    def points_back(v: Hit) -> bool:
        """ "... have not been sampled yet, and BERT always had them": the object is the
        missing context of this very sentence."""
        nxt = ss.toks[v.tok_end][2] if v.tok_end < len(ss.toks) else ""
        return bool(absent) and nxt in {"them", "those", "these"}

    for v in ss.hits.get("view_verb", []):
        if (
            (v.text.lower().startswith(_RELIANCE) or points_back(v))
            and ss.subject_at(v.start) == MLM
            and not ss.negated(v)
        ):
            out.append(Claim("mlm_relies", MLM, idx, True, False, v.text))
            break
    for n in ss.hits.get("never_trained", []):
        out.append(Claim("never_trained", ss.subject_at(n.start), idx, True, False, n.text))
    if (
        gen_any
        and ss.hits.get("left_to_right")
        and (ss.hits.get("generation") or ss.hits.get("generation_time"))
    ):
        out.append(Claim("generation_left_to_right", None, idx, True, True, ""))

    # Training versus generation ----------------------------------------------------------
    has_train = bool(ss.hits.get("training")) or bool(ss.hits.get("never_trained"))
    # a relation compares conditions when a training word, or a stated visibility condition
    # ("each prediction depends only on preceding tokens, exactly what generation offers"), is
    # in the sentence, or the previous sentence was about training and this one is set at
    # generation time
    conditioned = (
        has_train
        or any(c.kind in ("see_left", "see_both", "uses_earlier") for c in out)
        or (prev_train and bool(ss.hits.get("generation_time")))
    )
    has_gen_here = bool(ss.hits.get("generation") or ss.hits.get("generation_time"))
    # "trained on Wikipedia but asked about anything, so there is a mismatch": right words,
    # wrong reason. Without any word about context / tokens, such a relation stays general.
    about_data = bool(_DATA.search(ss.sent.norm)) and not _CONTEXT.search(ss.sent.norm)
    for key, base in (("same_relation", "same"), ("diff_relation", "diff")):
        for r in ss.hits.get(key, []):
            generic = r.text.lower().startswith("differ")
            if generic and not (has_train and has_gen_here):
                continue  # "a different task": only a relation when both conditions are named
            # "exactly what BERT never saw": a negation after a sameness word reverses it
            after = base == "same" and ss.negated_after(r)
            # "missing the context it was trained with": what is absent is the training
            # condition, so the sameness phrase states a difference
            lacking = base == "same" and any(
                a.end <= r.start and ss.same_clause(a, r) and 0 <= r.tok - a.tok_end <= 1
                for a in absent
            )
            flip = (ss.negated(r) != after) != lacking
            rel = base if not flip else ("diff" if base == "same" else "same")
            subj = ss.subject_at(r.start, loose=False)
            if about_data:
                subj = None  # a data or domain gap is not the rubric's information condition
            out.append(Claim(f"relation_{rel}", subj, idx, conditioned, bool(gen_any), r.text))
    # "GPT only sees earlier tokens, in training and when it generates": the same restriction
    # stated for both conditions is the consistency point itself
    if (
        has_train
        and ss.hits.get("generation_time")
        and not any(c.kind.startswith("relation_") for c in out)
    ):
        for c in out:
            if c.kind == "see_left" and c.strong and c.subject in (CLM, BOTH):
                out.append(Claim("relation_same", c.subject, idx, True, True, c.text))
                break

    # Uses of each family ---------------------------------------------------------------
    gen_time_spans = ss.hits.get("generation_time", [])
    for u in ss.hits.get("understanding", []):
        if not ss.negated(u):
            out.append(
                Claim("used_understanding", ss.subject_at(u.start), idx, True, False, u.text)
            )
    has_understanding = bool(ss.hits.get("understanding"))
    for g in ss.hits.get("generation_use", []):
        if any(_overlap(g, t) for t in gen_time_spans) or ss.negated(g):
            continue
        subj = ss.subject_at(g.start)
        usage = [
            u for u in ss.hits.get("usage", [])
            if ss.same_clause(u, g) and (u.text.lower() != "for" or 0 <= g.tok - u.tok_end <= 2)
        ]  # fmt: skip
        suit = ss.near_before("suitability", g, 4)
        if suit is not None and not ss.negated(suit) and subj in (MLM, BOTH):
            out.append(Claim("mlm_good_at_generation", subj, idx, True, True, g.text))
        if usage or has_understanding:
            out.append(Claim("used_generation", subj, idx, True, True, g.text))
    return out


# "is (not) a": the model named next is a predicate, not a subject.
_PREDICATE = re.compile(
    r"\b(?:is|are|was|were|be)(?:n't| not)?\s+(?:an?|the|just an?|also an?)\s+$", re.IGNORECASE
)
# Verbs that state what a model perceives (vs "trained with", "from", "has").
_PERCEPTION = re.compile(
    r"(?:see|saw|seen|look|attend|access|peek|read|know|knew|visible|in view)", re.I
)
_ELLIPSIS = re.compile(
    r"^\s*(?:does|do|did|is|are|was|were|can|could|has|have|would)(?:n't|\s+not)\b[\s\w]{0,8}?[.!?]?\s*$",
    re.IGNORECASE,
)


# "masked language modelling", "the masked objective": the objective is named, not only the model
_OBJECTIVE_NAME = re.compile(r"mask\w* (?:language )?model(?:l)?ing|objective", re.IGNORECASE)
_LABEL = re.compile(r"^bi ?directional(?:ly|ity)?$", re.IGNORECASE)
_CONTEXT_NOUN = frozenset(
    "context contexts attention self information conditioning tokens words neighbours "
    "neighbors view access".split()
)


def _bare_label(ss: _Sent, h: Hit) -> bool:
    """ "BERT is bidirectional": the family's label, not what it uses. It says what the model
    sees only when a context noun follows ("bidirectional context / attention")."""
    if not _LABEL.match(h.text.strip()):
        return False
    nxt = [t for _, _, t in ss.toks[h.tok_end : h.tok_end + 2]]
    return not any(t.lower() in _CONTEXT_NOUN for t in nxt)


def _ellipsis(ss: _Sent, claims: list[Claim]) -> list[Claim]:
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
        for c in claims:
            if c.kind in ("see_both", "see_left") and c.subject not in (code, None, BOTH):
                flipped = "see_left" if c.kind == "see_both" else "see_both"
                out.append(Claim(flipped, code, c.sentence, False, c.gen_ctx, h.text))
                break
    return out


def _context_words(ss: _Sent) -> list[Hit]:
    """Bare "context" / "information" / "tokens" words: what generation lacks
    ("context that does not exist")."""
    out = []
    for a, b, t in ss.toks:
        if t in {"context", "information", "tokens", "words"}:
            out.append(ss._hit("context", a, b))
    return out


def _has_yet(ss: _Sent) -> bool:
    return any(t == "yet" for _, _, t in ss.toks)


_DEMONSTRATIVE = re.compile(
    r"^[\s,;:(]*(?:(?:and|but|so|yet)\s+)?(?:that|this|these|those)\s+(?:\w+\s+)?$", re.I
)
_FORMER_LATTER = re.compile(r"\bthe (former|latter)\b", re.IGNORECASE)
_HEDGES = frozenset("perfectly entirely fully completely totally always quite".split())
_COPULA = re.compile(r"(?:is|are) (\w+)$", re.IGNORECASE)


def _tautology(ss: _Sent, h: Hit) -> bool:
    """A mention that only repeats its subject's name ("causal LMs are causal"): the predicate
    word already appears in the clause before it, so it says nothing about the model."""
    m = _COPULA.match(h.text.strip())
    if m is None:
        return False
    before = ss.sent.norm[max(0, h.start - 40) : h.start].lower()
    return m.group(1).lower() in before
