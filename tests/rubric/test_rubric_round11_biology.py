"""Readings of issue-19 round 11 (track a: protein and molecule language models).

- The models of biology and chemistry named by their own names: ESM-2, ProtBERT, ChemBERTa
  are the masked family; ProtGPT2, ProGen2, MolGPT the causal family.

Sentences written for these tests."""

from __future__ import annotations

import pytest
from rule_verdicts import rules  # the rules alone (a helper beside this file)


# -- the domain's model names ------------------------------------------------------------------
@pytest.mark.parametrize("name", ["ESM-2", "ProtBERT", "ChemBERTa", "ESM-1v", "DNABERT"])
def test_domain_masked_model_names_are_the_masked_family(name: str) -> None:
    assert rules(f"{name} sees the tokens on both sides of the blank.")["C1"] == "met"


@pytest.mark.parametrize("name", ["ProtGPT2", "ProGen2", "MolGPT", "ZymCTRL"])
def test_domain_causal_model_names_are_the_causal_family(name: str) -> None:
    assert rules(f"{name} sees only the earlier tokens.")["C3"] == "met"


def test_the_split_told_by_domain_names() -> None:
    text = "ChemBERTa is used for classification and MolGPT for generation."
    assert rules(text)["C5"] == "met"


# -- C5: the tasks of biology and chemistry -----------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "Our group runs ESM-2 for variant effect prediction and ProGen2 for de novo design.",
        "The encoder handles contact prediction, while the decoder is used for sequence design.",
        "ProtBERT is what we use to annotate new proteins; for design we pick ProtGPT2.",
        "ChemBERTa does toxicity prediction and MolGPT generates novel molecules.",
    ],
)
def test_domain_understanding_and_design_tasks_make_the_split(text: str) -> None:
    assert rules(text)["C5"] == "met"


def test_a_design_task_alone_is_half_the_split() -> None:
    assert rules("For antibody design people choose ProtGPT2-style models.")["C5"] == "partial"


# -- positions along a chain: upstream / downstream, N- and C-terminal ---------------------------
@pytest.mark.parametrize(
    "text",
    [
        "ESM predicts each masked residue from the residues upstream and downstream of it.",
        "The masked model fills in hidden residues using the N-terminal and C-terminal context "
        "together.",
    ],
)
def test_both_sides_of_a_chain(text: str) -> None:
    assert rules(text)["C1"] == "met"


def test_upstream_residues_only_are_the_causal_restriction() -> None:
    text = "ProtGPT2 predicts the next residue from only the upstream residues, with a causal mask."
    assert rules(text)["C3"] == "met"


@pytest.mark.parametrize(
    "text",
    [
        "ESM always had the C-terminal part in pretraining and never learned to predict without "
        "it, but when we grow a protein from the N-terminus the C-terminal part is not there yet.",
        "Sampling builds the chain residue by residue, so for ESM the downstream half is missing "
        "at every step, a condition it was never trained for.",
    ],
)
def test_the_missing_downstream_part_at_generation(text: str) -> None:
    assert rules(text)["C2"] == "met"


# -- C1: the masked model said to read a chain N to C --------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "Both protein models read the chain N to C, like a ribosome would.",
        "ESM reads every sequence N to C, one residue after another.",
    ],
)
def test_masked_model_reading_n_to_c_is_a_false_claim(text: str) -> None:
    # the capital N is the chain's first end, not the texting "n" for "and"
    assert rules(text)["C1"] == "contradicted"


# -- C5: design as a verb, and a fronted task its users give to a family --------------------------
def test_designing_new_ones_is_the_generation_half() -> None:
    text = (
        "ESM-2 suits scoring variants on complete sequences; decoders like ProGen are the ones "
        "used to design new ones."
    )
    assert rules(text)["C5"] == "met"


def test_fronted_task_given_to_the_family_its_users_pick() -> None:
    text = (
        "For jobs like classifying enzymes into families, people use the encoder models; for "
        "making new enzymes they use decoders."
    )
    assert rules(text)["C5"] == "met"


# -- C2: no problem for the masked model, denied in the writer's belief ----------------------------
def test_believed_no_obstacle_for_the_masked_model_is_a_false_claim() -> None:
    text = (
        "ESM sees residues on both sides of each mask. I don't think generation is a real "
        "obstacle for ESM, you can just sample it one residue at a time."
    )
    assert rules(text)["C2"] == "contradicted"


# -- a question opened by a conjunction is asked, not claimed -------------------------------------
def test_question_opening_with_and_is_no_claim() -> None:
    assert rules("And does the decoder really see only the earlier tokens?")["C3"] == "missing"
