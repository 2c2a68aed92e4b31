"""C4 read from the structure of the argument (issue 19, round 5): an absence named by a
negated -ing phrase is what a sameness compares, an objective called different with no
comparand is set against the other model, a restriction switched on only for use is the causal
LM's mismatch, an analogy's figure narrowed by a relative clause is no longer the mapped model,
and the two models said to train alike, with training dismissed as the explanation, denies the
contrast. Sentences written for these tests."""

from __future__ import annotations

from grader.rubric.scorer import score_explanation

NO_READER = {"criteria": {}}  # the rules alone


def c4(text: str) -> str:
    res = score_explanation(text, reader_weights=NO_READER)
    return next(c.verdict for c in res.criteria if c.id == "C4")


def c4_feedback(text: str) -> str:
    res = score_explanation(text, reader_weights=NO_READER)
    return next(c.feedback for c in res.criteria if c.id == "C4")


# -- a negated -ing phrase names the absence compared; it does not deny the sameness ----------
def test_sameness_with_an_absence_is_no_causal_mismatch() -> None:
    texts = [
        "While sampling, the later tokens do not exist. GPT is trained with those positions "
        "blocked, which amounts to the same as them not being there.",
        "At generation nothing to the right is written yet. The causal mask in GPT's training "
        "is equivalent to having no later words at all.",
        "When it generates there are no future tokens. For GPT, training under the mask is "
        "exactly like never getting them.",
    ]
    for text in texts:
        assert c4(text) != "contradicted", text


def test_a_negated_clause_after_a_sameness_still_reverses_it() -> None:
    # near misses: the negation is of a clause ("it does not get"), so the relation is denied
    assert c4("What GPT has in training is exactly what it does not get at generation.") == (
        "contradicted"
    )
    assert c4("When it writes, BERT has exactly the context it always had during training.") == (
        "contradicted"
    )


# -- "a different task" with no comparand compares the two models' objectives -----------------
def test_a_different_objective_without_comparand_is_no_mismatch() -> None:
    texts = [
        "GPT learns a different task: in training and when generating it predicts the next "
        "token from the tokens before it.",
        "The causal LM is trained on a different objective, and at generation time it does "
        "exactly that objective again.",
    ]
    for text in texts:
        assert c4(text) != "contradicted", text


def test_a_different_task_from_its_use_is_still_a_mismatch() -> None:
    text = "GPT is trained on a different task from the one it faces at generation time."
    assert c4(text) == "contradicted"


# -- the restriction switched on only for use: the causal LM's mismatch -----------------------
def test_a_mask_applied_only_at_use_is_the_causal_mismatch() -> None:
    texts = [
        "GPT attends to the whole sentence while it is trained, and it only applies the mask "
        "at inference time.",
        "During training GPT sees every word, including later ones; the causal mask is "
        "applied only at generation time so that it does not cheat.",
    ]
    for text in texts:
        assert c4(text) == "contradicted", text


def test_a_mask_in_both_conditions_is_no_mismatch() -> None:
    text = "GPT applies the causal mask in training and at inference time, so it cannot cheat."
    assert c4(text) != "contradicted"


# -- a figure narrowed by a relative clause is not the figure mapped to a model ----------------
def test_a_narrowed_figure_is_not_the_mapped_model() -> None:
    text = (
        "BERT is like a swimmer who always trained with a float. In the race there is no float "
        "when she generates, and she sinks. GPT trained without a float, so racing is just "
        "like practice. The swimmer whose training matches the race wins it."
    )
    assert c4(text) != "contradicted"


def test_the_mapped_figure_itself_still_speaks_for_the_model() -> None:
    # near miss: no relative clause, the figure is still BERT
    text = (
        "BERT is like a swimmer who always trained with a float. When she generates in the "
        "race, the swimmer has exactly the same float she trained with."
    )
    assert c4(text) == "contradicted"


# -- the two models said to train alike, training dismissed: the contrast denied ---------------
def test_training_alike_and_dismissed_denies_the_contrast() -> None:
    texts = [
        "Both models learn in the same way from piles of text, so their training is not the "
        "reason.",
        "BERT and GPT are trained identically: cover a token, guess it. The gap in writing "
        "quality must come from the number of parameters.",
        "Both are trained with the same recipe. The real reason is that GPT has a language "
        "modelling head on top.",
        "Both models are pretrained the same way, so there is no difference between how they "
        "learn and how they are used.",
    ]
    for text in texts:
        assert c4(text) == "contradicted", text
    assert "training as alike" in c4_feedback(texts[0])


def test_training_alike_about_data_with_the_contrast_is_no_false_claim() -> None:
    texts = [
        # the difference named is what the models see: the rubric's own condition
        "Both models are trained in the same way on web text. The real difference is what "
        "they see: BERT has the words on both sides of a blank, GPT only the earlier ones.",
        # no dismissal: a sameness of data alone says nothing about the conditions
        "Both models are trained the same way on a large corpus.",
        # one clause per model: the correct contrast, not "both alike"
        "GPT is trained the way it is used, and BERT is not, so training is not the same.",
        # the dismissal denied by the student
        "Both models are trained on text in the same way. It is false that training is not "
        "the difference.",
    ]
    for text in texts:
        assert c4(text) != "contradicted", text


