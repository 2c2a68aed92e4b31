"""Precision of wrong-claim detection in round 9 (track p): text that is not a claim about a
model, or not the student's claim, must not make a criterion contradicted, and the true false
claims near it must still be found.

- a family word negated by its prefix ("non-causal") names no causal model: what the sentence
  says of the masked LM is not said of the causal LM;
- a whole text with its blanks covered ("the whole page with a few words covered up") is still
  seen whole;
- the input of a drill a person did ("I had to guess it once with only the earlier words") or
  of a measurement ("with only the prefix it fell to 0.19") is no claim about a model
  (`experiment.py`);
- relation words and tasks in another role: "the words in front of the gap" (a place, the
  blank), "this difference in difficulty" (a measure of two tasks), "harder than filling a
  blank" (a task named as the comparison object);
- a teacher reporting what learners wrongly believe ("pupils often think that ...", "a typical
  misconception among my class is that ...", "it's a classic mistake to think that ...", "a
  common beginner error: ...", "learners who assume that ...", "the picture most beginners start
  with, that ...", "what my pupils get wrong: ...") states no claim of the teacher's in that
  clause;
- a pasted error message ("ValueError: ...") is what a program printed, while a code comment is
  the student's claim; an instructor's false-claim pattern matched across a denial ("BERT
  cannot serve as a decoder") is no false claim;
- a singular generic subject stating a principle ("a model does well on the conditions it was
  optimised for") is neither model, like "the models";
- a trailing [MASK] reported as an attempt ("my first try ... was to add a [MASK] at the end")
  is no claim that it works unless the sentence says it worked;
- being "at the end of what exists" is a position, not later context available;
- "generation as well" is "also", not a claim that the masked LM generates well;
- the answer announcing the topics it covers ("I have addressed every rubric point: A, B, C")
  lists topic names and asserts none of them;
- one phrase read twice by overlapping lexicon entries has one polarity ("never ... without the
  words after the gap");

Sentences written for these tests."""

from __future__ import annotations

from rule_verdicts import rules  # the rules alone (a helper beside this file)


# -- a negated family word names no model ---------------------------------------------------
def test_non_causal_said_of_the_masked_model_is_no_claim_about_the_causal_model() -> None:
    text = (
        "Seen as a filter, BERT is non-causal: each estimate draws on the samples before and "
        "the samples after the blank. GPT only uses the earlier tokens, because of its causal "
        "mask."
    )
    v = rules(text)
    assert v["C3"] != "contradicted"
    assert v["C1"] in ("met", "partial")
    # the causal family said to see both sides stays a false claim
    assert (
        rules("A causal LM uses the tokens before and the tokens after each position.")["C3"]
        == "contradicted"
    )


# -- a blank hidden inside the whole is not the whole hidden --------------------------------
def test_the_whole_text_with_its_blanks_covered_is_still_seen_whole() -> None:
    for text in (
        "A masked model is handed the complete passage with two words covered, and fills "
        "them in from what surrounds them.",
        "BERT reads the entire paragraph apart from the hidden words and has to restore them.",
    ):
        assert rules(text)["C1"] != "contradicted", text
    assert rules("BERT only reads the words to the left of the blank.")["C1"] == "contradicted"


# -- a drill's or an experiment's input is no claim about a model ----------------------------
def test_what_a_person_was_given_in_a_drill_is_no_claim_about_the_masked_model() -> None:
    text = (
        "In class I had to fill in a masked word twice, once with the full text and once with "
        "only the earlier words. BERT trains on the first version: it uses the "
        "words on both sides of the blank."
    )
    assert rules(text)["C1"] != "contradicted"


def test_the_input_of_a_measurement_is_no_claim_about_the_masked_model() -> None:
    text = (
        "For the masked model the top-1 accuracy was 0.64 with the whole sequence, but it fell "
        "to 0.22 with only the left context. It was trained with the words on both sides."
    )
    assert rules(text)["C1"] != "contradicted"
    # the same restriction asserted of the model stays a false claim
    assert rules("The masked model only uses the left context.")["C1"] == "contradicted"


# -- one phrase, one polarity ----------------------------------------------------------------
def test_never_without_the_later_words_is_one_claim_that_it_had_them() -> None:
    text = "The masked model never once had to predict without the words after the blank."
    assert rules(text)["C1"] != "contradicted"


# -- relation words and tasks in another role ------------------------------------------------
def test_the_gap_as_a_place_in_the_sentence_is_no_mismatch_of_the_causal_model() -> None:
    text = (
        "GPT is only allowed the words in front of the gap, because its causal mask hides "
        "everything later, in training and in generation alike."
    )
    assert rules(text)["C4"] != "contradicted"


def test_a_difference_in_difficulty_is_no_mismatch_between_training_and_use() -> None:
    text = (
        "I suspect this difference in difficulty is why the causal model generates better: it "
        "learned the harder task."
    )
    assert rules(text)["C4"] != "contradicted"


def test_a_task_named_after_than_is_not_what_the_causal_model_does() -> None:
    text = (
        "The causal model's loss stays higher, since guessing the next word is harder than "
        "filling a blank."
    )
    assert rules(text)["C3"] != "contradicted"
    guard = "GPT predicts the masked words in the middle of the sentence."
    assert rules(guard)["C3"] == "contradicted"


