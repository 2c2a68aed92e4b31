"""C4 readings of round 12 (track A: training vs generation in the human voice).

- The use named as the complement of the training in plain words ("the way it is trained isn't
  how it gets used", "the setting it learns in isn't the one it's deployed in", "its training is
  suited to how it is used", "models do best when used the way they were trained", "the
  training setup has to fit the way we use it") is a relation between training and use: one
  side (partial), a negation before it ("isn't") turning it into the masked LM's mismatch, and
  a bare "Models ..." opening the principle of all models, not the model of the sentence before.
- The causal restriction with a training word next to the masked LM's failure ("..., and the
  masked model was never trained without them. The causal model is trained to predict each word
  from only the words before it.") describes the causal LM's objective: nothing says generation
  gives the causal LM the same, so the comparison is only one side (partial), not met. Said of
  its whole past ("it only ever had the left side") or set against the masked LM ("by
  contrast"), it still is the causal side (guards).
- A relation in an embedded question naming no model ("what decides it is whether the training
  situation matches the generation situation") is the question the student sets: it is no
  model's, so the masked model named in the sentence before does not make it a false claim.
- The causal LM said to see the whole sentence in training and to "switch to" next-word
  prediction (or "switch modes") at generation has the mismatch: contradicted.
- A supposition of the proposition just asked ("Maybe GPT only reads the earlier words? If that
  were so, GPT would be trained the same way it generates") is as hypothetical as its premise:
  it earns nothing (suppositions.py).
- The speaker's plain words: the two conditions "one and the same", the use "what it trained
  for" (one side each, partial).

Sentences written for these tests."""

from __future__ import annotations

from rule_verdicts import rules  # the rules alone (a helper beside this file)

MLM_VIEW = "The masked model guesses each hidden word from the words on its left and its right."
GEN_GAP = (
    "When a text is written word by word, the later words do not exist yet, and the masked "
    "model was never trained to predict without them, so its text falls apart."
)
CLM_TRAINED = (
    "The causal model is trained to predict each word from only the words before it, because "
    "its mask hides the later positions."
)


def test_the_way_it_is_trained_is_not_how_it_is_used_is_the_masked_side() -> None:
    text = MLM_VIEW + " In short, for BERT the way it is trained isn't how it gets used."
    assert rules(text)["C4"] == "partial"


def test_the_setting_it_learns_in_is_not_the_one_it_is_used_in() -> None:
    text = MLM_VIEW + " With BERT, the setting it learns in is not the one it is deployed in."
    assert rules(text)["C4"] == "partial"


def test_training_suited_to_how_it_is_used_is_the_causal_side() -> None:
    text = "GPT reads from left to right. Thus GPT's training is suited to how it is used."
    assert rules(text)["C4"] == "partial"


def test_both_halves_in_plain_words_are_met() -> None:
    text = (
        MLM_VIEW + " For BERT, the way it is trained is not how it would be used, whereas "
        "GPT's training is suited to how it gets used."
    )
    assert rules(text)["C4"] == "met"


def test_bare_models_state_the_principle_not_the_last_model() -> None:
    # the sentence before is about the causal model; the principle is of all models (vague),
    # not carried to the causal model as its side of the comparison
    text = (
        MLM_VIEW + " For BERT, the way it is trained isn't how it gets used. When generating, "
        "the model just can't use what is not written yet. GPT: only the words before each "
        "position count, the mask cuts the rest. "
        "Models work best when used the way they're trained."
    )
    assert rules(text)["C4"] == "partial"


def test_guard_bare_models_principle_after_the_masked_failure() -> None:
    # guard (partial at the start commit too, there by the C2 link alone)
    text = (
        MLM_VIEW + " " + GEN_GAP + " GPT only looks at the words on its left, the mask cuts "
        "the rest. Models do best when used the way they were trained."
    )
    assert rules(text)["C4"] == "partial"


