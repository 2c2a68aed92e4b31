"""Hidden tests, Part B (1 of 2): BERT-style masked-LM corruption (`mask_tokens`), invariants.

Part B has 20 points over two files (`test_corruption_statistics.py` counts for
`corruption` too: `grader.suite.plugin.part_of`). The exact random stream is not part of the
contract, so nothing here compares draws with the reference: this file checks the
invariants with zero tolerance on every call (specials, labels, unselected positions,
replacement ids), the side effects and the determinism of a seeded generator.
"""

from __future__ import annotations

import pytest
import torch

from grader.suite.checks import (
    check_effects,
    collecting,
    fail,
)
from grader.suite.working import require_working
from grader.suites.hidden._corruption import (
    BIG,
    CLS,
    IGNORE,
    MASK,
    PAD,
    SEP,
    SMALL,
    SPECIALS,
    _cached,
    _call,
    _call_any_shape,
    _call_effects,
    _check_replacements,
    _coverage_diagnosis,
    _eligible,
    _first,
    _gen,
    _other_ignore_label,
    _require_corruption,
    _rows_with_one_random_id,
    _unlabelled_changes,
    _unselected_diagnosis,
)

# ============================================================================ invariants


@pytest.mark.points(1)
def test_output_contract(student, reference):
    """A small int32 batch: (inputs, labels) are int64 tensors of the input's shape; and any
    shape works (a 1-D sequence and a 3-D batch of batches give results of their shape)."""
    require_working(student, reference, "corruption.mask_tokens")
    ids = torch.tensor([[CLS, 7, 8, 9, 10, SEP, PAD], [CLS, 11, 12, SEP, PAD, PAD, PAD]],
                       dtype=torch.int32)  # fmt: skip
    with collecting() as check:  # each shape is its own finding
        with check:
            inputs, labels = _call(student, ids, mask_token_id=MASK, vocab_size=20,
                                   special_token_ids=SPECIALS, mlm_probability=0.5,
                                   generator=_gen(1))  # fmt: skip
            sel = labels != IGNORE
            if not torch.equal(labels[sel], ids.long()[sel]):
                fail(f"labels must hold the original id at selected positions: ids "
                     f"{ids.tolist()}, labels {labels.tolist()}")  # fmt: skip
        for other in (ids[0].long(), ids.long().reshape(1, 2, 7).expand(3, 2, 7).clone()):
            with check:
                _call_any_shape(student, other, seed=2)


@pytest.mark.points(1.5)
def test_specials_never_selected(submission, student, reference):
    require_working(student, reference, "corruption.mask_tokens")
    ids = BIG["ids"]
    inputs, labels = _cached(submission, "big")
    special = ~_eligible(ids)
    bad = special & ((labels != IGNORE) | (inputs != ids))
    if bad.any():
        b, t = _first(bad)
        labelled = bool((special & (labels != IGNORE)).any())
        diag = _unselected_diagnosis(ids[special], inputs[special], labels[special], p=0.15)
        fail(
            f"special token id {int(ids[b, t])} at [{b}, {t}] was "
            f"{'given a label' if labelled else 'changed'} (label {int(labels[b, t])}, input "
            f"{int(inputs[b, t])}); special ids {SPECIALS} (padding included) must keep their id "
            f"and get label -100. {int(bad.sum())} special positions affected.",
            diag,
        )


@pytest.mark.points(1.5)
def test_labels(submission, student, reference):
    """labels = original id at selected positions, -100 everywhere else."""
    require_working(student, reference, "corruption.mask_tokens")
    ids = BIG["ids"]
    inputs, labels = _cached(submission, "big")
    bad = (labels != IGNORE) & (labels != ids)
    if bad.any():
        b, t = _first(bad)
        diag = ["labels_after_corruption"] if torch.equal(labels[bad], inputs[bad]) else []
        if _other_ignore_label(ids, labels):
            diag = ["wrong_ignore_label"]
        fail(
            f"labels[{b}, {t}] = {int(labels[b, t])}, but the original id there is "
            f"{int(ids[b, t])} (the corrupted input is {int(inputs[b, t])}). A label is either "
            f"-100 or the original id. {int(bad.sum())} labels are wrong.",
            diag,
        )
    eligible = _eligible(ids)
    share = float((labels != IGNORE)[eligible].float().mean())
    if share > 0.5:
        # labels written everywhere leave most labelled ids unchanged; a selection of 1 - p
        # (u > p instead of u < p) corrupts ~90% of what it labels, as a correct one does
        fail(
            f"{share:.0%} of the ordinary positions have a label, with mlm_probability 0.15: "
            "labels must be -100 at every position that was not selected.",
            _unselected_diagnosis(ids[eligible], inputs[eligible], labels[eligible], p=0.15,
                                  selected_id="wrong_selection_rate"),
        )  # fmt: skip


@pytest.mark.points(1.5)
def test_unselected_unchanged(submission, student, reference):
    require_working(student, reference, "corruption.mask_tokens")
    ids = BIG["ids"]
    inputs, labels = _cached(submission, "big")
    _require_corruption(ids, inputs, labels)
    bad = (labels == IGNORE) & (inputs != ids)
    if bad.any():
        b, t = _first(bad)
        fail(
            f"position [{b}, {t}] was not selected (label -100) but its id changed from "
            f"{int(ids[b, t])} to {int(inputs[b, t])}; {int(bad.sum())} unselected positions "
            "changed. Only selected positions may be replaced.",
            _unlabelled_changes(ids, inputs, labels),
        )


