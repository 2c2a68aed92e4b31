"""C4: which model each half of the comparison is about, read from the sentence's structure.

- a generic referent ("the model", "a model", an "it's about ...") in a sentence that names
  no model, in an answer about both families, is no model in particular: its relation is
  general, never a false claim about the model carried from the sentence before
  (`generic_referent`, `scoped`);
- elided halves that hand a relation out to the two models ("GPT is; BERT isn't.", "...,
  for GPT, not for BERT", "GPT's mirrors it, BERT's doesn't") (`handed_out`);
- a comparison object ("..., unlike the masked LM's"): the model named only there is what the
  subject is contrasted with, not the subject (`unlike_object`);
- the masked LM's own mismatch in one sentence ("a situation it never saw in pretraining")
  (`never_met`);
- a mismatch denied where the answer is about the masked LM's generation ("it's not really a
  train/inference mismatch issue", "there's no real mismatch with training") is the masked LM
  said to train as it generates (`denied_mismatch`).

Each reads `Analysis` only and returns claims for `c4.judge_c4`.
"""

from __future__ import annotations

import re
from dataclasses import replace

from grader.rubric.facts import BOTH, CLM, MLM, MODEL_KEYS, Analysis, Claim, SentenceFacts, Subject
from grader.rubric.judgement import _of

_OTHER = {MLM: CLM, CLM: MLM}

# "the model", "a model", "any network": a singular noun that names no family
_GENERIC_NOUN = re.compile(
    r"\b(?:the|a|an|any|your|our|each|every)\s+(?:(?:language|neural|ml|trained|given)\s+)?"
    r"(?:model|network|lm|system)\b(?!\s*\()",
    re.IGNORECASE,
)
_PRONOUN = re.compile(r"\b(?:it|its|it's|itself|they|their|them)\b", re.IGNORECASE)


def _names_both(an: Analysis) -> bool:
    named = set().union(*(f.mentions for f in an.sentences)) if an.sentences else set()
    return MLM in named and CLM in named


# an "it" that refers to nothing: "it's about train/generation consistency", "it all comes
# down to what each model was taught", "it boils down to"
_EXPLETIVE = re.compile(
    r"\bit(?:'s| is| was)\s+(?:all\s+|really\s+|just\s+|simply\s+|mostly\s+)?about\b|"
    r"\bit\s+(?:all\s+|really\s+|just\s+)?(?:comes|came|boils|boiled)\s+down\s+to\b",
    re.IGNORECASE,
)


# an interrogative or free relative that leaves the model open: "the question is which
# model's training matches", "it's whose training matched the job"
_WHICH_ONE = re.compile(
    r"(?:'s|\bis|\bwas|\bquestion|\basks?|\bdepends on|\bmatters|\bknow|\bsee)\s+"
    r"(?:of\s+)?(?:whose|which (?:one|model|family)(?:'s)?|whichever)\b",
    re.IGNORECASE,
)


def generic_referent(an: Analysis, c: Claim) -> bool:
    """The relation `c` is said of a generic referent: its sentence names no model and the
    first word that refers in it is a singular noun naming no family ("The issue is that
    training differs from how the model is used"; "A model should be trained how it will be
    used") or an "it" that refers to nothing ("That's why it's about train/generation
    consistency"), in an answer that names both families. Its subject was carried, not said."""
    if not _names_both(an):
        return False
    f = an.fact(c.sentence)
    if f.mentions:
        return False
    norm = f.sentence.norm
    at = norm.find(c.text) if c.text else -1
    x = _EXPLETIVE.search(norm)
    if x is not None and (at < 0 or x.start() < at):
        return True
    q = _WHICH_ONE.search(norm)
    if q is not None and 0 <= at and q.start() < at:
        return True  # "it's whose training matched the job": which model, asked, not said
    g = _GENERIC_NOUN.search(norm)
    if g is None:
        return False
    p = _PRONOUN.search(norm)
    return p is None or g.start() < p.start()


