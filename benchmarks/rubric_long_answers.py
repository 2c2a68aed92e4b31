"""CPU time of the Exercise 2 scorer on 60,000-character answers of hostile shapes.

    python benchmarks/rubric_long_answers.py

Each shape is as long as the scorer reads (`guards.MAX_CHARS`); the answer is flagged as very
long anyway, so what matters is that its cost is small and does not depend on the shape. On
the 2-core development machine (shared): 8dbc064 took ~100 s for one comma-joined sentence
and ~86 s for one table cell; with sentences read in pieces of `text.MAX_SENTENCE_CHARS`
every shape takes 0.2-2 s.
"""

from __future__ import annotations

import time

from grader.rubric import score_explanation

OWN = (
    "BERT is trained to fill in hidden words using the words on both sides of each blank, so "
    "it relies on the right-hand context. When text is generated left to right, the later "
    "words do not exist yet, and BERT was never trained without them. GPT only ever sees the "
    "earlier tokens, which is exactly the condition it faces when it generates. "
)
ROW = "| BERT masked model | both sides of the blank, the right context | classification |\n"
SHAPES = {
    "prose": OWN * 250,
    "one comma-joined sentence": OWN.replace(". ", ", ") * 250,
    "one table cell": "| a | b |\n| --- | --- |\n| " + OWN.replace(". ", ", ") * 230 + " | x |\n",
    "a 700-row table": "| model | sees | use |\n| --- | --- | --- |\n" + ROW * 700,
    "no punctuation": OWN.replace(".", "").replace(",", "") * 250,
}


def main() -> None:
    score_explanation("warm up: BERT sees both sides.")
    for name, text in SHAPES.items():
        text = text[:60_000]
        start = time.process_time()
        score_explanation(text)
        print(f"{name:28s} {len(text):6d} chars  {time.process_time() - start:6.2f} s CPU")


if __name__ == "__main__":
    main()
