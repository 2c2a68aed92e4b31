"""Helpers of the Part B hidden tests (test_corruption.py): batches, calls, diagnoses."""

from __future__ import annotations

import functools
import math
from typing import Any

import torch

from grader.diagnosis import evidence
from grader.suite.checks import (
    binomial_band,
    check_tensor,
    check_tuple,
    fail,
    show,
)

ALPHA = 1e-8


IGNORE = -100


PAD, CLS, SEP, MASK, UNK = 0, 1, 2, 3, 9  # [UNK] mid-vocabulary: specials are not a prefix


SPECIALS = [PAD, CLS, SEP, MASK, UNK]


def _gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _batch(batch: int, seq_len: int, vocab: int, seed: int, *, min_len: int) -> torch.Tensor:
    """[CLS] ordinary ids (a few [UNK] inside) [SEP] then right padding; lengths vary."""
    B, T, V = batch, seq_len, vocab
    g = _gen(seed)
    ordinary = torch.tensor([i for i in range(V) if i not in SPECIALS])
    ids = ordinary[torch.randint(len(ordinary), (B, T), generator=g)]
    unk = torch.rand(B, T, generator=g) < 0.01
    ids = torch.where(unk, UNK, ids)
    lengths = torch.randint(min_len, T + 1, (B,), generator=g)
    t = torch.arange(T)[None, :]
    ids = torch.where(t == lengths[:, None] - 1, SEP, ids)
    ids = torch.where(t >= lengths[:, None], PAD, ids)
    ids[:, 0] = CLS
    return ids


# one large batch for the proportions (~76k eligible tokens), one small-vocabulary batch
BIG = {"ids": _batch(256, 400, 1000, seed=2024, min_len=200), "V": 1000, "p": None}


SMALL = {"ids": _batch(64, 200, 20, seed=77, min_len=200), "V": 20, "p": 0.5}


