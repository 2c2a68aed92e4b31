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
  a statement with a rising "?" ("... so they don't have that problem?") stays a statement,
  but a guess it ends on ("I'm not sure why, maybe because ...?") is asked;
- someone else's words: a speaker who is not the student and a verb of saying ("My flatmate
  told me "...""; "One tutorial says ..."; "At first I thought ..."), a quotation to its
  closing quote; words cited in agreement ("As my teacher said", "..., which is right") are
  the student's own;
- denials with a modal or a verb of concluding ("Nobody should conclude from this that",
  "Don't assume that", "This does not mean that") and views set aside ("It's tempting to
  think that", "A common misconception is that", "You'd think ..., but");
- attempts conceded as poor (`conceded_spans`: "some people did this with BERT, but the
  quality isn't great"): their claims are not the student's, their generation scene is;
- self-corrections (`retraction.py`): a clause the student takes back ("X - wait, no, Y",
  "X, scratch that, Y", struck-through text); the correction after the marker is asserted;
- counterfactual suppositions about a model: "If BERT could only see the left context ...",
  "Suppose BERT were trained ...", up to the clause that returns to fact ("; but", "in
  reality", "which is why", ":"). A supposed *use* ("if you used BERT to generate ...") is
  how students describe the generation condition, so it stays asserted.

Offsets are into the sentence's normalised text (`Sentence.norm`). Pure functions, no state.
"""

from __future__ import annotations

import re

from grader.rubric.disavowal import disowning_spans
from grader.rubric.prefilter import finditer, fold, search
from grader.rubric.retraction import withdrawn_spans
from grader.rubric.suppositions import SUPPOSE_CLAUSE, SUPPOSE_OPEN, SUPPOSE_THAT
from grader.rubric.teacher_voice import staged_spans

# -- the end of a frame's scope -------------------------------------------------------------
_RETURN = re.compile(
    r"[;:]|\s[\u2014\u2013-]\s|\b(?:but|however|actually|in fact|in reality|instead|"
    r"which is why|that is why|that's why|this is why)\b|"
    # the student's own rejection ends the view ("some say X, that's not true, it ..."); the
    # claim after it is theirs
    r"\b(?:that|this|which)(?:'s|\s+is|\s+was)\s+(?:just\s+|simply\s+|totally\s+|so\s+)?"
    r"(?:false|untrue|not true|wrong|incorrect|a myth|nonsense|not (?:right|correct|the case))\b|"
    r"\bnope\b",
    re.IGNORECASE,
)
_REPORTED = re.compile(
    r"\b(?:(?:people|some(?: people| students)?|many(?: people| students)?|others|one|you|"
    r"students|someone|a (?:classmate|friend|student|colleague|blog post|tutorial)|"
    r"my (?:classmate|friend|colleague|roommate)|it is often)\s+"
    r"(?:might\s+|may\s+|would\s+|often\s+|usually\s+|sometimes\s+|commonly\s+|once\s+)?"
    r"(?:think|thinks|thought|say|says|said|believe|believes|believed|claim|claims|claimed|"
    # "wrote" / "writes" report words only before what was written ("one writes that ...");
    # "one writes left to right" is the act of generating (issue-19 round 7)
    r"assume|assumes|assumed|expect|(?:wrote|writes)(?=\s*(?:that\b|[:,]?\s*\"))|argue|argues|"
    r"argued|suggested|hears?(?=\s+(?:it\s+(?:said|claimed)\s+)?that\b)|"
    r"heard(?=\s+(?:it\s+(?:said|claimed)\s+)?that\b))|"
    r"it(?: is|'s| was)\s+(?:often\s+|sometimes\s+|commonly\s+|widely\s+|frequently\s+|"
    r"usually\s+)?(?:claimed|said|believed|thought|assumed)|"
    # the impersonal "It is suggested / argued that" is the academic author's own hedge; only
    # a view held widely ("it is often argued that") is someone else's (round 10)
    r"it(?: is|'s| was)\s+(?:often|sometimes|commonly|widely|frequently|usually)\s+"
    r"(?:argued|suggested))\b"
    # "if you think about it, ...": a way of looking at the point, no view reported (round 9)
    r"(?!\s+(?:about|of)\s+(?:it|this|that|them)\b)",
    re.IGNORECASE,
)
# Someone else's words: a speaker that is not the student ("my flatmate", "a blog post", "one
# tutorial", "some people") and a verb of saying or believing. Direct speech after it (a
# quotation) is the speaker's to its closing quote; indirect speech runs to the end of the frame.
# (not "assumes" / "expects" / "suggests" / "states": "a masked model assumes the right
# context", "my results suggest", "their hidden states" are no one's reported words)
_SPEECH_VERB = (
    r"(?:think|thinks|thought|say|says|said|believe|believes|believed|claim|claims|claimed|"
    r"(?:wrote|writes)(?=\s*(?:that\b|[:,]?\s*\"))|argue|argues|argued|insist|insists|insisted|reckon|reckons|reckoned|"
    r"swear|swears|swore|posted|tweeted|keeps? saying|kept saying|was saying|were saying|"
    r"(?:told|tells|tell)(?=\s+(?:me|us|you|him|her|them|the class|everyone)\b))"
)
_SPEAKER = re.compile(
    r"\b(?:my|a|an|one|another|some|his|her|their|our|your)\s+"
    # (round 9: not the student's own evidence, "my results say ...": theirs to assert)
    r"(?!(?:results?|runs?|experiments?|numbers|data|outputs?|plots?|notebook|samples)\b)"
    r"(?:(?!(?:that|which|who|it|is|are|was|were|and|but|or|not)\b)[a-z][\w-]*\s+){0,2}?"
    r"(?:(?:might|may|would|often|usually|sometimes|once|also|even|actually|always)\s+)?"
    + _SPEECH_VERB
    + r"\b(?:\s+(?:me|us|you|him|her|them|the class|everyone))?",
    re.IGNORECASE,
)
# what the student once believed and now reports: "I thought ...", "at first I assumed ..."
_FORMER_BELIEF = re.compile(
    r"\bi\s+(?:used to (?:think|believe|assume)|(?:once |first |initially |originally )?"
    r"(?:thought|believed|assumed))\b(?!\s+(?:about|of)\b)",
    re.IGNORECASE,
)
_CITED = re.compile(r"\bas\s+\w", re.IGNORECASE)
_AGREED = re.compile(
    r"\b(?:(?:which|this|that|it|she|he|they)(?:'s| is| are|\s+was)\s+(?:(?!not\b)\w+\s+)?"
    r"(?:right|correct|true)|i agree|rightly|correctly)\b",
    re.IGNORECASE,
)
_OPEN_QUOTE = re.compile(r"\s*[:,]?\s*\"")
_REJECT = (
    r"(?:false|untrue|not true|wrong|incorrect|mistaken|a myth|a misconception|a mistake|"
    r"misleading|nonsense|not (?:right|correct|the case))"
)
# a wrong belief named as such: "misconception", "myth"; a "mistake" / "error" only as a
# frequent one or a learner's ("a classic mistake", "a common student error"), since "the
# error BERT makes is that ..." states the student's own reason
_ERROR_NOUN = (
    r"(?:(?:\w+\s+){0,2}?(?:misconception|myth|fallacy|misunderstanding|misbelief)|"
    r"(?:\w+\s+)?(?:common|frequent|typical|classic|usual|popular|widespread|standard|"
    r"student|pupil|learner|beginner)(?:s'|'s)?\s+(?:\w+\s+)?(?:mistake|error|confusion|trap|"
    r"pitfall))"
)
# adverbs a denial frame may carry before its rejection word ("It is also false that", "It is
# certainly not true that", "it would be equally wrong to say that"); never a negation, which
# would turn the frame into the student's own claim ("it is not false that")
_FRAME_ADVERB = (
    r"(?:(?!(?:not|never|hardly|barely|scarcely|only)\b)"
    r"(?:[a-z]+ly|also|just|even|too|quite|so|again|still)\s+)"
)
# "Nobody (seriously) thinks that", "It is false that", "It would be wrong to say that",
# "Contrary to the popular belief that": everything after the frame is the denied view.
_DENY_PREFIX = re.compile(
    # a relative clause may qualify the denier: "nobody who has read the paper believes"
    r"\b(?:(?:nobody|no one|no-one|no serious \w+)\s+(?:(?:who|that)\s+(?:[\w']+\s+){1,6}?|\w+\s+)?"
    r"(?:thinks|believes|claims|says|argues|assumes|would (?:say|claim|argue|think))"
    r"(?:\s+that)?|"
    r"it(?:'s|\s+is|\s+was|\s+would\s+be)\s+" + _FRAME_ADVERB + r"{0,2}"
    r"(?:" + _REJECT + r"|an?\s+" + _ERROR_NOUN + r")\s+"
    r"(?:to\s+(?:say|think|claim|believe|assume)\s+)?(?:that\b)?|"
    r"contrary\s+to\s+(?:the\s+|a\s+)?(?:popular\s+|common\s+|widespread\s+)?"
    r"(?:belief|claim|idea|view|myth|assumption|intuition)s?(?:\s+that)?)",
    re.IGNORECASE,
)
# The student's own first-person rejection of a view (the philosophical and hedged voices):
# "I am not persuaded by the claim that", "Nor do I accept that", "I reject the idea that",
# "I doubt that": the rest of the clause is the rejected view. ("I accept that" and "I am
# persuaded that" are the student's own claims and stay asserted.)
_OWN_REJECTION = re.compile(
    r"\b(?:i(?:'m|\s+am|\s+remain|\s+was)\s+(?:still\s+|simply\s+|frankly\s+)?"
    r"(?:not|un)\s*(?:persuaded|convinced)|"
    r"(?:i\s+(?:do not|don't|cannot|can't|could not|couldn't)|nor\s+(?:do|can|would)\s+i)\s+"
    r"(?:\w+\s+)?(?:accept|believe|grant|buy|concede|agree with)|"
    r"i\s+(?:\w+ly\s+)?(?:reject|dispute|deny|doubt))\b"
    r"(?:\s+(?:by|of|with)?\s*(?:the|this|that|any)\s+(?:\w+\s+)?"
    r"(?:claim|idea|view|thesis|suggestion|notion|assertion|contention)s?)?",
    re.IGNORECASE,
)
# "The claim that X is wrong": the span between "that" and the rejection is denied.
# Denial frames with a modal or a verb of concluding ("Nobody should conclude from this that",
# "No one would seriously argue that", "Don't assume that", "This does not mean that"): the
# rest of the clause is the denied view.
_COGNITION = (
    r"(?:conclude|infer|deduce|think|believe|claim|say|argue|assume|suppose|imagine|pretend|"
    r"suggest|expect|read (?:this|that|it) as|take (?:this|that|it) to mean)"
)
_DENY_MODAL = re.compile(
    r"\b(?:(?:nobody|no one|no-one|no serious \w+)\s+(?:\w+\s+)?"
    r"(?:should|would|could|can|will|must|need|ought to)\s+(?:\w+\s+)?" + _COGNITION + r"|"
    r"(?:(?<=^)|(?<=[,;:(]\s)|(?<=\bso\s)|(?<=\bbut\s)|(?<=\band\s))"
    r"(?:(?:you|we|one) )?(?:do not|don't|never|cannot|"
    r"(?:should|must|can|could|would)(?: not|n't| never))\s+" + _COGNITION + r"|"
    r"(?:this|that|it)\s+(?:does not|doesn't|did not|didn't|should not|shouldn't)\s+"
    r"(?:mean|imply|follow|show|prove)s?)"
    r"(?:\s+(?:from|by|on the basis of)\s+(?:\w+\s+){0,3}?(?=that\b))?(?:\s+that\b)?",
    re.IGNORECASE,
)
# A concession retracted by what follows: an attempt or a possibility reported ("some people
# did this with BERT", "there are tricks ...", "you can ..."), then "but" and a verdict on its
# quality ("but the quality isn't great", "but the output is garbage"). The attempt is
# described, not claimed to work: from the frame to the "but".
_ATTEMPT = re.compile(
    r"\b(?:(?:some|many|a few) (?:people|researchers|papers|groups|folks|students)|people|"
    r"researchers|others|(?:there (?:are|were|have been|exist)|i read about|i've read about) "
    r"(?:\w+\s+){0,2}?(?:tricks|ways|attempts|methods|hacks|papers|approaches|techniques)|"
    r"(?:you|one|we|i) (?:can|could|may|might|did|tried|have tried|once tried)|"
    r"it(?: is|'s) (?:possible|technically possible) to|(?:although|though|even though))\b",
    re.IGNORECASE,
)
_CONCEDE_END = re.compile(r"\b(?:but|however|yet)\b|;", re.IGNORECASE)
_POOR = re.compile(
    r"\b(?:poor(?:ly)?|bad(?:ly)?|worse|awful|terrible|mediocre|incoherent|garbage|nonsense|"
    r"gibberish|weird|repetitive|disappointing|unusable|falls? apart|(?:doesn't|don't|does not|"
    r"do not|didn't|did not) work|fails?|failed|struggles?|low[- ]quality|"
    r"(?:isn't|aren't|wasn't|weren't|is not|are not|was not|were not|not)\s+(?:\w+\s+)?"
    r"(?:great|good|coherent|fluent|convincing|usable))\b",
    re.IGNORECASE,
)
_CONCEDE_REACH = 80  # characters after the "but" that the verdict must fall in
# A pasted error message or traceback ("RuntimeError: ...", "UserWarning: ...", "Traceback
# (most recent call last):"): what the program printed, no claim of the student's (to the end
# of the line). The exception's name is written in CamelCase, so "a student error: ..." is none.
_ERROR_MESSAGE = re.compile(
    r"\b[A-Z][A-Za-z]*(?:Error|Exception|Warning)\b\s*:|\bTraceback \(most recent call last\)"
)
# The answer announcing the topics it covers ("I have covered all five points of the rubric:
# bidirectional masked LM, causal mask, ...", "My answer addresses: ..."): a list of topic
# names after the colon, which asserts none of them
_TOPICS_LISTED = re.compile(
    r"\b(?:(?:i|we)(?:\s+have|'ve)?(?:\s+\w+ly)?|(?:my|this|the) (?:answer|essay|submission))\s+"
    r"(?:covered|cover|covers|discussed|discusses|addressed|addresses|mentioned|explained|"
    r"included|includes|listed|touched on|answered|went through)\b[^:.;]{0,40}?"
    r"\b(?:points?|topics?|criteria|criterion|aspects?|items?|parts|concepts|ideas|rubric|"
    r"requirements?)\b[^:.;]{0,30}:",
    re.IGNORECASE,
)
_GROUP = (
    r"(?:pupils|learners|children|kids|students|class|classes|trainees|beginners|newcomers|people)"
)
# What a group of learners wrongly believes, reported by their teacher: "pupils often think
# that", "my Year 9 class tend to say that", "many learners assume". ("say" only before what
# is said: "the children say the next word aloud" is the analogy's game.)
_LEARNERS = re.compile(
    r"\b(?:(?:my|the|our|many|most|some|a lot of|lots of|weaker|younger|new)\s+)?"
    r"(?:(?:year\s*\d+|new|younger|weaker|first[- ]year|older)\s+)?"
    r"(?:pupils|learners|children|kids|students|class|classes|trainees|beginners|newcomers)\s+"
    r"(?:(?:who|that)\s+)?"
    r"(?:(?:often|usually|typically|frequently|commonly|sometimes|always|still|tend to|will|"
    r"may|might|regularly|initially|at first|come in|arrive)\s+)*"
    r"(?:think|thinks|thinking|believe|believes|assume|assumes|imagine|imagines|expect|"
    r"claim|claims|insist|conclude|suppose|are convinced|get the idea|"
    r"(?:say|says|said|write|wrote)(?=\s+(?:that\b|[:,]?\s*\")))\b(?!\s+(?:about|of)\b)"
    r"(?:\s+that\b)?",
    re.IGNORECASE,
)
# the belief named as the learners' ("the idea many pupils have, that ...") or their error
# announced ("what students get wrong: ...")
_LEARNERS_BELIEF = re.compile(
    r"\b(?:(?:idea|belief|notion|view|assumption|impression|picture)s?\s+(?:(?:that|which)\s+)?"
    r"(?:(?:many|most|some|my|the|our|a lot of)\s+)?(?:\w+\s+)?" + _GROUP + r"\s+(?:often\s+|"
    r"usually\s+|typically\s+)?(?:have|hold|bring|share|get|form|start with)\b,?\s*(?:that\b)?|"
    r"(?:what|where)\s+(?:(?:many|most|some|my|the)\s+)?" + _GROUP + r"\s+(?:often\s+|usually\s+|"
    r"typically\s+)?(?:get wrong|misunderstand|confuse|trip up on)\s*:)",
    re.IGNORECASE,
)
# A view introduced to be set aside: "It's tempting to think that ...", "You'd think ...", "A
# common misconception is that ...": the rest of the clause is that view.
_VIEW_FRAME = re.compile(
    r"\b(?:it(?:'s|\s+is|\s+was|\s+would\s+be|\s+seems)\s+(?:\w+\s+)?(?:tempting|natural|"
    r"intuitive|understandable)\s+to\s+" + _COGNITION + r"|"
    r"(?:(?:a|one|the|another|my|our)\s+|^\W*)" + _ERROR_NOUN + r"s?"
    r"(?:\s+(?:[\w']+\s+){0,6}?(?:is|was)(?:\s+to\s+" + _COGNITION + r")?(?=\s+that\b|\s*:|\s+\w)"
    r"|(?=\s*:)))(?:\s+that\b|\s*:)?",
    re.IGNORECASE,
)
# "You'd think ..., but": an expectation the sentence then corrects (only with the correction)
_WOULD_THINK = re.compile(
    r"\b(?:you|one|we)(?:'d|\s+would|\s+might)\s+(?:\w+\s+)?(?:think|expect|assume)\b", re.I
)
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
    # round 11: a question may open with a conjunction ("And does it really use only ...?")
    r"^\W*(?:(?:and|or)\s+)?(?:does|do|did|is|are|was|were|can|could|would|will|should|shall|has|have|had|"
    r"doesn't|don't|isn't|aren't|can't|couldn't|wouldn't|why|how|what|which|who|whom|whose|"
    r"where|when|so what|but why|and why|then why|is it|isn't it)\b",
    re.IGNORECASE,
)
_CLAUSE_CUT = re.compile(r"[,;:]\s+|\s-\s")  # where a last clause may open with a question
# A counterfactual supposition: the frame, then (within a few words) a past modal or
# subjunctive. Its subject must be a model: "if you used BERT" describes the generation use.
_SUPPOSE = re.compile(
    r"\b(?:even if|if|suppose|supposing|imagine|assume|assuming|what if)\b"
    r"(?=\s+(?:that\s+)?(?:bert|gpt|it|they|the (?:model|masked|causal|encoder|decoder)|"
    r"a (?:masked|causal)|masked|causal|mlms?|clms?|encoders?|decoders?|"
    # round 11: or a condition of the context ("if the later tokens were available ...")
    r"(?:the\s+)?(?:later|future|following|upcoming|right(?:-hand)?)\s+(?:tokens?|words?|"
    r"context|side|positions?))\b)"
    r"(?=(?:\s+\S+){1,8}?\s+(?:could|were|would|had|did|might)\b)",
    re.IGNORECASE,
)


# round 9: an experiment the student means or wishes to run, asked as an indirect question
# ("I'd like to see whether BERT with a causal mask would ...", "worth testing if ..."): the
# "whether" / "if" clause is asked, not claimed, to the end of its clause ("but", ";")
_WONDER = re.compile(
    r"\b(?:see|seeing|know|check|checking|test|testing|find(?:ing)? out|wonder|wondering|"
    r"investigate|investigating|tell)\s+"
    r"(?:whether|if)\b",
    re.I,
)


# round 9: the notebook's experiments. A bug the student reports ("Our bug used tril instead
# of triu, so the model saw the future", "with the leaky mask ...") describes the broken
# model, not the causal LM, to the end of its clause; an ablation ("removing the right half
# dropped accuracy to 18%") names what the experiment did to the input, up to its result verb
_BUG = re.compile(
    r"\b(?:(?:our|my|a|the|this|that|one)\s+(?:\w+\s+)?bug|buggy|bugged|leaky|leaked|leaking|"
    r"by mistake|accidentally|mistakenly)\b",
    re.I,
)
# ("instead of triu" inside a bug report is part of it, not a return to fact)
_BUG_END = re.compile(
    r"[;:]|\b(?:but|however|which is why|that is why|that's why|this is why)\b", re.I
)
_ABLATION = re.compile(
    r"\b(?:removing|deleting|dropping|hiding|cutting(?: off)?|masking(?: out)?|blanking(?: out)?|"
    r"zeroing(?: out)?|truncating)\b(?=[^,;:.]{0,40}?\b(?:dropped|drops|reduced|reduces|"
    r"lowered|lowers|hurt|hurts|raised|raises|increased|increases|halved|halves|changed|"
    r"changes|broke|breaks|ruined|ruins|tanked|pushed|sent|cut)\b)",
    re.I,
)
_ABLATION_END = re.compile(
    r"\b(?:dropped|drops|reduced|reduces|lowered|lowers|hurt|hurts|raised|raises|increased|"
    r"increases|halved|halves|changed|changes|broke|breaks|ruined|ruins|tanked|pushed|sent|cut)\b",
    re.I,
)


# issue-19 round 7 (R6): what the student says they do not know ("I'm not sure how exactly
# causal LMs are trained", "I don't remember what the mask does", "no idea why"): an indirect
# question, asked and not answered, to the end of its clause (a comma, or `_RETURN`); what
# follows the comma ("..., but BERT is used for ...") is asserted again
_UNKNOWN = re.compile(
    r"(?:\bi(?:'m|\s+am)\s+(?:really\s+)?not\s+(?:sure|certain)|(?<!\w)not\s+sure|"
    r"\bi\s+(?:don't|do\s+not|can't|cannot|can\s+not)\s+(?:really\s+)?(?:know|remember|recall)|"
    r"\bi\s+(?:forget|forgot)|\bno\s+idea)"
    r"\s+(?:exactly\s+)?(?:how|what|why|whether|which|where|when|if)\b",
    re.IGNORECASE,
)
_UNKNOWN_END = re.compile(r",")


# a guess the sentence ends on with a "?": "I'm not sure why, maybe because X?"
_GUESS = re.compile(r"[,;:(]\s*(?:or\s+)?(?:maybe|perhaps|possibly)\b(?!.*[.!;:]\s)", re.I)

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
    f = fold(s)  # a frame whose literals the sentence lacks is not scanned for (prefilter.py)
    stripped = s.rstrip(" \"')")
    if stripped.endswith("?") and _QUESTION_OPEN.match(s):
        if affirmed:
            return []
        return [(0, len(s))]
    spans.extend(withdrawn_spans(s))  # "X - no sorry, that's backwards": taken back
    if stripped.endswith("?") and not affirmed:
        # "idk about the rest, is the problem that training differs for bert?": a question
        # asked in the sentence's last clause is asked, not claimed (from its opener on)
        opener = [m.end() for m in _CLAUSE_CUT.finditer(s)]
        if opener and _QUESTION_OPEN.match(s[opener[-1] :]):
            spans.append((opener[-1], len(s)))
    guess = search(_GUESS, s, f) if stripped.endswith("?") else None
    if guess is not None:
        spans.append((guess.start(), len(s)))  # "..., maybe because X?": asked, not claimed
    frames = (
        _REPORTED, _DENY_PREFIX, _DENY_MODAL, _OWN_REJECTION, _VIEW_FRAME, _SUPPOSE,
        SUPPOSE_CLAUSE, _LEARNERS, _LEARNERS_BELIEF, SUPPOSE_OPEN, _WONDER, SUPPOSE_THAT,
    )  # fmt: skip
    for pat in (*frames, _FORMER_BELIEF):
        for m in finditer(pat, s, f):
            if pat in (_REPORTED, _LEARNERS) and _AGREED.search(s, m.end()):
                continue  # "my friend thinks X, and she is right": the student agrees
            end = _scope_end(s, m.end())
            if pat in (_SUPPOSE, SUPPOSE_CLAUSE, SUPPOSE_OPEN, SUPPOSE_THAT):
                end = _consequence_end(s, end)
            spans.append((m.start(), end))
    spans.extend(staged_spans(s, _scope_end))  # a misconception box, a quoted source
    spans.extend(disowning_spans(s, f))  # "I disagree with the claim that ..."
    err = _ERROR_MESSAGE.search(s)
    if err is not None:
        spans.append((err.start(), len(s)))  # a pasted error message: the program's words
    for m in finditer(_TOPICS_LISTED, s, f):
        spans.append((m.start(), len(s)))  # "I have covered the points: A, B, C": topic names
    for m in finditer(_BUG, s, f):
        stop = _BUG_END.search(s, m.end())
        spans.append((m.start(), stop.start() if stop else len(s)))
    for m in finditer(_ABLATION, s, f):
        stop = _ABLATION_END.search(s, m.end())
        spans.append((m.start(), stop.start() if stop else m.end()))
    for m in finditer(_UNKNOWN, s, f):
        comma = _UNKNOWN_END.search(s, m.end())
        end = _scope_end(s, m.end())
        spans.append((m.start(), min(end, comma.start()) if comma else end))
    for m in finditer(_WOULD_THINK, s, f):
        stop = _RETURN.search(s, m.end())
        if stop is not None and stop.group(0) not in ";:":
            spans.append((m.start(), stop.start()))
    for m in finditer(_SPEAKER, s, f):
        end = _speech_end(s, m.end())
        if _CITED.search(s, max(0, m.start() - 4), m.start() + 1) or _AGREED.search(s, m.end()):
            continue  # "As my teacher said, ...", "... , which is right": cited in agreement
        spans.append((m.start(), end))
    for m in finditer(_DENY_NOUN, s, f):
        tail = _DENY_TAIL.search(s, m.end())
        if tail is not None and not _RETURN.search(s, m.end(), tail.start()):
            spans.append((m.start(), tail.end()))
    for m in finditer(_QUOTED, s, f):
        outside = s[: m.start()] + " " + s[m.end() :]
        if len(m.group(m.lastindex or 1).split()) >= 3 and _QUOTE_REJECT.search(outside):
            spans.append((m.start(), m.end()))
    return sorted(spans)


def _speech_end(s: str, start: int) -> int:
    """Where reported speech ends: a quotation right after the frame runs to its closing
    quote (or the end of the sentence); indirect speech to the end of the frame."""
    q = _OPEN_QUOTE.match(s, start)
    if q is None:
        return _scope_end(s, start)
    close = s.find('"', q.end())
    return len(s) if close < 0 else close + 1


def conceded_spans(s: str) -> list[tuple[int, int]]:
    """Character spans of `s` that describe an attempt the sentence then judges poor ("some
    people did this with BERT for generation, but the quality isn't great"): its claims are
    not the student's, but the scene it sets (a generation attempt) is, as for a supposed
    use. Sorted."""
    out = []
    f = fold(s)
    for m in finditer(_ATTEMPT, s, f):
        stop = _CONCEDE_END.search(s, m.end())
        if stop is None or stop.group(0) == ";":
            continue
        if _POOR.search(s, stop.end(), stop.end() + _CONCEDE_REACH):
            out.append((m.start(), stop.start()))
    return out


def _scope_end(s: str, start: int) -> int:
    stop = _RETURN.search(s, start)
    return stop.start() if stop else len(s)


# The consequence of a supposition: "...: then it would be a causal LM", "; it would work"
_CONSEQUENCE = re.compile(
    r"\s*(?:[;:]|[\u2014\u2013-])\s*(?:then\b|(?:[\w']+\s+){0,4}?(?:would|could|might)\b)", re.I
)


def _consequence_end(s: str, end: int) -> int:
    """A supposition's scope runs on through the consequence drawn from it ("Suppose BERT
    could only see the left: then it would ..."), which is as hypothetical as the premise."""
    while end < len(s) and _CONSEQUENCE.match(s, end):
        end = _scope_end(s, end + 1)
    return end


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
