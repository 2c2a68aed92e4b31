"""Hidden tests, Part D: generation and the train/generation mismatch. 30 points.

Greedy generation is compared token for token with golden continuations of the grader's fixed
TinyLMs (grader/suites/golden.json: crop beyond max_seq_len, eos, batches, every greedy step
at least 0.05 logits from a tie). Seeded sampling is compared with the reference: the contract
fixes the draw (`torch.multinomial(probs, 1, generator=generator)`), so the same seed gives the
same tokens. Temperature / top-k / top-p semantics are tested on designed logits (ties only
where a case is about them), with every cumulative probability at least 0.03 away from top_p,
from 6,000 draws of one row: a token outside the kept set must never appear, and each kept
token's count must lie in its exact binomial band.

False-fail budget: a distribution case makes at most 6 band assertions at alpha = 1e-9 each
(`binomial_band`, exact), 9 cases -> <= 5.4e-8 for a correct implementation.
"""

from __future__ import annotations

import pytest
import torch

from grader.diagnosis import evidence
from grader.diagnosis.variants import matching, sampling_distribution
from grader.sandbox.client import StudentException
from grader.suite.checks import (
    check_close,
    check_effects,
    check_raises,
    check_tensor,
    collecting,
    fail,
    show,
)
from grader.suite.working import require_working
from grader.suites.golden_inputs import (
    build_gap_inputs,
    build_generation_inputs,
)
from grader.suites.hidden._generation import (
    _BOTH,
    _SETTING_DEFAULTS,
    ALPHA,
    DISTRIBUTION_CASES,
    FLOATS,
    GOLDEN_GAPS,
    GOLDEN_GENERATION,
    GREEDY_POINTS,
    INTS,
    N_DRAWS,
    SAMPLE_CASES,
    SAMPLE_POINTS,
    _check_gap,
    _check_ids,
    _check_mixed_modes_restored,
    _consistent,
    _dropout_model,
    _gen,
    _generate,
    _golden_prefix,
    _ignored_setting,
    _reference_sample,
    _sample_train_mode_call,
    _sampling_matches,
    _train_mode_call,
)
from grader.trusted_tinylm import shared_standard_model as _model

# ============================================================================ greedy


@pytest.mark.parametrize(
    "case",
    [pytest.param(c, marks=pytest.mark.points(GREEDY_POINTS.get(c, 1)))
     for c in sorted(GOLDEN_GENERATION)],
)  # fmt: skip
def test_greedy_golden(student, case):
    entry = GOLDEN_GENERATION[case]
    model_name, kwargs = build_generation_inputs(entry["params"])
    model = _model(model_name)
    ids, n = kwargs.pop("input_ids"), kwargs.pop("max_new_tokens")
    got = _generate(student, "greedy_generate", model, (ids, n), kwargs)
    want = torch.tensor(entry["expected"], dtype=torch.int64)
    eos = kwargs.get("eos_token_id")
    what = (f"greedy_generate({model_name} model, prompt {ids.tolist()}, max_new_tokens={n}"
            + (f", eos_token_id={eos})" if eos is not None else ")"))  # fmt: skip
    _check_ids(got, want, what=what, reveal=False, diagnose=lambda: matching(
        "generation.greedy_generate", got, (model, ids, n), kwargs, want=want))  # fmt: skip


@pytest.mark.points(0.5)
def test_greedy_eos_in_prompt(student, reference):
    """An eos inside the prompt does not finish the row: only a *generated* eos does. The eos
    id is 0, a token id like any other: row 0 generates it first (then it is sticky), so a
    truthiness test (`if eos_token_id:`) that ignores an eos of 0 fails here as well."""
    model = _model("causal")
    ids = torch.tensor([[7, 12, 23, 0, 8], [11, 0, 2, 22, 18]])
    got = _generate(student, "greedy_generate", model, (ids, 4), {"eos_token_id": 0})
    want = reference.generation.greedy_generate(model, ids, 4, eos_token_id=0)
    _check_ids(got, want, what=f"greedy_generate(causal model, prompt {ids.tolist()}, 4, "
               "eos_token_id=0) (the prompt contains eos)", reveal=False,
               diagnose=lambda: matching("generation.greedy_generate", got, (model, ids, 4),
                                         {"eos_token_id": 0}, want=want))  # fmt: skip


