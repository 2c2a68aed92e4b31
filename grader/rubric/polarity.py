"""Which parts of a sentence the student does not assert.

    unasserted_spans(norm) -> list[(start, end)]

A claim counts (for credit or as a false claim) only when the student states it. These frames
put a claim on stage without stating it, and the scorer treats the text they govern as
neither evidence nor error:

- reported views: "People think ...", "A classmate wrote ...", up to "but" / "however" /
  "actually";
- denial frames: "Nobody believes that ...", "It is false / not true / a myth that ...",
  "Contrary to the belief that ...", "The claim that ... is wrong";
- quoted claims the sentence rejects: '"BERT can generate" is wrong', '"GPT sees the entire
  sentence" - that is what I thought, but it is not true';
- questions: a sentence that opens like a question and ends with "?" ("Does GPT see them?");
  a statement with a rising "?" ("... so they don't have that problem?") stays a statement;
- counterfactual suppositions about a model: "If BERT could only see the left context ...",
  "Suppose BERT were trained ...", up to the clause that returns to fact ("; but", "in
  reality", "which is why", ":"). A supposed *use* ("if you used BERT to generate ...") is
  how students describe the generation condition, so it stays asserted.

Offsets are into the sentence's normalised text (`Sentence.norm`). Pure functions, no state.
"""

from __future__ import annotations

import re

# -- the end of a frame's scope -------------------------------------------------------------
_RETURN = re.compile(
    r"[;:]|\s[\u2014\u2013-]\s|\b(?:but|however|actually|in fact|in reality|instead|"
    r"which is why|that is why|that's why|this is why)\b",
    re.IGNORECASE,
)
_REPORTED = re.compile(
    r"\b(?:(?:people|some(?: people| students)?|many(?: people| students)?|others|one|you|"
    r"students|someone|a (?:classmate|friend|student|colleague|blog post|tutorial)|"
    r"(?:my|our) (?:\w+ )?(?:classmate|friend|colleague|roommate|flatmate|housemate|partner|"
    r"teacher|tutor|brother|sister)|it is often)\s+"
    r"(?:might\s+|may\s+|would\s+|often\s+|usually\s+|sometimes\s+|commonly\s+|once\s+)?"
    r"(?:think|thinks|thought|say|says|said|believe|believes|believed|claim|claims|claimed|"
    r"assume|assumes|assumed|expect|wrote|writes|argue|argues|argued|suggested|"
    r"told (?:me|us)|tells (?:me|us))|"
    r"it(?: is|'s| was)\s+(?:often\s+|sometimes\s+|commonly\s+|widely\s+|frequently\s+|"
    r"usually\s+)?(?:claimed|said|believed|thought|assumed|argued|suggested))\b",
    re.IGNORECASE,
)
_REJECT = (
    r"(?:false|untrue|not true|wrong|incorrect|mistaken|a myth|a misconception|a mistake|"
    r"misleading|nonsense|not (?:right|correct|the case))"
)
# "Nobody (seriously) thinks that", "It is false that", "It would be wrong to say that",
# "Contrary to the popular belief that": everything after the frame is the denied view.
_DENY_PREFIX = re.compile(
    r"\b(?:(?:nobody|no one|no-one|no serious \w+)\s+(?:\w+\s+)?"
    r"(?:thinks|believes|claims|says|argues|assumes|would (?:say|claim|argue|think)|"
    r"(?:should|can|could|would|must)\s+(?:conclude|infer|think|assume|believe|say|claim)"
    r"(?:\s+from\s+(?:this|that|it))?)"
    r"(?:\s+that)?|"
    r"it(?:'s|\s+is|\s+was|\s+would\s+be)\s+(?:simply\s+|just\s+|plainly\s+)?" + _REJECT + r"\s+"
    r"(?:to\s+(?:say|think|claim|believe|assume)\s+)?(?:that\b)?|"
    r"contrary\s+to\s+(?:the\s+|a\s+)?(?:popular\s+|common\s+|widespread\s+)?"
    r"(?:belief|claim|idea|view|myth|assumption|intuition)s?(?:\s+that)?)",
    re.IGNORECASE,
)
# "The claim that X is wrong": the span between "that" and the rejection is denied.
_DENY_NOUN = re.compile(
    r"\b(?:the|a|this|that|any)\s+(?:(?:common|popular|usual|naive|old)\s+)?"
    r"(?:claim|idea|belief|notion|view|statement|assumption|myth|misconception|argument|"
    r"intuition|suggestion)\s+that\b",
    re.IGNORECASE,
)
_DENY_TAIL = re.compile(
    r"\b(?:is|was|are|were)\s+(?:simply\s+|just\s+|plainly\s+|completely\s+)?" + _REJECT,
    re.IGNORECASE,
)
_QUOTED = re.compile(r"\"([^\"]{8,}?)\"|(?<!\w)'([^']{8,}?)'(?!\w)")
_QUOTE_REJECT = re.compile(
    r"\b(?:" + _REJECT[3:-1] + r"|isn't (?:true|right|so)|is not (?:true|right|so)|"
    r"what i (?:used to )?(?:thought|believed)|i (?:used to )?(?:thought|believed))\b",
    re.IGNORECASE,
)
_QUESTION_OPEN = re.compile(
    r"^\W*(?:does|do|did|is|are|was|were|can|could|would|will|should|shall|has|have|had|"
    r"doesn't|don't|isn't|aren't|can't|couldn't|wouldn't|why|how|what|which|who|whom|whose|"
    r"where|when|so what|but why|and why|then why|is it|isn't it)\b",
    re.IGNORECASE,
)
# A counterfactual supposition: the frame, then (within a few words) a past modal or
# subjunctive. Its subject must be a model: "if you used BERT" describes the generation use.
_SUPPOSE = re.compile(
    r"\b(?:even if|if|suppose|supposing|imagine|assume|assuming|what if)\b"
    r"(?=\s+(?:that\s+)?(?:bert|gpt|it|they|the (?:model|masked|causal|encoder|decoder)|"
    r"a (?:masked|causal)|masked|causal|mlms?|clms?|encoders?|decoders?)\b)"
    r"(?=(?:\s+\S+){1,8}?\s+(?:could|were|would|had|did|might)\b)",
    re.IGNORECASE,
)


