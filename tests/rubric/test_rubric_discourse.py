"""The answer read as a whole (`grader.rubric.discourse`): the student's own names for the
models and conditions, a question's condition carried into its answer, a generation scenario
carried into the sentence that continues it, Markdown tables, and the C4 comparison read from
the conditions each model is said to have. Every sentence here was written for these tests."""

from __future__ import annotations

import pytest
from rule_verdicts import NO_READER, rules  # the rules alone (a helper beside this file)

from grader.rubric import load_rubric
from grader.rubric.criteria import Judgement
from grader.rubric.discourse import aliases, expand_tables, table_statements
from grader.rubric.reader import Opinion, second_read
from grader.rubric.scorer import score_explanation
from grader.rubric.text import split_sentences


def names(text: str) -> dict[str, list[str]]:
    found = aliases(split_sentences(text), load_rubric())
    return {k: sorted(p.pattern for p in v) for k, v in found.items()}


# -- the student's own names -------------------------------------------------------------------
def test_glossed_labels_stand_for_the_models_in_every_sentence() -> None:
    text = (
        "- Recipe X (masked): hide a few tokens and rebuild them from both sides.\n"
        "- Recipe Y (causal): guess token t from the tokens before t only.\n"
        "- Decoding emits tokens in order, so the later positions are still unknown.\n"
        "- Under Y, training and decoding see the same inputs; under X, training always had "
        "the later tokens."
    )
    assert rules(text)["C4"] == "met"


def test_a_condition_glossed_late_counts_in_earlier_sentences() -> None:
    text = (
        "GPT's rehearsal and GPT's concert are the same thing: predict the next word from the "
        "words before it. BERT's rehearsal was filling holes with the words on both sides, but "
        "the concert (generation) gives it no words after the hole."
    )
    assert rules(text)["C4"] == "met"


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("Picture a sculptor. The sculptor is BERT.", "masked_model"),
        ("GPT is like a novelist who never rereads.", "causal_model"),
        ("Think of a quiz (training) and an essay afterwards.", "training"),
    ],
)
def test_mapping_forms(text: str, key: str) -> None:
    assert key in names(text)


@pytest.mark.parametrize(
    "text",
    [
        # one name for both models decides nothing
        "BERT is like a student who sees the answers. GPT is like a student who does not.",
        # a description, not a name
        "The attention is masked, so each word only attends to earlier words.",
        "It uses attention (bidirectional) over the sentence.",
        # a model already named by the lexicon
        "The masked LM (BERT) predicts the blanks. BERT is a masked language model.",
        # position words are reused by every sentence
        "The first is BERT and the second is GPT.",
        # an article is no label
        "A model that reads both sides (masked) is BERT.",
    ],
)
def test_no_alias_from_descriptions_or_ambiguous_names(text: str) -> None:
    assert names(text) == {}


def test_single_letter_alias_is_case_sensitive() -> None:
    text = "Call the masked objective M (masked). A model trained on M sees a sentence."
    pats = names(text)["masked_model"]
    assert len(pats) == 1
    rubric = load_rubric()
    (p,) = aliases(split_sentences(text), rubric)["masked_model"]
    assert p.search("under M, training had both sides")
    assert not p.search("m is a letter")


# -- a relation goes on about the model of the sentence before ----------------------------------
def test_relation_carried_from_the_line_before_is_the_causal_side() -> None:
    text = (
        "- encoder LM: fill each [MASK] from left + right context\n"
        "- decoding is L->R, so the right context doesn't exist yet when token t is produced\n"
        "- decoder LM: p(x_t | x_<t) with a causal mask, only past tokens\n"
        "- = precisely the decoding condition -> train & gen consistent"
    )
    assert rules(text)["C4"] == "met"


def test_carried_subject_never_makes_a_false_claim() -> None:
    text = (
        "GPT only ever sees the earlier tokens. There is a mismatch between training and "
        "generation. BERT uses both sides of every blank."
    )
    assert rules(text)["C4"] != "contradicted"


# -- a question sets the condition of its answer ------------------------------------------------
def test_socratic_answer_is_read_in_the_condition_its_question_sets() -> None:
    text = (
        "What does BERT look at to fill a blank? The words on its left and on its right. "
        "What is there when it continues a story? Only the words before. "
        "And GPT? It always guessed from the earlier words alone, so continuing a story is the "
        "same as training for it."
    )
    v = rules(text)
    assert v["C2"] == "met"
    assert v["C4"] == "met"


def test_same_restriction_in_two_answers_is_the_causal_side() -> None:
    text = (
        "What does GPT see while it is trained? Only the tokens to its left. "
        "What does it see when it generates? Again only the tokens to its left. "
        "And BERT? In training it sees both sides of each mask, but when generating the right "
        "side is not written yet."
    )
    assert rules(text)["C4"] == "met"


def test_question_without_an_answer_sets_nothing() -> None:
    text = "What does GPT see when it generates? Does BERT see the later tokens in training?"
    v = rules(text)
    assert v["C2"] == "missing" and v["C3"] == "missing"


