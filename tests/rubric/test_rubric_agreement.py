"""Kappa implementation and the agreement floor on the held-out answer sets."""

from __future__ import annotations

import pytest

from tools.rubric.agreement import ItemResult, SplitReport, evaluate, quadratic_weighted_kappa


def test_kappa_matches_a_hand_computation():
    # two levels: QWK equals Cohen's kappa; po = .75, pe = .5 -> .5
    assert quadratic_weighted_kappa([0, 0, 1, 1], [0, 1, 1, 1], 2) == pytest.approx(0.5)
    # three levels, one off-by-one: O = diag(1/3) except (2,1); by hand 1 - (1/12)/(1/3) = 0.75...
    a, b = [0, 1, 2], [0, 1, 1]
    # w = (i-j)^2/4 ; num = 0.25 * 1/3 ; ra = [1/3]*3, rb = [1/3, 2/3, 0]
    den = sum(
        ((i - j) ** 2 / 4) * (1 / 3) * rb
        for i in range(3)
        for j, rb in enumerate([1 / 3, 2 / 3, 0])
    )
    assert quadratic_weighted_kappa(a, b, 3) == pytest.approx(1 - (0.25 / 3) / den)


def test_kappa_edge_cases():
    assert quadratic_weighted_kappa([2, 1, 0], [2, 1, 0], 3) == 1.0
    assert quadratic_weighted_kappa([1, 1], [1, 1], 3) == 1.0  # one shared level, full agreement
    assert quadratic_weighted_kappa([0, 2], [2, 0], 3) < 0
    with pytest.raises(ValueError):
        quadratic_weighted_kappa([0], [0, 1], 2)


