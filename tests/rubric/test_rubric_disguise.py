"""Red team on Exercise 2: letters no look-alike table holds.

On 8dbc064 the model answer with its small words written in Armenian letters ("\u0585\u0578"),
Latin alpha ("\u0251nd"), Cherokee ("\u13a2\u13bb\u13ac"), with a dot, slash or period inside
("t\u00b7he", "t.he") or digits for letters ("t0") kept 6.5-10/10: the copy check's word 4-grams
broke while a reader reads the same words. The rules here ask the Unicode data, not a table
(`grader.rubric.disguise`). The controls show an honest answer, a gloss in another script and
an answer written in another language keep what they had.
"""

from __future__ import annotations

import pytest

from grader.loading.model import extract_answer
from grader.resources import data_path
from grader.rubric import score_explanation
from grader.rubric.disguise import eye_words, mixed_script_words
from grader.rubric.text import normalize
from tools.rubric.agreement import tuning_texts

MODEL_ANSWER = extract_answer(data_path("solutions", "explanation.md").read_text())
OWN = (
    "BERT is trained to fill in hidden words using the words on both sides of each blank, so "
    "it relies on the right-hand context. When text is generated left to right, the later "
    "words do not exist yet, and BERT was never trained without them. GPT only ever sees the "
    "earlier tokens, which is exactly the condition it faces when it generates. So encoders "
    "like BERT are used for classification and decoders like GPT for generation."
)
SMALL = {"the", "a", "of", "to", "and", "is", "that", "at", "on", "it", "in", "its", "as",
         "by", "for", "with", "be", "this", "are", "not"}  # fmt: skip
_CHEROKEE = str.maketrans("THEAS", "\u13a2\u13bb\u13ac\u13aa\u13da")
FORMS = {  # how each small word is written
    "armenian": lambda w: w.replace("o", "\u0585").replace("n", "\u0578").replace("h", "\u0570"),
    "latin-alpha": lambda w: w.replace("a", "\u0251"),
    "script-g-and-alpha": lambda w: w.replace("g", "\u0261").replace("a", "\u0251"),
    "greek-rho-nu-iota": lambda w: w.replace("p", "\u03c1").replace("i", "\u03b9"),
    "cherokee-small": lambda w: w.replace("a", "\uab7a"),
    "cherokee-whole-words": lambda w: w.upper().translate(_CHEROKEE),
    "nko-digit": lambda w: w.replace("o", "\u07c0"),
    "middle-dot": lambda w: w[:1] + "\u00b7" + w[1:] if len(w) > 1 else w,
    "period-inside": lambda w: w[:1] + "." + w[1:] if len(w) > 1 else w,
    "slash-inside": lambda w: w[:1] + "/" + w[1:] if len(w) > 1 else w,
    "apostrophe-inside": lambda w: w[:1] + "'" + w[1:] if len(w) > 1 else w,
    "digits-for-letters": lambda w: w.replace("o", "0").replace("i", "1"),
}


def _disguise(text: str, form) -> str:
    return " ".join(form(w) if w.lower() in SMALL else w for w in text.split(" "))


@pytest.mark.parametrize("form", list(FORMS.values()), ids=list(FORMS))
def test_a_copy_in_letters_no_table_holds_earns_nothing_and_is_flagged(form):
    res = score_explanation(_disguise(MODEL_ANSWER, form))
    assert res.score == 0 and res.needs_review
    assert any("copies course material" in r for r in res.review_reasons)


def test_an_own_answer_with_letters_of_another_script_in_its_words_earns_nothing():
    """Not a copy, so only the mixing shows: a reader reads "the", the scorer "\u0585f"."""
    res = score_explanation(_disguise(OWN, FORMS["armenian"]))
    assert res.score == 0 and res.needs_review
    assert any("letters of another script" in r for r in res.review_reasons)


def test_a_gloss_in_another_script_keeps_its_credit():
    text = OWN.replace(
        "BERT is",
        "BERT (\u63a9\u7801\u8bed\u8a00\u6a21\u578b, \u043c\u043e\u0434\u0435\u043b\u044c) is",
    )
    text = text.replace("right-hand context", "right-hand context (\u03bb = 0.1, 10 \u00b5s)")
    assert score_explanation(text).score == score_explanation(OWN).score == 10


def test_an_answer_in_another_script_is_routed_to_a_person_not_penalised():
    russian = "Модель BERTшка видит слова с обеих сторон, а GPTшка только слева. " * 3
    res = score_explanation(russian)
    assert res.needs_review
    assert any("Cyrillic" in r for r in res.review_reasons)
    assert not any("letters of another script" in r for r in res.review_reasons)


def test_mixed_script_words_reads_the_unicode_data():
    assert mixed_script_words(normalize("\u0585f th\u0251t GPT\u0448\u043a\u0430 t\u07c0")) == [
        "\u0585f", "th\u0251t", "GPT\u0448\u043aa", "t\u07c0",
    ]  # fmt: skip
    ordinary = "naïve Straße æon œuvre café Łódź 10µs Σ λ x² don\u02bct \u02c8stress"
    assert mixed_script_words(normalize(ordinary)) == []


def test_eye_words_reads_plain_tokens_as_words_and_the_rest_as_unknown():
    assert eye_words("BERT's left-to-right model, don't; I'm (GPT-2) 3.5%") == [
        "bert's", "left", "to", "right", "model", "don't", "i'm", None,
    ]  # fmt: skip
    assert eye_words("t\u00b7he t.he t0 \u13a2\u13bb\u13ac t'he the") == [None] * 5 + ["the"]


def test_no_labelled_answer_mixes_scripts_in_a_word():
    texts = tuning_texts()
    assert len(texts) > 400
    assert [t[:60] for t in texts if mixed_script_words(normalize(t))] == []
