"""Issue-19 round 6: informal registers (`register.py`) and C1 / C3 / C5 precision.

Phone and chat answers ("ur model cant see the later words", "bert: both sides\\ngpt: left
only") are read as plain English before a sentence is parsed, with an exact map back to the
student's words; a few structures the scorer misread are read. Each with near misses.
Sentences written for these tests."""

from __future__ import annotations

import pytest
from rule_verdicts import rules  # the rules alone (a helper beside this file)

from grader.rubric.register import register, split_note_lines
from grader.rubric.scorer import score_explanation
from grader.rubric.text import correct_spelling, split_sentences


# -- the register layer ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "plain"),
    [
        (
            "u feed it smth it never saw w/o ctx",
            "you feed it something it never saw without context",
        ),
        ("it doesnt see them bc of the mask", "it doesn't see them because of the mask"),
        ("thats why ppl use it b4 anything else", "that's why people use it before anything else"),
        ("trained w both sides", "trained with both sides"),
        ("the words before n after", "the words before and after"),
        ("encoders r for tagging", "encoders are for tagging"),
        ("train cond =/= gen cond", "train condition != generation condition"),
        ("Bc it cant", "Because it can't"),
        ("sees the words before + after", "sees the words before and after"),
        ("uses left+right ctx", "uses left and right context"),
        ("a casual LM only looks back", "a causal LM only looks back"),
        ("gtp \u2192 next word", "gpt -> next word"),
    ],
)
def test_texting_words_are_read_as_plain_english(text: str, plain: str) -> None:
    assert register(text).text == plain


@pytest.mark.parametrize(
    "text",
    [
        "positions x_1 .. x_n and n tokens",  # a variable, not "and"
        "a w matrix",  # a letter
        "the U-Net and the r-th token",
        "p(x) + log q and a+b",  # a sign between symbols, not words
        "a casual chat with the bot",  # "casual" only before what a causal model names
        "it's one of its words",  # "its" is left alone: it is a word too
        "gen z readers and their Gen X parents",  # a cohort, not generation
        "masked LM BERT encoder both sides GPT decoder only left context",  # no clause: a list
    ],
)
def test_variables_letters_and_lists_are_left_alone(text: str) -> None:
    assert register(text).text == text


def test_a_run_on_gets_the_clause_break_a_comma_would_give() -> None:
    assert register("bert sees both sides gpt only sees the left").text == (
        "bert sees both sides, gpt only sees the left"
    )
    assert register("it works like gpt does").text == "it works like gpt does"


@pytest.mark.parametrize(
    "text",
    [
        "ur model cant see the later words bc of the mask, thats it",
        "bert sees both sides gpt only sees the left w/o any mask",
        "plain text with nothing to rewrite",
    ],
)
def test_every_span_of_the_rewrite_maps_back_to_the_students_words(text: str) -> None:
    r = register(text)
    assert len(r.source) == len(r.text) + 1
    assert list(r.source) == sorted(r.source)  # the map keeps the order of the original
    assert r.original(0, len(r.text)) == (0, len(text))
    i = r.text.index("because") if "because" in r.text else None
    if i is not None:
        a, b = r.original(i, i + len("because"))
        assert text[a:b] == "bc"


def test_the_rewrite_is_linear_in_the_length_of_the_text() -> None:
    """A 130 kB run-on in a child capped at 2 s of CPU (tests/cpu_budget.py), not a wall clock."""
    from cpu_budget import within_cpu

    text = "bert doesnt see the words after bc u r typing w/o stops gpt only sees the left " * 1600
    assert within_cpu(lambda: register(text), 2) is None


def test_note_lines_are_items_and_wrapped_prose_stays_one_sentence() -> None:
    answer = "bert: both sides\ngpt: the left only\nso ya"
    notes = split_note_lines(split_sentences(answer), answer)
    assert [s.text for s in notes] == ["bert: both sides", "gpt: the left only\nso ya"]
    text = "Notes\nMLM (BERT)\nfills blanks from both sides"
    assert [s.text for s in split_note_lines(split_sentences(text), text)] == [
        "Notes",
        "MLM (BERT)",
        "fills blanks from both sides",
    ]
    wrapped = "BERT uses the words on the\nleft and the right of the blank"
    assert len(split_note_lines(split_sentences(wrapped), wrapped)) == 1
    # a sentence that starts mid-line is no heading: "... for. A causal language\nmodel is ..."
    wrapped = "It never trained for that. A causal language\nmodel is trained with a mask."
    assert len(split_note_lines(split_sentences(wrapped), wrapped)) == 2
    for s in notes:  # offsets still index the answer
        assert answer[s.start : s.end] == s.text


# -- texting answers, scored ----------------------------------------------------------------------
def test_a_rejected_view_ends_at_the_students_rejection() -> None:
    text = "plenty of ppl claim bert only sees the left side, thats false, it uses each side"
    assert rules(text)["C1"] == "met"
    text = "my sister says gpt can see the whole text, thats wrong, it only gets what came earlier"
    assert rules(text)["C3"] == "met"


def test_the_reported_view_itself_still_earns_nothing() -> None:
    assert rules("plenty of ppl claim bert only sees the left side")["C1"] == "missing"