_YES = re.compile(r"^\W*(?:yes|yep|yeah|exactly|indeed|it does|they do|it can|correct)\b", re.I)


def affirms(s: str) -> bool:
    """The sentence opens by answering the question before it with yes ("Yes, during
    training ..."): that question is then the student's own statement."""
    return bool(_YES.match(s))


def unasserted_spans(s: str, affirmed: bool = False) -> list[tuple[int, int]]:
    """Character spans of `s` the student does not assert (see module doc), sorted, may
    overlap. A whole-sentence question is one span (0, len(s)), unless the next sentence
    answers it with yes (`affirmed`)."""
    spans: list[tuple[int, int]] = []
    stripped = s.rstrip(" \"')")
    if stripped.endswith("?") and _QUESTION_OPEN.match(s):
        if affirmed:
            return []
        return [(0, len(s))]
    for pat in (_REPORTED, _DENY_PREFIX, _SUPPOSE):
        for m in pat.finditer(s):
            spans.append((m.start(), _scope_end(s, m.end())))
    for m in _DENY_NOUN.finditer(s):
        tail = _DENY_TAIL.search(s, m.end())
        if tail is not None and not _RETURN.search(s, m.end(), tail.start()):
            spans.append((m.start(), tail.end()))
    for m in _QUOTED.finditer(s):
        outside = s[: m.start()] + " " + s[m.end() :]
        if len(m.group(m.lastindex or 1).split()) >= 3 and _QUOTE_REJECT.search(outside):
            spans.append((m.start(), m.end()))
    return sorted(spans)


def _scope_end(s: str, start: int) -> int:
    stop = _RETURN.search(s, start)
    return stop.start() if stop else len(s)


def inside(pos: int, spans: list[tuple[int, int]]) -> bool:
    """`pos` falls in one of `spans`."""
    return any(a <= pos < b for a, b in spans)


def blank(s: str, spans: list[tuple[int, int]]) -> str:
    """`s` with the characters of `spans` replaced by spaces (offsets kept)."""
    if not spans:
        return s
    chars = list(s)
    for a, b in spans:
        for i in range(a, min(b, len(chars))):
            chars[i] = " "
    return "".join(chars)
