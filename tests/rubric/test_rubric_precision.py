"""Issue 19, wrong-claim precision: correct or non-asserted text must not be read as a false
claim, and true false claims must still be found.

Every sentence here was written for these tests (none is taken from a labelled set). Each
group pins one general mechanism: reported speech and quotation frames, modal and extended
denial frames and concessions (`polarity.py`), comparison objects, generic subjects and
scene-setting adverbials (`sentence.py`), the scope of a never-trained condition
(`vision.py`), Markdown tables and code blocks read line by line (`text.py`), the trailing
[MASK] family owning its "predicts the next word" (`mechanisms.py`). Each positive case has
negative partners: the false claim stated outright stays contradicted.
"""

from __future__ import annotations

import pytest

from grader.rubric import score_explanation
from grader.rubric.polarity import conceded_spans, unasserted_spans
from grader.rubric.text import split_sentences

NO_READER = {"criteria": {}}  # the rules alone


def verdicts(text: str) -> dict[str, str]:
    return {c.id: c.verdict for c in score_explanation(text, reader_weights=NO_READER).criteria}


def denied(s: str) -> list[str]:
    return [s[a:b] for a, b in unasserted_spans(s)]


# -- reported speech: someone else's words -----------------------------------------------------
@pytest.mark.parametrize(
    ("cid", "text"),
    [
        ("C5", 'My cousin told me "BERT can generate stories just fine."'),
        ("C5", 'Our TA once said: "encoders like BERT generate text well enough."'),
        ("C3", "A forum post claimed that GPT looks at every word of the sentence at once."),
        ("C1", "One tutorial says BERT only attends to the tokens on its left."),
        ("C3", "My study partner reckons that GPT attends to the whole sentence in training."),
        ("C5", "At first I thought BERT generates text perfectly well."),
    ],
)
def test_reported_speech_is_not_the_students_claim(cid: str, text: str) -> None:
    assert verdicts(text)[cid] != "contradicted"


@pytest.mark.parametrize(
    ("cid", "text"),
    [
        ("C5", "BERT writes wonderful poems and can generate stories just fine."),
        ("C3", "GPT looks at every word of the sentence at once."),
        ("C1", "BERT only attends to the tokens on its left."),
        # the student's own claim after the quotation is still theirs
        ("C3", 'My cousin said "it is complicated", but GPT sees the whole sentence in training.'),
    ],
)
def test_the_students_own_false_claim_still_contradicts(cid: str, text: str) -> None:
    assert verdicts(text)[cid] == "contradicted"


def test_reported_speech_stops_at_the_closing_quote() -> None:
    s = 'My cousin told me "BERT is slow" and GPT only sees the earlier tokens.'
    assert denied(s) == ['My cousin told me "BERT is slow"']


@pytest.mark.parametrize(
    "text",
    [
        "As my teacher said, GPT only sees the earlier tokens.",
        "My teacher said GPT only sees the earlier tokens, which is right.",
        "My friend thinks BERT writes well, and she is simply right.",
    ],
)
def test_words_cited_in_agreement_are_the_students_own(text: str) -> None:
    assert denied(text) == []


def test_a_claim_cited_in_agreement_earns_credit_and_can_be_wrong() -> None:
    assert verdicts("My teacher said GPT only sees the earlier tokens, which is right.")["C3"] == (
        "met"
    )
    agreed = "My friend thinks BERT generates text perfectly well, and she is right."
    assert verdicts(agreed)["C5"] == "contradicted"


@pytest.mark.parametrize(
    "text",
    [
        "An autoregressive decoder writes one token at a time, so later tokens are missing.",
        "Their hidden states carry the words on both sides of the blank.",
        "A masked model assumes the words on both sides of the blank are there.",
        "The tokens on one side tell BERT what the blank is.",
    ],
)
def test_descriptions_of_models_are_not_reported_speech(text: str) -> None:
    assert denied(text) == []


