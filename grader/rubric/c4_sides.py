"""C4's two sides said in other words: the training condition of the C2 link stated just
before it and what training had that is gone when the model is used (the masked side); the
causal LM's training restriction repeated word for word for generation (the causal side);
the objective called the generation task (one side); the contrast denied (training alike, the
difference put down to size) and a lesser mismatch set beside the causal side.

Each reads `Analysis` only and returns sentence indices or claims for `c4.judge_c4`.
"""

from __future__ import annotations

import re

from grader.rubric.c4_gap_cause import CONDITION_WORDS, gap_put_elsewhere
from grader.rubric.facts import BOTH, CLM, MLM, MODEL_KEYS, Analysis, Claim, SentenceFacts
from grader.rubric.judgement import LINK_WINDOW, Judgement


def masked_training_before(an: Analysis, c2: Judgement) -> list[int]:
    """The training condition of the C2 link said just before it, about the masked LM ("BERT
    is trained with blanks and reads both sides. ... At generation, since BERT needs the words
    that are not there yet, it fails."): a sentence about the masked LM with a training word,
    up to `LINK_WINDOW` before the link (the first one, as the quote)."""
    if not c2.evidence:
        return []
    lo = min(c2.evidence)
    return [
        f.sentence.index
        for f in an.sentences
        if lo - LINK_WINDOW <= f.sentence.index < lo
        and f.primary == MLM
        and CLM not in f.mentions
        and training_said(f)
    ][:1]


# the objective named is the task (C1), not a condition of training: "BERT's objective is
# masked-token prediction using both sides" states what it predicts, not what it trained with
_OBJECTIVE_ONLY = re.compile(r"objectives?", re.IGNORECASE)


def training_said(f: SentenceFacts) -> bool:
    """The sentence says something about training itself: a training word other than the
    objective's name ("is trained with", "learned", "never trained without"). "BERT's
    objective is masked-token prediction" describes the task, which C1 reads."""
    if f.has("never_trained"):
        return True
    return any(not _OBJECTIVE_ONLY.fullmatch(h.text.strip()) for h in f.hits.get("training", []))


# something present in training that is gone on a later occasion: "help that is gone on
# opening night", "a crutch that disappears at test time" (not "words gone from the input":
# that is the masking itself)
_GONE_LATER = re.compile(
    r"\b(?:gone|disappears?|disappeared|vanish(?:es|ed)?|taken away|no longer there)\W+"
    r"(?:\w+\W+)?(?:on|at|when|once|during)\b",
    re.IGNORECASE,
)


def gone_at_use(an: Analysis) -> list[Claim]:
    """The masked side as what its training had and the use takes away: a sentence about the
    masked LM (named or pointed to, the causal LM not named) with a training word and
    something gone on a later occasion ("BERT's training is rehearsing with a prompter whose
    help is gone on opening night"). A difference, so never a false claim about BERT."""
    out = []
    for f in an.sentences:
        if f.primary != MLM or CLM in f.mentions or not f.has("training"):
            continue
        m = _GONE_LATER.search(f.asserted or f.sentence.norm)
        if m is not None:
            out.append(Claim("relation_diff", MLM, f.sentence.index, True, True, m.group(0)))
    return out


def _trains(f: SentenceFacts) -> bool:
    return f.has("training") or f.has("never_trained")


def same_range_twice(an: Analysis) -> list[Claim]:
    """The causal side as one restriction said twice in the same words: the causal LM's
    earlier context in a training sentence ("GPT learns to predict token i+1 from tokens <= i
    only") and the same phrase as all there is at generation, restricted ("When you sample
    you only have tokens <= i anyway"). The generation sentence must not be about the masked
    LM."""
    trained = {
        c.text.lower()
        for f in an.sentences
        if _trains(f) and not f.has("generation_time")
        for c in f.claims
        if c.kind == "uses_earlier" and c.subject == CLM and c.strong and len(c.text) > 4
    }
    out = []
    for f in an.sentences:
        if _trains(f) or not f.has("only") or MLM in f.subjects:
            continue
        for c in f.claims:
            if c.kind == "uses_earlier" and c.gen_ctx and c.subject in (None, CLM):
                if c.text.lower() in trained:
                    out.append(Claim("relation_same", CLM, f.sentence.index, True, True, c.text))
                    break
    return out


