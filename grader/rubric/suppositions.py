"""Suppositions the student makes rather than claims (read by `polarity.unasserted_spans`): a
supposed condition ("suppose later tokens were available ... then"), an opening imperative
("Suppose the masked LM only ever looked at the left."), and a supposition of the proposition
just stated or asked ("If that were so, then GPT would ...")."""

from __future__ import annotations

import re

# issue-19 round 7: a supposition about a condition, not only a model ("Suppose, for the sake
# of argument, that later tokens were available at generation time: then ...", "suppose bert
# only saw the left - then it would be gpt"): "suppose" (not the "I suppose" of an opinion)
# with a subjunctive or modal later in its sentence
SUPPOSE_CLAUSE = re.compile(
    r"(?<!\bi )\b(?:suppose|supposing|what if|for the sake of argument)\b"
    r"(?=[^.?!]*?\b(?:were|would|could|might)\b)",
    re.IGNORECASE,
)


# round 12: a supposition of the proposition just stated or asked ("Maybe GPT only looks
# back? If that were so, then GPT would be trained the way it generates"): what follows is as
# hypothetical as the premise it rests on
SUPPOSE_THAT = re.compile(
    r"\bif (?:that|this|so|it) (?:were|was) (?:really |actually |indeed )?(?:so|true|right|"
    r"the case|correct)\b(?=[^.?!]*\b(?:would|could|might)\b)",
    re.IGNORECASE,
)


# round 9: a supposition opening its sentence ("Suppose the masked LM only ever looked at the
# left."), which needs no modal: the imperative alone supposes (not "I suppose", an opinion)
SUPPOSE_OPEN = re.compile(r"^\W*(?:suppose|supposing|what if)\b(?!,?\s+(?:that\s+)?i\b)", re.I)