# -- denial frames with a modal or a verb of concluding ----------------------------------------
@pytest.mark.parametrize(
    ("cid", "text"),
    [
        (
            "C4",
            "No one should infer from the cloze task that BERT has no gap between training "
            "and generation - the gap is large.",
        ),
        (
            "C3",
            "Nobody would seriously argue that GPT attends to later tokens; its mask forbids it.",
        ),
        (
            "C1",
            "You should never conclude from the cloze task that BERT attends only to the "
            "tokens on its left.",
        ),
        ("C1", "Don't assume from its name that BERT attends only to the tokens on its left."),
        (
            "C5",
            "That doesn't mean that the masked model, with all its tricks, generates text well.",
        ),
    ],
)
def test_modal_denial_frames_deny_their_clause(cid: str, text: str) -> None:
    assert verdicts(text)[cid] != "contradicted"


def test_a_denial_frame_ends_at_the_dash() -> None:
    s = "Nobody should conclude that BERT is causal - GPT sees only the earlier tokens."
    assert denied(s) == ["Nobody should conclude that BERT is causal"]
    assert verdicts(s)["C3"] == "met"


# -- views introduced to be set aside -----------------------------------------------------------
@pytest.mark.parametrize(
    ("cid", "text"),
    [
        ("C5", "It's tempting to think that BERT can write text well, but it can't."),
        ("C3", "A common misconception is that GPT sees the whole sentence during training."),
        ("C5", "You'd think BERT generates text well since it is strong, but it does not."),
    ],
)
def test_a_view_set_aside_is_not_the_students_claim(cid: str, text: str) -> None:
    assert verdicts(text)[cid] != "contradicted"


def test_an_expectation_without_a_correction_is_a_statement() -> None:
    assert denied("You'd think GPT sees only the earlier tokens.") == []
    assert denied("The error is that BERT was never trained without the right context.") == []


def test_a_use_supposed_is_no_claim_about_the_objective() -> None:
    text = "Using BERT to predict the next word works badly, since it expects a right context."
    assert verdicts(text)["C1"] != "contradicted"
    for wrong in (
        "BERT is used to predict the next word.",
        "BERT is trained to predict the next word.",
    ):
        assert verdicts(wrong)["C1"] == "contradicted"


# -- concessions: an attempt described, then judged poor ---------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "Some researchers used BERT for generation with iterative refinement, but the text "
        "was incoherent.",
        "You can use BERT for text generation with Gibbs sampling, but the result is not fluent.",
        "There are hacks, and BERT is used for generation with them, yet the output is mediocre.",
        "Some people tried BERT for text generation and it generates fine, but the quality is "
        "poor.",
    ],
)
def test_a_conceded_attempt_is_no_claim_that_it_works(text: str) -> None:
    assert verdicts(text)["C5"] != "contradicted"


def test_a_concession_keeps_its_generation_scene() -> None:
    s = "One could try sampling from BERT word by word, but that works badly."
    (span,) = conceded_spans(s)
    assert s[span[0] : span[1]].startswith("One could try sampling")
    text = (
        "BERT fills each blank using the words on both sides. One could try sampling from "
        "BERT word by word, but that works badly, since the words on the right are missing."
    )
    assert verdicts(text)["C2"] == "met"


@pytest.mark.parametrize(
    "text",
    [
        "BERT is used for text generation, but it is slower than GPT.",
        "BERT can generate text just fine, but nobody bothers.",
        # no verdict on quality after the "but": the claim stands
        "Some people use BERT for generation, but they pay for bigger GPUs.",
    ],
)
def test_a_claim_with_a_but_is_still_a_claim(text: str) -> None:
    assert verdicts(text)["C5"] == "contradicted"


# -- "like GPT": a comparison object, not the subject --------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "BERT relies on a causal mask like GPT, but it learns by filling blanks in the middle "
        "of the text.",
        "BERT reads left to right like GPT and it predicts the hidden words in the middle.",
    ],
)
def test_like_gpt_leaves_bert_the_subject(text: str) -> None:
    v = verdicts(text)
    assert v["C1"] == "contradicted"  # the false claim is about BERT ...
    assert v["C3"] != "contradicted"  # ... not about GPT


@pytest.mark.parametrize(
    "text",
    [
        "GPT has a causal mask like BERT, so it predicts masked tokens in the middle.",
        "Decoders like GPT fill in blanks in the middle of a sentence.",  # an example of a kind
    ],
)
def test_the_false_claim_about_gpt_stays_on_gpt(text: str) -> None:
    assert verdicts(text)["C3"] == "contradicted"


# -- generic subjects: "the models", "they" with two antecedents ---------------------------------
TWO = "BERT fills blanks from both sides. GPT predicts the next token from the earlier ones. "


