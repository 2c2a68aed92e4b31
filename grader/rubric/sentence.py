"""One sentence read for claims: lexicon hits, clauses, subject attribution, negation scope.

`ParsedSentence` is what every claim extractor (`claims.py`, `mechanisms.py`) queries:
`subject_at` attributes a phrase to a model (see the module doc of `analysis.py`), `negated`
and `negated_after` read the negation scope, `near_before` / `near_after` / `clause_has` find
a related hit in the same clause. `ClaimContext` (`extractor.py`) adds what several extractors
ask of the sentence.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping
from functools import cached_property

from grader.rubric.apposition import appositive, trained_objective
from grader.rubric.facts import BOTH, CLM, MLM, OTHER, Hit, Subject
from grader.rubric.hit_spans import _dedupe, _inside, _overlap  # noqa: F401 (re-exported)
from grader.rubric.model import Rubric
from grader.rubric.polarity import conceded_spans, inside, unasserted_spans
from grader.rubric.reference import (
    KIND_NOUNS,
    PLURAL_REFS,
    SCENE_OPENER,
    generic_spans,
    opens_with_label,
)
from grader.rubric.sentence_cues import drop_non_causal, own_exercise
from grader.rubric.text import Sentence, clause_bounds, tokens

NEGATION_WINDOW = 6  # words between a negation cue and the phrase it negates
# nouns a bracketed "(like BERT)" gives an example of (a kind, a tool)
_EXAMPLED = KIND_NOUNS | {"kind", "kinds", "type", "types", "sort", "sorts", "tool", "tools"}
# "it is interesting that", "it's worth ...": expletive "it", which points back to nothing.
_EXPLETIVE = re.compile(
    r"\bit(?:'s| is| was)\s+(?:\w+\s+){0,2}?(?:that|to|worth|why|because)\b", re.I
)
_BACKREF = re.compile(
    r"\b(?:it|its|it's|itself|they|their|them|theirs|this model|the model|that model|the network|"
    r"this network|the former|the latter)\b",
    re.IGNORECASE,
)
_GENERIC_DEFINITE = frozenset({"the model", "the network"})
_CONTRAST_WORD = re.compile(r"\b(?:but|however|whereas|while|unlike|although|though)\b", re.I)
_SUBJECT_KEYS: dict[str, Subject] = {
    "masked_model": MLM,
    "causal_model": CLM,
    "both_models": BOTH,
    "other_model": OTHER,
}
# "is (not) a": the model named next is a predicate, not a subject.
_PREDICATE = re.compile(
    r"\b(?:is|are|was|were|be)(?:n't| not)?\s+(?:an?|the|just an?|also an?)\s+$", re.IGNORECASE
)
_DEMONSTRATIVE = re.compile(
    r"^[\s,;:(]*(?:(?:and|but|so|yet)\s+)?(?:that|this|these|those)\s+(?:\w+\s+)?$", re.I
)
_PRONOUN_OPENS = re.compile(r"[\s,;:(]*(?:(?:and|but|so|yet)\s+)?(?:it|its|it's)\b", re.I)
_FORMER_LATTER = re.compile(r"\bthe (former|latter)\b", re.IGNORECASE)
# concepts whose phrases can contain a relation word in another sense ("filling gaps")
_OBJECTIVE_SENSE = ("predict_masked", "both_sides", "future_ref", "earlier_ref")
_SCENE_KEYS = ("generation", "generation_time", "left_to_right")
# "not restricted / limited in either direction" negates the restriction, not the context
# phrase after it (the double negative states the unrestricted view)
_RESTRICTED = frozenset("restricted limited confined constrained bound".split())
# words after which "no" starts a noun phrase that names an absence ("having no context")
_NONFINITE_BEFORE = frozenset("having with getting seeing being".split())
_HEDGES = frozenset("perfectly entirely fully completely totally always quite".split())
_TWO_WAY = re.compile(r"^bi[\s-]?directional(?:ly|ity)?$", re.IGNORECASE)
# "the reason it can't generate is that it needs ...": a predicate clause the negation is not in
_PREDICATE_CLAUSE = re.compile(r"\b(?:is|was|are|were)\s+(?:that|because)\b", re.IGNORECASE)


class ParsedSentence:
    """Per-sentence helper: hits, clause bounds, subject attribution, negation."""

    def __init__(
        self,
        sent: Sentence,
        rubric: Rubric,
        inherited: Subject | None,
        named_before: tuple[Subject, ...] = (),
        affirmed: bool = False,
        aliases: Mapping[str, tuple[re.Pattern[str], ...]] | None = None,
        frame: tuple[str, ...] = (),
        plural_ambiguous: bool = False,
        topic: Subject | None = None,
        withdrawn: bool = False,
    ) -> None:
        """`named_before`: the two model families last named together, in order (what "the
        former" and "the latter" refer to when this sentence has not named two). `aliases`:
        the answer's own names for lexicon concepts (`discourse.aliases`). `frame`: the
        condition keys a question just before sets for this answer to it
        (`discourse.question_frame`): the whole sentence is read in that condition.
        `plural_ambiguous`: the sentences before named both families as subjects, so a
        "they" here has two antecedents and inherits neither. `topic`: the family a heading
        above names ("**GPT**"); a line under it that opens with the other family's
        architecture label ("- encoder, ...") says that label of the topic (`topic_label`):
        the topic stays its subject. `withdrawn`: the next sentence opens by taking this one
        back (`retraction.withdraws_previous`): nothing in it is asserted."""
        self.sent = sent
        self.named_before = named_before
        s = sent.norm
        self.toks = tokens(s)
        self.tok_starts = [t[0] for t in self.toks]
        self.strong, self.bounds = clause_bounds(s)
        # only the entries whose literals the sentence holds can match (`prefilter.py`)
        self.hits: dict[str, list[Hit]] = {key: [] for key in rubric.lexicon}
        entries = rubric.lexicon_entries
        for i in rubric.lexicon_index.candidates(s):
            key, p = entries[i]
            for m in p.finditer(s):
                if m.end() > m.start():
                    self.hits[key].append(self._hit(key, m.start(), m.end()))
        for key, found in self.hits.items():
            if found:
                self.hits[key] = _dedupe(found)
        for key, pats in (aliases or {}).items():
            extra = [self._hit(key, m.start(), m.end()) for p in pats for m in p.finditer(s)]
            if extra:
                self.hits[key] = _dedupe(self.hits.get(key, []) + extra)
        drop_non_causal(s, self.hits)
        for key in frame:  # zero-width: sets the condition, quotes nothing
            self.hits[key] = [*self.hits.get(key, []), Hit(key, 0, 0, 0, 0, "")]
        self._add_contraction_negations()
        self.unasserted = unasserted_spans(s, affirmed)
        if withdrawn:  # the next sentence takes this one back ("Wait, no. ...")
            self.unasserted = [(0, len(s))]
        self.conceded = conceded_spans(s)
        self._drop_unasserted()
        names = self.hits.get("masked_model", []) + self.hits.get("causal_model", [])
        self.hits["only"] = [h for h in self.hits.get("only", []) if not _inside(h, names)]
        self._resolve_senses()
        # (the family named, the appositive after it, the appositive's family)
        self.appositives: list[tuple[Subject, Hit, Subject]] = []
        self.subj: list[tuple[Hit, Subject, bool]] = self._subjects()
        self.topic_label: Hit | None = None
        if topic is not None and self.subj:
            h, code, _ = self.subj[0]
            if code in (MLM, CLM) and code != topic and opens_with_label(s, h.start, h.end):
                self.subj[0] = (h, code, True)  # a predicate of the topic, not a subject
                self.topic_label, inherited = h, topic
        self.inherited = inherited
        if plural_ambiguous and self._plural_only():
            self.inherited = None
        self.own_subjects = any(not k for _, _, k in self.subj)

    # -- read on demand: most sentences are asked for few of these --------------------------
    @cached_property
    def generic(self) -> list[Hit]:
        """The generic plural subjects (`_generic_subjects`)."""
        return self._generic_subjects()

    @cached_property
    def gen_subject(self) -> bool:
        """The sentence is about generation itself (`_generation_is_subject`)."""
        return not self.own_subjects and self._generation_is_subject()

    @cached_property
    def anchored(self) -> bool:
        """The sentence names its model, points to one ("it") or implies one."""
        return (
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

    def _resolve_senses(self) -> None:
        """One word, one sense: a relation word that is also part of a phrase about the masked
        objective or about context ("filling gaps", "the words after the gap") names the blank,
        not a gap between training and generation."""
        objective = [h for k in _OBJECTIVE_SENSE for h in self.hits.get(k, [])]
        for key in ("diff_relation", "same_relation"):
            self.hits[key] = [h for h in self.hits.get(key, []) if not _inside(h, objective)]

    def _drop_unasserted(self) -> None:
        """What the student reports, denies, asks, supposes or quotes in order to reject it
        (`polarity.unasserted_spans`) is not their claim: drop every concept found there,
        except the model names (they stay antecedents for "it")."""
        if not self.unasserted and not self.conceded:
            return  # most sentences: nothing to drop
        for key, hits in self.hits.items():
            if key not in _SUBJECT_KEYS:
                self.hits[key] = [h for h in hits if not inside(h.start, self.unasserted)]
            if key not in _SUBJECT_KEYS and key not in _SCENE_KEYS:
                # an attempt judged poor ("one could try X, but it works badly") sets the
                # generation scene; what it says the model does is not claimed
                self.hits[key] = [h for h in self.hits[key] if not inside(h.start, self.conceded)]

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
            # "BERT, the decoder, fills ...": the appositive describes the first name
            apposed = i > 0 and appositive(self.sent.norm, found[i - 1][0], h)
            if apposed:
                self.appositives.append((found[i - 1][1], h, code))
            out.append((h, code, apposed or self._is_contrast(h, bool(earlier))))
        return out

    def _generic_subjects(self) -> list[Hit]:
        """ "The models", "these networks", "language models": a plural naming no family. As
        a subject it is neither model, so what it says earns general credit at most and
        contradicts nothing about one model."""
        names = [h for h, _, _ in self.subj]
        spans = generic_spans(self.sent.norm, [(h.start, h.end) for h in names])
        return [self._hit("generic_subject", a, b) for a, b in spans]

    def _plural_only(self) -> bool:
        """The sentence points back only with a plural ("they", "their", "them"), before any
        model it names. A definite "the model" after such a "they" is either of the two, a
        generic singular ("how they are trained differs from how the model is used")."""
        norm = _drop_expletive(self.sent.norm)
        first = min((h.start for h, _, _ in self.subj), default=len(norm))
        refs = [m.group(0).lower() for m in _BACKREF.finditer(norm)]
        if not refs or refs[0] not in PLURAL_REFS:
            return False
        if self.subj and _BACKREF.search(norm).start() > first:
            return False
        return all(r in PLURAL_REFS or r in _GENERIC_DEFINITE for r in refs)

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
        if other_family_before and (
            _PREDICATE.search(self.sent.norm[max(0, h.start - 20) : h.start])
            or trained_objective(self.sent.norm, h)  # "GPT is trained with masked LM-ing"
        ):
            return True
        names = [x for k in _SUBJECT_KEYS for x in self.hits.get(k, [])]
        for c in self.hits.get("contrast_prefix", []):
            if c.end <= h.start and 0 <= h.tok - c.tok_end <= 2:
                if any(c.end <= n.start and n.end <= h.start for n in names):
                    continue  # "unlike BERT, GPT ...": only BERT is the comparison object
                if c.text.lower() == "like":
                    prev = self.toks[c.tok - 1][2] if c.tok > 0 else ""
                    if prev == "(" and c.tok > 1 and self.toks[c.tok - 2][2] in _EXAMPLED:
                        continue  # round 9: "the 'checking' kind (like BERT)": an example
                    # "models like BERT": an example of the kind; "BERT uses a causal mask
                    # like GPT": the comparison object of a clause about another model
                    if prev not in {"", ",", ";", ":", "and", "just", "(", "-"} and (
                        prev in KIND_NOUNS or not other_family_before or h.tok != c.tok_end
                    ):
                        continue
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
        # a generic plural ("the models") is a subject too, of neither family
        cands: list[tuple[Hit, Subject | None, bool]] = sorted(
            [*self.subj, *((g, None, False) for g in self.generic)],
            key=lambda x: (x[0].start, x[0].end),
        )
        in_clause = [(h, c, k) for h, c, k in cands if self.clause(h.start, False) == ci]
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
            prev = [x for x in cands if x[0].start < clause_start]
            if prev:
                return prev[-1][1]
        after = [x for x in in_clause if x[0].start >= pos and not x[2]]
        if after:
            return after[0][1]
        prev = [x for x in cands if x[0].start < pos and not x[2]]
        if prev:
            return prev[-1][1]
        if self.generic and not self.subj:
            return None  # "The way they are trained differs from how the models are used"
        if self.gen_subject:
            return None
        if loose and not self.own_subjects:
            implied = self._implied_subject()
            # "It can also fill blanks the same way BERT does": a pronoun opening the clause
            # points back at the model named before; what it does implies no other one
            if implied is not None and not (
                self.inherited is not None and _PRONOUN_OPENS.match(self.sent.norm, self.bounds[ci])
            ):
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
        one describing masked-token prediction is about the masked LM. Attention *without* a
        causal mask ("the attention has no causal mask, so each position uses every other")
        describes the masked LM."""
        masks = self.hits.get("causal_mask", [])
        if masks and all(self.negated(h) for h in masks):
            return MLM
        predicts = any(
            h.text.lower().startswith(("predict", "guess")) or "prediction" in h.text.lower()
            for h in self.hits.get("predict_next", [])
        )
        causal = bool(masks or self.hits.get("one_direction") or predicts)
        # "I had to predict a hidden word": the student's own exercise, no model (round 9)
        masked = any(
            not own_exercise(self.sent.norm, h) for h in self.hits.get("predict_masked", [])
        )
        # "the question is about bidirectional vs unidirectional": a one-way label beside the
        # two-way one names the two families, not the causal LM alone
        two_way = any(_TWO_WAY.match(h.text) for h in self.hits.get("both_sides", []))
        if causal and not (masks or predicts or masked) and two_way:
            return None
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
            if nxt in _RESTRICTED and h.key != "only":
                continue  # "not restricted in any direction": the restriction is negated
            if _PREDICATE_CLAUSE.search(self.sent.norm, g.end, h.start):
                continue
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
            if self._nonfinite(g):
                continue  # "the same as them not existing": the compared state is an absence
            n += 1
        return n % 2 == 1

    def _nonfinite(self, g: Hit) -> bool:
        """The negation cue `g` negates a verbless or -ing phrase, not a clause: "them not
        existing", "not being there", "having no later words". Such a phrase names the state
        compared (an absence); it does not deny the comparison."""
        nxt = self.toks[g.tok_end][2] if g.tok_end < len(self.toks) else ""
        prev = self.toks[g.tok - 1][2] if g.tok > 0 else ""
        if g.text.lower() in ("not", "never") and len(nxt) > 4 and nxt.endswith("ing"):
            return True
        return g.text.lower() == "no" and prev in _NONFINITE_BEFORE

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
        """A generation-time phrase opening the sentence ("When BERT generates, ...") or a
        clause after a colon ("The catch: during generation, ...") governs the clauses after
        it up to a contrast ("..., but ...")."""
        norm = self.sent.norm
        for g in self.hits.get("generation_time", []):
            opens = g.tok <= 1 or norm[: g.start].rstrip().endswith(":")
            if opens and g.end <= h.start:
                between = norm[g.end : h.start]
                return not _CONTRAST_WORD.search(between)
        return False

    def in_scene_opener(self, h: Hit) -> bool:
        """`h` lies in an opening adverbial that sets the scene and names no model ("At
        inference time for generation, the input is a prefix"): it says when, not what a
        model does or is used for."""
        if not SCENE_OPENER.match(self.sent.norm) or len(self.bounds) < 2:
            return False
        end = self.bounds[1]
        if h.start >= end:
            return False
        opener = self.sent.norm[:end]
        return not any(x.start < end for x, _, _ in self.subj) and not _BACKREF.search(opener)

    def clause_has(self, key: str, h: Hit) -> bool:
        return any(self.same_clause(g, h) for g in self.hits.get(key, []))


def _drop_expletive(s: str) -> str:
    return _EXPLETIVE.sub(" ", s)