@pytest.mark.points(0.5)
def test_greedy_no_input_mutation(submission, student, reference):
    """Only the inputs are judged (a working function's wrong tokens are other tests')."""
    require_working(student, reference, "generation.greedy_generate")
    _, effects, _ = _train_mode_call(submission)
    check_effects(effects, what="greedy_generate", rng=False)


@pytest.mark.points(0.5)
def test_greedy_no_autograd(submission, student, reference):
    require_working(student, reference, "generation.greedy_generate")
    _, effects, _ = _train_mode_call(submission)
    if effects is not None and any(effects.model_forward_with_grad.values()):
        fail("greedy_generate ran the model with autograd enabled.",
             ["grad_enabled_in_generation"])  # fmt: skip


@pytest.mark.points(0.5)
def test_greedy_runs_in_eval_mode(submission, student, reference):
    """A model handed over in train mode with dropout 0.3: generation must switch dropout off."""
    require_working(student, reference, "generation.greedy_generate")
    got, effects, _ = _train_mode_call(submission)
    if effects is not None and any(effects.model_forward_dropout.values()):
        fail("greedy_generate ran a train-mode model without switching it to eval mode: dropout "
             "was active in its forward passes.", ["no_eval_mode"])  # fmt: skip
    entry = GOLDEN_GENERATION.get("causal_single")
    if entry is not None:
        want = torch.tensor(entry["expected"])
        ids = torch.tensor([[3, 17, 8]])
        _check_ids(got, want, what="greedy_generate on a train-mode model with dropout",
                   reveal=False, diagnose=lambda: matching("generation.greedy_generate", got,
                                             (_model("causal"), ids, 8), want=want))  # fmt: skip


@pytest.mark.points(0.5)
def test_greedy_restores_model_mode(submission, student, reference):
    require_working(student, reference, "generation.greedy_generate")
    _, _, model = _train_mode_call(submission)
    if not model.training:
        fail("greedy_generate received the model in train mode and left it in eval mode; "
             "restore the mode it was given in.", ["mode_not_restored"])  # fmt: skip
    model = _dropout_model(training=False)
    student.generation.greedy_generate(model, torch.tensor([[3, 17, 8]]), 1)
    if model.training:
        fail("greedy_generate received the model in eval mode and left it in train mode; "
             "restore the mode it was given in.", ["mode_not_restored"])  # fmt: skip
    _check_mixed_modes_restored(student, "greedy_generate", (torch.tensor([[3, 17, 8]]), 1))


# ============================================================================ seeded sampling


@pytest.mark.parametrize(
    "case", [pytest.param(c, marks=pytest.mark.points(p)) for c, p in SAMPLE_POINTS.items()]
)
def test_sample_generate_seeded(student, reference, case):
    """Same seed, same model, same tokens as the reference (the draw is fixed by the contract)."""
    prompt, n, kw, seed = SAMPLE_CASES[case]
    model = _model("causal")
    got = _generate(student, "sample_generate", model, (prompt, n), {**kw, "generator": _gen(seed)})
    want = _reference_sample(reference, case)
    settings = ", ".join(f"{k}={v}" for k, v in kw.items())
    _check_ids(
        got, want, reveal=False,  # designed seeds (tests/test_suite_sensitivity.py): pinned
        what=f"sample_generate(causal model, prompt {prompt.tolist()}, {n}, {settings}, "
             f"generator seeded {seed})",
        diagnose=lambda: matching("generation.sample_generate", got, (model, prompt, n),
                                  {**kw, "generator": _gen(seed)}, want=want)
        + _ignored_setting(reference, case, got),
    )  # fmt: skip


@pytest.mark.points(0.25)
@pytest.mark.parametrize("clause", ["eval_mode", "no_autograd", "restores_mode",
                                    "no_input_mutation"])  # fmt: skip
def test_sample_generate_inference_contract(submission, student, reference, clause):
    """sample_generate on a train-mode model with dropout 0.3, at temperature 0: eval mode
    inside (no dropout draws, the greedy tokens), no autograd, the model's mode restored, the
    inputs untouched. Each clause is its own test: one mistake is charged once."""
    require_working(student, reference, "generation.sample_generate")
    got, effects, model = _sample_train_mode_call(submission)
    what = "sample_generate on a train-mode model with dropout (temperature=0, 3 new tokens)"
    if clause == "eval_mode":
        if effects is not None and any(effects.model_forward_dropout.values()):
            fail(f"{what} ran the model without switching it to eval mode: dropout was active "
                 "in its forward passes.", ["no_eval_mode"])  # fmt: skip
        want = _golden_prefix("causal_single", 3)
        if want is not None:
            _check_ids(got, want, what=what, diagnose=tuple, reveal=False)
    elif clause == "no_autograd":
        if effects is not None and any(effects.model_forward_with_grad.values()):
            fail(f"{what} ran the model with autograd enabled.", ["grad_enabled_in_generation"])
    elif clause == "restores_mode":
        if not model.training:
            fail(f"{what} left the model in eval mode; restore the mode it was given in.",
                 ["mode_not_restored"])  # fmt: skip
    else:
        check_effects(effects, what="sample_generate", rng=False)


