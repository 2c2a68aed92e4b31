"""C4 readings of round 11 (track C: training vs generation, for both models).

- A training said to fit its use ("its training fits generation") is a sameness relation, and
  a negation before the verb ("the training does not fit generation for the masked model")
  turns it into the masked LM's mismatch.
- The later words said to be hidden for use alone ("it only hides the future at generation
  time") set the causal LM's use below its training: the causal mismatch (contradicted).
- A model said to train in the use's own condition ("trains in the generation condition")
  states the causal side.
- "Training is different from using it" names the use as the object of the difference: a
  vague comparison (partial).
- "Its practice and its job are the same, while the other figure's practice had what the job
  never gives": the half after the contrast word is the other model's (c4_counterpart.py).
- The use defined as the causal objective ("generating text comes down to predicting the next
  word") is a task match for the causal LM: one side, partial.

Sentences written for these tests."""

from __future__ import annotations

from rule_verdicts import rules  # the rules alone (a helper beside this file)

MLM_VIEW = "The masked model guesses each hidden word from the words on its left and its right."
CLM_ONLY = (
    "The causal model predicts every word from only the words before it, because of its mask."
)
GEN_GAP = (
    "While you write a text, the following words are not there yet, and the masked model was "
    "never trained for that."
)


def test_negated_fit_for_one_model_and_elided_fit_for_the_other_is_met() -> None:
    text = (
        MLM_VIEW + " " + CLM_ONLY + " " + GEN_GAP + " In the end, the training does not fit "
        "generation for BERT, but it does for GPT."
    )
    assert rules(text)["C4"] == "met"


def test_trained_in_the_generation_condition_and_the_other_not_is_met() -> None:
    text = (
        MLM_VIEW + " " + CLM_ONLY + " When writing there is nothing to the right yet; BERT "
        "always had it in pretraining, so GPT is trained in the generation setting and BERT is not."
    )
    assert rules(text)["C4"] == "met"


def test_later_words_hidden_only_for_use_is_the_causal_mismatch() -> None:
    text = (
        MLM_VIEW + " In training the causal model reads the entire sentence in one go, and it "
        "only hides the later words at generation time."
    )
    assert rules(text)["C4"] == "contradicted"


def test_training_different_from_using_it_is_a_partial_comparison() -> None:
    text = CLM_ONLY + " Put simply, for the masked model, training is different from using it."
    assert rules(text)["C4"] == "partial"


def test_contrast_half_about_the_analogys_other_figure_is_no_false_claim() -> None:
    text = (
        "A masked LM is a crossword solver: it was trained to fill each blank from the letters "
        "on both sides of it, and when writing a text nothing after the current word exists "
        "yet. The causal LM is a storyteller, only ever trained to continue from what came "
        "before. So its rehearsal and its performance are identical, whereas the solver's "
        "rehearsal always had the full grid, which the performance never gives."
    )
    assert rules(text)["C4"] == "met"


def test_use_defined_as_next_word_prediction_is_a_task_match() -> None:
    text = (
        "The masked model fills in hidden words, whereas the causal model predicts the next "
        "word. Generating text comes down to predicting the next word over and over, which "
        "is why only one of them writes well."
    )
    assert rules(text)["C4"] == "partial"
