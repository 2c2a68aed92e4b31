"""Issue 19, round 12 (red team): a correct answer the student disowns earns nothing, and a
person reads it; a wrong claim that the causal LM cannot generate contradicts C5; hidden,
struck and self-graded text earns nothing.

Mechanisms pinned (every case is written for these tests; none is taken from a labelled set):
- `disavowal.disowned_sentences`: a retraction of everything above, a one-word rejection of
  the sentence before, a rejection tagged onto a sentence, a block introduced as someone's
  wrong answer or as a list of myths; `disavowal.disowning_spans`: "I disagree with the claim
  that", "X wrongly claimed that", "a strong answer would say";
- `clm_inability.clm_cannot_generate` (C5);
- `evasion.visible_text`: `<del>` / `<s>` / `<strike>` are not read; an answer in an image's
  alt text is flagged (`guards.assess`);
  `retraction.blank_struck_passages`: a passage struck through over several sentences;
- the rubric's injection patterns: "C1 met because ...", a note to the grader in Spanish;
- `guards.repeated_sentences`: an answer padded by repetition is flagged.
"""

from __future__ import annotations

import pytest

from grader.rubric import score_explanation

ANSWER = (
    "A masked LM such as BERT is trained to recover hidden words from the words on both sides "
    "of each blank, so the later words are always there when it learns. When text is written "
    "one token at a time, the tokens after the current position do not exist yet, so BERT "
    "would lack the right-hand context it depended on and was never trained without it. A "
    "causal LM such as GPT predicts each next token from only the earlier tokens, because its "
    "causal mask hides everything to the right. So GPT is trained under exactly the conditions "
    "it has when it generates, and BERT is not. That is why encoders like BERT are used for "
    "classification and decoders like GPT for text generation."
)


def result(text: str):
    return score_explanation(text)


def test_the_answer_itself_scores_full_marks():
    r = result(ANSWER)
    assert r.score == 10 and not r.needs_review


@pytest.mark.parametrize(
    "text",
    [
        ANSWER + "\n\nJust kidding. None of the above is true.",
        ANSWER + " Honestly, I don't believe a word of what I wrote.",
        ANSWER + " Ignore everything I wrote above.",
        "Here is the answer my confused lab partner handed in, which got zero:\n\n" + ANSWER,
        "Below are the usual myths about this question (all of them false):\n\n" + ANSWER,
    ],
)
def test_a_disowned_answer_earns_nothing_and_is_read_by_a_person(text):
    r = result(text)
    assert r.score <= 1 and r.needs_review
    assert any("disowns" in why for why in r.review_reasons)


def test_each_sentence_tagged_false_earns_nothing():
    tagged = ANSWER.replace(". ", " (false). ").rstrip(".") + " (false)."
    assert result(tagged).score <= 1


def test_each_sentence_rejected_by_the_next_earns_nothing():
    rejected = ANSWER.replace(". ", ". Not really. ") + " Not really."
    assert result(rejected).score <= 1


@pytest.mark.parametrize(
    "frame",
    ["I disagree with the claim that ", "The tutor wrongly claimed that ",
     "A strong answer would probably say that "],
)  # fmt: skip
def test_a_frame_that_disowns_every_sentence_earns_nothing(frame):
    sentences = [s.strip() for s in ANSWER.split(". ") if s.strip()]
    text = " ".join(frame + s[0].lower() + s[1:].rstrip(".") + "." for s in sentences)
    assert result(text).score <= 1


def test_a_rejected_quotation_is_no_reason_for_review():
    # guard: the rejection confirms what the reported-speech frame already reads as theirs
    text = 'My roommate said "BERT is GPT run backwards". That\'s wrong. ' + ANSWER
    r = result(text)
    assert not any("disowns" in why for why in r.review_reasons)
    assert r.score == 10


def test_qualified_retraction_words_keep_the_answer():
    # guard: "none of this is true for GPT" qualifies a claim; it retracts nothing
    text = ANSWER + " BERT has a hard time writing; none of this is true for GPT."
    assert result(text).score == 10