# -- an unmapped analogy of practice against performance: a vague mismatch, partial ------------
def test_an_unmapped_practice_analogy_is_partial() -> None:
    texts = [
        "BERT guesses hidden words from both sides. GPT guesses the next word. A violinist who "
        "has only ever played with the sheet music open will freeze when asked to make up a tune.",
        "BERT fills gaps with context on each side; GPT continues text. It's like a runner who "
        "has always trained on a treadmill versus one who has always trained on real hills.",
        "The masked LM sees both sides of a blank and the causal LM only the left. A pilot who "
        "has always flown with the autopilot on. Another pilot, who always flew by hand, is "
        "the one you want in a storm.",
    ]
    for text in texts:
        assert c4(text) == "partial", text


def test_a_practice_analogy_without_a_performance_or_both_models_earns_nothing() -> None:
    texts = [
        # no performance set against the practice
        "BERT reads both sides; GPT reads the left. A painter who has always used bright "
        "colours paints cheerful pictures.",
        # only one family named: the analogy compares nothing the question asks about
        "BERT sees both sides of a gap. A singer who has only ever sung with a prompter will "
        "struggle alone.",
    ]
    for text in texts:
        assert c4(text) == "missing", text


# -- relation words in another sense or about another model ------------------------------------
def test_match_as_the_game_is_no_relation() -> None:
    text = (
        "BERT needs both sides of a blank, so it cannot write. It is like a boxer who only "
        "ever trained with a partner calling every punch, and who is then sent into a real "
        "match."
    )
    assert c4(text) != "contradicted"


def test_match_as_a_correspondence_is_still_a_relation() -> None:
    for text in (
        "When it writes, BERT's input matches what it saw in training.",
        "There is a perfect match between how BERT is trained and how it generates.",
    ):
        assert c4(text) == "contradicted", text


def test_precisely_the_heart_of_the_problem_is_emphasis() -> None:
    text = (
        "The masked encoder's pretraining is misaligned with decoding, which is precisely the "
        "heart of the problem."
    )
    assert c4(text) != "contradicted"
    near = "For BERT, generation gives precisely the context it was trained with."
    assert c4(near) == "contradicted"


def test_the_training_context_said_to_be_gone_is_a_difference() -> None:
    text = (
        "At generation the later words are not written yet, so for BERT the context it was "
        "trained with is now gone."
    )
    assert c4(text) != "contradicted"
    near = "For BERT the context it was trained with is there at generation time too."
    assert c4(near) == "contradicted"


def test_a_bracketed_label_after_a_clause_names_its_model() -> None:
    text = (
        "BERT sees both sides of a gap; GPT only the left. Two actors rehearse, one with a "
        "prompter, one without. On stage without help, the first loses the prompter she always "
        "relied on (that's BERT), the second does exactly what she rehearsed (that's GPT)."
    )
    assert c4(text) != "contradicted"
    near = (
        "BERT sees both sides of a gap; GPT only the left. On stage, the first actor does "
        "exactly what she rehearsed (that's BERT)."
    )
    assert c4(near) == "contradicted"


# -- a relation written as a sign between the training and the use condition ------------------
def test_relation_signs_between_training_and_use() -> None:
    texts = [
        "Masked LM: sees both sides. Causal LM: only the left. Sampling: no later tokens. "
        "Causal LM: training context = sampling context. Masked LM: training context ⊋ "
        "sampling context.",
        "BERT: fill gaps. GPT: next token. Generating: no future tokens. GPT: rehearsal = "
        "performance. BERT: rehearsal ≠ performance.",
    ]
    for text in texts:
        assert c4(text) == "met", text


def test_a_sign_between_other_terms_is_no_relation() -> None:
    for text in (
        "GPT's training = predicting the next token from the left.",
        "Loss = cross entropy over the masked positions.",
    ):
        assert c4(text) == "missing", text


# -- trained for its use, the other model denied in the same sentence ------------------------
def test_trained_for_its_use_and_the_other_not() -> None:
    texts = [
        "In the end GPT was optimised for what it's asked to do and BERT wasn't.",
        "The causal LM is trained for the job it is used for, but the masked LM isn't.",
    ]
    for text in texts:
        assert c4(text) == "met", text


def test_trained_for_a_task_of_the_other_model_is_no_causal_side() -> None:
    # near miss: "trained for the task" names no use of the model itself
    text = "GPT was trained for the task of next-token prediction, and BERT was not."
    assert c4(text) != "met"


def test_the_occasion_it_prepared_for_and_training_like_the_use() -> None:
    text = (
        "BERT fills blanks with both sides visible, which writing never offers it. GPT is "
        "trained like writing: when it generates, the test it sits is the very test it "
        "practised for."
    )
    assert c4(text) == "met"


# -- the use denied to be like the masked training just described: the masked side ------------
def test_generation_unlike_the_masked_training_is_the_masked_side() -> None:
    both = (
        "Masked LM training is like solving a crossword with most letters filled in. Generating "
        "text is not like that at all. A causal LM is trained like writing, one word after "
        "another."
    )
    assert c4(both) == "met"
    one = (
        "BERT is trained to fill a gap from the words on both sides. Generation is nothing "
        "like that."
    )
    assert c4(one) == "partial"


def test_unlike_what_the_causal_lm_does_is_no_masked_side() -> None:
    # near miss: "that" points back at the causal LM's sentence
    text = (
        "BERT fills gaps from both sides. GPT predicts the next word. Generation is not like that."
    )
    assert c4(text) == "missing"
