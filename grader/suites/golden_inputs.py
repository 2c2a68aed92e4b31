"""Closed-form inputs of the golden fixture ``grader/suites/golden.json``.

No random numbers: every tensor is a formula of its parameters (``sin`` of an ``arange`` in
float64, modular token ids, literal prompts), so anyone can rebuild exactly the inputs that
``scripts/make_golden.py`` used, on any platform and torch version. A golden entry stores the
case's parameters; rebuild its inputs with the matching ``build_*_inputs`` function::

    golden = json.loads(GOLDEN_PATH.read_text())
    for name, case in golden["losses"].items():
        kwargs = build_loss_inputs(case["params"])            # float64 tensors
        fn = getattr(student.losses, case["params"]["function"])
        assert_close(fn(**kwargs), case["expected"], ...)

    models = standard_models()                                # grader.trusted_tinylm
    for name, case in golden["generation"].items():
        model_name, kwargs = build_generation_inputs(case["params"])
        got = student.generation.greedy_generate(models[model_name], **kwargs)
        assert got.tolist() == case["expected"]

Case design (see ``/work/shared/research/ml_bugs.md`` section 4): vocabulary 7 and length 6
(V != T), ids without repeats within distance 2, a padding id that is neither 0 nor eos and
also occurs as a real token, plus one case where padding == eos. "Oracle" logits put
``margin`` (10) on the right target, so the correct loss is ln(1 + 6 e^-10) ~ 2.7e-4, while a
misaligned target (no shift, double shift) or a wrongly counted padding / unlabelled position
costs ~10: the loss then reads as ~10 x (wrong / counted) and names the bug.
"""

from __future__ import annotations

import math
from typing import Any

import torch
from torch import Tensor

from grader.resources import data_path

__all__ = [
    "GAP_CASES",
    "GENERATION_CASES",
    "GOLDEN_PATH",
    "LOSS_CASES",
    "attention_mask_from_lengths",
    "build_gap_inputs",
    "build_generation_inputs",
    "build_loss_inputs",
    "oracle_logits",
    "token_ids",
    "wave",
]

GOLDEN_PATH = data_path("grader", "suites", "golden.json")
IGNORE_INDEX = -100


# ----------------------------------------------------------------------------- building blocks


def wave(shape: tuple[int, ...], *, scale: float, freq: float, phase: float) -> Tensor:
    """float64 ``scale * sin(freq * n + phase)`` for n = 0, 1, ... laid out in ``shape``."""
    n = math.prod(shape)
    x = torch.arange(n, dtype=torch.float64) * freq + phase
    return (x.sin() * scale).reshape(shape)


def token_ids(batch: int, seq_len: int, vocab_size: int, *, stride: int, offset: int) -> Tensor:
    """int64 ``(B, T)``: ``ids[b, t] = (offset + 2 b + stride t) mod V``."""
    b = torch.arange(batch).unsqueeze(1)
    t = torch.arange(seq_len).unsqueeze(0)
    return (offset + 2 * b + stride * t) % vocab_size


def attention_mask_from_lengths(lengths: list[int], seq_len: int, *, side: str) -> Tensor:
    """int64 ``(B, T)`` 0/1 with ``lengths[b]`` real tokens, padding on ``side`` (right/left)."""
    t = torch.arange(seq_len).unsqueeze(0)  # (1, T)
    n = torch.tensor(lengths).unsqueeze(1)  # (B, 1)
    real = t < n if side == "right" else t >= seq_len - n
    return real.to(torch.int64)


def oracle_logits(targets: Tensor, counted: Tensor, vocab_size: int, margin: float) -> Tensor:
    """float64 ``(B, T, V)``: ``margin`` on ``targets`` where ``counted``, else on the next id.

    A position that must not count is made confidently *wrong*, so counting it costs ~margin.
    """
    wrong = (targets + 1) % vocab_size
    hot = torch.where(counted, targets, wrong)
    return torch.nn.functional.one_hot(hot, vocab_size).to(torch.float64) * margin


