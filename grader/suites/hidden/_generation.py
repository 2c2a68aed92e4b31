"""Helpers of the Part D hidden tests (test_generation.py): models, cases, calls and checks."""

from __future__ import annotations

import json
from dataclasses import replace

import torch

from grader.diagnosis import evidence
from grader.diagnosis.variants import SAMPLING_VARIANTS, matching, same, sampling_distribution
from grader.sandbox.client import StudentException
from grader.sandbox.models import STANDARD_CONFIGS
from grader.suite.checks import (
    binomial_band,
    check_close,
    check_tensor,
    fail,
    show,
)
from grader.suites.golden_inputs import (
    GOLDEN_PATH,
)
from grader.trusted_tinylm import STANDARD_HEAD_SCALE, STANDARD_SEEDS, build_trusted_model
from grader.trusted_tinylm import shared_standard_model as _model

GOLDEN = json.loads(GOLDEN_PATH.read_text(encoding="utf-8")) if GOLDEN_PATH.exists() else {}


GOLDEN_GENERATION = GOLDEN.get("generation", {})


GOLDEN_GAPS = GOLDEN.get("gaps", {})


ALPHA = 1e-9


FLOATS = (torch.float32, torch.float64, torch.float16, torch.bfloat16)


# sampled ids of any integer dtype: their int64 is test_sample_next_token_single_row's clause
INTS = (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8)


N_DRAWS = 6000


GREEDY_POINTS = {
    "causal_one_token_prompt": 0.5, "causal_single": 0.5, "causal_batch_crop": 1,
    "causal_long_prompt": 1, "causal_no_new_tokens": 0.5, "causal_eos_sticky": 1,
    "causal_eos_early_stop": 1, "bidirectional_batch": 0.5, "bidirectional_long_prompt": 0.5,
}  # fmt: skip


PROMPT = torch.tensor([[5, 9, 2, 20], [11, 0, 7, 14]])


LONG_PROMPT = torch.tensor([[(7 * i + 3) % 24 for i in range(14)],
                            [(5 * i + 1) % 24 for i in range(14)]])  # fmt: skip


def _gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _dropout_model(training: bool) -> torch.nn.Module:
    """The standard causal model with dropout 0.3: identical to it in eval mode."""
    config = replace(STANDARD_CONFIGS["causal"], dropout=0.3)
    model = build_trusted_model(config, STANDARD_SEEDS["causal"])
    with torch.no_grad():
        model.lm_head.weight.mul_(STANDARD_HEAD_SCALE)
    return model.train(training)


def _generate(student, function: str, model, args: tuple, kwargs: dict):
    """Call a student generation function; explain the model refusing an uncropped context."""
    try:
        return getattr(student.generation, function)(model, *args, **kwargs)
    except StudentException as exc:
        if "exceeds max_seq_len" in exc.message:
            fail(
                f"{function} fed the model more than model.max_seq_len = {model.max_seq_len} "
                f"tokens and the model refused:\n{exc.message[:600]}",
                ["no_context_crop"],
            )
        raise


def _check_ids(got, want, *, what: str, diagnose, reveal: bool = True) -> None:
    """Token ids equal to ``want``; ``reveal=False`` for a fixed (pinned) case: the message
    shows what came back and where it first differs, never the expected tokens."""
    check_tensor(got, what=what, dtype=torch.int64)
    shown = f"  expected: {want.tolist()}\n" if reveal else ""
    if tuple(got.shape) != tuple(want.shape):
        fail(
            f"{what} returned shape {tuple(got.shape)}; expected {tuple(want.shape)}.\n"
            f"{shown}  got:      {show(got, limit=4 * want.numel())}",
            diagnose(),
        )
    if torch.equal(got, want):
        evidence.defer(diagnose)  # a passing comparison refutes the models that differ here
        return
    b, t = (got != want).nonzero()[0].tolist()
    if not reveal:
        fail(f"{what} differs from the expected tokens first at row {b}, position {t} (a "
             f"fixed case: the expected tokens are not shown).\n  got: {got.tolist()}",
             diagnose())  # fmt: skip
    fail(
        f"{what} differs from the expected tokens first at row {b}, position {t}: "
        f"expected {int(want[b, t])}, got {int(got[b, t])}.\n"
        f"  expected: {want.tolist()}\n  got:      {got.tolist()}",
        diagnose(),
    )


def _train_mode_call(submission):
    """One greedy call on a train-mode dropout model, shared by the four contract tests (a
    failure is raised again in every test that reads it)."""

    def call():
        student = submission.student
        model = _dropout_model(training=True)
        got = student.generation.greedy_generate(model, torch.tensor([[3, 17, 8]]), 8)
        return got, student.last_effects, model

    return submission.once(("generation", "train_mode"), call)