# one elided half: a model, then at most an auxiliary and a denial ("BERT isn't", "GPT's
# does", "not for BERT", "for GPT", "BERT not", "yes for GPT")
_AUX = r"(?:does|do|did|is|are|was|were|has|have|can|could|would|will)"
_LEAD = re.compile(
    r"^\W*(?:(?:but|and|while|whereas|yet|so)\s+)?(?:(?:yes|no|true|false)\s+)?"
    r"(?P<neg>not\s+|never\s+)?(?:(?:only|just|also)\s+)?(?:for\s+|with\s+|in\s+)?(?:the\s+)?$",
    re.IGNORECASE,
)
_TAIL = re.compile(
    rf"^(?:'s)?(?:\s+(?:one|case|side|training|model))?\s*(?:{_AUX}(?P<neg>n't|\s+not)?|"
    r"(?P<neg2>not|no))?\s*(?:too|either|though|really|at all)?\W*$",
    re.IGNORECASE,
)
# the last clause of a line that stops after a conjunction and a model name, with no stop:
# the student ran out of time ("So GPT trains the way it generates, and BERT")
_CUT_OFF = re.compile(
    r"^\W*(?:but|and|while|whereas|yet|so)\s+(?:the\s+)?[\w-]+(?:\s+\w+)?\s*$", re.I
)
_CUT_OFF_TAIL = re.compile(
    r"\s(?:but|and|while|whereas|yet)\s+(?:the\s+)?(?P<name>[\w-]+(?:\s+\w+)?)\s*$", re.I
)
_CLAUSE_BREAK = re.compile(r"[;,:]|\s(?:but|while|whereas)\s|\s-\s", re.IGNORECASE)


def _halves(f: SentenceFacts, start: int = 0) -> list[tuple[Subject, bool]] | None:
    """The elided halves of `f` after offset `start`, in order, each (model, denied); None
    unless every clause there is one ("GPT is; BERT isn't.")."""
    norm = f.sentence.norm
    cuts = [start] + [m.end() for m in _CLAUSE_BREAK.finditer(norm) if m.start() >= start]
    ends = cuts[1:] + [len(norm)]
    out: list[tuple[Subject, bool]] = []
    for a, b in zip(cuts, ends, strict=True):
        piece = norm[a:b]
        if not piece.strip(" .;,:-"):
            continue
        hits = [
            (h, code)
            for code, key in MODEL_KEYS.items()
            for h in f.hits.get(key, [])
            if a <= h.start and h.end <= b
        ]
        if len(hits) != 1:
            return None
        h, code = hits[0]
        lead = _LEAD.match(norm[a : h.start])
        tail = _TAIL.match(norm[h.end : b])
        if lead is None or tail is None:
            return None
        if not (lead.group(0).strip(" ,;:-") or tail.group(0).strip(" .,;:-'s")):
            return None  # a bare name ("Causal LM") is a heading, not an elided half
        if b == len(norm) and _CUT_OFF.match(norm[a:]):
            return None  # "..., but BERT" and the line stops: cut off, it says nothing of BERT
        denied = bool(lead.group("neg") or tail.group("neg") or tail.group("neg2"))
        if lead.group("neg") and (tail.group("neg") or tail.group("neg2")):
            return None  # "not for BERT not": read by nobody
        out.append((code, denied))
    return out or None


def cut_off_model(f: SentenceFacts) -> Subject | None:
    """The model named only in the last clause of `f` when that clause stops right after a
    conjunction and the name, with no stop ("So GPT trains the way it generates, and BERT"):
    the line was cut off, so it says nothing of that model, nor compares it."""
    m = _CUT_OFF_TAIL.search(f.sentence.norm)
    if m is None:
        return None
    late = [
        code
        for code, key in MODEL_KEYS.items()
        if (hs := f.hits.get(key, [])) and all(h.start >= m.start("name") for h in hs)
    ]
    return late[0] if len(late) == 1 else None


