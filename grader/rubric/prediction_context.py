"""The context a prediction is made with, named through a verb of use (round 11).

"The causal model predicts the next residue using every position in the sequence": the
phrase after "using" is what the predicting model sees, as after "sees" or "attends to"; so
`vision` reads it as a direct statement of vision (a false C3 claim for the causal LM, the
C1 objective for the masked LM), not as a loose mention of the input.
"""

from __future__ import annotations

import re

from grader.rubric.facts import Hit
from grader.rubric.sentence import ParsedSentence

# round 11: "predicts the next residue using every position": the context a prediction is
# made with, named through a verb of use, is what the predicting model sees
_USING = re.compile(r"^(?:using|uses?|used)$", re.IGNORECASE)


def predicts_using(ss: ParsedSentence, view: Hit) -> bool:
    """The use verb `view` follows a prediction in its clause ("predicts the next word using
    ..."), neither negated."""
    if not _USING.match(view.text) or ss.negated(view):
        return False
    return any(
        p.end <= view.start and ss.same_clause(p, view) and not ss.negated(p)
        for k in ("predict_next", "predict_masked")
        for p in ss.hits.get(k, [])
    )