# training named and denied as what explains the difference: "so the training is not the
# difference", "the training setup isn't really what makes the difference"
_NOT_THE_REASON = re.compile(
    r"\b(?:train\w*|learn\w*|setup|objectives?)\b[^.;:]*?\b(?:is|are|was|were)(?:n't|\s+not)"
    r"\s+(?:\w+\s+){0,3}?(?:the\s+)?(?:difference|reason|cause|explanation|issue|problem)\b",
    re.IGNORECASE,
)
# the difference put down to something else: "the difference ... must come from model size",
# "the real reason is that GPT has a decoder", "the difference is only the architecture"
_ELSEWHERE = re.compile(
    r"\b(?:the\s+)?(?:real\s+|actual\s+|only\s+)?(?:difference|gap|reason|cause|explanation)\b"
    r"(?:\s+\w+){0,4}?\s+(?:must|has to|can only|should|would)?\s*(?:come|comes|be|is|lies)\s+"
    r"(?:(?:only|just|really|simply|then)\s+)?(?:from|in|down to|due to|that|the|its|their)\b",
    re.IGNORECASE,
)


# the difference put down to size or fame: "gpt is just bigger", "bert isn't big enough to
# generate", "gpt-3 has 175B params", "GPT got more money" (no condition of what is seen)
_SIZE = re.compile(
    r"\b(?:(?:way |much |just |a lot )?(?:bigger|larger)|big enough|more (?:data|money|compute|"
    r"parameters|params)|\d+\s*[bm]\s*param\w*|(?:model )?size|scal(?:e|ing)(?: (?:up|them))?)\b",
    re.IGNORECASE,
)
_IN_TRAINING = re.compile(
    r"^[^.;:]{0,40}?\b(?:train\w*|pretrain\w*|learn\w*|objectives?)\b", re.IGNORECASE
)

# "the same recipe", "alike", "similarly", "the only difference is ..." (the rest the same)
_ALIKE = re.compile(r"\b(?:the same|alike|similar(?:ly)?|only difference)\b", re.IGNORECASE)


def _alike_in_training(f: SentenceFacts) -> bool:
    """The sentence says the two models train alike: both named together as its subject
    ("both models", "BERT and GPT"; not one clause per model, "GPT ... and BERT doesn't"), a
    training word, and a sameness (or "the only difference is ...", the rest the same)."""
    both = BOTH in f.subjects
    alike = bool(f.kinds("relation_same") or _ALIKE.search(f.asserted or f.sentence.norm))
    return both and _trains(f) and alike


def training_dismissed(an: Analysis) -> list[Claim]:
    """The C4 contrast denied: the two models said to train alike ("Both models are trained
    the same way: show them text, hide a piece, predict it") and, in that sentence or up to
    `LINK_WINDOW` after it, training dismissed as what explains the difference ("so the
    training is not the difference") or the difference put down to something else that is no
    condition of what the models see ("the difference must come from model size"). Together
    they say the masked LM trains under the conditions the causal LM does: a false claim
    (`mlm_consistent`) quoted from the dismissal."""
    pos = {f.sentence.index: k for k, f in enumerate(an.sentences)}
    out: list[Claim] = []
    for f in an.sentences:
        if not _alike_in_training(f):
            continue
        k = pos[f.sentence.index]
        for g in an.sentences[k : k + LINK_WINDOW + 1]:
            text = g.asserted or g.sentence.norm
            m = _NOT_THE_REASON.search(text) or _ELSEWHERE.search(text) or _SIZE.search(text)
            # "the difference is in the game they play during training": the difference put
            # in training itself is the contrast, not training dismissed
            if m is not None and m.re is _ELSEWHERE and _IN_TRAINING.search(text[m.end() :]):
                m = None
            if m is not None and not CONDITION_WORDS.search(text[m.end() :]):
                out.append(Claim("relation_same", BOTH, g.sentence.index, True, True, m.group(0)))
                break
            # "..., so there is no difference between how they learn and how they are used":
            # the sameness itself set between training and use, for both (no contrast, and no
            # condition of what they see that the sameness could be about)
            if g is f and _uses_named(f) and not _CONTRAST_OR_CONDITION.search(text):
                out.append(Claim("relation_same", BOTH, f.sentence.index, True, True, ""))
                break
    return out + (_mismatch_denied(an, out) or ([] if out else gap_put_elsewhere(an)))