def _run(student, case: dict[str, Any], seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    kwargs = {"mask_token_id": MASK, "vocab_size": case["V"], "special_token_ids": SPECIALS,
              "generator": _gen(seed)}  # fmt: skip
    if case["p"] is not None:
        kwargs["mlm_probability"] = case["p"]
    return _call(student, case["ids"], **kwargs)


def _call(student, ids: torch.Tensor, **kwargs: Any) -> tuple[torch.Tensor, torch.Tensor]:
    out = student.corruption.mask_tokens(ids, **kwargs)
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        fail(f"mask_tokens must return a pair (inputs, labels), got {show(out)}")
    inputs, labels = out
    for name, t in (("inputs", inputs), ("labels", labels)):
        check_tensor(t, what=f"mask_tokens {name}", shape=tuple(ids.shape), dtype=torch.int64)
    return inputs, labels


def _cached(submission, name: str) -> tuple[torch.Tensor, torch.Tensor]:
    """One call per submission for the big batches (several tests read the same result; a
    failure, GradeFailure too, is raised again in every reader)."""
    case = BIG if name == "big" else SMALL
    return submission.once(("corruption", name), lambda: _run(submission.student, case, 1234))


def _selection(submission, name: str) -> tuple[torch.Tensor, torch.Tensor]:
    """`_cached`, for the statistics tests, which measure the selection and the split (not the
    label values): labels that write "not selected" with one other constant (-1, 0 ...; no
    -100 anywhere) are read with that constant as -100. The encoding itself is the label
    tests' clause (`test_labels`, `test_specials_never_selected`, the edge cases), so one
    wrong constant is not charged again by every proportion."""
    inputs, labels = _cached(submission, name)
    ids = (BIG if name == "big" else SMALL)["ids"]
    if _other_ignore_label(ids, labels):
        labels = torch.where(labels == ids, labels, IGNORE)
    return inputs, labels


def _eligible(ids: torch.Tensor) -> torch.Tensor:
    """Positions holding a non-special id. For the constant BIG / SMALL batches the answer is
    computed once (torch.isin on ~100k ids costs ~0.5 ms, and a dozen tests ask per
    submission); a fresh copy is returned, so a caller may edit it."""
    for case, mask in _CONSTANT_ELIGIBLE:
        if ids is case:
            return mask.clone()
    return ~torch.isin(ids, torch.tensor(SPECIALS))


_CONSTANT_ELIGIBLE: list[tuple[torch.Tensor, torch.Tensor]] = []


_CONSTANT_ELIGIBLE += [(c["ids"], _eligible(c["ids"])) for c in (BIG, SMALL)]


def _first(mask: torch.Tensor) -> list[int]:
    return mask.nonzero()[0].tolist()


def _selection_diagnosis(
    case: dict[str, Any], labels: torch.Tensor, p: float, inputs: torch.Tensor | None = None
) -> list[str] | None:
    """None when the share of selected ordinary tokens is plausible, else what it points to
    (with `inputs`: a random step that dropped its labels explains a low share too)."""
    eligible = _eligible(case["ids"])
    n = int(eligible.sum())
    k = int(((labels != IGNORE) & eligible).sum())
    lo, hi = binomial_band(n, p, ALPHA)
    if lo <= k <= hi:
        return None
    if _other_ignore_label(case["ids"], labels):
        return ["wrong_ignore_label"]
    if _ordinary_ids_never_selected(case["ids"], labels, p):
        return ["ordinary_ids_treated_as_special"]
    if k > 0.9 * n and torch.equal(labels[eligible], case["ids"][eligible]) and p < 0.9:
        return ["labels_not_ignored"]
    if inputs is not None and bool(((labels == IGNORE) & (inputs != case["ids"])).any()):
        unlabelled = _unlabelled_changes(case["ids"], inputs, labels)
        if unlabelled == ["random_positions_unlabelled"]:
            return unlabelled
    if inputs is not None and _labelled_only_where_changed(case["ids"], inputs, labels):
        return ["kept_positions_unlabelled"]
    return ["wrong_selection_rate"]


def _labelled_only_where_changed(ids, inputs, labels) -> bool:
    """Labels set only where the input changed: of 100+ labelled ordinary positions at most
    2% kept their id (about 10% do: the unchanged share, plus random draws of the same id;
    a draw equal to the original is 1/15 of the random 10% even in the small vocabulary)."""
    labelled = (labels != IGNORE) & _eligible(ids)
    n = int(labelled.sum())
    return n >= 100 and int((labelled & (inputs == ids)).sum()) <= 0.02 * n


def _unselected_diagnosis(ids, inputs, labels, *, p: float,
                          selected_id: str = "specials_selected"):  # fmt: skip
    """Why positions that must stay unselected look wrong (the call used mlm_probability p).

    Labelled and mostly corrupted: they really were selected (``selected_id``). Labelled but
    left unchanged: labels written everywhere label all of them, a selection (its inputs put
    back afterwards) about p of them; where p >= 0.5 the two look alike, and the ids are left
    to the submission's other tests (evidence keyed on this observation).
    """
    if _other_ignore_label(ids, labels):
        return ["wrong_ignore_label"]
    labelled = labels != IGNORE
    if labelled.any():
        corrupted = float((inputs != ids)[labelled].float().mean())
        if corrupted > 0.5:
            return [selected_id]
        if p >= 0.5:
            return evidence.found(_LABELLED_UNCHANGED, [selected_id, "labels_not_ignored"], [])
        everywhere = float(labelled.float().mean()) >= 0.5
        hit, miss = ("labels_not_ignored", selected_id) if everywhere else (
            selected_id, "labels_not_ignored")  # fmt: skip
        return evidence.found(_LABELLED_UNCHANGED, [hit], [miss])
    if bool((inputs != ids).any()):
        return ["corrupts_unselected"]
    return []


def _other_ignore_label(ids: torch.Tensor, labels: torch.Tensor) -> bool:
    """Whether "not selected" is written with another constant than -100: no label is -100,
    and every label that is not the original id holds one and the same value (-1, 0, ...)."""
    if labels.shape != ids.shape or bool((labels == IGNORE).any()):
        return False
    other = labels[labels != ids]
    return other.numel() > 0 and bool((other == other[0]).all())


def _ordinary_ids_never_selected(ids: torch.Tensor, labels: torch.Tensor, p: float) -> bool:
    """Whether some ordinary id is never selected although it occurs so often that a correct
    selection misses all its occurrences with probability below 1e-12: eligibility was not
    decided by membership in special_token_ids (e.g. ``ids > max(specials)``)."""
    if not 0 < p < 1 or labels.shape != ids.shape:
        return False
    eligible = _eligible(ids)
    selected = (labels != IGNORE) & eligible
    if not bool(selected.any()):
        return False
    n_ids = int(ids.max()) + 1
    seen = torch.bincount(ids[eligible], minlength=n_ids)
    picked = torch.bincount(ids[selected], minlength=n_ids)
    certain = seen * math.log1p(-p) < math.log(1e-12)  # (1 - p)^count < 1e-12
    return bool((certain & (picked == 0)).any())


_LABELLED_UNCHANGED = "corruption.mask_tokens:labelled_unchanged"


def _require_corruption(ids: torch.Tensor, inputs: torch.Tensor, labels: torch.Tensor) -> None:
    """Invariant points need a real corruption: some, not all, eligible tokens selected, and
    some of them replaced (a function that selects nothing or everything satisfies them
    vacuously)."""
    sel = labels != IGNORE
    eligible = _eligible(ids)
    if not sel.any() or bool((sel == eligible).all()) or not (sel & (inputs != ids)).any():
        fail(
            f"mask_tokens must select about mlm_probability of the eligible tokens and replace "
            f"most of them; it selected {int(sel.sum())} of {int(eligible.sum())} eligible "
            f"tokens and replaced {int((sel & (inputs != ids)).sum())}."
        )


def _unlabelled_changes(ids, inputs, labels) -> list[str]:
    """Why ids changed where labels say "not selected": a few random ids and no [MASK] next
    to a normal selection is a random step that dropped its labels; otherwise the
    replacement ignored the selection."""
    labelled = int((labels != IGNORE).sum())
    bad = (labels == IGNORE) & (inputs != ids)
    if labelled and not bool((inputs[bad] == MASK).any()) and int(bad.sum()) < 0.25 * labelled:
        return ["random_positions_unlabelled"]
    return ["corrupts_unselected"]


def _check_replacements(ids, inputs, labels, vocab: int, what: str) -> None:
    sel = labels != IGNORE
    out_of_range = (inputs < 0) | (inputs >= vocab)
    if out_of_range.any():
        b, t = _first(out_of_range)
        fail(f"{what}: inputs[{b}, {t}] = {int(inputs[b, t])} is outside [0, {vocab})",
             ["random_id_range"])  # fmt: skip
    special_drawn = sel & (inputs != ids) & (inputs != MASK) & ~_eligible(inputs)
    if special_drawn.any():
        b, t = _first(special_drawn)
        found = sorted(set(inputs[special_drawn].tolist()))
        fail(
            f"{what}: the selected position [{b}, {t}] was replaced by the special id "
            f"{int(inputs[b, t])} (special ids drawn: {found}); random replacements must come "
            f"from the non-special ids only (specials here: {SPECIALS}).",
            ["random_includes_specials"],
        )


def _coverage_diagnosis(inputs, labels, n: int, drawn: set[int], never: list[int],
                        ordinary: list[int]) -> list[str]:  # fmt: skip
    """Why some ordinary ids of the small batch (SMALL) never appeared among its n random
    replacements (`drawn` the ids that did, `never` the ordinary ids that did not)."""
    ids = SMALL["ids"]
    if n == 0 and bool(((labels == IGNORE) & (inputs != ids)).any()):
        return _unlabelled_changes(ids, inputs, labels)  # random ids, but unlabelled
    if n == 0:  # no random replacement at all: the 80/10/10 split is what is wrong
        return _selection_diagnosis(SMALL, labels, 0.5, inputs) or ["wrong_80_10_10"]
    if len(drawn) <= 2 and n >= 50:
        return ["one_random_id"]
    if set(never) <= {ordinary[0], ordinary[-1]}:  # an edge of the range: off by one
        return ["random_id_range"]
    return []


def _rows_with_one_random_id(ids, inputs, labels) -> tuple[int, int]:
    """(rows with two or more visible random replacements, those whose replacements are all
    one id)."""
    randomised = (labels != IGNORE) & (inputs != MASK) & (inputs != ids)
    several = randomised.sum(dim=1) >= 2
    lowest = torch.where(randomised, inputs, torch.iinfo(inputs.dtype).max).amin(dim=1)
    highest = torch.where(randomised, inputs, torch.iinfo(inputs.dtype).min).amax(dim=1)
    return int(several.sum()), int((several & (lowest == highest)).sum())


def _few_ids_split_diagnosis(n: int, masked: int, changed: int, special: int) -> list[str]:
    """Why the split with 3 ordinary ids (FEW, every position selected) is off: n positions,
    `masked` became [MASK], `changed` another ordinary id, `special` a special id."""
    # a random step that also draws [MASK] (4 candidates) predicts [MASK] 0.8 + 0.1 / 4 and a
    # visible random id 0.1 x 3/4 x 2/3 = 0.05
    fits = all(
        lo <= c <= hi
        for c, (lo, hi) in (
            (masked, binomial_band(n, 0.825, ALPHA)),
            (changed, binomial_band(n, 0.05, ALPHA)),
        )
    )
    return ["random_includes_specials"] if special or fits else ["wrong_80_10_10"]


def _call_effects(student, seed: int) -> Any:
    """The side effects of one small call. Its values are the invariant tests' to judge: a
    working function (`require_working`) earns the side-effect points whatever they are."""
    ids = SMALL["ids"][:8]
    _call(student, ids.clone(), mask_token_id=MASK, vocab_size=20, special_token_ids=SPECIALS,
          mlm_probability=0.5, generator=_gen(seed))  # fmt: skip
    return student.last_effects


def _call_any_shape(student, ids: torch.Tensor, *, seed: int) -> None:
    """One call on an input of another shape than (B, T): the contract says any shape works,
    and both results have the input's shape (their values are the invariant tests' to judge).
    A call that raises is the student's error, with the contract's clause in its message."""
    from grader.sandbox.client import StudentException

    what = (f"mask_tokens(input_ids of shape {tuple(ids.shape)}, mask_token_id={MASK}, "
            f"vocab_size=20, special_token_ids={SPECIALS}, mlm_probability=0.5)")  # fmt: skip
    try:
        out = student.corruption.mask_tokens(ids, mask_token_id=MASK, vocab_size=20,
                                             special_token_ids=SPECIALS, mlm_probability=0.5,
                                             generator=_gen(seed))  # fmt: skip
    except StudentException as exc:
        if exc.at_import or not exc.exc_type:
            raise
        raise StudentException(
            f"{what} raised {exc.exc_type}: input_ids may have any shape (a single sequence "
            f"(T,), a batch (B, T), or more axes), so do not unpack B, T = input_ids.shape or "
            f"loop over rows; work elementwise on ids.shape:\n{exc.message}",
            exc_type=exc.exc_type,
            exc_bases=exc.exc_bases,
        ) from None
    check_tuple(out, 2, what=what, names="(inputs, labels)")
    for name, t in zip(("inputs", "labels"), out, strict=True):
        check_tensor(t, what=f"{what}: {name}", shape=tuple(ids.shape), dtype=torch.int64)


@functools.lru_cache(maxsize=1024)  # the batch is constant: the same (n, p) every submission
def _near_mean_chance(n: int, p: float) -> float:
    """P(|X - n p| <= 1) for X ~ Binomial(n, p), exactly."""
    lo, hi = max(0, math.ceil(n * p - 1)), min(n, math.floor(n * p + 1))
    return sum(math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(lo, hi + 1))


FEW = {"V": 7, "ids": 4 + torch.randint(3, (256, 80), generator=_gen(99))}  # ordinary: 4, 5, 6


FEW_SPECIALS = [s for s in SPECIALS if s < FEW["V"]]  # the contract: special ids lie in [0, V)
