"""Wrong-claim recall in round 10 (track d): false claims written in the hedged essay voice or
in words the catalogue did not know yet must make their criterion contradicted, and the true
statements next to them must not.

- the masked LM's training said not to differ from generation in hedged prose ("is not really
  at odds with", "resembles writing"), or said to be "trained to produce text" (C2, C4);
- "it seems to me" is the writer's own view, not an attribution that voids a false claim;
- degree and perspective hedges ("to some extent", "in a sense", ", as I understand it,")
  are read past (`hedges.py`), so the claim they soften is still matched;
- the causal LM "shown the whole sentence" in training while only the earlier words are left
  at generation: it sees the later words (C3) and its two conditions differ (C4);
- the masked LM said able to generate with a quality or a reason (C5,
  `generation_ability.py`), not a bare, asked or supposed ability.
"""

from __future__ import annotations

from rule_verdicts import rules

from grader.rubric.scorer import score_explanation

MLM_OK = (
    "A masked language model fills each hidden slot using the words to its left and the "
    "words to its right."
)
CLM_OK = "A causal language model guesses each word from only the words that came before it."
USES_OK = "Encoders like BERT serve classification; decoders like GPT are used to write text."


def test_masked_training_said_not_at_odds_with_generation_is_c4_contradicted() -> None:
    text = (
        f"{MLM_OK} {CLM_OK} Still, the way BERT is trained is not really at odds with "
        "generation; what holds it back is its modest size."
    )
    assert rules(text)["C4"] == "contradicted"


def test_masked_training_said_to_resemble_writing_is_c4_contradicted() -> None:
    text = f"{MLM_OK} {CLM_OK} The training of the masked model does resemble writing, after all."
    assert rules(text)["C4"] == "contradicted"
    # a resemblance to anything but the use compares no conditions
    text = f"{MLM_OK} {CLM_OK} The masked objective resembles a cloze exercise from school."
    assert rules(text)["C4"] != "contradicted"


def test_masked_model_trained_to_produce_text_is_c2_contradicted() -> None:
    text = (
        f"{MLM_OK} {CLM_OK} During pre-training BERT was also trained to produce text from "
        "left to right, so nothing is new for it at generation."
    )
    assert rules(text)["C2"] == "contradicted"


def test_it_seems_to_me_keeps_the_false_claim() -> None:
    text = (
        f"{MLM_OK} {CLM_OK} With a clever decoding trick, it seems to me, BERT can produce "
        "perfectly fluent essays."
    )
    res = score_explanation(text)
    assert {c.id: c.verdict for c in res.criteria}["C5"] == "contradicted"


def test_hedges_are_read_past_but_nothing_else_is_dropped() -> None:
    from grader.rubric.hedges import drop_hedges

    assert drop_hedges("the model does to some extent have the later words") == (
        "the model does have the later words"
    )
    assert drop_hedges("In training, as I understand it, GPT sees it all") == (
        "In training GPT sees it all"
    )
    assert drop_hedges("the right side is in a sense there") == "the right side is there"
    assert drop_hedges("they learn kind of the same way") == "they learn the same way"
    # a noun "kind", a negation and an attribution stay
    assert drop_hedges("a kind of the same trick") == "a kind of the same trick"
    assert drop_hedges("it is not, I think, available") == "it is not available"
    assert drop_hedges("apparently BERT writes well") == "apparently BERT writes well"


def test_later_words_available_in_a_hedged_sentence_is_c2_contradicted() -> None:
    text = (
        f"{MLM_OK} {CLM_OK} While the text is being written, the masked model does to some "
        "extent have the later words available, as rough guesses it keeps revising."
    )
    assert rules(text)["C2"] == "contradicted"


def test_causal_model_shown_whole_sentence_in_training_is_contradicted() -> None:
    text = (
        f"{MLM_OK} GPT learns next-word prediction: in training it is shown the complete "
        "sentence, but when it writes it has access only to the earlier words."
    )
    v = rules(text)
    assert v["C3"] == "contradicted"
    assert v["C4"] == "contradicted"


def test_causal_model_attending_to_all_of_it_in_training_is_c3_contradicted() -> None:
    text = (
        f"{MLM_OK} During training GPT has the entire paragraph in front of it and attends to "
        "all of it, though it leans on the earlier words."
    )
    assert rules(text)["C3"] == "contradicted"


def test_masked_model_able_to_generate_with_a_reason_is_c5_contradicted() -> None:
    for claim in (
        "BERT can generate because the prompt already gives it everything it needs.",
        "BERT could generate coherently; it is just too slow to serve.",
    ):
        text = f"{MLM_OK} {CLM_OK} {claim}"
        assert rules(text)["C5"] == "contradicted", claim
    # a bare, asked, failing or supposed ability is no claim that it generates well
    for sentence in (
        "BERT can generate a handful of tokens.",
        "The real question is which of the two can generate because of its training.",
        "BERT can generate text, but it comes out incoherent.",
        "If we sampled long enough, BERT could generate coherently.",
    ):
        text = f"{MLM_OK} {CLM_OK} {USES_OK} {sentence}"
        assert rules(text)["C5"] != "contradicted", sentence