def _mixed_mode_model() -> torch.nn.Module:
    """The dropout model in eval mode except its first block and its dropout layers (a model
    partly frozen for fine-tuning looks like this): its modules are in mixed modes."""
    model = _dropout_model(training=False)
    model.blocks[0].train(True)
    for m in model.modules():
        if isinstance(m, torch.nn.Dropout):
            m.train(True)
    return model


def _check_mixed_modes_restored(student, function: str, args: tuple) -> None:
    """Generation puts every submodule back in its own mode, not the top module's."""
    model = _mixed_mode_model()
    before = {name: m.training for name, m in model.named_modules()}
    getattr(student.generation, function)(model, *args)
    changed = [name or "(the model)" for name, m in model.named_modules()
               if m.training != before[name]]  # fmt: skip
    if changed:
        fail(f"{function} received a model whose modules were in mixed train/eval modes and "
             f"did not restore each one: {', '.join(changed[:6])}"
             f"{' ...' if len(changed) > 6 else ''} came back in the other mode.",
             ["mode_not_restored"])  # fmt: skip


PROMPT_10 = torch.tensor([[5, 9, 2, 20, 13, 1, 7, 4, 16, 3], [11, 0, 7, 14, 3, 3, 8, 21, 6, 19]])


# prompt, max_new_tokens, settings, seed. The seeds are chosen so that leaving out any one
# setting (temperature, top_k, top_p) changes the reference's tokens: an implementation that
# drops a setting on its way to sample_next_token cannot pass by luck
# (tests/test_suite_sensitivity.py proves it for every case).
SAMPLE_CASES = {
    "batch_crop": (PROMPT_10, 6, {"temperature": 0.8, "top_k": 8, "top_p": 0.9}, 32),
    "long_prompt_eos": (
        LONG_PROMPT,
        8,
        {"temperature": 0.9, "top_k": 8, "top_p": 0.9, "eos_token_id": 23},
        42,
    ),  # fmt: skip
    "single_row_top_p": (
        torch.tensor([[4, 18, 2, 9, 11]]),
        6,
        {"temperature": 1.2, "top_p": 0.6},
        4,
    ),  # fmt: skip
    "temperature_zero_is_greedy": (PROMPT_10, 4, {"temperature": 0.0}, 1),
    "top_k_1_is_greedy": (PROMPT_10, 4, {"temperature": 1.3, "top_k": 1}, 2),
}


SAMPLE_POINTS = {"batch_crop": 1, "long_prompt_eos": 1, "single_row_top_p": 1,
                 "temperature_zero_is_greedy": 0.5, "top_k_1_is_greedy": 0.5}  # fmt: skip


def _reference_sample(reference, case: str) -> torch.Tensor:
    """The reference continuation (the same question every submission: the reference memo
    answers it after the first)."""
    prompt, n, kw, seed = SAMPLE_CASES[case]
    return reference.generation.sample_generate(
        _model("causal"), prompt, n, generator=_gen(seed), **kw
    )


_SETTING_DEFAULTS = {"temperature": 1.0, "top_k": None, "top_p": None}


def _ignored_setting(reference, case: str, got: torch.Tensor) -> evidence.Found:
    """["sampling_setting_ignored"] when ``got`` is the reference's output for this case with
    one of its sampling settings left at its default (not passed on to sample_next_token)."""
    prompt, n, kw, seed = SAMPLE_CASES[case]
    mid, out = "sampling_setting_ignored", evidence.Found()
    if (focus := evidence.focus()) is not None and mid not in focus:
        return out
    for name, default in _SETTING_DEFAULTS.items():
        if name not in kw or kw[name] == default:
            continue
        alt = reference.generation.sample_generate(
            _model("causal"), prompt, n, generator=_gen(seed), **{**kw, name: default}
        )
        # evidence per setting: ignoring top_k is not refuted by a case without top_k
        fits = tuple(alt.shape) == tuple(got.shape) and torch.equal(alt, got)
        out = out + evidence.found(f"generation.sample_generate:{name}", [mid] * fits,
                                   [mid] * (not fits))  # fmt: skip
    return out


def _sample_train_mode_call(submission):
    """One sample_generate call (temperature 0) on a train-mode dropout model, shared by the
    clauses of `test_sample_generate_inference_contract` (once per submission)."""

    def call():
        student = submission.student
        model = _dropout_model(training=True)
        got = _generate(student, "sample_generate", model, (torch.tensor([[3, 17, 8]]), 3),
                        {"temperature": 0.0, "generator": _gen(0)})  # fmt: skip
        return got, student.last_effects, model

    return submission.once(("generation", "sample_train_mode"), call)