# -- one sentence about the causal LM puts both conditions side by side -------------------------
def test_restriction_in_training_next_to_generation_is_the_causal_side() -> None:
    text = (
        "BERT learns by hiding words and using everything around them, before and after. "
        "When it has to write, the words after the cursor do not exist yet, so it misses half "
        "of what it is used to. GPT always learned looking only backwards, so writing forward "
        "is what it always did."
    )
    assert rules(text)["C4"] == "met"


def test_restriction_without_generation_compares_nothing() -> None:
    text = (
        "BERT is trained on the words before and after each mask. GPT is trained to predict "
        "the next word from only the previous words."
    )
    assert rules(text)["C4"] == "missing"


# -- a generation scenario goes on in the sentence that continues it ----------------------------
def test_continued_generation_scenario_is_no_false_claim_about_training() -> None:
    text = (
        "BERT fills each mask from the words on both sides. At inference time, while token 7 "
        "is produced, tokens 8-10 do not exist yet. So BERT would be asked to predict without "
        "the context it always had in training, since it never saw the suffix blank."
    )
    v = rules(text)
    assert v["C1"] == "met"
    assert v["C2"] == "met"


def test_a_new_statement_after_a_generation_sentence_is_still_judged() -> None:
    text = (
        "At inference time, while token 7 is produced, tokens 8-10 do not exist yet. BERT "
        "never looks at the right context, even in training."
    )
    assert rules(text)["C1"] == "contradicted"


def test_informal_because_ends_the_negation() -> None:
    text = (
        "BERT trains with the future words right next to each blank, but when you generate the "
        "future words are not there yet. GPT doesnt have this problem bc it trains the same way "
        "it gets used."
    )
    assert rules(text)["C4"] == "met"


# -- Markdown tables ----------------------------------------------------------------------------
TABLE_BY_ROW = (
    "| model | context while training | context while generating |\n"
    "|---|---|---|\n"
    "| masked LM | left and right | left only |\n"
    "| causal LM | left only | left only |\n"
    "\n"
    "The causal LM's columns are identical, the masked LM's are not."
)
TABLE_BY_COLUMN = (
    "| | BERT | GPT |\n"
    "|---|---|---|\n"
    "| training | sees both sides of the mask | sees only earlier tokens |\n"
    "| generation | only the earlier tokens exist | only the earlier tokens exist |\n"
    "\n"
    "For GPT the two rows match; for BERT they do not."
)


@pytest.mark.parametrize("text", [TABLE_BY_ROW, TABLE_BY_COLUMN])
def test_table_of_conditions_is_read_cell_by_cell(text: str) -> None:
    v = rules(text)
    assert v["C1"] == "met" and v["C3"] == "met"
    assert v["C4"] == "met"


def test_table_statements_keep_model_first_and_one_condition() -> None:
    rubric = load_rubric()
    stated = [s for _, s in table_statements(TABLE_BY_COLUMN, rubric)]
    assert stated[0] == "BERT in training sees both sides of the mask."
    assert stated[3] == "GPT in generation only the earlier tokens exist."
    assert stated[-1] == "For GPT the two rows match; for BERT they do not."


def test_one_line_table_and_prose_around_it() -> None:
    text = (
        "Summary: | | training | generation | |---|---|---| | BERT | both sides | left only | "
        "| GPT | left only | left only | GPT's columns match. BERT's do not."
    )
    sents = expand_tables(split_sentences(text), load_rubric())
    assert [s.index for s in sents] == list(range(len(sents)))
    norms = [s.norm for s in sents]
    assert norms[0] == "Summary:"
    assert "BERT in training sees both sides." in norms
    assert norms[-2:] == ["GPT's columns match.", "BERT's do not."]


def test_table_evidence_quotes_the_row_as_written() -> None:
    res = score_explanation(TABLE_BY_COLUMN, reader_weights=NO_READER)
    c1 = next(c for c in res.criteria if c.id == "C1")
    assert c1.evidence.startswith("| training | sees both sides of the mask |")
    assert "BERT in training" not in c1.feedback


@pytest.mark.parametrize(
    "text", ["a | b | c is not a table", "| a | b |\n| c | d |", "x |---| y", "plain text"]
)
def test_text_that_is_no_table_is_unchanged(text: str) -> None:
    sents = split_sentences(text)
    assert expand_tables(sents, load_rubric()) == sents


# -- a criterion in `no_raise` is never raised ------------------------------------------------
def test_reader_never_raises_a_no_raise_criterion_but_still_raises_others() -> None:
    # C1 was in `no_raise` until issue 19's round 6, when cross-validation on seventeen sets
    # showed its raises help; the mechanism stays for any criterion the weights list
    op = Opinion(0.99, 0.99, 2, (0,))
    j = Judgement("partial", (0,), 0.7)
    w = {"raise_at": 0.7, "no_raise": ["C1"]}
    assert second_read("C1", j, op, w).verdict == "partial"
    assert second_read("C2", j, op, w).verdict == "met"
    assert second_read("C1", j, op).verdict == "met"  # the installed weights raise C1