# ----------------------------------------------------------------------------- losses

_WAVE = {"form": "wave", "scale": 2.5, "freq": 0.37, "phase": 0.1}
_ORACLE = {"form": "oracle", "margin": 10.0}
_IDS = {"stride": 3, "offset": 1}


def _causal(**params: Any) -> dict[str, Any]:
    base = {
        "function": "causal_lm_loss",
        "batch": 2,
        "seq_len": 6,
        "vocab_size": 7,
        "ids": _IDS,
        "logits": _WAVE,
        "lengths": None,
        "side": "right",
        "pad_id": 5,
        "eos_id": None,
        "mask_dtype": "int64",
    }
    return base | params


def _masked(**params: Any) -> dict[str, Any]:
    base = {
        "function": "masked_lm_loss",
        "batch": 2,
        "seq_len": 6,
        "vocab_size": 7,
        "ids": _IDS,
        "logits": _WAVE,
        "labels_every": 3,
    }
    return base | params


LOSS_CASES: dict[str, dict[str, Any]] = {
    "clm_wave": _causal(),
    "clm_wave_right_pad": _causal(batch=3, lengths=[6, 4, 2]),
    "clm_wave_left_pad": _causal(lengths=[3, 6], side="left"),
    "clm_wave_bool_mask": _causal(batch=3, lengths=[6, 4, 2], mask_dtype="bool"),
    "clm_oracle": _causal(logits=_ORACLE),
    "clm_oracle_right_pad": _causal(batch=3, lengths=[6, 3, 2], logits=_ORACLE),
    "clm_oracle_left_pad": _causal(batch=3, lengths=[2, 6, 4], side="left", logits=_ORACLE),
    "clm_large_logits": _causal(lengths=[6, 4], logits=_WAVE | {"scale": 1.0e4}),
    "clm_pad_is_eos": _causal(batch=3, vocab_size=7, lengths=[6, 4, 3], pad_id=6, eos_id=6),
    "clm_single_token": _causal(seq_len=1),
    "clm_no_real_target": _causal(lengths=[1, 1]),
    "mlm_wave": _masked(),
    "mlm_oracle": _masked(batch=3, logits=_ORACLE),
    "mlm_large_logits": _masked(logits=_WAVE | {"scale": 1.0e4}),
    "mlm_one_label": _masked(labels_every=12),
    "mlm_no_label": _masked(labels_every=0),
}
"""Case name -> parameters; ``params["function"]`` names the loss function to call."""


def build_loss_inputs(params: dict[str, Any]) -> dict[str, Tensor]:
    """The keyword arguments (float64 logits, int64 ids) of the loss a case describes.

    ``causal_lm_loss`` cases give ``logits``, ``input_ids`` and (when ``lengths`` is set)
    ``attention_mask``; ``masked_lm_loss`` cases give ``logits`` and ``labels``.
    """
    B, T, V = params["batch"], params["seq_len"], params["vocab_size"]
    ids = token_ids(B, T, V, **params["ids"])  # (B, T)
    spec = params["logits"]

    if params["function"] == "masked_lm_loss":
        every = params["labels_every"]
        b = torch.arange(B).unsqueeze(1)
        t = torch.arange(T).unsqueeze(0)
        chosen = ((t + 2 * b) % every == 0) if every else torch.zeros(B, T, dtype=torch.bool)
        labels = torch.where(chosen, ids, IGNORE_INDEX)  # (B, T)
        if spec["form"] == "oracle":
            logits = oracle_logits(ids, chosen, V, spec["margin"])
        else:
            logits = wave((B, T, V), scale=spec["scale"], freq=spec["freq"], phase=spec["phase"])
        return {"logits": logits, "labels": labels}

    if params["function"] != "causal_lm_loss":
        raise ValueError(f"unknown loss function {params['function']!r}")
    kwargs: dict[str, Tensor] = {}
    if params["lengths"] is None:
        real = torch.ones(B, T, dtype=torch.bool)
    else:
        mask = attention_mask_from_lengths(params["lengths"], T, side=params["side"])
        real = mask.bool()
        if params["eos_id"] is not None:  # each sequence ends with a real eos token
            if params["side"] != "right":
                raise ValueError("eos_id cases use right padding")
            last = torch.tensor(params["lengths"]) - 1  # (B,)
            ids[torch.arange(B), last] = params["eos_id"]
        ids = torch.where(real, ids, params["pad_id"])
        kwargs["attention_mask"] = mask.bool() if params["mask_dtype"] == "bool" else mask
    if spec["form"] == "oracle":
        targets = torch.cat([ids[:, 1:], ids[:, :1]], dim=1)  # position t predicts ids[t + 1]
        counted = torch.cat([real[:, 1:], torch.zeros(B, 1, dtype=torch.bool)], dim=1)
        logits = oracle_logits(targets, counted, V, spec["margin"])
    else:
        logits = wave((B, T, V), scale=spec["scale"], freq=spec["freq"], phase=spec["phase"])
    return {"logits": logits, "input_ids": ids, **kwargs}