def handed_out(an: Analysis, rels: list[Claim]) -> list[Claim]:
    """Halves that hand the relations `rels` out to the two models: a sentence made only of
    elided halves right after the relation's sentence ("A model should be trained how it
    will be used. GPT is; BERT isn't."), or halves ending the relation's own sentence after
    it ("Green in CI means green in prod for GPT, not for BERT"; "GPT's mirrors it, BERT's
    doesn't"). Each half says the relation (denied: its opposite) of the model it names; the
    claims are placed on the half's sentence. Both models must get a half."""
    pos = {f.sentence.index: k for k, f in enumerate(an.sentences)}
    out: list[Claim] = []
    for c in rels:
        k = pos[c.sentence]
        f = an.sentences[k]
        found: list[tuple[int, list[tuple[Subject, bool]]]] = []
        nxt = an.sentences[k + 1] if k + 1 < len(an.sentences) else None
        if nxt is not None and not nxt.claims and len(nxt.mentions) == 2:
            h = _halves(nxt)
            if h:
                found.append((nxt.sentence.index, h))
        at = f.sentence.norm.find(c.text) if c.text else -1
        if at >= 0:
            cut = [m.end() for m in _CLAUSE_BREAK.finditer(f.sentence.norm) if m.start() >= at]
            for s in cut:
                h = _halves(f, s)
                if h:
                    # the relation's own clause is about the first half's model when it
                    # names one ("GPT's mirrors it, BERT's doesn't")
                    found.append((f.sentence.index, h))
                    break
            else:
                h = _trailing_for(f, at + len(c.text))
                if h:
                    found.append((f.sentence.index, h))
        for i, halves in found:
            codes = {code for code, _ in halves}
            own = c.subject in (CLM, MLM) and c.subject not in codes
            if not ({MLM, CLM} <= codes or (own and len(codes) == 1)):
                continue
            for code, denied in halves:
                same = (c.kind == "relation_same") != denied
                kind = "relation_same" if same else "relation_diff"
                out.append(Claim(kind, code, i, True, True, c.text))
            break
    return out


# "... green in prod for GPT, not for BERT": the halves written as "for" phrases
_FOR_PAIR = re.compile(
    r"\bfor\s+(?:the\s+)?(?P<a>\S+(?:\s+\S+)?)\s*,?\s*(?:but\s+)?(?P<neg>not|never)\s+"
    r"(?:for\s+)?(?:the\s+)?(?P<b>\S+(?:\s+\S+)?)\W*$",
    re.IGNORECASE,
)


def _trailing_for(f: SentenceFacts, start: int) -> list[tuple[Subject, bool]] | None:
    norm = f.sentence.norm
    m = _FOR_PAIR.search(norm, start)
    if m is None:
        return None
    out: list[tuple[Subject, bool]] = []
    for grp, denied in (("a", False), ("b", True)):
        a, b = m.start(grp), m.end(grp)
        codes = {
            code
            for code, key in MODEL_KEYS.items()
            for h in f.hits.get(key, [])
            if h.start < b and a < h.end
        }
        if len(codes) != 1:
            return None
        out.append((codes.pop(), denied))
    return out


# the comparison object: "unlike the masked LM's", "in contrast to GPT"
_UNLIKE_BEFORE = re.compile(
    r"\b(?:unlike|in contrast to|as opposed to|contrary to|compared to|compared with)\s+"
    r"(?:the\s+|with\s+)?$",
    re.IGNORECASE,
)


# a relative clause opened on the compared model: what follows is said of that model
_RELATIVE_AFTER = re.compile(r"\W*(?:'s\s+\w+\s*)?,?\s*(?:whose|which|who|where)\b", re.I)


def unlike_object(an: Analysis, c: Claim) -> list[Claim]:
    """ "Its training condition matches generation, unlike the masked LM's.": in a sentence
    whose subject is a pronoun (no model as its subject), a model named only after "unlike"
    is what the subject is contrasted with. A relation that took that model as its subject is
    about the other model, and the object gets the opposite relation. Returns the claims that
    replace `c` ([c] itself when the pattern is absent)."""
    if c.subject not in (CLM, MLM):
        return [c]
    f = an.fact(c.sentence)
    if f.subjects:
        return [c]
    norm = f.sentence.norm
    hits = [(h, code) for code, key in MODEL_KEYS.items() for h in f.hits.get(key, [])]
    if len(hits) != 1 or hits[0][1] != c.subject:
        return [c]
    h, code = hits[0]
    if not _UNLIKE_BEFORE.search(norm[: h.start]):
        return [c]
    at = norm.find(c.text, h.end) if c.text else -1
    if at >= 0 and _RELATIVE_AFTER.match(norm, h.end):
        return [c]  # "..., unlike BERT, whose training is one generation never provides"
    other = "relation_diff" if c.kind == "relation_same" else "relation_same"
    return [replace(c, subject=_OTHER[code]), Claim(other, code, c.sentence, True, True, c.text)]


