"""Architecture swaps (C5): encoder and decoder given to the wrong family.

- `family_called_other_architecture`: "GPT is the encoder", "BERT = decoder", and the
  appositive "BERT, the decoder, ..." (`apposition.appositive_swap`);
- `architecture_illustrated_by_other`: "encoders such as GPT", "decoders (e.g. RoBERTa)";
- `label_swapped_under_heading`: "**GPT**" then "- encoder, ...".

Each returns `wrong_arch_swap` claims; `mechanisms.EXTRACTORS` registers them.
"""

from __future__ import annotations

import re

from grader.rubric.apposition import appositive_swap
from grader.rubric.blame import blamed as _blamed
from grader.rubric.facts import CLM, MLM, Claim
from grader.rubric.polarity import inside
from grader.rubric.sentence import ParsedSentence

__all__ = [
    "architecture_illustrated_by_other",
    "family_called_other_architecture",
    "label_swapped_under_heading",
]

# a model equated with the other family's architecture: "GPT is the encoder", "BERT = decoder"
_ARCH_PREDICATE = re.compile(
    r"(?:\b(?:is|are|was|were)|=)\s+(?:just\s+|basically\s+|really\s+|actually\s+)?"
    r"(?:an?\s+|the\s+)?(?P<arch>encoder|decoder)(?:s|-only)?\b",
    re.IGNORECASE,
)


_JUST_BEFORE = re.compile(r"\s*(?:[\w-]+\s*)?$")


def family_called_other_architecture(ss: ParsedSentence) -> list[Claim]:
    """A causal model said to be the encoder, or a masked model the decoder, swaps encoder
    and decoder (C5)."""
    for m in _ARCH_PREDICATE.finditer(ss.sent.norm):
        arch = m.group("arch").lower()
        # the subject is read at the copula: the label after it is the predicate
        h = ss._hit("arch", m.start(), m.start() + 1)
        blamed = CLM if arch == "encoder" else MLM
        # the model is named right before the copula ("GPT is the encoder"), not pointed to
        named = any(
            code == blamed
            and n.end <= m.start()
            and _JUST_BEFORE.match(ss.sent.norm, n.end, m.start())
            for n, code, _ in ss.subj
        )
        if named and not inside(m.start(), ss.unasserted) and _blamed(ss, h, blamed):
            return [Claim("wrong_arch_swap", blamed, ss.sent.index, True, False, h.text)]
    # "BERT, the decoder, fills ...", "GPT (the encoder) for generation": the appositive says
    # what the copula does
    swap = appositive_swap(ss.appositives)
    if swap and not inside(swap[1].start, ss.unasserted) and not ss.negated(swap[1]):
        return [Claim("wrong_arch_swap", swap[0], ss.sent.index, True, False, swap[1].text)]
    return []


# an architecture illustrated by the other family's model: "encoders such as GPT",
# "decoder-only models like BERT", "decoders (e.g. RoBERTa)"
_FOR_EXAMPLE = r"(?:such as|like|e\.?\s?g\.?,?|for example,?|for instance,?|including)"
_ARCH_EXAMPLE = re.compile(
    r"\b(?P<arch>encoder|decoder)s?(?:[\s-]only)?(?:\s+(?:models?|networks?|transformers?))?"
    r"\s*(?:,\s*)?(?:\(\s*(?:" + _FOR_EXAMPLE + r"\s*)?|" + _FOR_EXAMPLE + r"\s*)"
    r"(?:the\s+)?(?P<model>gpt|bert|roberta|albert|distilbert)\b",
    re.IGNORECASE,
)


def architecture_illustrated_by_other(ss: ParsedSentence) -> list[Claim]:
    """An encoder exemplified by GPT, or a decoder by BERT, swaps the architectures (C5)."""
    for m in _ARCH_EXAMPLE.finditer(ss.sent.norm):
        gpt = m.group("model").lower() == "gpt"
        if (m.group("arch").lower() == "encoder") != gpt or inside(m.start(), ss.unasserted):
            continue
        h = ss._hit("arch", m.start(), m.end())
        return [Claim("wrong_arch_swap", CLM if gpt else MLM, ss.sent.index, True, False, h.text)]
    return []


def label_swapped_under_heading(ss: ParsedSentence) -> list[Claim]:
    """ "**GPT**" then "- encoder, ...": the other family's architecture label said of the
    heading's model (`ParsedSentence.topic_label`) swaps encoder and decoder."""
    h = ss.topic_label
    if h is None or ss.inherited is None:
        return []
    return [Claim("wrong_arch_swap", ss.inherited, ss.sent.index, True, False, h.text)]