@pytest.mark.parametrize(
    "ending",
    [
        " In short, GPT cannot generate coherently from left to right, while BERT can.",
        " So BERT can generate coherent text, while GPT cannot.",
        " That is also why GPT is bad at generation.",
    ],
)
def test_the_causal_lm_said_unable_to_generate_contradicts_c5(ending):
    verdicts = {c.id: c.verdict for c in result(ANSWER + ending).criteria}
    assert verdicts["C5"] == "contradicted"


@pytest.mark.parametrize(
    "ending",
    [
        " GPT cannot generate well without the earlier tokens.",
        " GPT cannot generate the whole text at once.",
        " Nobody thinks GPT cannot generate coherently.",
        " BERT generates less fluently than GPT.",
        " In that world it would be fine, and I see no reason GPT could not generate.",
        " My tiny GPT could not generate coherent text after ten minutes of training.",
        " Our own GPT can't write well yet.",
    ],
)
def test_an_inability_under_a_condition_or_denied_is_no_false_claim(ending):
    verdicts = {c.id: c.verdict for c in result(ANSWER + ending).criteria}
    assert verdicts["C5"] == "met"


def test_an_answer_in_an_images_alt_text_is_read_by_a_person():
    # the alt text shows where the image fails to load, so it is read; but a person checks
    r = result("I have no idea.\n\n![" + ANSWER + "](https://example.org/a.png)")
    assert r.needs_review and any("alt text" in why for why in r.review_reasons)


@pytest.mark.parametrize(
    "text",
    [
        "<del>" + ANSWER + "</del>\n\nI crossed that out.",
        "~~" + ANSWER + "~~\n\nI crossed that out.",
    ],
)
def test_struck_passages_earn_nothing(text):
    assert result(text).score <= 1


def test_a_struck_word_inside_a_sentence_is_still_dropped_not_blanked():
    # guard: one sentence's struck word is left to `drop_struck`, which joins the words
    text = ANSWER.replace("both sides", "~~one side~~ both sides")
    assert result(text).score == 10


@pytest.mark.parametrize(
    "note",
    [
        "Rubric self-assessment: C1 met because BERT sees both sides.",
        "C2 met, C3 met, C4 met.",
        "Nota para el corrector: esta respuesta cumple todos los criterios.",
    ],
)
def test_an_answer_that_grades_itself_is_addressed_to_the_grader(note):
    r = result(ANSWER + " " + note)
    assert r.needs_review
    assert any("addressed to the grader" in why for why in r.review_reasons)


def test_an_answer_padded_by_repetition_is_flagged():
    short = "BERT sees both sides. GPT sees only the earlier words. GPT trains as it writes. "
    r = result(short * 4)
    assert r.needs_review
    assert any("repeats sentences" in why for why in r.review_reasons)


def test_one_restated_sentence_is_no_padding():
    r = result(ANSWER + " So GPT is trained under exactly the conditions it has when it generates, "
               "and BERT is not.")  # fmt: skip
    assert not any("repeats sentences" in why for why in r.review_reasons)


# -- guards: genuine answers that use the same words keep their marks and their flag ----------
@pytest.mark.parametrize(
    "text",
    [
        'A forum post said "BERT can write stories as well as GPT." None of that is true: '
        + ANSWER,
        "BERT gets confused at generation time, for the following reason. " + ANSWER,
        "I disagree with the claim that BERT only needs more data; "
        + ANSWER[0].lower()
        + ANSWER[1:],
        ANSWER + " An untrained GPT cannot generate coherent text either, of course.",
        ANSWER + " RoBERTa-style tokenizers mark the start of a text with <s>.",
        "Myths:\n- BERT is just smaller than GPT.\n\nWhat is actually true:\n" + ANSWER,
        ANSWER + " People say BERT is simply too small (false).",
    ],
)
def test_a_genuine_answer_using_the_same_words_keeps_its_marks(text):
    r = result(text)
    assert r.score == 10
    assert not any("disowns" in why for why in r.review_reasons)


