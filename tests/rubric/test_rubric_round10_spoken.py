"""Spoken explanations transcribed by speech-to-text, round 10 (track b: office hours).

- spelled-out acronyms ("gee pee tee", "em el em") and the recogniser's sound-alikes of the
  model names ("bird" for BERT, "mast" for masked, "day coder" for decoder) are read as the
  names, but a sound-alike only in an answer about language models and only where it stands
  as a name ("a bird" stays a bird);
- filler sounds and one-word restarts say nothing;
- a transcript with no full stops is cut into sentences where a speaker starts a new one, so
  a later clause is not read as about the model the first clause named;
- a spoken repair ("no wait", "sorry I mean") withdraws the clause the speaker corrects;
- an honest written answer reads exactly as before.

Sentences written for these tests."""

from __future__ import annotations

from rule_verdicts import rules  # the rules alone (a helper beside this file)

from grader.rubric.spoken import about_language_models, spoken_answer, unspoken


# -- names as a recogniser writes them -----------------------------------------------------------
def test_spelled_letters_become_the_acronym_of_the_course_only() -> None:
    assert unspoken("so gee pee tee's decoder and the em el em") == "so GPT's decoder and the MLM"
    assert unspoken("a jee pee tee model, the L M") == "a GPT model, the LM"
    # letters that spell nothing of the course, or two lower-case letters, stay as they are
    assert unspoken("a b testing and see you") == "a b testing and see you"


def test_sound_alike_names_are_read_only_where_they_name_the_model() -> None:
    assert unspoken("so burt the mast model it fills blanks") == (
        "so BERT the masked model it fills blanks"
    )
    assert unspoken("the day coders and in coders") == "the decoders and encoders"
    # the animal, a ship's mast and a mask token are left alone
    assert unspoken("like a bird on the mast, the mask token") == (
        "like a bird on the mast, the mask token"
    )
    # and nothing is read as a name outside an answer about language models
    assert not about_language_models("my bird sings on the mast every morning")
    assert unspoken("burt bakes bread", about_lms=False) == "burt bakes bread"


def test_spoken_c1_and_c3_with_sound_alikes_are_met() -> None:
    text = (
        "okay so um burt sees the words before and after the blank and gee pee tee only sees "
        "the words before the one it predicts"
    )
    verdicts = rules(text)
    assert verdicts["C1"] == "met"
    assert verdicts["C3"] == "met"
    assert rules("so like the mast model sees both sides of the blank")["C1"] == "met"


def test_a_spoken_encoder_decoder_split_is_met() -> None:
    text = (
        "um so in coders like burt get used for sentiment and tagging where the whole input is "
        "there and day coders like gee pee tee are the ones you use for writing text"
    )
    assert rules(text)["C5"] == "met"


def test_a_swap_said_with_sound_alikes_is_contradicted() -> None:
    text = (
        "okay so um burt is the one that only reads the earlier words, it cant see anything to "
        "the right of the blank"
    )
    assert rules(text)["C1"] == "contradicted"


# -- fillers, restarts and run-ons ---------------------------------------------------------------
def test_fillers_and_restarts_are_dropped_in_speech_only() -> None:
    spoken = "um so the the causal model it it's uh trained on the prefix"
    assert spoken_answer(spoken)
    assert unspoken(spoken, spoken=True) == "so the causal model it's trained on the prefix"
    # a doubled word in a written answer is not a spoken restart
    assert not spoken_answer("The model reads the the prefix only.")


def test_a_run_on_transcript_keeps_each_model_in_its_own_sentence() -> None:
    text = (
        "um okay so when you train burt you cover up a few words and it guesses each one from "
        "the words on the left and the words on the right of it so for generation you only "
        "ever have the words on the left the right ones are not written yet and burt never "
        "practised guessing with nothing on the right so it falls apart and gee pee tee is "
        "different it only ever looks at the words before the current one because of the "
        "causal mask so gee pee tee trains the same way it generates"
    )
    verdicts = rules(text)
    assert verdicts["C1"] == "met"
    assert verdicts["C3"] == "met"
    assert "contradicted" not in verdicts.values()


# -- spoken repairs ------------------------------------------------------------------------------
def test_a_spoken_repair_withdraws_the_corrected_claim() -> None:
    text = (
        "so um gee pee tee when it trains it gets to see the whole sentence no wait it only "
        "sees the earlier words because of the causal mask"
    )
    assert rules(text)["C3"] == "met"


def test_sorry_i_mean_is_a_repair_in_writing_too() -> None:
    text = "The masked model only uses the left context, sorry, I mean it uses both sides of it."
    assert rules(text)["C1"] == "met"


# -- written answers are untouched ----------------------------------------------------------------
def test_written_text_comes_back_unchanged() -> None:
    written = (
        "BERT is an encoder trained with a masked objective; GPT, a decoder, is trained "
        "autoregressively and had had no access to later tokens."
    )
    assert not spoken_answer(written)
    assert unspoken(written) == written


def test_restarts_on_another_pronoun_or_modal_are_not_a_shuffle() -> None:
    text = (
        "um so bird it they fill each blank from the words on both sides of it. "
        "when you generate uh the later words are not written yet and bird was is never "
        "practised without them. "
        "gee pee tee can does only look at the earlier words, it we call that the causal mask."
    )
    verdicts = rules(text)
    assert verdicts["C1"] == "met"
    assert verdicts["C3"] == "met"


def test_one_spoken_sentence_about_both_sides_is_enough_context_for_the_name() -> None:
    assert rules("bird sees the words before and after the blank")["C1"] == "met"