@pytest.mark.points(0.5)
@pytest.mark.parametrize("clause", ["prompt_dtype", "no_new_tokens_copy"])
def test_generate_output_contract(student, reference, clause):
    """The output has the prompt's dtype (an int32 prompt gives int32 ids), and
    max_new_tokens=0 returns a copy of the prompt, never the prompt tensor itself; each
    clause checked for both generation functions (one failing does not hide the other)."""
    require_working(student, reference, "generation.greedy_generate", "generation.sample_generate")
    model = _model("causal")
    with collecting() as check:
        for function, kw in _BOTH:
            kwargs = {**kw, "generator": _gen(0)} if "generator" in kw else kw
            with check:
                if clause == "prompt_dtype":
                    ids = torch.tensor([[3, 17, 8]], dtype=torch.int32)
                    got = _generate(student, function, model, (ids, 3), kwargs)
                    check_tensor(got, what=f"{function}(causal model, an int32 prompt "
                                 f"{ids.tolist()}, 3)", dtype=torch.int32)  # fmt: skip
                    continue
                prompt = torch.tensor([[5, 9, 2, 20]])
                got = _generate(student, function, model, (prompt, 0), kwargs)
                effects = student.last_effects
                aliases = effects.result_aliases if effects is not None else ()
                what = f"{function}(causal model, {prompt.tolist()}, max_new_tokens=0)"
                check_tensor(got, what=what, shape=prompt.shape, dtype=prompt.dtype)
                if not torch.equal(got, prompt) or aliases:
                    fail(f"{what} must return a new tensor equal to the prompt" + (
                         ": it returned the prompt tensor itself (or a view of it), so editing "
                         "the result would edit the caller's prompt; return input_ids.clone()"
                         if aliases else f", got {show(got)}"), subject=got)  # fmt: skip


# ============================================================================ sample_next_token


@pytest.mark.parametrize(
    "case",
    [pytest.param(c, marks=pytest.mark.points(v[2])) for c, v in DISTRIBUTION_CASES.items()],
)
def test_sampling_distribution(student, cases, case):
    designed, settings, _ = DISTRIBUTION_CASES[case]
    V = designed.numel()
    # the vocabulary order is drawn per submission: the designed probabilities (and ties) stay,
    # the ids that carry them change, so last report's frequencies do not apply
    offset = (cases.integer(f"generation.distribution/{case}/offset", 0, 1 << 20) / (1 << 18)) - 2
    row = designed[cases.permutation(f"generation.distribution/{case}", V)]
    # a common offset changes no probability, top-k or top-p set, only the bytes: the bands
    # below are computed without it (the same bands for every submission, cached)
    logits = (row + offset).expand(N_DRAWS, V).clone()
    got = student.generation.sample_next_token(
        logits, generator=cases.generator(f"generation.distribution/{case}/draws"), **settings
    )
    shown = [round(p, 3) for p in row.softmax(-1).tolist()]
    what = (f"sample_next_token with probabilities {shown} and "
            f"{', '.join(f'{k}={v}' for k, v in settings.items())}")  # fmt: skip
    check_tensor(got, what=what, shape=(N_DRAWS,), dtype=INTS)
    got = got.long()
    if ((got < 0) | (got >= V)).any():
        fail(f"{what} returned ids outside [0, {V}): {sorted(set(got.tolist()))[:10]}")
    counts = torch.bincount(got, minlength=V)
    probs = sampling_distribution(row[None], **settings)[0]
    problems = _consistent(counts, probs, N_DRAWS)
    if not problems:  # counts a wrong distribution could not give refute it (if it is named)
        evidence.defer(lambda: _sampling_matches(row, settings, counts, probs))
        return
    diag = _sampling_matches(row, settings, counts, probs)
    # sample_next_token itself gets these settings wrong: a sample_generate that matches the
    # reference without one of them does not drop it, it inherits this error
    for name, default in _SETTING_DEFAULTS.items():
        if name in settings and settings[name] != default:
            diag = diag + evidence.found(f"generation.sample_generate:{name}", [],
                                         ["sampling_setting_ignored"])  # fmt: skip
    freq = [round(c / N_DRAWS, 3) for c in counts.tolist()]
    fail(
        f"{what}: over {N_DRAWS} draws of the same row, {problems[0]}.\n"
        f"  expected frequencies: {[round(p, 3) for p in probs.tolist()]}\n"
        f"  observed frequencies: {freq}\n  (bands are exact binomial at alpha={ALPHA:g})",
        diag,
    )