def test_training_setup_has_to_fit_the_way_we_use_it_is_vague() -> None:
    text = (
        "BERT looks both ways and GPT goes in order. The training setup of a network has to "
        "fit the way we use it."
    )
    assert rules(text)["C4"] == "partial"


def test_causal_objective_described_after_the_masked_failure_is_one_side() -> None:
    text = MLM_VIEW + " " + GEN_GAP + " " + CLM_TRAINED
    assert rules(text)["C4"] == "partial"


def test_causal_objective_with_different_after_the_masked_failure_is_one_side() -> None:
    text = (
        MLM_VIEW + " " + GEN_GAP + " The causal model's objective is different: each word is "
        "trained to be predicted from only the preceding ones, since its mask blocks the later "
        "positions."
    )
    assert rules(text)["C4"] == "partial"


def test_guard_causal_restriction_over_its_whole_past_is_still_met() -> None:
    # guard (passes at the start commit too): "only ever" says it of training and use alike
    text = (
        MLM_VIEW + " " + GEN_GAP + " The causal model has only ever seen the words before "
        "each position, in training as in use, because of its mask."
    )
    assert rules(text)["C4"] == "met"


def test_guard_explicit_sameness_for_the_causal_model_is_met() -> None:
    # guard: the causal side said with its relation word
    text = (
        MLM_VIEW + " " + GEN_GAP + " " + CLM_TRAINED + " So the causal model trains under "
        "exactly the conditions it meets when it generates."
    )
    assert rules(text)["C4"] == "met"


def test_relation_in_an_embedded_question_is_no_false_claim() -> None:
    text = (
        MLM_VIEW + " The masked model never met training examples with the right side empty. "
        "So what decides it is whether the training situation matches the generation situation."
    )
    assert rules(text)["C4"] != "contradicted"


def test_guard_embedded_question_then_both_answers_is_met() -> None:
    # guard (met at the start commit too): the answers after the question still earn met
    text = (
        MLM_VIEW + " " + GEN_GAP + " The real test is whether the training condition matches "
        "the generation condition. For GPT they are identical; for BERT, training gave it right "
        "context that generation cannot give."
    )
    assert rules(text)["C4"] == "met"


def test_causal_model_switching_at_generation_has_the_mismatch() -> None:
    text = (
        MLM_VIEW + " GPT reads the entire sentence in both directions during training, and at "
        "generation time it switches to guessing the next word."
    )
    assert rules(text)["C4"] == "contradicted"


def test_guard_switching_said_of_the_user_is_no_causal_mismatch() -> None:
    # guard: nothing said of the causal model seeing more in training
    text = (
        MLM_VIEW + " " + CLM_TRAINED + " At generation time we switch to sampling one word "
        "after another."
    )
    assert rules(text)["C4"] != "contradicted"


def test_consequence_of_a_supposed_premise_earns_nothing() -> None:
    text = (
        "I am not sure. Does BERT look at the words on both sides of the gap? And maybe GPT "
        "only reads the earlier words? If that were so, then GPT would be trained the same way "
        "it generates and BERT would not."
    )
    assert rules(text)["C4"] == "missing"


def test_guard_indicative_if_that_is_so_still_asserts() -> None:
    # guard: "if that is so" with no modal concludes from the premise; the student asserts it
    text = (
        MLM_VIEW + " " + GEN_GAP + " GPT only reads the earlier words. If that is so, GPT is "
        "trained under exactly the conditions it meets when it generates."
    )
    assert rules(text)["C4"] == "met"


def test_reading_in_training_and_speaking_at_generation_are_one_and_the_same() -> None:
    text = "For GPT, reading in training and speaking at generation are one and the same."
    assert rules(text)["C4"] == "partial"


def test_generating_is_what_it_trained_for() -> None:
    text = (
        "GPT learned to speak by speaking, one word after another, so generating is what it "
        "trained for."
    )
    assert rules(text)["C4"] == "partial"
