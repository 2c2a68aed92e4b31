"""Degree and perspective hedges read past: the claim a hedged sentence still makes.

The essay voice softens a claim without withdrawing it: "the model does, to some extent, have
the later tokens available", "during training, as I understand it, GPT has the whole passage",
"it becomes, in effect, a next-word generator". Such a hedge says how sure the writer is or
how far the claim goes, never which way it points, so the phrase-level rules (verb next to
its object, a copula next to its predicate) should read the sentence without it.

`drop_hedges` removes a closed list of these phrases from a sentence's matching text (`norm`),
either set off by commas or standing inside a clause. Words that change what is claimed are
never on the list: no negation, no modal, no attribution to others ("apparently", "I read"),
no hedge that states a doubt ("I'm not sure whether"); `certainty.py` and `polarity.py` still
see those. The original text (`Sentence.text`) is untouched, so quotes are the student's own.
"""

from __future__ import annotations

import re

__all__ = ["drop_hedges"]

# how far a claim goes, or whose view it is (the writer's own)
_HEDGE = (
    r"to (?:some |a (?:certain |large |great )?|a limited )(?:extent|degree)"
    r"|in (?:a|some|one) (?:certain )?sense"
    r"|in effect"
    r"|after all"
    r"|as (?:i|we) understand it"
    r"|it seems to (?:me|us)"
    r"|(?:i|we) (?:think|suspect|believe|would say|would argue)"
    r"|one imagines"
    r"|arguably"
)
# set off by commas (either side may be the clause's own comma), or a bare degree hedge inside
# a clause ("does to some extent have"); a perspective phrase only with its commas ("I think
# that BERT ..." is left as it is)
_COMMAS = re.compile(rf",\s*(?:{_HEDGE})\s*,", re.IGNORECASE)
_BARE = re.compile(
    r"\s(?:to (?:some |a (?:certain |large |great )?|a limited )(?:extent|degree)"
    r"|in (?:a|some|one) (?:certain )?sense|in effect|basically|essentially|pretty much"
    r"|more or less)(?=\s)(?!\s*,)"
    # "trained kind of the same way": "kind of" / "sort of" as a degree word, before what it
    # softens (not the noun, "a kind of model", "this sort of mask")
    r"|(?<!\ba)(?<!\bthe)(?<!\bthis)(?<!\bthat)(?<!\bwhat)(?<!\bone)(?<!\bsome)(?<!\bany)"
    r"\s(?:kind|sort) of(?=\s(?:the same|like|similar|different|identical|alike)\b)",
    re.IGNORECASE,
)


def drop_hedges(norm: str) -> str:
    """`norm` without the degree and perspective hedges of `_HEDGE`."""
    if "," not in norm and not _BARE.search(norm):
        return norm
    out = _COMMAS.sub("", norm)
    return _BARE.sub("", out)