@pytest.mark.parametrize(
    "text",
    [
        TWO + "The way they are trained is not the same as the way they are used.",
        TWO + "For the models, the training is not the same as the way they are used.",
        "BERT fills blanks from both sides and GPT predicts the next token. The way these "
        "models are trained is not the same as how they are used.",
        "BERT sees both sides of each blank. So one model meets at generation the conditions "
        "it was trained under and the other does not.",
    ],
)
def test_a_generic_subject_is_neither_model(text: str) -> None:
    assert verdicts(text)["C4"] == "partial"  # vague: "training differs from use"


@pytest.mark.parametrize(
    "text",
    [
        TWO + "The way GPT is trained is not the same as the way it is used.",
        "BERT fills blanks from both sides. The way it is trained is the same as the way it "
        "is used.",
        "GPT-style models see the whole sentence during training.",  # the family is named
        "BERT sees both sides of each blank. So BERT meets at generation the conditions it was "
        "trained under.",
    ],
)
def test_a_named_or_single_antecedent_still_contradicts(text: str) -> None:
    assert "contradicted" in verdicts(text).values()


# -- clause scope: the generation condition is no claim about the model ------------------------
def test_a_scene_setting_opener_is_no_use_of_the_model() -> None:
    text = (
        "BERT fills blanks from both sides. At sampling time for generation, the model gets a "
        "prefix and nothing more."
    )
    assert verdicts(text)["C5"] != "contradicted"


@pytest.mark.parametrize(
    "text", ["BERT is used for generation.", "In practice BERT is used for text generation."]
)
def test_the_use_claimed_outright_still_contradicts(text: str) -> None:
    assert verdicts(text)["C5"] == "contradicted"


def test_the_condition_bert_was_never_trained_under_is_no_claim_about_its_training() -> None:
    text = "BERT is fed the left context only, a setting it has never been trained on."
    assert verdicts(text)["C1"] != "contradicted"
    assert verdicts("BERT sees only the words on its left.")["C1"] == "contradicted"


def test_a_consequence_about_generation_does_not_set_the_claim_at_generation() -> None:
    # recall: the false claim about what BERT sees is not excused by a later "so ..."
    v = verdicts("BERT only looks at the words on its left, so its generations are worse.")
    assert v["C1"] == "contradicted"
    for scene in (
        "When BERT generates, it only has the words on its left, so it guesses badly.",
        "At generation BERT only has the words on its left, so its generations are worse.",
    ):
        assert verdicts(scene)["C1"] != "contradicted"
        assert verdicts(scene)["C2"] == "partial"


def test_the_whole_sentence_said_available_at_generation_contradicts_c2() -> None:
    text = (
        "BERT fills blanks from both sides. When it generates it has the whole sentence available."
    )
    assert verdicts(text)["C2"] == "contradicted"
    for fine in (
        "When BERT writes, the later tokens are not available yet.",
        "When BERT generates, no later tokens are available.",
        "In training BERT has the whole sentence available.",
    ):
        assert verdicts(fine)["C2"] != "contradicted"


@pytest.mark.parametrize(
    ("cid", "wrong", "fine"),
    [
        (
            "C2",
            "When generating, BERT can simply use the right context too.",
            "During training BERT can simply use the right context.",
        ),
        (
            "C3",
            "In training GPT gets to look at the entire gold sentence.",
            "In training GPT never gets to look at the entire gold sentence.",
        ),
    ],
)
def test_availability_with_an_adverb_or_adjective_is_still_found(cid, wrong, fine) -> None:
    assert verdicts(wrong)[cid] == "contradicted"
    assert verdicts(fine)[cid] != "contradicted"


# -- the trailing [MASK] family owns its "predicts the next word" ------------------------------
def test_a_trailing_mask_claim_is_charged_to_c2_not_c1() -> None:
    v = verdicts("Add a [MASK] to the end of the text and BERT predicts the next word like GPT.")
    assert v["C2"] == "contradicted"
    assert v["C1"] != "contradicted"
    tried = "If you put a [MASK] at the end, BERT predicts the next word, but the words are poor."
    assert verdicts(tried)["C1"] != "contradicted"
    assert verdicts("BERT predicts the next word from the words before it.")["C1"] == (
        "contradicted"
    )


