"""C4 in the students' own words: elided second halves, "one ... the other", "only GPT",
the use condition stated without a generation word, analogies that name both conditions,
and the causal LM with the mismatch (teacher forcing). Sentences written for these tests."""

from __future__ import annotations

from rule_verdicts import NO_READER, rules  # the rules alone (a helper beside this file)

from grader.rubric.discourse import aliases
from grader.rubric.model import load_rubric
from grader.rubric.scorer import score_explanation
from grader.rubric.text import split_sentences


def c4(text: str) -> str:
    return rules(text)["C4"]


# -- an elided second half inherits the relation, denied, for the other model ----------------
def test_elided_sentence_denies_the_relation_for_the_other_model() -> None:
    text = (
        "BERT sees both sides of a blank, GPT sees only the earlier words. GPT learns the way "
        "it writes. BERT doesn't."
    )
    assert c4(text) == "met"


def test_elided_answer_after_a_colon() -> None:
    text = (
        "GPT restricts itself to the earlier tokens. For GPT, training and generation are "
        "consistent. For BERT: no."
    )
    assert c4(text) == "met"


def test_second_half_with_its_own_predicate_is_not_an_ellipsis() -> None:
    # the BERT sentence says something else, it does not deny the relation
    text = (
        "GPT sees only the earlier words. GPT learns the way it writes. BERT doesn't look "
        "at the right side when it writes."
    )
    assert c4(text) == "partial"


def test_elided_half_about_the_same_model_adds_nothing() -> None:
    text = "GPT sees only the earlier words. GPT learns the way it writes. GPT doesn't."
    assert c4(text) == "partial"


def test_an_agreeing_elided_half_repeats_the_relation_for_the_other_model() -> None:
    # the masked LM then has no mismatch: a false claim
    assert c4("GPT learns the way it writes. So does BERT.") == "contradicted"
    assert c4("GPT's training lines up with generation, and so does BERT's.") == "contradicted"
    text = (
        "BERT is trained with words on both sides of each blank. Not only GPT has training that "
        "lines up with generation, BERT has too."
    )
    assert c4(text) == "contradicted"


def test_also_with_a_predicate_of_its_own_is_no_agreeing_ellipsis() -> None:
    text = (
        "BERT sees both sides, GPT only the left. GPT learns the way it writes, and BERT also "
        "learns from both sides."
    )
    assert c4(text) == "met"


# -- "one ... the other" compares both models --------------------------------------------------
def test_one_and_the_other_compares_both_models() -> None:
    text = (
        "BERT fills blanks from both sides, GPT predicts from only the earlier words. One of "
        "them writes in the same setting it was trained in, and the other does not."
    )
    assert c4(text) == "met"


def test_one_and_the_other_is_never_a_false_claim() -> None:
    # the last model named is BERT, but "one ... the other" is not a sameness said of BERT
    text = (
        "GPT predicts from only the earlier words, BERT fills blanks from both sides. While "
        "writing, the later words do not exist yet. So one of the two writes in the same setting "
        "it practised in; the other one is not so lucky."
    )
    assert c4(text) == "met"


def test_one_model_without_the_other_stays_one_side() -> None:
    text = (
        "BERT fills blanks from both sides, GPT predicts from only the earlier words. One of "
        "them writes in the same setting it was trained in."
    )
    assert c4(text) == "partial"


# -- "only GPT" excludes the other model -------------------------------------------------------
def test_only_on_the_model_is_an_explicit_contrast() -> None:
    text = (
        "BERT is trained with words on both sides of each blank. Only GPT has training that "
        "lines up with generation."
    )
    assert c4(text) == "met"


def test_only_on_what_the_model_does_is_no_contrast() -> None:
    text = (
        "BERT is trained with words on both sides of each blank. GPT has training that only "
        "lines up with generation."
    )
    assert c4(text) == "partial"


# -- the generation condition stated without a generation word ---------------------------------
def test_absence_of_the_later_words_sets_the_comparison_at_generation() -> None:
    text = (
        "During training BERT fills each blank using the words on both sides. You extend a "
        "sentence word after word, and the words that would come later just aren't there. GPT "
        "finds itself on familiar ground, as its training examples all looked like that. For "
        "BERT the situation is unfamiliar, because in training there was always a right side."
    )
    assert c4(text) == "met"


