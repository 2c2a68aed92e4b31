"""Hidden tests, Part B (2 of 2): the proportions of `mask_tokens`, its extremes, its errors.

The selection probability, judged where only statistics can judge it (the shares and their
independence, with exact binomial acceptance bands), at its extremes (p = 0, p = 1, nothing
eligible) and outside [0, 1] (the documented ValueError). `test_corruption.py`, collected
first, holds the zero-tolerance invariants.

False-fail budget (a correct implementation failing by bad luck). Each statistical assertion
uses an exact band at alpha = 1e-8 (`binomial_band`: an exact two-sided binomial band, each
tail <= 5e-9 from the exact pmf; `poisson_binomial_upper`: an exact one-sided bound). This file
makes 10 such assertions (selection rate at p = 0.15 and p = 0.5, co-selection of independent
row pairs, the [MASK] / random / unchanged shares, each conditional on the realised number of
selected positions, the number of rows whose count sits within 1 of its mean, doubly-[MASK]
positions in row pairs, and the [MASK] and random shares with 3 ordinary ids), so
P(false fail) <= 1e-7.
The vocabulary-coverage check (`test_corruption.py`) fails a correct implementation only
if one of the 15 ordinary ids is never drawn among ~6,000 selections:
<= 15 * (1 - 0.1 * 14/225)^6000 ~ 1e-15.
Together < 1e-7, below the 1e-6 the course promises.
"""

from __future__ import annotations

import pytest
import torch

from grader.suite.checks import (
    binomial_band,
    check_proportion,
    check_raises,
    collecting,
    fail,
    poisson_binomial_upper,
)
from grader.suite.working import require_working
from grader.suites.hidden._corruption import (
    ALPHA,
    BIG,
    CLS,
    FEW,
    FEW_SPECIALS,
    IGNORE,
    MASK,
    PAD,
    SEP,
    SMALL,
    SPECIALS,
    _call,
    _eligible,
    _few_ids_split_diagnosis,
    _gen,
    _near_mean_chance,
    _selection,
    _selection_diagnosis,
    _unlabelled_changes,
    _unselected_diagnosis,
)

# ============================================================================ statistics


@pytest.mark.points(1.5)
def test_selection_rate(submission, student):
    """Selected / eligible within the exact binomial band (default p = 0.15, and p = 0.5)."""
    for name, p in (("big", 0.15), ("small", 0.5)):
        case = BIG if name == "big" else SMALL
        inputs, labels = _selection(submission, name)
        eligible = _eligible(case["ids"])
        n = int(eligible.sum())
        k = int(((labels != IGNORE) & eligible).sum())
        diag = _selection_diagnosis(case, labels, p, inputs) or ["wrong_selection_rate"]
        default = " (the default mlm_probability)" if case["p"] is None else ""
        check_proportion(
            k,
            n,
            p,
            what=f"share of the ordinary tokens selected at mlm_probability={p}{default}",
            alpha=ALPHA,
            diagnoses=diag,
        )


@pytest.mark.points(1)
def test_rows_independent(submission, student):
    """Rows are drawn independently: in disjoint row pairs (0, 1), (2, 3), ... a position is
    selected in both rows with probability p^2 = 0.0225 (broadcasting one row of draws to the
    batch gives ~0.15)."""
    ids = BIG["ids"]
    inputs, labels = _selection(submission, "big")
    sel = labels != IGNORE
    eligible = _eligible(ids)
    both_eligible = eligible[0::2] & eligible[1::2]
    both = sel[0::2] & sel[1::2] & both_eligible
    n = int(both_eligible.sum())
    share = float((sel & eligible).sum()) / max(int(eligible.sum()), 1)
    co = int(both.sum()) / max(n, 1)
    # co-selection close to the marginal share itself means the rows move together; close to
    # its square, the rows are independent and only the share is wrong
    diag = ["same_positions_every_row"]
    if not 0 < share < 0.9 or abs(co - share**2) <= abs(co - share):
        diag = _selection_diagnosis(BIG, labels, 0.15, inputs) or diag
    check_proportion(
        int(both.sum()),
        n,
        0.15**2,
        what="share of positions selected in both rows of a pair",
        alpha=ALPHA,
        diagnoses=diag,
    )