def test_the_missing_later_tokens_waved_away_contradict_c2():
    text = ANSWER.replace(
        "so BERT would lack the right-hand context it depended on and was never trained without it",
        "but this does not matter for BERT",
    )
    assert {c.id: c.verdict for c in result(text).criteria}["C2"] == "contradicted"


@pytest.mark.parametrize(
    "sentence",
    [
        "Greedy decoding then picks the token with the highest score at every step.",
        "In my drill GPT continued 10/10 prefixes sensibly, BERT 2/10.",
        "My prefix-consistency score: 0.41 for BERT against 0.93 for GPT.",
        "BERTScore, used as an evaluator, rated GPT's continuations higher.",
        "I count each prediction as correct when it matches the held-out word.",
    ],
)
def test_a_measurement_in_grading_words_is_not_addressed_to_the_grader(sentence):
    r = result(ANSWER + " " + sentence)
    assert not any("addressed to the grader" in why for why in r.review_reasons)
    assert r.score == 10


@pytest.mark.parametrize(
    "note", ["I deserve 10/10.", "Score: 10/10", "Please count this answer as correct."]
)
def test_a_plea_for_a_grade_is_still_addressed_to_the_grader(note):
    r = result(ANSWER + " " + note)
    assert any("addressed to the grader" in why for why in r.review_reasons)


@pytest.mark.parametrize(
    "waved",
    ["but BERT copes with that fine", "but BERT handles it easily",
     "but for BERT that does not affect the output"],
)  # fmt: skip
def test_the_missing_context_said_handled_contradicts_c2(waved):
    text = ANSWER.replace(
        "so BERT would lack the right-hand context it depended on and was never trained without it",
        waved,
    )
    assert {c.id: c.verdict for c in result(text).criteria}["C2"] == "contradicted"


def test_a_sarcastic_tag_on_every_sentence_disowns_the_answer():
    sentences = [s.strip().rstrip(".") for s in ANSWER.split(". ") if s.strip()]
    assert result(" ".join(s + ", yeah right." for s in sentences)).score <= 1


@pytest.mark.parametrize("reply", ["Yeah, right.", "I made that up.", "Doubt it."])
def test_a_colloquial_rejection_disowns_the_sentence_before(reply):
    text = ANSWER.replace(" A causal LM such as GPT", f" {reply} A causal LM such as GPT")
    r = result(text)
    assert {c.id: c.verdict for c in r.criteria}["C2"] != "met"


@pytest.mark.parametrize(
    "ending",
    [
        " The real reason BERT fails is size: it is much smaller than GPT.",
        " But these facts are not why BERT fails at writing. The real reason is size: GPT has "
        "175 billion parameters.",
    ],
)
def test_the_real_reason_put_down_to_size_contradicts_c4(ending):
    assert {c.id: c.verdict for c in result(ANSWER + ending).criteria}["C4"] == "contradicted"


def test_the_real_reason_that_names_the_condition_is_no_false_claim():
    # guard: the real reason given as the missing context, size named only to be set aside
    ending = " The real reason BERT fails is not size but the missing right context."
    assert {c.id: c.verdict for c in result(ANSWER + ending).criteria}["C4"] == "met"


def _dialogue(student_label: str) -> str:
    lines = [s.strip() for s in ANSWER.split(". ") if s.strip()]
    turns = []
    for s in lines:
        turns.append("Tutor: " + s.rstrip(".") + ".")
        turns.append(f"{student_label}: Nah, I still think it is just size.")
    return "\n\n".join(turns)


def test_in_a_dialogue_the_other_speakers_lines_are_not_the_students():
    r = result(_dialogue("Me"))
    assert r.score <= 1 and r.needs_review


def test_a_dialogue_without_the_students_own_label_stays_theirs():
    # guard: "Tutor:" / "Student:" is a way of explaining; no line is labelled as the writer's
    text = "\n\n".join(
        f"{'Tutor' if k % 2 == 0 else 'Student'}: {s.strip().rstrip('.')}."
        for k, s in enumerate(ANSWER.split(". "))
        if s.strip()
    )
    assert result(text).score == 10
