"""C4 and C2 read from how the argument is stated (issue 19, heldout8 round): a loss verb in
front of a sameness phrase, a sameness word that only modifies a difference noun, a relation
that points back ("no such shift"), the condition stated by the causal mask or by the
restriction in the sentence (or question) before, "nothing about ... changes", "a training
step is a sampling step", generation that "never shows" the later words, and "both
neighbours" / "to the right as well as to the left" as both sides. Sentences written for
these tests."""

from __future__ import annotations

from rule_verdicts import rules  # the rules alone (a helper beside this file)


# -- a loss verb before a sameness phrase states a difference ----------------------------------
def test_losing_exactly_what_training_gave_is_the_masked_mismatch_not_a_false_claim() -> None:
    texts = [
        "When it has to write, BERT loses exactly the context it always had during training.",
        "At sampling time the masked model lacks precisely the words it was trained with.",
        "Generating, BERT misses the same information it relied on in pretraining.",
    ]
    for text in texts:
        assert rules(text)["C4"] != "contradicted", text


def test_keeping_the_same_context_is_still_a_false_claim() -> None:
    # near miss: no loss verb, the masked LM is said to keep its training condition
    text = "When it writes, BERT has exactly the context it always had during training."
    assert rules(text)["C4"] == "contradicted"


# -- a sameness word that modifies a difference noun names the difference --------------------
def test_consistency_gap_is_a_difference() -> None:
    texts = [
        "We measured a large consistency gap for BERT between training and sampling.",
        "The masked model shows a big matching gap between training and generation.",
    ]
    for text in texts:
        assert rules(text)["C4"] != "contradicted", text


def test_consistency_alone_said_of_bert_is_still_a_false_claim() -> None:
    text = "BERT keeps full consistency between training and generation."
    assert rules(text)["C4"] == "contradicted"


# -- the condition stated by the causal mask or the restriction just before -------------------
def test_relation_after_a_causal_mask_sentence_compares_the_conditions() -> None:
    texts = [
        "GPT has a causal mask that hides every later token. When it generates it is the same "
        "situation for it.",
        "The causal mask in GPT blocks all positions to the right. When it writes, nothing "
        "changes for it.",
    ]
    for text in texts:
        assert rules(text)["C4"] == "partial", text


def test_relation_after_a_question_inherits_the_stated_restriction() -> None:
    text = (
        "GPT is only ever shown the tokens to its left. Does that change when it writes? "
        "No, at generation time it is the same situation."
    )
    assert rules(text)["C4"] == "partial"


def test_relation_without_any_condition_before_stays_vague() -> None:
    # near misses: nothing about training, a mask or what the model sees comes before
    text = "GPT writes stories. When it generates it is the same situation for it."
    assert rules(text)["C4"] == "missing"
    text = "GPT is popular. Is it good? When it generates, nothing changes for it."
    assert rules(text)["C4"] == "missing"


# -- a relation that points back ("no such shift") --------------------------------------------
def test_no_such_shift_inherits_the_comparison_before() -> None:
    text = (
        "BERT is trained with words on both sides of each blank, while at inference it only "
        "gets a prefix, a distribution shift. The causal LM has no such shift."
    )
    assert rules(text)["C4"] == "met"


def test_no_such_shift_without_training_before_stays_vague() -> None:
    text = "BERT is popular for search. The causal LM has no such shift."
    assert rules(text)["C4"] == "missing"


def test_pointing_back_does_not_imply_the_causal_restriction() -> None:
    # C3 is not implied: the causal LM's own condition is never stated
    text = (
        "BERT is trained with words on both sides of each blank, while at inference it only "
        "gets a prefix, a distribution shift. The causal LM has no such shift."
    )
    assert rules(text)["C3"] != "met"


# -- other sameness phrasings ------------------------------------------------------------------
def test_nothing_about_the_context_changes_between_training_and_sampling() -> None:
    texts = [
        "GPT only attends to earlier tokens. Nothing about what it can see changes between "
        "training and sampling.",
        "GPT only attends to earlier tokens, so each training step is effectively a sampling step.",
    ]
    for text in texts:
        assert rules(text)["C4"] == "partial", text


def test_something_changes_is_no_sameness() -> None:
    # near miss: a change is stated, not denied
    text = "GPT only attends to earlier tokens. Its speed changes between training and sampling."
    assert rules(text)["C4"] == "missing"


# -- C2: generation that never shows the later words; both neighbours -------------------------
def test_generation_never_shows_them_is_the_generation_condition() -> None:
    texts = [
        "BERT learned with the upcoming words in view, but decoding never shows them.",
        "BERT is trained with both neighbours visible; sampling never provides the later words.",
        "The masked LM sees context to the right of the blank as well as to the left, and "
        "generation never gives you the future words.",
    ]
    for text in texts:
        assert rules(text)["C2"] == "met", text


def test_never_gives_it_information_is_not_the_later_words() -> None:
    # near miss: what generation never gives is not said to be the later words
    text = "BERT is trained with information that generation will never give it."
    assert rules(text)["C2"] != "met"


def test_both_neighbours_is_both_sides() -> None:
    assert rules("BERT fills each blank with both neighbours visible.")["C1"] == "met"
    assert rules("BERT uses the words to the right as well as to the left.")["C1"] == "met"
    # near miss: one neighbour only
    assert rules("BERT fills each blank with the left neighbour visible.")["C1"] != "met"


# -- the C2 link's training condition said in the sentence before it -------------------------
def test_masked_training_condition_just_before_the_link_is_one_side() -> None:
    texts = [
        "BERT is pretrained to recover hidden words from the text on both sides. When we "
        "generate, since BERT needs words that are not written yet, it breaks down.",
        "The masked model learns with the whole sentence around each blank. It depends on the "
        "words to the right. At generation time those words do not exist yet.",
    ]
    for text in texts:
        assert rules(text)["C4"] == "partial", text