# Floors a little under the measured values (docs/rubric.md), on the answers the scorer
# scores (English; it abstains on other languages). A regression in the scorer breaks them.
# heldout and heldout2 have been looked at and tuned around, so their floors guard against
# regressions. heldout3 was measured in aggregate only, after the second-reader round (dfd412f);
# heldout4 (another author) was measured once, at dfd412f, and its floor is that measurement.
FLOORS = {
    "heldout": ({"C1": 0.9, "C2": 0.9, "C3": 0.88, "C4": 0.9, "C5": 0.9}, 0.4, 1.2),
    "heldout2": ({"C1": 0.9, "C2": 0.85, "C3": 0.85, "C4": 0.9, "C5": 0.9}, 0.35, 0.95),
    # C1 0.74 -> 0.72 when the second reader stopped raising C1 (third issue-19 round): it had
    # raised labels to met; C1 kappa over the nine tuning sets rose 0.882 -> 0.888
    # C4 0.50 -> 0.89 (issue-19 C4 round: elided halves, "one ... the other", analogies'
    # own verbs and ordinal pairs, the teacher-forcing mismatch)
    "heldout3": ({"C1": 0.7, "C2": 0.7, "C3": 0.6, "C4": 0.85, "C5": 0.9}, 1.65, 2.0),
    # C3 0.77 -> 0.69, C4 0.69 -> 0.80 (third issue-19 round): "doesnt have this problem bc it
    # trains the same way it gets used" is no longer a false C4 mismatch, and that consistency
    # plus the absent later tokens implies the C3 restriction, which its labels do not credit
    # C4 0.80 -> 0.86 (issue-19 C4 round)
    "heldout4": ({"C1": 0.72, "C2": 0.83, "C3": 0.66, "C4": 0.84, "C5": 0.86}, 0.9, 1.25),
    # heldout5 (issue 19) was frozen before that round and measured once at its end
    # C4 0.73 -> 0.85 after the C4 and heldout8 rounds (measured in aggregate only)
    "heldout5": ({"C1": 0.82, "C2": 0.8, "C3": 0.85, "C4": 0.82, "C5": 0.9}, 0.85, 1.05),
    # heldout6 (issue 19, second round) was frozen first (73d3028) and measured once at its end
    # C4 0.68 -> 0.80 after the fifth issue-19 round (0.83, measured in aggregate only)
    # C4 0.83 -> 0.87 after the sixth round (measured in aggregate only)
    # C4 0.84 -> 0.81 in the seventh round (0.815, measured in aggregate only): the second
    # reader raises C4 at 0.8, not 0.7 (docs/rubric.md entry 21, chosen by cross-validation on
    # the nine newest authors, where 0.7 was worse); the rules' own C4 verdicts did not move
    "heldout6": ({"C1": 0.88, "C2": 0.82, "C3": 0.88, "C4": 0.81, "C5": 0.9}, 0.95, 1.15),
    # heldout7 (an independent author who never saw the scorer) was committed before any run
    # and measured twice, in aggregate: before and after the third issue-19 round
    # C4 0.79 -> 0.86 after the heldout8 round (measured in aggregate only)
    # C4 0.86 -> 0.92 after the sixth round (measured in aggregate only)
    "heldout7": ({"C1": 0.84, "C2": 0.88, "C3": 0.92, "C4": 0.88, "C5": 0.86}, 0.8, 1.0),
    # heldout8 (a new independent author) was measured at the round's start (C4 0.30) and after
    # its first half (0.41), then released as tuning data: its floor guards the second half's gains
    "heldout8": ({"C1": 0.85, "C2": 0.8, "C3": 0.92, "C4": 0.76, "C5": 0.93}, 0.75, 0.95),
    # heldout9 (another independent author) was frozen before the round's second half and
    # measured at its start and once at its end, in aggregate
    # C4 0.70 -> 0.88 once released as tuning data (fifth issue-19 round)
    # C5 0.92 -> 0.91 in the seventh round: C5 is no longer raised by the reader (entry 21)
    "heldout9": ({"C1": 0.87, "C2": 0.87, "C3": 0.92, "C4": 0.88, "C5": 0.91}, 0.6, 0.8),
    # heldout10 and heldout11 (two more independent authors) were frozen before the fifth
    # issue-19 round and measured at its start (70c6923) and once at its end, in aggregate
    # C4 0.83 -> 0.88 after the sixth round (0.92, measured in aggregate only)
    "heldout10": ({"C1": 0.86, "C2": 0.82, "C3": 0.87, "C4": 0.88, "C5": 0.94}, 0.7, 0.9),
    # heldout11 was released as tuning data for the sixth round: C1 .85 -> .98, C3 .81 -> .90,
    # C4 .78 -> .95, MAE .78 -> .24 (its floor guards those gains)
    # C4 0.92 -> 0.91 in the seventh round (the reader raises less, entry 21)
    # C4 0.91 -> 0.90 in the tenth round (0.900): the merged tracks' refit (no rule moved it alone)
    "heldout11": ({"C1": 0.95, "C2": 0.95, "C3": 0.87, "C4": 0.9, "C5": 0.94}, 0.35, 0.6),
    # the fifth round's tuning sets (two new authors), measured clean at 70c6923
    # C5 0.95 -> 0.94 in the seventh round (C5 no longer raised, entry 21)
    "dev7": ({"C1": 0.94, "C2": 0.89, "C3": 0.89, "C4": 0.8, "C5": 0.94}, 0.6, 0.8),
    "dev8": ({"C1": 0.88, "C2": 0.92, "C3": 0.92, "C4": 0.86, "C5": 0.83}, 0.55, 0.8),
    # heldout12 and heldout13 (two more independent authors: a phone-typed online course and a
    # working engineers' evening course) were frozen before the sixth issue-19 round (564b862)
    # and measured at its start and once at its end, in aggregate
    # released as tuning data for the seventh round: C2 .72 -> .90, C3 .85 -> .98 (heldout12);
    # C3 .75 -> .98, C4 .69 -> .84, MAE .97 -> .53 (heldout13); the floors guard those gains
    "heldout12": ({"C1": 0.92, "C2": 0.88, "C3": 0.96, "C4": 0.88, "C5": 0.85}, 0.55, 0.8),
    "heldout13": ({"C1": 0.92, "C2": 0.84, "C3": 0.96, "C4": 0.82, "C5": 0.9}, 0.6, 0.85),
    # the sixth round's tuning sets (two new authors), measured clean at 9ff6ab8
    # C1 0.89 -> 0.86, MAE 0.6 -> 0.65 in the seventh round: the reader raises C1 at 0.95, not
    # 0.8 (entry 21: 0.8 was worse out of fold on the nine newest authors)
    "dev9": ({"C1": 0.86, "C2": 0.88, "C3": 0.79, "C4": 0.82, "C5": 0.97}, 0.65, 0.85),
    "dev10": ({"C1": 0.87, "C2": 0.87, "C3": 0.85, "C4": 0.79, "C5": 0.91}, 0.65, 0.9),
    # heldout14-16 (three more independent authors: linguistics students, a career-change
    # bootcamp, forum replies) were frozen before the seventh round (64349f4) and measured at its
    # start and once at its end, in aggregate; heldout14's C4 (0.50) and its seven false
    # contradictions are the round's clearest open failure (docs/rubric.md)
    "heldout14": ({"C1": 0.92, "C2": 0.8, "C3": 0.78, "C4": 0.48, "C5": 0.94}, 1.05, 1.25),
    # heldout15 C4 0.85 -> 0.83 in round 11 (0.834, aggregate only): C4's causal side beside
    # the C2 link now needs a tie to the conditions (docs/rubric.md entry 27); it gained on four
    # tuning sets (heldout22 C4 .85 -> .91) and costs this frozen set about one answer. Kept,
    # not dropped on the frozen result.
    "heldout15": ({"C1": 0.98, "C2": 0.92, "C3": 0.9, "C4": 0.83, "C5": 0.83}, 0.45, 0.7),
    "heldout16": ({"C1": 0.95, "C2": 0.8, "C3": 0.91, "C4": 0.7, "C5": 0.88}, 0.75, 0.95),
    # the seventh round's tuning sets (four new authors), measured clean at 470fb03 (C4 .43-.87,
    # wrong-claim precision .50-.75) and after the round
    "dev11": ({"C1": 0.9, "C2": 0.88, "C3": 0.97, "C4": 0.88, "C5": 0.94}, 0.35, 0.6),
    "dev12": ({"C1": 0.95, "C2": 0.94, "C3": 0.89, "C4": 0.86, "C5": 0.97}, 0.4, 0.65),
    "dev13": ({"C1": 0.89, "C2": 0.93, "C3": 0.87, "C4": 0.87, "C5": 0.92}, 0.4, 0.65),
    "dev14": ({"C1": 0.87, "C2": 0.79, "C3": 0.95, "C4": 0.82, "C5": 0.98}, 0.5, 0.75),
    # the eighth round's held-out sets (three new authors, frozen at 12e53af), measured at its
    # start and end, then released as tuning data for the ninth round: the floors guard its gains
    # (heldout17 C3 .92 -> .96, heldout18 C3 .72 -> .82, heldout19 C1 .79 -> .94, C2 .71 -> .84)
    "heldout17": ({"C1": 0.77, "C2": 0.84, "C3": 0.94, "C4": 0.95, "C5": 0.98}, 0.6, 0.85),
    "heldout18": ({"C1": 0.9, "C2": 0.86, "C3": 0.88, "C4": 0.88, "C5": 0.92}, 0.65, 0.9),
    # heldout19 C4 0.93 -> 0.92 after round 11's merged refit (a tuning set, read): one answer
    # that compares only the masked side is raised to met by the reader at P(met) 0.81, just
    # over C4's 0.8; its MAE fell 0.72 -> 0.70
    "heldout19": ({"C1": 0.92, "C2": 0.82, "C3": 0.93, "C4": 0.92, "C5": 0.93}, 0.55, 0.8),
    # the eighth round's tuning sets (dev15 and dev16 from round 7), after the ninth round
    "dev15": ({"C1": 0.93, "C2": 0.82, "C3": 0.96, "C4": 0.93, "C5": 0.96}, 0.45, 0.7),
    "dev16": ({"C1": 0.94, "C2": 0.81, "C3": 0.88, "C4": 0.83, "C5": 0.84}, 0.6, 0.8),
    "dev17": ({"C1": 0.81, "C2": 0.83, "C3": 0.94, "C4": 0.95, "C5": 0.96}, 0.6, 0.8),
    "dev18": ({"C1": 0.83, "C2": 0.85, "C3": 0.96, "C4": 0.85, "C5": 0.95}, 0.65, 0.9),
    "dev19": ({"C1": 0.98, "C2": 0.88, "C3": 0.94, "C4": 0.77, "C5": 0.98}, 0.55, 0.8),
    # the ninth round's held-out sets (four new authors, frozen at 59f6013), at its end
    "heldout20": ({"C1": 0.91, "C2": 0.82, "C3": 0.87, "C4": 0.78, "C5": 0.89}, 0.8, 0.8),
    "heldout21": ({"C1": 0.81, "C2": 0.79, "C3": 0.73, "C4": 0.8, "C5": 0.8}, 0.95, 0.95),
    "heldout22": ({"C1": 0.98, "C2": 0.88, "C3": 0.94, "C4": 0.8, "C5": 0.95}, 0.8, 0.8),
    "heldout23": ({"C1": 0.91, "C2": 0.92, "C3": 0.9, "C4": 0.87, "C5": 0.95}, 0.65, 0.65),
    # the ninth round's tuning sets (four new authors), measured clean at 59f6013 and after
    "dev20": ({"C1": 0.93, "C2": 0.92, "C3": 0.88, "C4": 0.87, "C5": 0.87}, 0.6, 0.6),
    "dev21": ({"C1": 0.98, "C2": 0.87, "C3": 0.96, "C4": 0.93, "C5": 0.91}, 0.35, 0.35),
    "dev22": ({"C1": 0.94, "C2": 0.89, "C3": 0.91, "C4": 0.84, "C5": 0.92}, 0.6, 0.55),
    "dev23": ({"C1": 0.91, "C2": 0.9, "C3": 0.89, "C4": 0.94, "C5": 0.97}, 0.5, 0.5),
    # heldout24-26 (round 10) were frozen first and measured at its start and once at its end;
    # released as tuning data for round 11, their floors guard its gains (heldout24 C2 .73 ->
    # .91, MAE .85 -> .45; heldout25 C5 .65 -> .86, C2 .81 -> .91)
    "heldout24": ({"C1": 0.98, "C2": 0.89, "C3": 0.86, "C4": 0.95, "C5": 0.98}, 0.5, 0.5),
    "heldout25": ({"C1": 0.87, "C2": 0.89, "C3": 0.84, "C4": 0.92, "C5": 0.84}, 0.55, 0.55),
    "heldout26": ({"C1": 0.94, "C2": 0.89, "C3": 0.87, "C4": 0.84, "C5": 0.83}, 0.55, 0.55),
    # heldout27 and heldout28 (round 11) were frozen first (6b639d7) and measured in aggregate at
    # its start and once at its end; dev27 and dev28 are that round's tuning sets
    "heldout27": ({"C1": 0.87, "C2": 0.9, "C3": 0.96, "C4": 0.78, "C5": 0.97}, 0.65, 0.65),
    "heldout28": ({"C1": 0.96, "C2": 0.87, "C3": 0.88, "C4": 0.9, "C5": 0.93}, 0.75, 0.75),
    "dev27": ({"C1": 0.96, "C2": 0.81, "C3": 0.92, "C4": 0.88, "C5": 0.98}, 0.65, 0.65),
    "dev28": ({"C1": 0.91, "C2": 0.83, "C3": 0.85, "C4": 0.87, "C5": 0.92}, 0.8, 0.75),
    # heldout29 and heldout30 (round 12) were frozen first (dd4d156) and measured in aggregate
    # at its start and once at its end; dev29 and dev30 are that round's tuning sets. Round 12
    # raised the floors above where its tracks' gains held on the sets they read
    "heldout29": ({"C1": 0.82, "C2": 0.79, "C3": 0.94, "C4": 0.87, "C5": 0.91}, 0.75, 0.75),
    "heldout30": ({"C1": 0.86, "C2": 0.92, "C3": 0.92, "C4": 0.92, "C5": 0.84}, 0.5, 0.5),
    "dev29": ({"C1": 0.89, "C2": 0.91, "C3": 0.89, "C4": 0.95, "C5": 0.97}, 0.4, 0.4),
    "dev30": ({"C1": 0.93, "C2": 0.87, "C3": 0.96, "C4": 0.86, "C5": 0.95}, 0.55, 0.55),
}
# "contradicted" verdicts on answers not labelled contradicted, summed over criteria, as
# measured: none on the first two sets; none on heldout3 since the issue-19 C4 round (one
# before, on C4); two on heldout4 (C1, C4); two on heldout5; one on heldout6 (C4).
FALSE_CONTRADICTIONS = {
    "heldout": 0,
    "heldout2": 0,
    "heldout3": 0,  # its one (C4, "one meets the conditions ... the other does not") is gone
    "heldout4": 2,
    "heldout5": 2,
    "heldout6": 0,
    "heldout7": 1,
    "heldout8": 0,
    "heldout9": 1,
    "heldout10": 0,
    "heldout11": 0,  # was 4 before the sixth round (then released as tuning data)
    "heldout12": 0,  # was 1 before the seventh round (then released as tuning data)
    "heldout13": 0,
    "dev7": 0,
    "dev8": 0,
    "dev9": 0,
    "dev10": 1,
    "heldout14": 7,
    "heldout15": 3,
    "heldout16": 1,
    "dev11": 0,  # 5 before the seventh round
    "dev12": 1,  # 3 before
    "dev13": 1,  # 6 before
    "dev14": 0,  # 5 before
    "heldout17": 0,  # 1 before the ninth round (then released as tuning data)
    "heldout18": 1,  # 2 before
    "heldout19": 0,  # 7 before: the notebook voice's measurements and code, read as claims
    "dev15": 0,
    "dev16": 1,
    "dev17": 2,
    "dev18": 1,
    "dev19": 0,
    "heldout20": 2,
    "heldout21": 6,
    "heldout22": 2,
    "heldout23": 3,
    "dev20": 0,
    "dev21": 0,
    "dev22": 0,
    "dev23": 0,
    "heldout24": 2,  # 6 before round 11 (then released as tuning data)
    "heldout25": 2,
    "heldout26": 1,
    "heldout27": 0,
    "heldout28": 2,
    "dev27": 2,
    "dev28": 0,
    "heldout29": 1,
    "heldout30": 4,  # 3 at the round's start: one more C5 contradiction at its end
    "dev29": 1,
    "dev30": 1,
}