@pytest.mark.points(0.5)
def test_sample_next_token_single_row(student, reference):
    """A batch of one row gives a (1,) int64 tensor, sampled and at temperature 0 alike (this
    test owns the int64 dtype: the other sampling tests accept any integer dtype)."""
    require_working(student, reference, "generation.sample_next_token")
    logits = torch.tensor([[0.2, 1.5, -0.3, 0.9, 0.0]])
    for kw in ({"temperature": 0.8, "top_k": 3}, {"temperature": 0.0}):
        got = student.generation.sample_next_token(logits, generator=_gen(7), **kw)
        settings = ", ".join(f"{k}={v}" for k, v in kw.items())
        check_tensor(got, what=f"sample_next_token on logits of shape (1, 5) with {settings} "
                     "(one row in, one id out: keep the batch dimension, e.g. squeeze(-1), "
                     "not squeeze())", shape=(1,), dtype=torch.int64)  # fmt: skip


@pytest.mark.points(0.5)
def test_temperature_zero_is_argmax(student, cases):
    designed = torch.tensor(
        [[0.1, 2.0, 2.0, -1.0], [3.0, 0.0, 1.0, 3.0], [-5.0, -4.0, -6.0, -4.5]]
    )  # fmt: skip  (a tie in rows 0 and 1)
    # 8 lower logits per row and a column order drawn per row and per submission: the ties
    # stay, the ids that hold them change (~10^5 possible answers)
    wide = torch.cat([designed, designed.min(-1, keepdim=True).values - 1 - torch.rand(
        3, 8, generator=cases.generator("generation.argmax/low"))], dim=-1)  # fmt: skip
    logits = torch.stack([row[cases.permutation(f"generation.argmax/row{i}", 12)]
                          for i, row in enumerate(wide)])  # fmt: skip
    got = student.generation.sample_next_token(logits, temperature=0.0, generator=_gen(0))
    want = logits.argmax(-1)  # the first (lowest) id among tied maxima
    check_close(got, want, what="sample_next_token(temperature=0) (ties go to the lowest id)",
                check_dtype=False,
                diagnose=lambda: matching("generation.sample_next_token", got, (logits,),
                                          {"temperature": 0.0}, want=want))  # fmt: skip


@pytest.mark.points(0.5)
def test_tiny_top_p_and_top_k_one_are_greedy(student, cases):
    g = cases.generator("generation.greedy_filters")
    logits = torch.randn(64, 9, generator=g) * 2
    want = logits.argmax(-1)
    for kw in ({"top_p": 1e-3}, {"top_k": 1, "temperature": 1.5}):
        got = student.generation.sample_next_token(logits, generator=_gen(1), **kw)
        settings = ", ".join(f"{k}={v}" for k, v in kw.items())
        check_close(got, want, what=f"sample_next_token({settings}) (must always pick the most "
                    "likely token)", check_dtype=False)  # fmt: skip
    # float16 logits (distinct, 30 apart) at a tiny temperature: ~1e5, past float16's 65504,
    # so only a sampler that works in float32 (the contract) finds the one likely token
    spread = torch.arange(9, dtype=torch.float32) * 30 - 120
    half = torch.stack([spread[torch.randperm(9, generator=g)] for _ in range(16)]).half()
    try:
        got = student.generation.sample_next_token(half, temperature=1e-3, generator=_gen(1))
    except StudentException as e:  # e.g. multinomial on the NaN of an inf - inf softmax
        fail(f"sample_next_token(float16 logits up to 120, temperature=0.001) raised "
             f"{e.exc_type or 'an error'}: logits / 0.001 overflow float16 (max 65504), so the "
             "probabilities are NaN; convert the logits to float32 first.")  # fmt: skip
    check_close(got, half.float().argmax(-1), what="sample_next_token(float16 logits up to "
                "120, temperature=0.001) (must pick the most likely token; work in float32, "
                "logits / 0.001 overflow float16)", check_dtype=False)  # fmt: skip


