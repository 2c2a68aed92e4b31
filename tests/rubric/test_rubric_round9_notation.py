"""C1 and C3 in conditional notation, round 9 (track m: a maths/physics class).

- the conditioning set of a written conditional is what the model predicts from: the bar is
  the "conditioned on". A conditioning set that holds both an earlier range and a later range
  ("q(y_k | y_1..y_{k-1}, y_{k+1}..y_N)") states both sides (C1 met) for the model the line is
  about; only the earlier range is "from the previous tokens" in symbols (C3 partial: the
  formula says what the model is given, not that nothing else is available);
- a line whose content is such a conditional is a claim in symbols, not a list of terms,
  however few function words it has; a conditional that is one item of a comma-separated
  list of terms stays a term and earns nothing.

Sentences written for these tests."""

from __future__ import annotations

from rule_verdicts import rules  # the rules alone (a helper beside this file)


# -- both ranges in one conditioning set -----------------------------------------------------
def test_both_ranges_after_the_bar_are_both_sides_but_a_range_outside_it_is_not() -> None:
    both = "Masked objective: minimise -log q(y_k | y_1..y_{k-1}, y_{k+1}..y_N) over masked k"
    assert rules(both)["C1"] == "met"
    outside = "MLM: log p(w_j | w_{<j}) is what we sample from, and w_{>j} = {} is still empty"
    assert rules(outside)["C1"] != "met"


def test_a_latex_conditional_line_is_a_claim_but_in_a_list_of_terms_it_is_a_term() -> None:
    line = r"BERT objective: $\log p_\phi(w_j \mid w_{<j}, w_{>j})$ summed over masked j"
    assert rules(line)["C1"] == "met"
    listed = (
        "encoder, bidirectional, p(w_j | w_{<j}, w_{>j}), masking, decoder, beam search, "
        "perplexity, sentiment analysis"
    )
    verdicts = rules(listed)
    assert verdicts["C1"] in ("missing", "partial")
    assert "contradicted" not in verdicts.values()


# -- only the earlier range: the previous tokens, no restriction ----------------------------
def test_a_prefix_conditional_alone_is_partial_and_with_only_it_is_met() -> None:
    bare = "For the decoder the training loss is -sum_k log q(y_k | y_{<k})."
    assert rules(bare)["C3"] == "partial"
    restricted = "GPT conditions only on y_{<k} when it predicts y_k."
    assert rules(restricted)["C3"] == "met"


def test_a_prefix_conditional_in_latex_is_partial() -> None:
    text = (
        r"The autoregressive model factorises the joint as $\prod_k q(y_k \mid y_{<k})$, "
        "GPT style."
    )
    assert rules(text)["C3"] == "partial"