@pytest.mark.points(1)
def test_selection_counts_vary(submission, student):
    """Each position is selected independently, so a row's number of selected tokens varies
    like a binomial around p * (its eligible tokens). Choosing exactly round(p * n) positions
    per row (a fixed count) is another distribution: there, every row sits within 1 of its
    expected count, which independent draws do for only ~19% of the rows."""
    ids = BIG["ids"]
    inputs, labels = _selection(submission, "big")
    wrong_rate = _selection_diagnosis(BIG, labels, 0.15, inputs)
    if wrong_rate is not None:  # earned only by a selection with the right overall rate
        fail("the share of selected tokens in the large batch is off (see selection_rate), so "
             "the spread of the counts per row cannot be judged", wrong_rate)  # fmt: skip
    eligible = _eligible(ids)
    n_rows = eligible.sum(dim=1).tolist()
    counts = ((labels != IGNORE) & eligible).sum(dim=1).tolist()
    p = 0.15
    near = sum(abs(c - n * p) <= 1 for c, n in zip(counts, n_rows, strict=True))
    chances = [_near_mean_chance(n, p) for n in n_rows]
    hi = poisson_binomial_upper(tuple(chances), ALPHA)
    if near > hi:
        fail(f"in {near} of the {len(n_rows)} rows of the large batch, the number of selected "
             f"tokens is within 1 of mlm_probability x the row's eligible tokens; with each "
             f"position selected independently about {sum(chances):.0f} rows are that close "
             f"(accepted up to {hi}; a correct implementation exceeds it with probability below "
             f"{ALPHA:.0e}). Your counts per row: {counts[:8]} ... for eligible {n_rows[:8]} "
             "...", ["fixed_count_per_row"])  # fmt: skip


@pytest.mark.points(0.5)
def test_split_rows_independent(submission, student):
    """The 80/10/10 decision is drawn per position: where both rows of a disjoint pair are
    selected, both become [MASK] with probability 0.8^2 = 0.64 (one decision shared by a whole
    column gives 0.8). Only independence is judged: a [MASK] share m other than 0.8 (the
    split tests' to charge) is judged against m_even x m_odd, the independent rate; a share
    of 0 or 1 (never or always [MASK]) shows nothing about independence and earns nothing."""
    ids = BIG["ids"]
    inputs, labels = _selection(submission, "big")
    sel = (labels != IGNORE) & _eligible(ids)
    both = sel[0::2] & sel[1::2]
    n = int(both.sum())
    if n == 0:
        fail("no position was selected in both rows of a pair, so the split cannot be judged",
             _selection_diagnosis(BIG, labels, 0.15, inputs)
             or ["wrong_selection_rate"])  # fmt: skip
    masked = inputs == MASK
    co = int((both & masked[0::2] & masked[1::2]).sum())
    shares = []
    for half in (slice(0, None, 2), slice(1, None, 2)):
        n_sel, n_mask = int(sel[half].sum()), int((sel[half] & masked[half]).sum())
        lo, hi = binomial_band(n_sel, 0.8, ALPHA)
        shares.append(0.8 if lo <= n_mask <= hi or n_mask in (0, n_sel) else n_mask / n_sel)
    expected = shares[0] * shares[1]
    diag = _selection_diagnosis(BIG, labels, 0.15, inputs) or (
        ["split_shared_across_rows"] if co / n > expected else ["wrong_80_10_10"])  # fmt: skip
    check_proportion(
        co, n, expected, what="share of positions selected in both rows of a pair that became "
        f"[MASK] in both (independent decisions at the [MASK] shares observed: {expected:.3f})",
        alpha=ALPHA, diagnoses=diag,
    )  # fmt: skip


def _few_ids_unlabelled_diagnosis(ids, inputs, labels) -> list[str]:
    """Why positions are unlabelled although mlm_probability=1 selects every one of them:
    ~10% of them, all with their own id, are the kept share of the split losing its labels."""
    unlabelled = labels != ids
    n, k = ids.numel(), int(unlabelled.sum())
    lo, hi = binomial_band(n, 0.1, ALPHA)
    if bool((inputs[unlabelled] == ids[unlabelled]).all()) and lo <= k <= hi:
        return ["kept_positions_unlabelled"]
    if bool((unlabelled & (inputs != ids)).any()):  # changed, yet unlabelled
        return _unlabelled_changes(ids, inputs, labels)
    return ["wrong_selection_rate"]