def test_a_texted_restriction_is_read() -> None:
    text = "ur model cant see the later words, gpt only ever gets the ones b4 the current spot"
    assert rules(text)["C3"] == "met"


def test_note_lines_give_each_claim_its_own_model() -> None:
    v = rules("BERT: words on both sides of the blank\nGPT: just the earlier words")
    assert v["C1"] == "met" and v["C3"] != "contradicted"
    v = rules("Notes\nbert: fills blanks from both sides\ngpt: the earlier words only")
    assert v["C1"] == "met" and v["C3"] == "met"


def test_evidence_quotes_the_students_own_words() -> None:
    text = "bert uses both sides bc its trained w blanks\ngpt: only the earlier toks, thats it"
    res = score_explanation(text)
    flat = " ".join(text.split())
    for c in res.criteria:
        if c.evidence:
            assert c.evidence.rstrip(" \u2026") in flat
            assert "because" not in c.evidence and "tokens" not in c.evidence


# -- C5 ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "bert is a weird choice for generating text, it is used for classification, gpt for chat",
        "bert is the wrong tool for writing stories. encoders classify and gpt writes text",
    ],
)
def test_a_use_judged_unfit_is_no_claim_that_bert_generates(text: str) -> None:
    assert rules(text)["C5"] == "met"


@pytest.mark.parametrize(
    "text", ["bert is great for writing stories", "BERT is better for generation than GPT."]
)
def test_a_use_judged_fit_still_contradicts_c5(text: str) -> None:
    assert rules(text)["C5"] == "contradicted"


@pytest.mark.parametrize(
    "text",
    [
        "In short, gpt is the encoder here and bert is the decoder.",
        "encoders are the ones that generate stories, and decoders handle spam classification",
    ],
)
def test_a_swapped_architecture_contradicts_c5(text: str) -> None:
    assert rules(text)["C5"] == "contradicted"


@pytest.mark.parametrize(
    "text",
    [
        "BERT is an encoder and GPT is a decoder.",
        "BERT is not a decoder.",
        "Some people think GPT is the encoder, but it is a decoder.",
    ],
)
def test_the_right_architecture_or_a_rejected_swap_is_no_swap(text: str) -> None:
    assert rules(text)["C5"] != "contradicted"


# -- C1 / C3 precision and recall -----------------------------------------------------------------
def test_blanks_anywhere_said_of_both_families_blames_gpt() -> None:
    text = "both families are trained to fill in blanks anywhere in a passage"
    assert rules(text)["C3"] == "contradicted"
    text = "both families are trained to fill in blanks, GPT's is always the final one"
    assert rules(text)["C3"] != "contradicted"


def test_an_experiment_that_removes_later_tokens_is_no_view_of_bert() -> None:
    text = "In my notebook BERT's output for slot 5 shifted after we cut off everything after it."
    assert rules(text)["C1"] != "contradicted"
    assert rules("BERT only ever sees the tokens before the blank.")["C1"] == "contradicted"


def test_a_mask_put_at_the_very_end_is_the_trailing_mask_experiment() -> None:
    text = (
        "Sure, BERT uses context on both sides of a [MASK], yet if you stick the [MASK] at the "
        "very end it simply guesses the next word the way GPT does."
    )
    v = rules(text)
    assert v["C1"] == "met" and v["C2"] == "contradicted"


@pytest.mark.parametrize(
    "text",
    [
        "bert learns with the triu half shown with real words",
        "BERT trains with the upper triangle visible.",
    ],
)
def test_the_masked_region_shown_is_no_causal_mask(text: str) -> None:
    assert rules(text)["C1"] != "contradicted"


@pytest.mark.parametrize(
    "text", ["BERT uses a triu mask.", "BERT's attention has the triu part masked."]
)
def test_a_causal_mask_said_of_bert_still_contradicts_c1(text: str) -> None:
    assert rules(text)["C1"] == "contradicted"


def test_the_generation_condition_is_no_restriction_of_a_carried_subject() -> None:
    text = "GPT predicts the next word. When you produce a story you have only the earlier words."
    assert rules(text)["C3"] == "partial"
    assert rules("GPT predicts the next word. It only ever sees the earlier words.")["C3"] == "met"
    assert rules("When generating, GPT only sees the earlier tokens.")["C3"] == "met"


def test_filling_blanks_said_of_both_families_is_bert_filling_blanks() -> None:
    assert rules("both models are trained to fill in hidden words")["C1"] == "partial"
    assert rules("GPT is trained to fill in hidden words in the middle")["C1"] == "missing"


def test_both_sides_joined_by_a_plus_sign_are_read() -> None:
    assert rules("bert fills the blank from the words before + after it")["C1"] == "met"


@pytest.mark.parametrize("word", ["making", "modes", "encodes", "decodes", "leaned"])
def test_a_real_word_one_slip_from_a_domain_word_is_kept(word: str) -> None:
    assert correct_spelling(f"it {word} text") == f"it {word} text"
    assert correct_spelling("it is previus") == "it is previous"  # a slip is still undone


def test_making_text_is_a_generation_use() -> None:
    assert rules("bert is for sentiment classification and gpt is for making text")["C5"] == "met"