@pytest.mark.parametrize("split", sorted(FLOORS))
def test_heldout_agreement_stays_above_the_floor(split):
    # Only aggregate numbers go into the assertions (and so into a failure's message): the
    # floors guard frozen sets whose answers and labels nobody tuning the scorer may see.
    kappas, mae_scored, mae_all = FLOORS[split]
    rep = evaluate(split)
    scored = [i for i in rep.items if not i.abstained]
    below = {
        cid: round(rep.kappa(cid, scored), 3)
        for cid, floor in kappas.items()
        if rep.kappa(cid, scored) < floor
    }
    assert not below, f"kappa under the floor: {below}"
    mae_s, mae_a = round(rep.mae(scored), 3), round(rep.mae(), 3)
    assert mae_s <= mae_scored, f"MAE (scored) {mae_s} > {mae_scored}"
    assert mae_a <= mae_all, f"MAE (all) {mae_a} > {mae_all}"
    false = sum(pred - tp for tp, pred, _ in map(rep.contradicted_pr, rep.criteria))
    assert false <= FALSE_CONTRADICTIONS[split], f"{false} false contradictions"


def test_agreement_reprs_show_no_labels():
    item = ItemResult("x1", {"C1": "met"}, {"C1": "contradicted"}, 7.0, 3.5, True, tags=["t"])
    rep = SplitReport("heldout5", [item], ["C1"])
    for text in (repr(item), repr(rep)):
        assert not any(w in text for w in ("met", "contradicted", "7.0", "3.5", "'t'")), text