@pytest.mark.points(1)
def test_replacement_ids(submission, student, reference):
    """Every selected position holds [MASK], its own id, or a non-special id in [0, V)."""
    require_working(student, reference, "corruption.mask_tokens")
    inputs, labels = _cached(submission, "small")
    _require_corruption(SMALL["ids"], inputs, labels)
    _check_replacements(SMALL["ids"], inputs, labels, SMALL["V"], "vocabulary of 20")
    inputs, labels = _cached(submission, "big")
    _check_replacements(BIG["ids"], inputs, labels, BIG["V"], "vocabulary of 1000")


@pytest.mark.points(1)
def test_random_ids_cover_vocabulary(submission, student):
    """With 15 ordinary ids and ~6,000 selections every ordinary id is drawn (see header)."""
    ids = SMALL["ids"]
    inputs, labels = _cached(submission, "small")
    randomised = (labels != IGNORE) & (inputs != MASK) & (inputs != ids)
    drawn = set(inputs[randomised].tolist())
    ordinary = [i for i in range(SMALL["V"]) if i not in SPECIALS]
    never = [i for i in ordinary if i not in drawn]
    if never:
        n = int(randomised.sum())
        diag = _coverage_diagnosis(inputs, labels, n, drawn, never, ordinary)
        fail(
            f"among {n} random replacements (vocabulary of 20, special ids {SPECIALS}) the "
            f"ordinary id(s) {never} never appeared; each of the 15 ordinary ids should be "
            f"drawn uniformly (ids drawn: {sorted(drawn)}).",
            diag,
        )
    # one draw per position, not per row: in the big batch (995 ordinary ids) two random
    # replacements of one row share their id with chance ~1/995
    inputs, labels = _cached(submission, "big")
    rows, same = _rows_with_one_random_id(BIG["ids"], inputs, labels)
    if rows >= 20 and 2 * same >= rows:
        fail(f"in {same} of the {rows} rows of the big batch (vocabulary of 1000) that have two "
             "or more random replacements, every replacement of the row is the same id; each "
             "randomised position draws its own id (two share one with chance ~1/995).",
             ["one_random_id"])  # fmt: skip


@pytest.mark.points(1)
def test_no_input_mutation(student, reference):
    """input_ids is left untouched and both results are new tensors, also where nothing is
    corrupted (mlm_probability=0 on an int64 batch: returning input_ids itself would let the
    caller's next in-place edit of inputs write into its own batch)."""
    require_working(student, reference, "corruption.mask_tokens")
    kw = {"mask_token_id": MASK, "vocab_size": 20, "special_token_ids": SPECIALS}
    with collecting() as check:  # subject: each finding names its own call
        for p, what in ((0.5, "mask_tokens"), (0.0, "mask_tokens(mlm_probability=0.0)")):
            with check:
                got = _call(student, SMALL["ids"][:8].clone(), mlm_probability=p,
                            generator=_gen(3), **kw)  # fmt: skip
                check_effects(student.last_effects, what=what, rng=False, subject=got[0])


@pytest.mark.points(0.75)
def test_generator_only(student, reference):
    require_working(student, reference, "corruption.mask_tokens")
    check_effects(_call_effects(student, 4), what="mask_tokens", mutation=False)


@pytest.mark.points(1.5)
def test_deterministic(student, reference):
    """The same seed gives the same result; another seed gives another one; a second call
    with the same generator continues its stream (a different result)."""
    require_working(student, reference, "corruption.mask_tokens")
    ids = SMALL["ids"][:16].clone()
    kw = {"mask_token_id": MASK, "vocab_size": 20, "special_token_ids": SPECIALS,
          "mlm_probability": 0.5}  # fmt: skip
    g = _gen(5)
    a = _call(student, ids, generator=g, **kw)
    rng = student.last_effects.global_rng_changed if student.last_effects else False
    b = _call(student, ids, generator=_gen(5), **kw)
    c = _call(student, ids, generator=_gen(6), **kw)
    again = _call(student, ids, generator=g, **kw)  # g continues where the first call left it
    if not (torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])):
        n = int((a[1] != b[1]).sum())
        fail(
            f"two calls with generators seeded identically (seed 5) gave different results "
            f"({n} labels differ): the result must depend only on the generator's state.",
            ["global_rng"] if rng else ["ignores_generator"],
        )
    if torch.equal(a[1], c[1]) and torch.equal(a[0], c[0]):
        fail(
            "generators seeded 5 and 6 gave exactly the same corruption of ~3,000 tokens: the "
            "random choices do not come from the generator argument.",
            ["ignores_generator"],
        )
    if torch.equal(a[1], again[1]) and torch.equal(a[0], again[0]):
        fail(
            "two calls in a row with the same generator gave exactly the same corruption: the "
            "draws must come from the generator you were given, advancing it (with a copy, "
            "e.g. a new generator seeded from generator.initial_seed(), every training step "
            "would mask the same positions).",
            ["generator_not_advanced"],
        )