def test_link_without_any_training_word_stays_missing() -> None:
    # near misses: the masked LM's condition is described, never as its training
    text = (
        "BERT reads the text on both sides of a blank. When we generate, since BERT needs "
        "words that are not written yet, it breaks down."
    )
    assert rules(text)["C4"] == "missing"
    text = (
        "GPT is trained on a prefix. BERT reads both sides of a blank. When we generate, since "
        "BERT needs words that are not written yet, it breaks down."
    )
    assert rules(text)["C4"] != "met"


# -- a relation word said of the output, the use or a supposed outcome ------------------------
def test_consistent_output_is_no_relation_between_conditions() -> None:
    texts = [
        "BERT only sees the past, while GPT sees everything when it writes and can keep the "
        "story consistent.",
        "GPT writes one word at a time, which makes its paragraphs coherent and consistent.",
    ]
    for text in texts:
        assert rules(text)["C4"] != "met", text


def test_different_uses_or_a_supposed_difference_is_no_mismatch() -> None:
    texts = [
        "GPT is trained to predict the next word and it writes text, it is just for different "
        "things.",
        "GPT was trained for ten minutes and wrote nonsense, maybe with more compute it would "
        "be different.",
    ]
    for text in texts:
        assert rules(text)["C4"] != "contradicted", text


def test_a_stated_mismatch_of_the_causal_lm_is_still_a_false_claim() -> None:
    # near miss: training and generation are named and the difference is asserted
    text = "GPT is trained in a way that is different from how it generates text."
    assert rules(text)["C4"] == "contradicted"


# -- two ranges of positions together are both sides ------------------------------------------
def test_both_ranges_of_positions_are_both_sides_not_the_left_only() -> None:
    texts = [
        "The masked LM predicts each blank x_i from x_{<i} and x_{>i}.",
        "BERT: p(x_j | x_{>j}, x_{<j}) for every masked j.",
    ]
    for text in texts:
        assert rules(text)["C1"] == "met", text
    text = (
        "The masked LM predicts each blank x_i from x_{<i} and x_{>i}. When sampling at step t "
        "only x_{<t} exists, x_{>t} is not written yet."
    )
    assert rules(text)["C2"] == "met"


def test_one_range_of_the_masked_lm_is_still_the_left_only_claim() -> None:
    # near miss: the masked LM given only the earlier range
    assert rules("The masked LM predicts each blank x_i from x_{<i}.")["C1"] == "contradicted"


# -- analogies: a rehearsal of generation, what training had that is gone at use --------------
def test_training_as_a_rehearsal_of_generation_is_the_causal_side() -> None:
    texts = [
        "For GPT, pretraining is basically a dry run of sampling.",
        "GPT's training is a faithful simulation of generation.",
    ]
    for text in texts:
        assert rules(text)["C4"] == "partial", text


def test_a_rehearsal_of_something_else_is_no_relation() -> None:
    # near miss: what is rehearsed is not generation
    assert rules("GPT's training is a rehearsal for the benchmark season.")["C4"] == "missing"


def test_help_gone_at_use_is_the_masked_side() -> None:
    texts = [
        "BERT trains with a crutch that disappears at test time.",
        "BERT's training leans on a hint from the right that is gone once it has to write.",
    ]
    for text in texts:
        assert rules(text)["C4"] == "partial", text
    text = (
        "GPT's training is a faithful simulation of generation. BERT trains with a crutch that "
        "disappears at test time."
    )
    assert rules(text)["C4"] == "met"


def test_words_gone_from_the_input_in_training_are_the_masking() -> None:
    # near miss: what is gone is the masked words, in training itself
    assert rules("BERT is trained with some of the words gone from the input.")["C4"] == "missing"


def test_reliance_frames_a_difference_phrase() -> None:
    # "relied on" states the condition, so the analogy's difference compares conditions
    text = (
        "When we generate, we add one token at a time. For BERT it is like a student who did "
        "open-book exams and now gets a closed-book one: the support it relied on is gone."
    )
    assert rules(text)["C4"] == "partial"


# -- a guess a sentence ends on with "?" is asked, not claimed --------------------------------
def test_a_guess_ending_in_a_question_mark_is_not_a_claim() -> None:
    texts = [
        "I don't see why BERT fails at writing, perhaps because it was trained differently "
        "from how it generates?",
        "No idea why GPT writes better; maybe its training matches generation?",
    ]
    for text in texts:
        assert rules(text)["C4"] == "missing", text


def test_a_guess_stated_with_a_full_stop_stays_a_claim() -> None:
    # near miss: the same guess without the question mark is the student's claim
    text = "GPT writes better, perhaps because its training matches generation."
    assert rules(text)["C4"] == "partial"


# -- the causal LM's training restriction repeated word for word for generation ---------------
def test_the_same_restriction_said_for_training_and_generation_is_the_causal_side() -> None:
    texts = [
        "GPT is trained to guess word t from the words before t only. At sampling time you "
        "only have the words before t, so GPT copes.",
        "The decoder learns from positions < j alone. When it writes, there are only "
        "positions < j anyway.",
    ]
    for text in texts:
        assert rules(text)["C4"] == "partial", text


def test_a_different_phrase_at_generation_is_no_repetition() -> None:
    # near misses: the generation sentence names another range, or no restriction at all
    text = (
        "GPT is trained to guess word t from the words before t only. At sampling time you "
        "only have the prompt, so GPT copes."
    )
    assert rules(text)["C4"] == "missing"
    text = (
        "GPT is trained to guess word t from the words before t only. At sampling time the "
        "words before t are shown on screen."
    )
    assert rules(text)["C4"] == "missing"