# the train/generation mismatch itself denied as the issue: "it's not really a train/inference
# mismatch issue", "so the training isn't really the issue" (not "... the only issue")
_MISMATCH_DENIED = re.compile(
    r"\b(?:not|n't)\s+(?:really\s+|actually\s+|just\s+)?(?:an?\s+|the\s+)?train\w*\W{1,3}"
    r"(?:vs\.?\W+|versus\W+)?(?:inference|generation|gen|test|use|usage)\W+"
    r"(?:mismatch|gap|discrepancy|difference)\b",
    re.IGNORECASE,
)
_ONLY_REASON = re.compile(r"\b(?:only|main|whole|sole)\s+(?:\w+\s+)?$", re.I)


def _mismatch_denied(an: Analysis, found: list[Claim]) -> list[Claim]:
    """Training (or the train/generation mismatch) denied as the issue, with the difference
    put down to size or scale in that sentence or up to `LINK_WINDOW` around it ("Root cause:
    model size. ... It's not really a train/inference mismatch issue"; "So the training isn't
    really the issue, it's scale"): the C4 principle denied for both models, whether or not
    they were said to train alike (`training_dismissed`). Nothing when a condition of what
    the models see follows the denial, or it denies only exclusiveness ("not the only issue")."""
    if found:
        return []
    sents = an.sentences
    for k, g in enumerate(sents):
        text = g.asserted or g.sentence.norm
        m = _MISMATCH_DENIED.search(text) or _NOT_THE_REASON.search(text)
        if m is None or _ONLY_REASON.search(text[: m.end()].rsplit(" ", 1)[0] + " "):
            continue
        clause = re.split(r"[;.]", text[m.end() :], maxsplit=1)[0]
        if CONDITION_WORDS.search(clause):
            continue  # "not a mismatch of the context ...": the condition itself is named
        near = sents[max(0, k - LINK_WINDOW) : k + LINK_WINDOW + 1]
        if any(_SIZE.search(f.asserted or f.sentence.norm) for f in near):
            return [Claim("relation_same", BOTH, g.sentence.index, True, True, m.group(0))]
    return []


_CONTRAST_OR_CONDITION = re.compile(
    rf"\b(?:but|while|whereas|however|yet|unlike|except)\b|{CONDITION_WORDS.pattern}", re.I
)


def _uses_named(f: SentenceFacts) -> bool:
    return f.has("generation") or f.has("generation_time")


# an analogy's figure with a habit of practice: "a cook who has only ever finished dishes ...",
# "a pianist who has always practised with the score", "learning to drive with a guide",
# "you wouldn't prepare for an exam by ..."
_PRACTICE = re.compile(
    r"\b(?:has|have|had)\s+(?:only\s+)?(?:ever|always)\b|\bonly\s+ever\b|"
    r"\balways\s+(?:\w+\s+)?(?:practi\w+|train\w*|learn\w*|prepar\w*|rehears\w*|started|did)\b|"
    r"\b(?:practi[sc]\w*|prepar\w*|rehears\w*)\b|\blearn\w*\s+(?:to|with|by|on)\b",
    re.IGNORECASE,
)
# the performance set against the practice: a second figure ("versus a cook who ...") or what
# the figure will or cannot do when it counts ("will stumble when asked to improvise")
_PERFORMANCE = re.compile(
    r"\b(?:versus|vs|whereas|unlike|another|the other|the second(?: one)?)\b|"
    r"\bon (?:the )?(?:exam|test|match|game|race|competition|performance) day\b|"
    r"\b(?:will|won't|would|wouldn't|can't|cannot|couldn't|not be able)\b",
    re.IGNORECASE,
)