# -- Markdown tables and code blocks, read line by line ----------------------------------------
QUESTION_TABLE = (
    "| | BERT | GPT |\n"
    "|---|---|---|\n"
    "| Objective | fill blanks | next token |\n"
    "| Can it see later tokens? | yes, both sides | no - only earlier ones |\n"
    "| Typical use | tagging, classification | chat, text generation |"
)


def test_a_table_is_one_block_whatever_its_cells_end_with() -> None:
    sents = split_sentences("Here is my summary.\n" + QUESTION_TABLE + "\nThat is all.")
    assert [s.text.split("\n")[0] for s in sents] == [
        "Here is my summary.",
        "| | BERT | GPT |",
        "That is all.",
    ]


def test_a_question_header_is_answered_by_its_cells() -> None:
    v = verdicts(QUESTION_TABLE)
    assert v["C3"] == "met"  # "no - only earlier ones": GPT does not see later tokens
    assert v["C1"] == "met"
    assert v["C5"] == "met"  # the "Typical use" row says what each is used for


def test_a_table_row_that_says_gpt_sees_later_tokens_still_contradicts() -> None:
    table = QUESTION_TABLE.replace("no - only earlier ones", "yes, the whole sentence")
    assert verdicts(table)["C3"] == "contradicted"


CODE = (
    "```python\n"
    "# decoder: row i may only see columns up to i\n"
    "attn = attn.masked_fill(torch.triu(torch.ones(n, n), 1).bool(), -1e9)\n"
    "# encoder: no mask at all, each token attends to every other token\n"
    "```\n"
    "With the triu mask, GPT predicts token i+1 from tokens up to i only."
)


def test_each_code_line_is_a_sentence_and_the_fences_are_dropped() -> None:
    lines = [s.text for s in split_sentences(CODE)]
    assert lines[0] == "# decoder: row i may only see columns up to i"
    assert lines[2].startswith("# encoder")
    assert lines[-1].startswith("With the triu mask")
    assert not any(x.startswith("```") for x in lines)
    # a one-line answer with inline fences is prose, not a code block
    inline = "```x = tril(m)``` This is GPT's mask. BERT has none."
    assert len(split_sentences(inline)) == 2


def test_a_code_comment_about_the_encoder_is_no_claim_about_the_decoder_line() -> None:
    v = verdicts(CODE.replace("decoder:", "causal LM:").replace("encoder:", "masked LM:"))
    assert v["C1"] != "contradicted"
    assert v["C3"] == "met"
    wrong = "```\n# masked LM: a causal mask, it only reads the tokens on its left\n```"
    assert verdicts(wrong)["C1"] == "contradicted"


# -- the rule of last resort: uncertain polarity is flagged, not contradicted --------------------
@pytest.mark.parametrize(
    ("cid", "text"),
    [
        ("C5", "Apparently BERT can generate text just fine."),
        (
            "C5",
            'BERT sees both sides. Everyone repeats the slogan "BERT can generate stories '
            'just fine" these days.',
        ),
        ("C3", "According to the blog, GPT looks at the whole sentence at once."),
        ("C3", "I'm not sure, but GPT sees the whole sentence in training."),
    ],
)
def test_an_uncertain_false_claim_is_flagged_not_contradicted(cid: str, text: str) -> None:
    res = score_explanation(text, reader_weights=NO_READER)
    crit = next(c for c in res.criteria if c.id == cid)
    assert crit.verdict != "contradicted"
    assert crit.needs_review
    assert any(r.startswith(f"{cid}:") and "uncertain" in r for r in res.review_reasons)
    assert "What is wrong" not in crit.feedback  # the student is not told they wrote it


@pytest.mark.parametrize(
    ("cid", "text"),
    [
        ("C5", "BERT can generate text just fine."),
        ("C5", "BERT is a decoder, right?"),  # an instructor's explicit pattern stays
        ("C3", 'GPT sees the whole sentence in training. I call this "peeking ahead".'),
    ],
)
def test_a_certain_false_claim_still_contradicts(cid: str, text: str) -> None:
    res = score_explanation(text, reader_weights=NO_READER)
    assert next(c for c in res.criteria if c.id == cid).verdict == "contradicted"
    assert not any("uncertain" in r for r in res.review_reasons)
