"""The causal LM said unable to generate (C5), the wrong claim the question's premise rules out.

"GPT cannot generate coherently", "the causal model can't write fluent text", "GPT is bad at
generation", "GPT fails to generate", "... that is why GPT cannot generate, while BERT can":
an inability to generate asserted of the causal LM, which is the model built and used to
generate. Not an inability under a condition ("GPT cannot generate well without the earlier
tokens", "it can't generate the whole text at once", "if GPT could not see ..."), not a
negated or reported one (`polarity`: those words are no longer in `asserted`), not one
particular model's result ("my tiny GPT couldn't write coherent text after ten minutes", "it
can't generate well yet"), and not said of the masked LM or of both.
"""

from __future__ import annotations

import re

from grader.rubric.facts import CLM, Claim
from grader.rubric.polarity import inside
from grader.rubric.sentence import ParsedSentence

__all__ = ["clm_cannot_generate"]

_CANNOT = re.compile(
    r"\b(?:cannot|can't|can ?not|could not|couldn't|(?:is|are|was|were) (?:not |un)able to|"
    r"isn't able to|aren't able to|fails? to|failed to|struggles? to|"
    r"(?:is|are|was|were) (?:bad|poor|terrible|useless|hopeless|not good|no good) (?:at|for))\s+"
    r"(?:really\s+|actually\s+|properly\s+)?"
    r"(?P<g>generat\w*|writ(?:e|es|ing)|produc(?:e|es|ing)\s+(?:coherent\s+|fluent\s+|good\s+)?"
    r"(?:text|sentences|output)|text generation)",
    re.IGNORECASE,
)
# a quality, or nothing more, after the verb: "generate coherently", "write fluent text",
# "cannot generate." / "cannot generate, while BERT can"
_QUALITY = re.compile(
    r"^(?:\s+(?:(?:\w+\s+){0,2}?(?:coherent\w*|fluent\w*|well|properly|sensibl\w*|"
    r"meaningful\w*|good|readable|any)\b(?:\s+(?:text|sentences|output|language|prose))?))?"
    # the order of generation may follow: "generate coherently from left to right"
    r"(?:\s+(?:from\s+)?left[\s-]to[\s-]right|\s+one (?:word|token) at a time|"
    r"\s+(?:word|token) by (?:word|token))?"
    r"\s*(?:[.,;!)]|$|\b(?:while|whereas|but|unlike|and|at all)\b)",
    re.IGNORECASE,
)
# a condition or a manner that makes the inability true ("without the earlier tokens", "all
# at once", "in parallel", "if ...", "from a masked input")
_CONDITION = re.compile(
    r"\b(?:if|unless|without|would|when|whenever|once|with|at once|in parallel|"
    r"backwards?|right to left|in the middle|bidirectional\w*|both sides|the (?:whole|entire))\b",
    re.IGNORECASE,
)

# the inability elided after an ability: "BERT can generate coherent text, while GPT cannot."
_ELIDED = re.compile(
    r"\b(?:can|could)\s+(?:\w+\s+)?(?:generat\w*|write|produce)\b[^.;]*?"
    r"\b(?:while|whereas|but|and)\s+(?:\w+\s+){1,3}?"
    r"(?P<neg>cannot|can't|can not|could not|couldn't)\s*(?:[.!;)]|$)",
    re.IGNORECASE,
)

# a supposed world before the claim: "in that world it would ...", "imagine ...", "if ..."
_SUPPOSED = re.compile(
    r"\b(?:if|unless|would|imagine|suppose|supposing|in that world|hypothetically|even|"
    # a causal LM of another kind than the trained one: "an untrained GPT", "before training",
    # "a GPT whose mask was removed", "trained like BERT"
    r"untrained|randomly|before (?:any |its )?training|without (?:any )?training|whose|"
    r"(?:gpt\S*|model|lm|decoder)s?\s+(?:that|which)\s+(?:was|is|has|had)|"
    r"trained (?:like|as|with|on)|removed|remove|without|"
    # one particular model's result, not the family's ability: "my tiny GPT", "our nanoGPT
    # after ten minutes of training", "a small GPT-2 trained on one book"
    r"my|our|their|his|her|tiny|small|smaller|little|toy|mini\w*|nano\w*|minutes?|hours?|"
    r"epochs?|steps?|checkpoints?)\b",
    re.I,
)


# "my GPT can't write coherent text yet": a model still training
_YET = re.compile(r"^(?:\s+\w+){0,4}?\s+(?:yet|so far)\b", re.I)


def clm_cannot_generate(ss: ParsedSentence) -> list[Claim]:
    """An inability to generate asserted of the causal LM (`wrong_clm_cannot_generate`)."""
    norm = ss.sent.norm
    for m in _CANNOT.finditer(norm):
        if inside(m.start(), ss.unasserted):
            continue
        rest = norm[m.end("g") :]
        clause = re.split(r"[.;,]|\b(?:while|whereas|but)\b", rest, maxsplit=1)[0]
        if not _QUALITY.match(rest) or _CONDITION.search(norm[: m.start()].split(",")[-1]):
            continue
        if _CONDITION.search(clause) or _SUPPOSED.search(norm[: m.start()]) or _YET.match(rest):
            continue
        if ss.negated(ss._hit("cannot_generate", m.start(), m.end())):
            continue  # "I see no reason it could not generate": no inability claimed
        if ss.subject_at(m.start(), m.end()) == CLM and ss.anchored:
            return [Claim("wrong_clm_cannot_generate", CLM, ss.sent.index, True, True, m.group())]
    for m in _ELIDED.finditer(norm):
        at = m.start("neg")
        if not inside(at, ss.unasserted) and ss.subject_at(at, m.end("neg")) == CLM:
            return [Claim("wrong_clm_cannot_generate", CLM, ss.sent.index, True, True, m.group())]
    return []