def test_a_missing_blank_is_not_the_generation_condition() -> None:
    # "missing" is the masked word; nothing here is set at generation
    text = (
        "BERT is trained to recover the missing word from both sides. Its training is "
        "consistent: the blank always has neighbours."
    )
    assert c4(text) != "contradicted"


# -- never trained for what generation gives, next to the causal LM ----------------------------
def test_never_met_in_pretraining_with_the_causal_lm_in_the_sentence() -> None:
    text = (
        "BERT attends to the words on both sides of a blank. GPT attends only to earlier "
        "words. When text is generated, the words to the right do not exist yet. Unlike GPT, "
        "BERT never met that situation in pretraining."
    )
    assert c4(text) == "met"


def test_never_trained_alone_is_the_masked_side_only() -> None:
    # the C2 link said with its training condition: one side of the comparison, not both
    text = (
        "BERT attends to the words on both sides of a blank. When text is generated the words "
        "to the right do not exist yet, and BERT was never trained without them."
    )
    v = rules(text)
    assert v["C2"] == "met"
    assert v["C4"] == "partial"


def test_the_c2_link_without_training_compares_nothing() -> None:
    text = (
        "BERT relies on the words on both sides of a blank. When text is generated the words to "
        "the right do not exist yet, so BERT has nothing to rely on."
    )
    v = rules(text)
    assert v["C2"] == "met"
    assert v["C4"] == "missing"


# -- a phrase that names training and the use itself -----------------------------------------------
def test_analogy_verb_compares_training_with_use() -> None:
    text = (
        "A swimmer who only practises in a calm pool panics in the open sea. GPT trains like "
        "it swims. BERT doesn't."
    )
    assert c4(text) == "met"


def test_doing_what_it_practised_with_only_on_the_model() -> None:
    text = (
        "BERT practises with the words on both sides of each gap; GPT practises with only the "
        "words before. So only GPT is asked to do what it practised."
    )
    assert c4(text) == "met"


def test_trains_the_way_its_designers_wanted_is_no_relation() -> None:
    assert c4("GPT trains the way its designers wanted. BERT doesn't.") == "missing"


# -- the causal LM with the mismatch ------------------------------------------------------------
def test_teacher_forcing_gives_the_causal_lm_the_mismatch() -> None:
    text = (
        "In training GPT attends to the future tokens as well, and only at inference time is "
        "it limited to the past. BERT sees both sides."
    )
    v = rules(text)
    assert v["C3"] == "contradicted"
    assert v["C4"] == "contradicted"


def test_full_sentence_in_training_called_the_same_as_generation_is_no_mismatch() -> None:
    text = (
        "In training GPT sees the whole sentence at once, and at generation time it predicts "
        "the next word exactly as it did in training."
    )
    assert c4(text) != "contradicted"


def test_a_procedure_at_generation_is_no_loss() -> None:
    text = (
        "Thanks to teacher forcing, GPT attends to the future tokens during training, and at "
        "inference time it goes left to right. BERT sees both sides."
    )
    v = rules(text)
    assert v["C3"] == "contradicted"  # a false claim about training, but no mismatch stated
    assert v["C4"] != "contradicted"


# -- polarity and attribution of the relation -------------------------------------------------
def test_trained_differently_from_how_it_is_used_said_of_gpt_is_the_mismatch() -> None:
    text = (
        "BERT attends to both sides of a blank; GPT attends only to the earlier tokens. "
        "Surprisingly, GPT's training runs differently from how it is used, since its training "
        "inputs are the gold tokens."
    )
    assert c4(text) == "contradicted"


def test_trained_differently_without_the_use_is_no_relation() -> None:
    text = "BERT attends to both sides of a blank. GPT is trained differently, on the next word."
    assert c4(text) != "contradicted"


def test_a_modal_denial_frame_is_not_the_students_claim() -> None:
    text = (
        "BERT predicts each blank from the words to its left and right. No one could infer "
        "from this that BERT shows no mismatch between training and generation: when it writes, "
        "the words to the right have not been written yet. GPT is trained exactly the way it "
        "generates."
    )
    assert c4(text) == "met"