@pytest.mark.points(1)
def test_split_with_few_ordinary_ids(student):
    """With 3 ordinary ids (4, 5, 6) and every position selected, [MASK] is 80% exactly and
    the random step changes the id 2/3 of the time (10% x 2/3 visible): a random step that can
    draw a special id ([MASK] included) shows here."""
    ids = FEW["ids"]
    inputs, labels = _call(student, ids, mask_token_id=MASK, vocab_size=FEW["V"],
                           special_token_ids=FEW_SPECIALS, mlm_probability=1.0,
                           generator=_gen(41))  # fmt: skip
    n = ids.numel()
    if not bool((labels == ids).all()):
        fail("with mlm_probability=1 every ordinary position must be selected (labels = the "
             f"original ids), got {int((labels != ids).sum())} of {n} positions not labelled",
             _few_ids_unlabelled_diagnosis(ids, inputs, labels))  # fmt: skip
    if bool(((inputs < 0) | (inputs >= FEW["V"])).any()):
        fail(f"mask_tokens with vocab_size=7 produced ids outside [0, 7): "
             f"{sorted(set(inputs[(inputs < 0) | (inputs >= 7)].tolist()))[:5]}",
             ["random_id_range"])  # fmt: skip
    masked = int((inputs == MASK).sum())
    special = int(((inputs != MASK) & ~_eligible(inputs)).sum())
    changed = int(((inputs != MASK) & (inputs != ids)).sum())
    share = f"[MASK] {masked / n:.1%}, another id {changed / n:.1%}, a special id {special / n:.1%}"
    diag = _few_ids_split_diagnosis(n, masked, changed, special)
    if special:
        fail(f"random replacements drew special ids ({special} of {n} positions): {share}",
             diag)  # fmt: skip
    for what, count, p in (("[MASK]", masked, 0.8), ("another ordinary id", changed, 0.2 / 3)):
        check_proportion(count, n, p, what=f"share of positions that became {what} (3 ordinary "
                         "ids, every position selected)", alpha=ALPHA, diagnoses=diag,
                         detail=f"\n  Your split: {share}.")  # fmt: skip


@pytest.mark.points(0.75)
@pytest.mark.parametrize("share", ["mask", "random", "unchanged"])
def test_split_80_10_10(submission, student, share):
    """Of the selected positions: 80% [MASK], 10% random, 10% unchanged.

    A random draw equal to the original id looks unchanged, so with n_ord = 995 ordinary ids
    the visible shares are 0.8, 0.1 (1 - 1/n_ord) and 0.1 + 0.1 / n_ord.
    """
    ids = BIG["ids"]
    inputs, labels = _selection(submission, "big")
    sel = (labels != IGNORE) & _eligible(ids)
    n = int(sel.sum())
    if n == 0:
        fail("no position was selected, so the 80/10/10 split cannot be measured",
             ["wrong_selection_rate"])  # fmt: skip
    n_ord = BIG["V"] - len(SPECIALS)
    counts = {
        "mask": int((sel & (inputs == MASK)).sum()),
        "random": int((sel & (inputs != MASK) & (inputs != ids)).sum()),
        "unchanged": int((sel & (inputs == ids)).sum()),
    }
    p = {"mask": 0.8, "random": 0.1 * (1 - 1 / n_ord), "unchanged": 0.1 + 0.1 / n_ord}[share]
    split = " / ".join(f"{counts[s] / n:.1%}" for s in ("mask", "random", "unchanged"))
    diag = _selection_diagnosis(BIG, labels, 0.15, inputs) or ["wrong_80_10_10"]
    check_proportion(
        counts[share],
        n,
        p,
        what=f"share of selected positions that are {share}",
        alpha=ALPHA,
        diagnoses=diag,
        detail=f"\n  Your split [MASK] / random / unchanged is {split} of {n} selected positions.",
    )


# ============================================================================ edge cases