def practice_analogy(an: Analysis) -> list[Claim]:
    """An unmapped analogy of the training-vs-use mismatch: in an answer that names both
    families, a sentence naming neither gives a figure's habit of practice and sets the
    performance against it, in that sentence or the next one that also names no model ("A
    pianist who has always practised with the whole score open will stumble when asked to
    improvise." / "... versus a cook who has always started from an empty pan."). Which model
    is which is left to the reader: a vague "training differs from use", partial at most."""
    named = set().union(*(f.mentions for f in an.sentences)) if an.sentences else set()
    if not {MLM, CLM} <= named:
        return []
    out: list[Claim] = []
    for k, f in enumerate(an.sentences):
        if f.mentions or f.list_like:
            continue
        text = f.asserted or f.sentence.norm
        m = _PRACTICE.search(text)
        if m is None:
            continue
        nxt = an.sentences[k + 1] if k + 1 < len(an.sentences) else None
        rest = text[: m.start()] + " " + text[m.end() :]
        if not _PERFORMANCE.search(rest) and not (
            nxt is not None
            and not nxt.mentions
            and _PERFORMANCE.search(nxt.asserted or nxt.sentence.norm)
        ):
            continue
        out.append(Claim("relation_diff", None, f.sentence.index, False, True, m.group(0)))
    return out


# the use said to be unlike what was just described: "Writing a story is not like that at all",
# "Generation is nothing like this", "Generation is a different exam"
_UNLIKE_THAT = re.compile(
    r"\b(?:is|are|was|were)(?:n't|\s+not)\s+(?:\w+\s+)?like\s+(?:that|this|it)\b|"
    r"\bnothing like\s+(?:that|this|it)\b|\b(?:is|are)\s+a\s+(?:completely\s+|very\s+)?"
    r"different\s+(?:exam|test|game|task|job|situation|story|thing)\b",
    re.IGNORECASE,
)


def unlike_the_masked_training(an: Analysis) -> list[Claim]:
    """The masked side as the use denied to be like the masked LM's training just described:
    a sentence naming generation and no model that calls it unlike "that" ("Writing a story
    is not like that at all"), right after one about the
    masked LM's training or what it sees when it fills a blank (the sentence just before, what
    "that" points back to), the causal LM not named there."""
    out: list[Claim] = []
    for k, f in enumerate(an.sentences):
        if f.mentions or not (f.has("generation") or f.has("generation_time")):
            continue
        m = _UNLIKE_THAT.search(f.asserted or f.sentence.norm)
        if m is None:
            continue
        g = an.sentences[k - 1] if k else None  # what "that" points back to
        if (
            g is not None
            and g.primary == MLM
            and CLM not in g.mentions
            and (_trains(g) or g.kinds("see_both") or g.kinds("predicts_masked"))
        ):
            out.append(Claim("relation_diff", MLM, f.sentence.index, True, True, m.group(0)))
    return out


# "GPT is trained precisely for continuing text, which is what generation is", "so GPT matches
# the task": the causal LM's objective is the generation task. A match of tasks, not of the
# information conditions: one side, partial at most, whichever models the sentence names.
_TASK_MATCH = re.compile(
    r"\b(?:which|that|this|it)(?: is|'s) (?:just |exactly |precisely |basically )?what "
    r"(?:text )?(?:generation|generating|writing|sampling|decoding) (?:is|needs|requires|means)\b|"
    r"\bmatch(?:es)? (?:the|this|that) (?:task|job|use)\b|"
    # "... guesses the next word, that's literally how it writes too" (apostrophe optional)
    r"\b(?:which|that|this)(?: is|'s|s) (?:\w+ )?how (?:it|they) (?:\w+ )?"
    r"(?:writes?|generates?|produces? text|is used)\b|"
    # round 9, the classroom's words for the same fit: "so GPT fits generation", "for GPT this
    # is natural", "the causal LM is simply doing its job", "business as usual", "what it
    # practised is what it does"
    r"\bfits? (?:text )?(?:generation|generating|writing|it|that|the task|the job)\b|"
    r"\b(?:this|that|it|generation|writing)(?: is|'s) (?:\w+ )?natural\b|"
    r"\bdoing (?:its|their) (?:\w+ )?(?:job|thing|task)\b|\bbusiness as usual\b|"
    r"\bwhat (?:it|they) (?:practi[sc]ed|learned|learnt|trained (?:on|for)) is (?:exactly )?"
    r"what (?:it|they) (?:does|do)\b",
    re.IGNORECASE,
)


