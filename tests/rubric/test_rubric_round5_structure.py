"""C1 / C3 / C5 readings of issue-19 round 5: the structure of an answer rather than its phrases.

- the second half of a use contrast whose use verb is left out ("..., and decoders for
  sampling"), paired with the understanding half of its sentence or the one before;
- a use word said of another model is not this model's use;
- "reading tasks" as the understanding side of a reading / writing split;
- a Markdown heading's model stays the subject of a bullet that opens with the other family's
  architecture label ("**GPT**" / "- encoder, ..."): a swap (C5), not a claim about the masked LM;
- a code name assigned with a comment naming its model ("fut = ...  # GPT") names that model
  when the prose quotes it in backticks.

Each with near misses that keep their old reading. Sentences written for these tests."""

from __future__ import annotations

import pytest
from rule_verdicts import rules  # the rules alone (a helper beside this file)

from grader.rubric.model import load_rubric
from grader.rubric.reference import code_names, is_heading, opens_with_label


# -- C5: the elided second half of a use contrast ------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "Encoders like BERT are the usual pick for sentiment labels, and decoders like GPT "
        "wherever new prose must be generated.",
        "Encoders of the BERT kind handle sentiment and tagging. Decoders of the GPT kind do the "
        "text generation.",
        "You reach for BERT to classify reviews, and for a GPT-type decoder once a story needs "
        "to be written.",
        "Encoders go to NER and retrieval, decoders to sampling.",
        "So encoders such as BERT went into search ranking while decoders such as GPT went into "
        "generation.",
    ],
)
def test_elided_generation_half_meets_c5(text: str) -> None:
    assert rules(text)["C5"] == "met"


@pytest.mark.parametrize(
    "text",
    [
        "BERT is used for classification, and GPT was trained to generate.",
        "BERT is used for classification, and GPT generates one word at a time.",
        "BERT is used for classification, and GPT can generate.",
        "BERT is used for classification. Is GPT any good at generation?",
        "GPT-style decoders do the generation.",
    ],
)
def test_generation_without_a_parallel_use_stays_partial_or_less(text: str) -> None:
    assert rules(text)["C5"] != "met"


# -- C5: whose use -------------------------------------------------------------------------------
def test_a_use_word_said_of_the_masked_model_is_no_use_of_the_causal_one() -> None:
    text = (
        "What lets GPT generate is just that the way BERT learns differs from how you would "
        "use it to generate. BERT is mostly used for sentiment classification."
    )
    assert rules(text)["C5"] == "partial"


def test_a_use_word_said_of_the_causal_model_still_counts() -> None:
    text = "GPT is the model you use to generate text, and BERT is used for sentiment analysis."
    assert rules(text)["C5"] == "met"


# -- C5: reading tasks ---------------------------------------------------------------------------
def test_reading_tasks_are_the_understanding_side() -> None:
    assert rules("BERT serves reading tasks, and GPT serves writing.")["C5"] == "met"


def test_reading_as_a_process_is_no_understanding_use() -> None:
    assert rules("GPT serves writing, while BERT keeps reading both sides.")["C5"] == "partial"


# -- headings: the topic of a bullet ------------------------------------------------------------
SWAPPED = """**GPT**
- encoder, predicts each word from only the words before it
- good for sentiment analysis

**BERT**
- decoder, fills each blank from the words on both sides of it
"""


def test_other_family_label_under_a_heading_is_a_swap_not_a_claim_about_bert() -> None:
    v = rules(SWAPPED)
    assert v["C5"] == "contradicted"
    assert v["C1"] == "met"
    assert v["C3"] == "met"


def test_own_family_label_under_a_heading_is_no_swap() -> None:
    text = SWAPPED.replace("- encoder,", "- decoder,").replace(
        "- decoder, fills", "- encoder, fills"
    )
    v = rules(text)
    assert v["C5"] != "contradicted"
    assert v["C1"] == "met" and v["C3"] == "met"


def test_labels_in_prose_are_no_swap() -> None:
    v = rules("Under the hood BERT is an encoder, and GPT is a decoder that writes text.")
    assert v["C5"] != "contradicted"


@pytest.mark.parametrize(
    ("line", "heading"),
    [("**Causal LM (GPT)**", True), ("## BERT", True), ("Masked LM:", True),
     ("BERT sees the words on both sides of the blank.", False),
     ("**Note** that GPT reads only the words before the current one", False)],
)  # fmt: skip
def test_heading_lines(line: str, heading: bool) -> None:
    assert is_heading(line) is heading


def test_label_opening_needs_the_label_first_and_a_comma_or_dash() -> None:
    assert opens_with_label("encoder, predicts the next token", 0, 7)
    assert opens_with_label("decoder-only model - used for chat", 0, 18)
    assert not opens_with_label("Decoders: NLG", 0, 8)
    assert not opens_with_label("the encoder, in turn, sees both sides", 4, 11)


# -- code names ----------------------------------------------------------------------------------
CODE = """```python
fut = torch.triu(torch.ones(T, T), diagonal=1).bool()  # GPT
full = torch.zeros(T, T)  # BERT
```

With `fut`, position t ignores every column after it - it uses the prefix alone.
With `full` every position attends everywhere,
so BERT fills a [MASK] from the words before and after it.
"""


def test_code_name_in_backticks_names_its_commented_model() -> None:
    v = rules(CODE)
    assert v["C1"] == "met"
    assert v["C3"] == "met"


def test_code_names_need_one_family_and_backticks() -> None:
    rub = load_rubric()
    pats = {k: rub.lexicon[k] for k in ("masked_model", "causal_model")}

    def fam(t: str) -> set[str]:
        return {k for k, ps in pats.items() if any(p.search(t) for p in ps)}

    names = code_names(["m = torch.zeros(T, T)  # BERT and GPT", "c = tril(x)  # GPT"], fam)
    assert set(names) == {"causal_model"}
    (pat,) = names["causal_model"]
    assert pat.search("with `c` each row") and not pat.search("with c each row")


# -- C5: uses stated through a question answered, or a model qualified by its use -------------
def test_use_questions_answered_by_a_family_meet_c5() -> None:
    text = (
        "Which one powers a chatbot? The decoder. Which one would you use to classify reviews? "
        "The encoder, because it sees the whole text."
    )
    assert rules(text)["C5"] == "met"


@pytest.mark.parametrize(
    "text",
    [
        "Which model should draft a story? And which should label reviews?",
        "Which would you use to classify reviews? The encoder and the decoder both work.",
    ],
)
def test_unanswered_use_questions_or_both_families_earn_nothing(text: str) -> None:
    assert rules(text)["C5"] == "missing"


@pytest.mark.parametrize(
    "text",
    [
        "BERT suits classification. Hence each chat assistant is a decoder.",
        "BERT suits classification. When you need a model that writes, you pick a decoder.",
    ],
)
def test_a_model_qualified_by_its_use_and_equated_with_a_family_meets_c5(text: str) -> None:
    assert rules(text)["C5"] == "met"


@pytest.mark.parametrize(
    "text",
    [
        "BERT suits classification. When you need a model that writes, you would not pick a "
        "decoder.",
        "BERT suits classification. A model that writes sees only the prefix, like a decoder.",
    ],
)
def test_a_denied_choice_or_a_description_does_not(text: str) -> None:
    assert rules(text)["C5"] == "partial"


def test_better_at_generation_alone_restates_the_question() -> None:
    assert rules("GPT is simply better at generation since it is larger.")["C5"] == "missing"


def test_the_masked_model_better_at_generation_contradicts_c5() -> None:
    assert rules("BERT is better at generation than GPT.")["C5"] == "contradicted"
