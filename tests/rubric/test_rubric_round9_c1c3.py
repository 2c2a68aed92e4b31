"""Credit levels of C1 and C3 in round 9 (track c13): the voices of teachers in training,
signal-processing engineers and a community-college class, and the near misses that must stay
where they are.

- C3: "GPT trains the way it is used" implies the causal restriction only when the answer's
  absence of the later tokens at generation is stated close by, or the sameness names the
  condition itself ("the same conditions"); "different from the way it is used" is no
  sameness at all.

Sentences written for these tests."""

from __future__ import annotations

from rule_verdicts import rules  # the rules alone (a helper beside this file)

# -- C3: the implied restriction needs its premises together ---------------------------------
NEAR = (
    "At generation time the later words do not exist yet. GPT is trained the way it is "
    "used, so this costs it nothing."
)


def test_a_manner_sameness_implies_the_restriction_only_next_to_the_absence() -> None:
    far = (
        "While you write a paragraph, the sentences after the one you are on are not there "
        "yet. BERT was always trained with those sentences present. That is what breaks it. "
        "Its masked objective is fine for classification. GPT is trained the way it is used."
    )
    assert rules(far)["C3"] != "met"
    assert rules(NEAR)["C3"] == "met"


def test_different_from_the_way_they_are_used_is_no_sameness() -> None:
    text = (
        "GPT is a causal model that guesses the next word. The way they are trained is "
        "different from the way they are used. When you generate, the words ahead of you do "
        "not exist yet."
    )
    assert rules(text)["C3"] == "partial"