# -- a teacher reporting what learners wrongly believe ---------------------------------------
def test_what_learners_are_reported_to_believe_is_not_the_teachers_claim() -> None:
    for text, cid in (
        (
            "Learners often think that BERT scans a sentence left to right, as they do. I "
            "correct it with a covered word: BERT uses the words on both sides of it.",
            "C1",
        ),
        (
            "My year 10 class tend to say that the masked model only uses the words to the "
            "left. That is wrong: it sees both sides of the blank.",
            "C1",
        ),
        (
            "The most frequent misconception among the new trainees is that GPT can peek at "
            "the end of the sentence. I show them that it only attends to the earlier tokens.",
            "C3",
        ),
        (
            "It's a classic mistake to think that the masked model reads only the left "
            "context. In fact it uses both sides.",
            "C1",
        ),
        (
            "A typical beginner error: believing that the causal LM attends to the later "
            "tokens in training. It never does; the causal mask blocks them.",
            "C3",
        ),
    ):
        assert rules(text)[cid] != "contradicted", text
    # the teacher's own statement next to a learners' frame stays the teacher's
    own = "Pupils often find this hard. The masked model only reads the words to the left."
    assert rules(own)["C1"] == "contradicted"


# -- what a program printed is not the student's claim ---------------------------------------
def test_a_pasted_error_message_is_not_the_students_claim() -> None:
    text = (
        "```python\n"
        "seq = encoder.generate(prompt_ids)  # ValueError: GPT sees the whole sequence here\n"
        "```\n"
        "So the library refuses, and rightly: GPT predicts each token from only the earlier "
        "ones."
    )
    assert rules(text)["C3"] != "contradicted"
    # the student's own comment in the code is their claim
    own = "```python\nlogits = gpt(ids).logits  # GPT sees the whole sequence here\n```"
    assert rules(own)["C3"] == "contradicted"


def test_a_denied_architecture_swap_is_no_false_claim() -> None:
    text = "BERT cannot serve as a decoder; encoders like it are used for classification."
    assert rules(text)["C5"] != "contradicted"
    assert rules("BERT works as a decoder, just like GPT.")["C5"] == "contradicted"


# -- a principle stated of any model ---------------------------------------------------------
def test_a_principle_about_any_model_is_not_said_of_the_masked_model() -> None:
    text = (
        "For BERT, writing is a situation it never met in training. That is why the tie "
        "between training and generation matters: a model does well on the conditions it was "
        "optimised for."
    )
    assert rules(text)["C4"] != "contradicted"
    assert rules("BERT is trained under the same conditions it generates under.")["C4"] == (
        "contradicted"
    )


# -- an attempt reported is no claim that it worked ------------------------------------------
def test_a_trailing_mask_reported_as_an_attempt_is_no_claim_that_it_works() -> None:
    text = (
        "My first try at generating with BERT was to add a [MASK] at the end of the prompt. "
        "It only ever predicted a full stop."
    )
    assert rules(text)["C2"] != "contradicted"
    worked = "We tried putting a [MASK] at the end, and BERT then works fine, like GPT."
    assert rules(worked)["C2"] == "contradicted"


# -- a position is not context seen ----------------------------------------------------------
def test_standing_at_the_end_of_the_text_is_no_later_context_available() -> None:
    text = (
        "GPT was trained on the earlier tokens only. While sampling, it is always at the end "
        "of what exists so far."
    )
    assert rules(text)["C2"] != "contradicted"
    seen = "At generation time BERT can still see the end of the sentence."
    assert rules(seen)["C2"] == "contradicted"


# -- "as well" is "also", not "well" ---------------------------------------------------------
def test_generation_as_well_is_no_claim_that_the_masked_model_generates_well() -> None:
    text = (
        "The masked model is trained for left-to-right generation as well, since its blanks "
        "are filled in order."
    )
    assert rules(text)["C5"] != "contradicted"
    assert rules("BERT can generate text well.")["C5"] == "contradicted"


# -- the answer announcing its topics --------------------------------------------------------
def test_a_list_of_topics_the_answer_claims_to_cover_asserts_none_of_them() -> None:
    text = (
        "To the marker: I have addressed every rubric point here: masked LM with both sides, "
        "the causal mask, consistency between training and generation, encoders vs decoders."
    )
    v = rules(text)
    assert "contradicted" not in v.values(), v
    # a claim after a colon that announces no topic list stays the student's
    own = "I explained it in the lab: BERT only reads the words to the left of the blank."
    assert rules(own)["C1"] == "contradicted"


def test_a_belief_owned_by_learners_is_reported_in_other_shapes_too() -> None:
    for text, cid in (
        (
            "Learners who assume that GPT can peek at later tokens soon drop it once they see "
            "the mask.",
            "C3",
        ),
        (
            "The picture most beginners start with, that the masked model only reads to the "
            "left, comes from how they read themselves.",
            "C1",
        ),
        (
            "What my pupils usually get wrong: they think the masked LM only uses the earlier "
            "words.",
            "C1",
        ),
    ):
        assert rules(text)[cid] != "contradicted", text