# a mismatch word denied: "not really a ... mismatch", "no real mismatch", "isn't a mismatch"
def denied_mismatch(an: Analysis) -> list[Claim]:
    """A train/use mismatch denied in a clause that names no model as its subject ("It's not
    really a train/inference mismatch issue; ...", "there's no real mismatch with training
    because a final [MASK] is just another masked position"), in a sentence about the masked
    LM (it names it, or carries it from the sentence before) and not naming the causal LM in
    that clause: the masked LM said to train as it generates, a false claim (quoted)."""
    out: list[Claim] = []
    for f in an.sentences:
        diff_words = {h.text.lower() for h in f.hits.get("diff_relation", [])}
        about_mlm = (MLM in f.mentions or f.primary == MLM) and CLM not in f.mentions
        # "no mismatch between how it learned and how it is used, unlike BERT": the masked LM
        # named only as the comparison object of a sentence that goes on about the causal LM
        about_mlm = about_mlm and not (f.primary == CLM and MLM not in f.subjects)
        if not diff_words or not (about_mlm or f.primary == BOTH):
            continue
        norm = f.sentence.norm
        for c in f.kinds("relation_same"):
            if c.text.lower() not in diff_words or not c.strong:
                continue
            at = norm.find(c.text)
            a = max([m.end() for m in _CLAUSE_BREAK.finditer(norm) if m.end() <= at] or [0])
            b = min(
                [m.start() for m in _CLAUSE_BREAK.finditer(norm) if m.start() >= at] or [len(norm)]
            )
            named = [
                h
                for key in ("masked_model", "causal_model", "both_models")
                for h in f.hits.get(key, [])
                if a <= h.start < b
            ]
            if named:
                continue  # "GPT has no mismatch": said of the model its clause names
            out.append(Claim("relation_same", MLM, f.sentence.index, True, True, c.text))
            break
    return out


def scoped(an: Analysis, same: list[Claim], diff: list[Claim]) -> tuple[list[Claim], list[Claim]]:
    """The relations with the model each is about: a comparison object
    ("unlike the masked LM's") is not the subject; a generic referent ("the model") carried
    from the sentence before makes no false claim (the relation is general)."""
    out: list[Claim] = []
    for c in same + diff:
        for d in unlike_object(an, c):
            wrong = (d.kind == "relation_same" and d.subject == MLM) or (
                d.kind == "relation_diff" and d.subject == CLM
            )
            out.append(replace(d, subject=None) if wrong and generic_referent(an, d) else d)
    return [c for c in out if c.kind == "relation_same"], [
        c for c in out if c.kind == "relation_diff"
    ]


def never_met(an: Analysis) -> list[Claim]:
    """The masked LM's own mismatch in one sentence: a difference relation about it with a
    never-trained phrase there ("a situation it never saw in pretraining"), the causal LM not
    named."""
    out = []
    for f in an.sentences:
        if CLM in f.mentions or not _of(f.kinds("never_trained"), MLM):
            continue
        out += [c for c in _of(f.kinds("relation_diff"), MLM) if c.strong][:1]
    return out


# a model the sentence qualifies as imagined ("only the counterfactual BERT was trained for
# that", "a hypothetical masked model trained on prefixes"): what is said of it is no claim
# about the real one
_IMAGINED = re.compile(
    r"\b(?:counterfactual|hypothetical|imaginary|imagined|fictional|fictitious|pretend),?\s+"
    r"(?:\w+\s+)?(?:bert|gpt|models?|masked|causal|encoders?|decoders?|versions?|twins?)\b",
    re.IGNORECASE,
)


def imagined_model(an: Analysis, i: int) -> bool:
    """Sentence `i` speaks of an imagined model."""
    return bool(_IMAGINED.search(an.fact(i).sentence.norm))