@pytest.mark.points(0.5)
@pytest.mark.parametrize("case", ["p0", "p1", "all_padding_row_and_single_token"])
def test_edge_cases(student, reference, cases, case):
    require_working(student, reference, "corruption.mask_tokens")
    layout = torch.tensor([[CLS, 5, 6, 7, 8, 10, SEP], [CLS, 11, 12, SEP, PAD, PAD, PAD],
                           [PAD] * 7])  # fmt: skip
    # the ordinary ids (their labels are shown on failure) are drawn per submission
    ordinary = torch.tensor([i for i in range(20) if i not in SPECIALS])
    drawn = ordinary[
        torch.randint(
            len(ordinary), layout.shape, generator=cases.generator(f"corruption.edge/{case}")
        )
    ]
    ids = torch.where(torch.isin(layout, torch.tensor(SPECIALS)), layout, drawn)
    kw = {"mask_token_id": MASK, "vocab_size": 20, "special_token_ids": SPECIALS}
    eligible = _eligible(ids)
    if case == "p0":
        inputs, labels = _call(student, ids, mlm_probability=0.0, generator=_gen(1), **kw)
        if (labels != IGNORE).any() or not torch.equal(inputs, ids):
            diag = _unselected_diagnosis(
                ids, inputs, labels, p=0.0, selected_id="wrong_selection_rate"
            )
            fail(f"mlm_probability=0 must select nothing: got labels {labels.tolist()} and "
                 f"inputs {inputs.tolist()} for ids {ids.tolist()}", diag)  # fmt: skip
        return
    if case == "p1":
        inputs, labels = _call(student, ids, mlm_probability=1.0, generator=_gen(2), **kw)
        want = torch.where(eligible, ids, IGNORE)
        if not torch.equal(labels, want):
            special = ~eligible
            diag = _unselected_diagnosis(ids[special], inputs[special], labels[special], p=1.0)
            fail(f"mlm_probability=1 must select every non-special position: for ids "
                 f"{ids.tolist()} expected labels {want.tolist()}, got {labels.tolist()}",
                 diag)  # fmt: skip
        return
    inputs, labels = _call(student, ids, mlm_probability=1.0, generator=_gen(3), **kw)
    if (labels[2] != IGNORE).any() or not torch.equal(inputs[2], ids[2]):
        # explained from every special position of the call: the padding row alone cannot
        # tell a label of 0 for "not selected" from labels copied from the (0) padding ids
        special = ~eligible
        fail(f"an all-padding row must stay untouched with labels -100, got inputs "
             f"{inputs[2].tolist()} and labels {labels[2].tolist()}",
             _unselected_diagnosis(ids[special], inputs[special], labels[special],
                                   p=1.0))  # fmt: skip
    one = drawn[:1, :1].clone()
    inputs, labels = _call(student, one, mlm_probability=1.0, generator=_gen(4), **kw)
    if labels.tolist() != one.tolist():
        fail(f"a (1, 1) batch holding one ordinary token with mlm_probability=1 must be "
             f"selected: expected labels {one.tolist()}, got {labels.tolist()}")  # fmt: skip


# ============================================================================ contract errors


@pytest.mark.points(0.5)
def test_contract_errors(student, reference):
    """An mlm_probability outside [0, 1], and a vocabulary with no ordinary id (nothing to
    draw a random replacement from), raise the documented ValueError."""
    require_working(student, reference, "corruption.mask_tokens")
    ids = torch.tensor([[CLS, 7, 8, 9, SEP]])
    kw = {"mask_token_id": MASK, "vocab_size": 20, "special_token_ids": SPECIALS}
    only_specials = [PAD, CLS, SEP, MASK]  # vocab_size=4: every id is special
    with collecting() as check:  # every documented error is checked, not only the first
        for p in (1.5, -0.1):
            with check:
                check_raises(lambda p=p: student.corruption.mask_tokens(
                    ids, mlm_probability=p, generator=_gen(0), **kw), "ValueError",
                    what=f"mask_tokens(mlm_probability={p})")  # fmt: skip
        with check:
            check_raises(lambda: student.corruption.mask_tokens(
                torch.tensor([[CLS, MASK, SEP, PAD]]), mask_token_id=MASK, vocab_size=4,
                special_token_ids=only_specials, mlm_probability=0.5, generator=_gen(0)),
                "ValueError", what="mask_tokens with vocab_size=4 and special_token_ids=[0, 1, "
                "2, 3] (no ordinary id to draw a random replacement from)")  # fmt: skip