@pytest.mark.points(1)
def test_sampling_generator_only(student, reference):
    require_working(student, reference, "generation.sample_next_token")
    logits = torch.randn(256, 7, generator=_gen(29))
    a = student.generation.sample_next_token(logits, temperature=1.0, generator=_gen(5))
    check_effects(student.last_effects, what="sample_next_token", mutation=False)
    b = student.generation.sample_next_token(logits, temperature=1.0, generator=_gen(5))
    c = student.generation.sample_next_token(logits, temperature=1.0, generator=_gen(6))
    for got in (a, b, c):
        check_tensor(got, what="sample_next_token", shape=(256,), dtype=INTS)
    if not torch.equal(a, b):
        fail("two calls with generators seeded identically drew different tokens",
             ["ignores_generator"])  # fmt: skip
    if torch.equal(a, c):
        fail("generators seeded 5 and 6 drew exactly the same 256 tokens: the draws do not come "
             "from the generator argument", ["ignores_generator"])  # fmt: skip


@pytest.mark.points(1)
def test_sample_next_token_seeded(student, reference, cases):
    """torch.multinomial(probs, 1, generator=generator) on the filtered probabilities."""
    logits = torch.randn(64, 10, generator=cases.generator("generation.seeded/logits")) * 1.5
    kw = {"temperature": 0.9, "top_k": 6, "top_p": 0.85}
    seed = cases.integer("generation.seeded/seed", 0, 1 << 31)
    got = student.generation.sample_next_token(logits, generator=_gen(seed), **kw)
    want = reference.generation.sample_next_token(logits, generator=_gen(seed), **kw)
    check_close(got, want, what="sample_next_token(temperature=0.9, top_k=6, top_p=0.85) with "
                f"a generator seeded {seed} (draw with torch.multinomial(probs, 1, "
                "generator=generator))", check_dtype=False)  # fmt: skip


@pytest.mark.points(0.5)
def test_sampling_no_input_mutation(student, reference):
    require_working(student, reference, "generation.sample_next_token")
    logits = torch.randn(8, 10, generator=_gen(37))
    # the default temperature too: skipping the division at 1 leaves the caller's tensor in
    # hand for an in-place top-k / top-p (masked_fill_)
    for settings in ({"temperature": 0.7}, {}):
        got = student.generation.sample_next_token(logits.clone(), **settings, top_k=4,
                                                   top_p=0.8, generator=_gen(1))  # fmt: skip
        effects = student.last_effects
        check_tensor(got, what="sample_next_token", shape=(8,), dtype=INTS)
        # only the inputs are judged here: which ids were drawn is the sampling tests' question
        check_effects(effects, what="sample_next_token", rng=False)


# ============================================================================ prefix gap


@pytest.mark.points(1)
@pytest.mark.parametrize("case", ["causal_gap", "bidirectional_gap"])
def test_prefix_consistency_gap(student, reference, case):
    """~0 everywhere for the causal model; the golden (clearly positive) gaps for the other."""
    require_working(student, reference, "generation.prefix_consistency_gap")
    entry = GOLDEN_GAPS[case]
    model_name, kwargs = build_gap_inputs(entry["params"])
    want = torch.tensor(entry["expected"], dtype=torch.float32)
    ids = kwargs["input_ids"]
    _check_gap(
        student,
        _model(model_name),
        ids,
        want,
        atol=entry.get("atol", 1e-4),
        what=f"prefix_consistency_gap({model_name} model, {ids.tolist()})",
        reveal=False,
    )  # fmt: skip  (fixed golden inputs: the value stays hidden)


@pytest.mark.points(0.5)
def test_prefix_consistency_gap_single_token(student, reference, cases):
    """One token: a gap of 0, in the documented float32 (this test owns the dtype clause; the
    other gap tests accept any float dtype)."""
    require_working(student, reference, "generation.prefix_consistency_gap")
    ids = torch.tensor([[cases.integer("generation.gap_single_token", 0, 24)]])
    _check_gap(student, _model("bidirectional"), ids, torch.zeros(1), atol=1e-5,
               what=f"prefix_consistency_gap(bidirectional model, {ids.tolist()})",
               dtype=torch.float32)  # fmt: skip