def _golden_prefix(case: str, new_tokens: int) -> torch.Tensor | None:
    """The golden greedy continuation of `case` cut to its first `new_tokens` new tokens
    (greedy decoding with no eos is prefix-consistent: fewer steps give a prefix of it)."""
    entry = GOLDEN_GENERATION.get(case)
    if entry is None or entry["params"].get("eos_token_id") is not None:
        return None
    full = torch.tensor(entry["expected"], dtype=torch.int64)
    prompt_len = full.shape[1] - entry["params"]["max_new_tokens"]
    return full[:, : prompt_len + new_tokens]


_BOTH = (("greedy_generate", {}), ("sample_generate", {"temperature": 0.0, "generator": None}))


DISTRIBUTION_CASES = {  # logits (one row), settings, points
    "temperature_low": (torch.tensor([0.1, 0.6, 0.3]).log(), {"temperature": 0.5}, 1),
    "temperature_high": (torch.tensor([0.6, 0.1, 0.3]).log(), {"temperature": 2.0}, 0.5),
    "top_k": (torch.tensor([1.0, 3.0, 0.2, 2.5, -1.0, 2.0]), {"top_k": 3}, 1),
    "top_p_crossing": (torch.tensor([0.15, 0.5, 0.05, 0.3]).log(), {"top_p": 0.6}, 1),
    "top_p_mid": (torch.tensor([0.15, 0.5, 0.05, 0.3]).log(), {"top_p": 0.9}, 1),
    "top_k_then_top_p": (
        torch.tensor([0.1, 0.4, 0.2, 0.3]).log(),
        {"top_k": 2, "top_p": 0.5},
        0.5,
    ),  # fmt: skip
    "temperature_then_top_p": (
        torch.tensor([0.05, 0.3, 0.5, 0.15]).log(),
        {"temperature": 0.5, "top_p": 0.9},
        1,
    ),  # fmt: skip
    "no_ops": (torch.tensor([0.3, -0.2, 1.1, 0.5, -1.0]), {"top_k": 10, "top_p": 1.0}, 0.5),
    # ids 1 and 2 tie with the 2nd largest logit: both are kept, so three tokens can be drawn
    "top_k_ties": (torch.tensor([3.0, 2.0, 2.0, 0.0, 1.0]), {"top_k": 2}, 0.5),
}


def _consistent(counts: torch.Tensor, probs: torch.Tensor, n: int) -> list[str]:
    """Reasons the counts are implausible under ``probs`` (empty when consistent)."""
    problems = []
    for tok, (c, p) in enumerate(zip(counts.tolist(), probs.tolist(), strict=True)):
        if p <= 0.0:
            if c > 0:
                problems.append(f"token {tok} was drawn {c} times but must never be drawn")
            continue
        lo, hi = binomial_band(n, p, ALPHA)
        if not lo <= c <= hi:
            problems.append(f"token {tok} was drawn {c} times; expected {lo}..{hi} "
                            f"(probability {p:.4f})")  # fmt: skip
    return problems


def _sampling_matches(row: torch.Tensor, settings: dict, counts: torch.Tensor,
                      probs: torch.Tensor) -> evidence.Found:  # fmt: skip
    """Ids of the sampling mistakes whose distribution the counts fit (where it differs from
    the correct ``probs``); the others are recorded as refuted: those that differ, and, where
    the counts do not fit ``probs``, those whose every model gives ``probs`` (a model that is
    right where the student is wrong fits the student no better, as in `variants.matching`)."""
    focus = evidence.focus()
    passed = not _consistent(counts, probs, N_DRAWS)
    diag, refuted = [], []
    for mid, hows in SAMPLING_VARIANTS.items():
        if focus is not None and mid not in focus:
            continue
        differs = False
        for how in hows:
            alt = sampling_distribution(row[None], how=how, **settings)[0]
            if same(alt, probs, atol=1e-6):
                if passed:  # this model fits counts that fit the correct distribution
                    break
                continue
            differs = True
            if not _consistent(counts, alt, N_DRAWS):
                diag.append(mid)
                break
        else:
            if differs or not passed:
                refuted.append(mid)
    return evidence.found("generation.sample_next_token", diag, refuted)


def _check_gap(student, model, ids, want, *, atol: float, what: str, reveal: bool = True,
               dtype: torch.dtype | tuple[torch.dtype, ...] = FLOATS):  # fmt: skip
    """The gap's values; its float32 dtype only where ``dtype`` asks for it (one test owns the
    dtype clause, so a float64 gap is charged once, not by every value test)."""
    got = student.generation.prefix_consistency_gap(model, ids)
    check_tensor(got, what=what, shape=(ids.shape[1],), dtype=dtype)
    check_close(got, want, what=what, atol=atol, rtol=1e-4, reveal=reveal, check_dtype=False,
                diagnose=lambda: matching("generation.prefix_consistency_gap", got, (model, ids),
                                          want=want, rtol=1e-4, atol=atol))  # fmt: skip