def test_the_models_in_plural_are_not_the_last_model_named() -> None:
    text = (
        "BERT fills in blanks. GPT predicts the next word. For these models, training them and "
        "using them at generation are different things."
    )
    assert c4(text) == "partial"


def test_they_after_one_model_still_refers_to_it() -> None:
    text = (
        "BERT fills in blanks from both sides. Causal models like GPT predict the next word, and "
        "training them is different from using them at generation."
    )
    assert c4(text) == "contradicted"


def test_usual_training_setting_and_a_setting_never_met() -> None:
    text = (
        "BERT is trained to fill blanks from both sides; GPT only ever sees the earlier words. "
        "Start writing: the rest of the sentence has not been written. For GPT this is the usual "
        "training setting. For BERT it is a setting it has honestly never met."
    )
    assert c4(text) == "met"


# -- more of the students' words for the two conditions ------------------------------------
def test_elided_half_with_a_pronoun() -> None:
    text = (
        "BERT looks both ways, GPT only looks back. Training and writing line up for GPT. For "
        "BERT they don't."
    )
    assert c4(text) == "met"


def test_elided_half_with_its_own_verb_phrase_is_no_ellipsis() -> None:
    text = "Training and writing line up for GPT. For BERT they don't use the same data."
    assert c4(text) == "partial"


def test_exactly_its_generation_situation() -> None:
    text = (
        "BERT learns from both sides of a blank. The causal model's training situation is "
        "exactly its generation situation, unlike BERT's."
    )
    assert c4(text) == "met"


def test_a_relation_word_that_names_both_conditions_frames_itself() -> None:
    # no generation word anywhere: "train-test" names the use condition itself
    text = (
        "Masked models are optimised to reconstruct corrupted tokens. Causal models are "
        "optimised to predict the next token. This is known as a train-test discrepancy."
    )
    assert c4(text) == "partial"


def test_a_difference_between_the_objectives_alone_is_no_relation() -> None:
    text = (
        "Masked models are optimised to reconstruct corrupted tokens. Causal models are "
        "optimised to predict the next token. The two objectives differ."
    )
    assert c4(text) == "missing"


def test_the_way_you_use_it_is_the_use_condition() -> None:
    text = (
        "BERT covers words and guesses them from the whole sentence. The way you train a model "
        "should be the way you use it, and for BERT those are different."
    )
    assert c4(text) == "partial"


def test_the_exam_of_an_analogy_is_the_use_condition() -> None:
    text = (
        "BERT is like a pupil who practised with the answer key and then sits a closed-book "
        "exam, while GPT practised closed-book all along."
    )
    assert c4(text) == "met"


def test_an_exam_without_a_comparison_earns_nothing() -> None:
    text = "BERT is like a pupil who sits an exam. GPT is like another pupil."
    assert c4(text) == "missing"


def test_feedback_quotes_the_sentences_that_earned_the_verdict() -> None:
    text = (
        "BERT attends to the words on both sides of a blank. When text is generated the words "
        "to the right do not exist yet. BERT was never trained without them."
    )
    res = {c.id: c for c in score_explanation(text, reader_weights=NO_READER).criteria}
    assert res["C4"].verdict == "partial"
    assert "never trained without them" in res["C4"].evidence
    elided = "GPT sees only the earlier words. GPT learns the way it writes. BERT doesn't."
    res = {c.id: c for c in score_explanation(elided, reader_weights=NO_READER).criteria}
    assert res["C4"].verdict == "met"
    assert "GPT learns the way it writes" in res["C4"].evidence
    assert "BERT doesn't" in res["C4"].evidence


# -- a match of tasks is one side at most -----------------------------------------------------
def test_the_objective_is_what_generation_is() -> None:
    assert c4("GPT learns to continue text, which is what generation is.") == "partial"
    assert c4("GPT predicts the next word. So GPT matches the task.") == "partial"


def test_a_task_match_stays_partial_with_both_models_named() -> None:
    text = (
        "GPT learns to guess the next word, which is just what writing needs, while BERT learns "
        "to fill blanks."
    )
    assert c4(text) == "partial"


def test_a_task_match_for_another_use_is_no_c4() -> None:
    assert c4("BERT learns to fill blanks, which is what classification needs.") == "missing"