@pytest.mark.points(0.5)
def test_prefix_consistency_gap_no_autograd(student, reference, cases):
    """The gap is measured under torch.no_grad(): no graph is built."""
    require_working(student, reference, "generation.prefix_consistency_gap")
    ids = torch.randint(24, (1, 4), generator=cases.generator("generation.gap_no_autograd"))
    _check_gap(student, _model("causal"), ids, torch.zeros(4), atol=1e-5,
               what=f"prefix_consistency_gap(causal model, {ids.tolist()})")  # fmt: skip
    effects = student.last_effects
    if effects is not None and (any(effects.model_forward_with_grad.values())
                                or effects.result_requires_grad):  # fmt: skip
        fail("prefix_consistency_gap ran the model with autograd enabled (its result requires "
             "grad); wrap it in torch.no_grad().", ["grad_enabled_in_generation"])  # fmt: skip


@pytest.mark.points(0.25)
@pytest.mark.parametrize("clause", ["eval_mode", "restores_mode"])
def test_prefix_consistency_gap_restores_mode(student, reference, clause):
    """A model given in train mode (dropout 0.3): the gap is measured in eval mode (~0 for a
    causal model) and every module's mode is restored; one clause per test."""
    require_working(student, reference, "generation.prefix_consistency_gap")
    model = _dropout_model(training=True)
    ids = torch.tensor([[3, 17, 8, 20]])
    got = student.generation.prefix_consistency_gap(model, ids)
    check_tensor(got, what="prefix_consistency_gap", shape=(4,), dtype=FLOATS)
    if clause == "restores_mode":
        if not model.training:
            fail("prefix_consistency_gap left a train-mode model in eval mode; restore its mode.",
                 ["mode_not_restored"])  # fmt: skip
        _check_mixed_modes_restored(student, "prefix_consistency_gap",
                                    (torch.tensor([[3, 17, 8]]),))  # fmt: skip
        return
    effects = student.last_effects
    if effects is not None and any(effects.model_forward_dropout.values()):
        fail("prefix_consistency_gap ran a train-mode model with dropout active; run it in eval "
             "mode.", ["no_eval_mode"])  # fmt: skip
    if not bool((got.abs() <= 1e-5).all()):
        fail(f"prefix_consistency_gap of a causal model (given in train mode, dropout 0.3) should "
             f"be ~0 in eval mode, got {show(got)}",
             matching("generation.prefix_consistency_gap", got, (_model("causal"), ids),
                      want=torch.zeros(4), rtol=1e-4, atol=1e-5))  # fmt: skip


# ============================================================================ contract errors


@pytest.mark.points(0.5)
def test_contract_errors(student, reference):
    """Invalid arguments raise the documented ValueError instead of producing something."""
    require_working(
        student,
        reference,
        "generation.sample_next_token",
        "generation.greedy_generate",
        "generation.prefix_consistency_gap",
    )
    gen = student.generation
    logits = torch.tensor([[0.5, 1.0, -0.5]])
    model = _model("causal")
    cases = [
        (lambda: gen.sample_next_token(logits, temperature=-1.0, generator=_gen(0)),
         "sample_next_token(temperature=-1.0)"),
        (lambda: gen.sample_next_token(logits, top_k=0, generator=_gen(0)),
         "sample_next_token(top_k=0)"),
        (lambda: gen.sample_next_token(logits, top_p=0.0, generator=_gen(0)),
         "sample_next_token(top_p=0.0)"),
        (lambda: gen.greedy_generate(model, torch.tensor([5, 9, 2]), 2),
         "greedy_generate with a 1-D prompt (it must be (B, T0))"),
        (lambda: gen.greedy_generate(model, torch.tensor([[5, 9, 2]]), -1),
         "greedy_generate(max_new_tokens=-1)"),
        (lambda: gen.greedy_generate(model, torch.zeros(1, 0, dtype=torch.int64), 2),
         "greedy_generate with an empty (1, 0) prompt (T0 must be >= 1)"),
        (lambda: gen.prefix_consistency_gap(model, torch.tensor([[5, 9], [2, 20]])),
         "prefix_consistency_gap on a batch of 2 rows"),
    ]  # fmt: skip
    with collecting() as check:  # every documented error is checked, not only the first
        for call, what in cases:
            with check:
                check_raises(call, "ValueError", what=what)
