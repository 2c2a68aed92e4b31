"""The lesson-plan voice (round 10, track a): teachers' misconception boxes, quoted sources,
everyday task names, worked examples and analogies with two pupils.

- a quotation under a labelled misconception box ("Misconception no. 3: '...'") and a
  quotation from a source the teacher found ("A textbook we use says: '...'") are reported,
  not claimed; unquoted text under "Misconception alert:" stays the teacher's own;
- understanding tasks by their everyday names ("spam filters", "spotting names") are uses;
- the British prevention without "from" ("a mask stops the model seeing") negates the view;
- "GPT is the pupil who ..." does not make "pupil" GPT's alias when another sentence
  introduces "a pupil who ..." (two figures of one noun);
- a sameness spelled out as the order of prediction ("word by word") implies no restriction
  when the answer states the causal objective without "only";
- the example sentence a worked example quotes is data, not a quoted claim;
- "That's masked LM (BERT)." after an activity makes the activity that model's.

Sentences written for these tests."""

from __future__ import annotations

from rule_verdicts import rules  # the rules alone (a helper beside this file)

from grader.rubric import load_rubric
from grader.rubric.polarity import unasserted_spans


# -- misconception boxes and quoted sources ---------------------------------------------------
def test_a_quoted_misconception_under_a_numbered_box_is_not_the_teachers_claim() -> None:
    text = (
        "Misconception no. 3: 'GPT looks at the words on both sides of each position.' "
        "Put them right. GPT is trained to predict the next token from only the earlier "
        "tokens, because a causal mask hides the later ones."
    )
    assert rules(text)["C3"] == "met"


def test_only_a_quotation_under_a_misconception_label_is_reported() -> None:
    boxed = "Common misconception #2: 'GPT sees the whole paragraph when it predicts.'"
    assert unasserted_spans(boxed)
    alert = "Misconception alert: remember that GPT sees the whole paragraph when it predicts."
    assert unasserted_spans(alert) == []


def test_a_quoted_source_the_teacher_found_is_the_sources_claim() -> None:
    s = "A textbook we use says: 'BERT is the best choice for writing stories.'"
    spans = unasserted_spans(s)
    assert spans and spans[0][0] <= s.index("BERT") and spans[0][1] >= s.index("stories")
    text = s + " Show pupils why that is wrong. BERT is used for classification."
    assert rules(text)["C5"] != "contradicted"


# -- everyday names of understanding tasks ----------------------------------------------------
def test_spam_filters_and_spotting_names_are_understanding_uses() -> None:
    text = (
        "In the plenary pupils learn that BERT-like encoders are used for spam filters and "
        "for spotting names in a letter, and GPT-like decoders are used to write stories."
    )
    assert rules(text)["C5"] == "met"


def test_the_full_text_already_there_for_a_use_is_no_availability_at_generation() -> None:
    text = (
        "BERT fills each gap from the words before and after it, and at generation the "
        "later words do not exist yet. So BERT is used where the whole email is already "
        "there, like sorting emails into folders, and GPT is used to generate."
    )
    verdicts = rules(text)
    assert verdicts["C2"] != "contradicted" and verdicts["C5"] == "met"


# -- prevention without "from" ----------------------------------------------------------------
def test_a_mask_that_stops_the_model_seeing_later_words_is_the_restriction() -> None:
    text = "In GPT a causal mask stops the model seeing later words while it predicts."
    assert rules(text)["C3"] != "contradicted"
    rubric = load_rubric()
    negs = [p for p in rubric.lexicon["negation"] if p.search("it prevents the model peeking")]
    assert negs


# -- two pupils in one analogy ----------------------------------------------------------------
def test_the_pupil_who_is_gpt_is_not_the_pupil_who_did_gap_fills() -> None:
    text = (
        "Picture a pupil who has only done cloze tests. The pupil could always read what "
        "came before the blank and what came after it. BERT learns like that. "
        "GPT is the pupil who practised continuing a story, and it only ever saw the "
        "words before the next one."
    )
    assert rules(text)["C3"] != "contradicted"


# -- a sameness of order does not imply the restriction ---------------------------------------
def test_trains_as_it_writes_word_by_word_adds_no_restriction_to_a_stated_objective() -> None:
    text = (
        "GPT is trained to predict the next word from the previous words. When a model "
        "writes, the words after the current one do not exist yet. GPT trains just as it "
        "writes, word by word, whereas BERT trains on a condition writing never gives."
    )
    assert rules(text)["C3"] == "partial"


# -- the example of a worked example ----------------------------------------------------------
def test_the_quoted_example_of_a_worked_example_leaves_a_false_claim_certain() -> None:
    text = (
        "Worked example: to let BERT generate text, put a [MASK] at the end of the sentence: "
        '"Once upon a time there was a [MASK]". BERT fills it, you add another [MASK] and '
        "repeat. This works well because BERT learned to use the words around each mask."
    )
    assert rules(text)["C2"] == "contradicted"


# -- an activity identified by the next sentence ----------------------------------------------
def test_an_activity_is_the_model_the_next_sentence_identifies() -> None:
    text = (
        "Lesson aim: compare causal LM training with the other kind. Game 1: I cover one "
        "word of a sentence and the class works it out from the words before and after the "
        "cover. That's masked LM (BERT)."
    )
    assert rules(text)["C1"] == "met"
