"""C5 (encoders for understanding, decoders for generation) in round 10 (track e): the
consequence named in other domains' words, half answers, and wrong claims.

- the impersonal academic hedge "It is suggested that ..." is the author's own claim; only a
  view held widely ("it is often argued that ...") is someone else's;
- a fit judged low ("poorly suited", "ill-suited", "less suited" to generation) is no claim
  that the masked LM suits generation;
- a plural after a copula ("decoders have become the models of choice for generation") is the
  predicate, not a new, unnamed subject;
- "my understanding" is the student's grasp, not an understanding task;
- the elided generation half may come first when its family does the job ("decoders do
  generation. The encoder is useful for classification.");
- understanding and generation uses in other domains' words (routing tickets into queues,
  spam filtering, ranking results, labelling items, finding names in a text; writing replies
  or email suggestions);
- what a model outputs or achieves and what a test measures ("outputs embeddings", "achieves
  semantic understanding", "a measure of comprehension") is no use of the family;
- an embedded question ("which of the two can generate") asserts no ability.

Sentences written for these tests."""

from __future__ import annotations

from rule_verdicts import rules  # the rules alone (a helper beside this file)


# -- the academic hedge is the author's own claim ---------------------------------------------
def test_it_is_suggested_that_states_the_authors_own_consequence() -> None:
    text = (
        "It is suggested that encoders in the BERT mould are mostly used for sentiment "
        "analysis and named entity recognition, while decoders like GPT are used for "
        "text generation."
    )
    assert rules(text)["C5"] == "met"
    # a view held widely is still someone else's
    text = "It is often argued that BERT is the better choice for writing long stories."
    assert rules(text)["C5"] != "contradicted"


# -- a low fit is no claim of suitability -----------------------------------------------------
def test_poorly_suited_to_generation_is_no_false_claim() -> None:
    text = (
        "BERT is poorly suited to generation, so in practice it handles sentiment "
        "classification while GPT is used for text generation."
    )
    assert rules(text)["C5"] == "met"


def test_ill_suited_and_less_suited_are_no_false_claim() -> None:
    for text in (
        "A masked encoder is ill-suited to generation; it serves retrieval instead.",
        "The bidirectional encoder is less suited to generation and is used for tagging.",
    ):
        assert rules(text)["C5"] != "contradicted", text
    # a high fit is still the false claim
    text = "Honestly BERT is well suited to generation, as long as the text is short."
    assert rules(text)["C5"] == "contradicted"


# -- a predicate plural is no new subject -----------------------------------------------------
def test_decoders_have_become_the_models_of_choice_for_generation() -> None:
    text = (
        "In industry, decoder-only networks such as GPT have become the models of choice "
        "for generation."
    )
    assert rules(text)["C5"] == "partial"


# -- the student's own grasp is no task -------------------------------------------------------
def test_my_understanding_is_no_understanding_task() -> None:
    text = (
        "The masked model peeks at both sides of every gap. Anyway, that is my understanding, "
        "sorry for the length."
    )
    assert rules(text)["C5"] == "missing"


# -- the elided generation half before the understanding half ---------------------------------
def test_decoders_do_generation_then_the_encoder_for_classification() -> None:
    text = (
        "That is why decoders do generation these days. The encoder family is still handy "
        "when the full document is there, say for classification."
    )
    assert rules(text)["C5"] == "met"
    # a comparison that restates the question is no elided use
    text = (
        "The size of the mismatch explains why GPT generates better. BERT stays the right "
        "tool for classification."
    )
    assert rules(text)["C5"] == "partial"


# -- uses in other domains' words -------------------------------------------------------------
def test_routing_tickets_and_finding_names_are_understanding_uses() -> None:
    text = (
        "At the help desk we use a BERT model for routing tickets into the right queue and "
        "for finding names in a document. GPT is used for chatbots."
    )
    assert rules(text)["C5"] == "met"


def test_spam_filtering_and_ranking_results_are_understanding_uses() -> None:
    for text in (
        "Encoders like BERT are used for spam filtering, and decoders like GPT for chat.",
        "BERT is used for ranking search results; GPT is used for text generation.",
    ):
        assert rules(text)["C5"] == "met", text


def test_email_suggestions_are_a_generation_use() -> None:
    text = "We use GPT for email suggestions, and BERT for classification."
    assert rules(text)["C5"] == "met"
    # "autocomplete" is the class's picture of next-word training, not a use
    text = "GPT is basically the autocomplete on a phone, guessing the next word."
    assert rules(text)["C5"] == "missing"


# -- made, achieved or measured is no use -----------------------------------------------------
def test_outputs_embeddings_is_no_understanding_use() -> None:
    text = "BERT has no decoder, it is only an encoder, so it outputs embeddings and no words."
    assert rules(text)["C5"] == "missing"


def test_achieves_understanding_in_jargon_is_no_use() -> None:
    text = (
        "Masked models achieve deep semantic understanding, whereas causal models align their "
        "objective with the generative manifold."
    )
    assert rules(text)["C5"] == "missing"


def test_a_test_that_measures_comprehension_is_no_use() -> None:
    text = (
        "A masked model reminds me of the gap tests teachers use, which are a measure of "
        "comprehension rather than of writing."
    )
    assert rules(text)["C5"] == "missing"


# -- an embedded question asserts no ability --------------------------------------------------
def test_which_of_them_can_generate_is_no_claim_that_both_can() -> None:
    for text in (
        "Both models differ in training, and that decides which of them can generate.",
        "For both BERT and GPT the question is whether they can generate.",
    ):
        assert rules(text)["C5"] != "contradicted", text