# round 11: the use defined as the causal objective, "writing a text means predicting the next
# word again and again": a task match for the model trained on next-word prediction
_USE_IS_NEXT_WORD = re.compile(
    r"\b(?:generation|generating|writing|producing)(?: (?:a |the )?text)? (?:just |basically )?"
    r"(?:means|is|amounts to|comes down to|boils down to) (?:just |basically |simply )?"
    r"(?:predicting|guessing|choosing) (?:the |a |each )?next (?:word|token)s?\b",
    re.IGNORECASE,
)


def task_match(an: Analysis) -> list[Claim]:
    out = []
    trains_next = any(c.subject == CLM for c in an.claims("predicts_next"))
    for k, f in enumerate(an.sentences):
        u = _USE_IS_NEXT_WORD.search(f.asserted or f.sentence.norm)
        if u is not None and trains_next:
            out.append(Claim("relation_same", CLM, f.sentence.index, False, True, u.group(0)))
            continue
        m = _TASK_MATCH.search(f.asserted or f.sentence.norm)
        if m is None:
            continue
        # the model named last before the phrase, else the one the sentence before was about
        named = [
            (h.start, code)
            for code, key in MODEL_KEYS.items()
            for h in f.hits.get(key, [])
            if h.start < m.start()
        ]
        prev = an.sentences[k - 1].primary if k else None
        about = max(named)[1] if named else (prev if not f.subjects else None)
        if about == CLM:
            out.append(Claim("relation_same", CLM, f.sentence.index, False, True, m.group(0)))
    return out


# "a smaller mismatch for GPT called exposure bias", "only a minor shift": a lesser, other
# mismatch set beside the one the argument is about (which words are on the left), not it
_LESSER = re.compile(
    r"\b(?:smaller|minor|slight|tiny|little|lesser|much smaller|second(?:ary)?|another kind of|"
    r"a different kind of)\W+(?:\w+\W+)?$",
    re.IGNORECASE,
)


def lesser_mismatch(an: Analysis, c: Claim) -> bool:
    """The causal LM's difference relation `c` is qualified as a lesser one ("There is a
    smaller mismatch for GPT called exposure bias"). With the causal side stated in another
    sentence (`judge_c4` checks) it is a second, smaller effect, not the causal LM having the
    rubric's mismatch."""
    f = an.fact(c.sentence)
    at = f.sentence.norm.find(c.text) if c.text else -1
    return at > 0 and bool(_LESSER.search(f.sentence.norm[:at]))


# the causal restriction set against the masked LM's loss ("GPT, on the other hand, ..."), or
# said of the causal LM's whole past ("it only ever used the left side") or of both conditions
# ("ask the same two questions about GPT: in both cases, only the left")
_SET_AGAINST = re.compile(
    r"\b(?:on the other hand|by contrast|in contrast|whereas|unlike|conversely|however|instead)\b",
    re.IGNORECASE,
)
_WHOLE_PAST = re.compile(
    r"\b(?:always|ever|never|throughout|all along|both times)\b|"
    r"\b(?:in|for) (?:both|either|each) (?:cases?|settings?|situations?|conditions?|phases?)\b",
    re.IGNORECASE,
)


def restriction_tied(an: Analysis, near: int, link: tuple[int, ...]) -> bool:
    """The causal restriction near the C2 link is the causal side of the comparison, not a
    description of the causal LM ("GPT predicts from only the earlier tokens"): it is said in
    the link sentence, of the model's whole past or of both conditions ("in both cases, only
    the left"), set against the masked LM's loss ("GPT, on the other hand, ..."), or carried to
    both conditions by a sentence after it about the causal LM ("So they have the same info at
    generation as in training"). A training word alone does not tie it (round 12): "GPT is
    trained to predict each token from only the tokens before it" after the masked LM's
    failure describes the causal LM's objective; nothing says generation gives the same."""
    if near in link:
        return True
    f = an.fact(near)
    norm = f.asserted or f.sentence.norm
    if _WHOLE_PAST.search(norm):
        return True
    if _SET_AGAINST.search(norm):
        return True
    return any(
        g.has("training")
        and (g.has("generation") or g.has("generation_time"))
        and MLM not in g.mentions
        for g in an.sentences
        if near < g.sentence.index <= near + LINK_WINDOW
    )