# ----------------------------------------------------------------------------- generation
# Models are grader.trusted_tinylm.standard_models(): vocab 24, max_seq_len 12.

_LONG_PROMPT = [[(7 * i + 3) % 24 for i in range(15)]]  # 15 tokens > max_seq_len = 12


def _greedy(model: str, prompt: list[list[int]], n: int, eos: int | None = None) -> dict[str, Any]:
    return {
        "function": "greedy_generate",
        "model": model,
        "prompt": prompt,
        "max_new_tokens": n,
        "eos_token_id": eos,
    }


GENERATION_CASES: dict[str, dict[str, Any]] = {
    "causal_one_token_prompt": _greedy("causal", [[4]], 6),
    "causal_single": _greedy("causal", [[3, 17, 8]], 8),
    "causal_batch_crop": _greedy("causal", [[5, 9, 2, 20], [11, 0, 7, 14]], 12),
    "causal_long_prompt": _greedy("causal", _LONG_PROMPT, 5),
    "causal_no_new_tokens": _greedy("causal", [[5, 9, 2, 20]], 0),
    # row 0 generates 23 at step 2, row 1 never: row 0 must then stay on 23
    "causal_eos_sticky": _greedy("causal", [[5, 9, 2, 20], [11, 0, 7, 14]], 10, eos=23),
    # both rows generate 13 (steps 1 and 5): generation stops after step 5
    "causal_eos_early_stop": _greedy("causal", [[5, 9, 2, 20], [11, 0, 7, 14]], 10, eos=13),
    "bidirectional_batch": _greedy("bidirectional", [[5, 9, 2, 20], [11, 0, 7, 14]], 8),
    "bidirectional_long_prompt": _greedy("bidirectional", _LONG_PROMPT, 5),
}
"""Case name -> parameters of a greedy continuation of one of the standard models."""


def build_generation_inputs(params: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """``(model name, kwargs)``; call ``greedy_generate(models[name], **kwargs)``."""
    kwargs = {
        "input_ids": torch.tensor(params["prompt"], dtype=torch.int64),
        "max_new_tokens": params["max_new_tokens"],
        "eos_token_id": params["eos_token_id"],
    }
    return params["model"], kwargs


GAP_CASES: dict[str, dict[str, Any]] = {
    "causal_gap": {
        "function": "prefix_consistency_gap",
        "model": "causal",
        "ids": [[(5 * i + 2) % 24 for i in range(12)]],
    },
    "bidirectional_gap": {
        "function": "prefix_consistency_gap",
        "model": "bidirectional",
        "ids": [[(5 * i + 2) % 24 for i in range(12)]],
    },
}
"""Case name -> parameters of a ``prefix_consistency_gap`` measurement on a standard model."""


def build_gap_inputs(params: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """``(model name, kwargs)``; call ``prefix_consistency_gap(models[name], **kwargs)``."""
    return params["model"], {"input_ids": torch.tensor(params["ids"], dtype=torch.int64)}
