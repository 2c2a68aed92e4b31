"""The parts of the assignment, named once for the whole grader.

Plain constants, no imports: the sandbox worker reads them too (the zygote imports this module
before the jail closes), as do the loaders, the report and the scripts.

    CODE_PARTS   the four exercise modules, in handout order (`masks.py` ... `generation.py`)
    PART_IDS     every part a report scores, in report order: the code parts, then
                 Exercise 2 (the written explanation) and Exercise 3 (the drill)
    PART_TITLES  the heading each part gets in every report and platform export
    OPEN_PARTS   parts graded by checks the student's docs spell out (docs/drill.md), on the
                 student's own files and run: no hidden test, so platforms may show them
    FUNCTIONS    the functions each code part must define (the handout's stubs), in order
    CALLS        the call graph the handout documents: function -> the student functions it
                 calls ("model_forward": the grader's TinyLM run on the student's masks)
"""

from __future__ import annotations

CODE_PARTS: tuple[str, ...] = ("masks", "corruption", "losses", "generation")
PART_IDS: tuple[str, ...] = (*CODE_PARTS, "explanation", "drill")
PART_TITLES: dict[str, str] = {
    "masks": "Part A - masks and attention",
    "corruption": "Part B - masked-LM corruption",
    "losses": "Part C - objectives",
    "generation": "Part D - generation",
    "explanation": "Exercise 2 - written explanation",
    "drill": "Exercise 3 - drill",
}
OPEN_PARTS: tuple[str, ...] = ("drill",)
FUNCTIONS: dict[str, tuple[str, ...]] = {
    "masks": ("causal_mask", "padding_mask", "build_attention_mask", "masked_attention"),
    "corruption": ("mask_tokens",),
    "losses": ("causal_lm_loss", "masked_lm_loss"),
    "generation": (
        "greedy_generate",
        "sample_next_token",
        "sample_generate",
        "prefix_consistency_gap",
    ),
}
# exercises/masks.py: 1.1 and 1.2 are building blocks of 1.3, TinyLM calls 1.3 and 1.4;
# exercises/generation.py: 4.3 draws each token with sample_next_token
CALLS: dict[str, tuple[str, ...]] = {
    "masks.build_attention_mask": ("masks.causal_mask", "masks.padding_mask"),
    "model_forward": ("masks.build_attention_mask", "masks.masked_attention"),
    "generation.sample_generate": ("generation.sample_next_token",),
}