# -- "both" as a subject; trained under the condition just stated ------------------------------
def test_bare_both_as_the_subject_is_both_models() -> None:
    text = (
        "BERT and GPT each see part of the text when they learn. Both are therefore trained "
        "under generation-like conditions."
    )
    assert c4(text) == "contradicted"


def test_both_sides_is_not_both_models() -> None:
    text = (
        "BERT uses the words on both sides of a blank. At generation the words on the right do "
        "not exist yet; GPT is trained the same way it generates."
    )
    assert c4(text) == "met"


def test_trained_under_that_constraint_refers_to_the_generation_condition() -> None:
    text = (
        "Encoders attend everywhere; decoders attend to earlier positions only. When sampling, "
        "the positions after the current one are empty. Only the decoder was ever optimised "
        "under that constraint."
    )
    assert c4(text) == "met"


def test_under_that_constraint_without_a_generation_condition_is_no_comparison() -> None:
    text = (
        "Decoders attend to earlier positions only, which is a constraint. Only the decoder was "
        "ever optimised under that constraint."
    )
    assert c4(text) != "met"


# -- what the student does not assert earns nothing through the new readings ------------------
def test_reported_denied_or_asked_comparisons_earn_nothing() -> None:
    for text in (
        "People think that one of them writes in the same setting it was trained in and the "
        "other does not, but that is a myth.",
        "It is false that only GPT has training that lines up with generation.",
        "Does GPT learn the way it writes? BERT doesn't.",
        "Nobody thinks that GPT trains like it swims. BERT doesn't.",
        "If GPT were trained the way it writes, BERT would not be needed.",
    ):
        assert c4(text) == "missing", text


# -- the causal LM never had, in training, what generation lacks -------------------------------
def test_never_had_them_in_training_answers_the_generation_condition() -> None:
    text = (
        "BERT learns from the words on both sides of a gap. When you write, the words after the "
        "cursor aren't there yet. GPT does not mind, since it never saw them in training "
        "either. BERT was never trained without them."
    )
    assert c4(text) == "met"


def test_never_had_them_before_the_generation_condition_answers_nothing() -> None:
    text = (
        "BERT learns from the words on both sides of a gap. GPT never saw later words in "
        "training. When you write, the words after the cursor aren't there yet."
    )
    assert c4(text) != "met"


# -- an analogy mapped onto the models by position ------------------------------------------
RUNNERS = (
    "Picture two runners. The first one practises on a track where the whole course is marked "
    "out ahead; the second one practises in fog, seeing only the ground already covered. On "
    "race day there is fog. Only the second one is asked to do what it practised."
)


def test_an_ordinal_pair_maps_the_analogy_onto_the_models() -> None:
    assert c4(RUNNERS + " The first runner is BERT, the second is GPT.") == "met"


def test_half_a_pair_maps_nothing() -> None:
    assert c4(RUNNERS + " The first runner is BERT.") != "met"


def test_an_ordinal_with_another_noun_is_not_the_alias() -> None:
    rubric = load_rubric()
    sents = split_sentences("The first pupil is BERT and the second is GPT. The first word is 'a'.")
    names = aliases(sents, rubric)
    pats = names.get("masked_model", ())
    assert any(p.search("the first one") for p in pats)
    assert any(p.search("the first pupil") for p in pats)
    assert not any(p.search("the first word") for p in pats)


# -- a table row whose label is a question --------------------------------------------------------
def test_a_question_mark_inside_a_table_row_does_not_end_the_table() -> None:
    table = (
        "| | BERT | GPT |\n|---|---|---|\n"
        "| Context in training | both sides of the blank | only the earlier words |\n"
        "| Is that what it gets at generation? | no, the later words are not written yet, they "
        "always were there in training | yes, only the earlier words, exactly as in training |\n"
        "| Typical use | classification | chatbots |"
    )
    v = rules(table)
    assert v["C2"] == "met"
    assert v["C4"] == "met"


def test_queried_with_a_prefix_is_the_use_condition_not_a_claim_about_training() -> None:
    text = (
        "BERT fills each blank from the words on both sides. When it is then queried with a "
        "prefix only, it meets a condition its training never had."
    )
    v = rules(text)
    assert v["C1"] == "met"  # the prefix only is what it is given at use, not what it learns
    assert v["C4"] == "partial"
