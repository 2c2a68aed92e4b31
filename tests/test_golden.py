"""The golden fixture grader/suites/golden.json: not stale, and still right.

* drift: the fixture rebuilt in memory by scripts/make_golden.py equals the file;
* independence: the loss values agree with a from-scratch float64 log-sum-exp, and the
  reference reproduces them in float32 within the stated tolerance;
* power: the oracle cases really expose the classic loss bugs (no shift, counted padding).
"""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import torch

from grader.suites.golden_inputs import (
    GAP_CASES,
    GENERATION_CASES,
    GOLDEN_PATH,
    LOSS_CASES,
    build_loss_inputs,
    token_ids,
)
from solutions import losses

ROOT = Path(__file__).resolve().parents[1]


def _load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "make_golden", ROOT / "scripts" / "make_golden.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def stored() -> dict[str, Any]:
    return json.loads(GOLDEN_PATH.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def fresh() -> dict[str, Any]:
    return _load_script().compute_golden()


def test_fixture_covers_every_case(stored: dict[str, Any]) -> None:
    assert stored["format"] == "golden/1"
    assert set(stored["losses"]) == set(LOSS_CASES)
    assert set(stored["generation"]) == set(GENERATION_CASES)
    assert set(stored["gaps"]) == set(GAP_CASES)


def test_fixture_is_not_stale(stored: dict[str, Any], fresh: dict[str, Any]) -> None:
    """Regenerate with `python scripts/make_golden.py` if this fails on purpose."""
    assert fresh["tolerances"] == stored["tolerances"]
    for name, case in fresh["losses"].items():
        assert stored["losses"][name]["params"] == case["params"], name
        assert math.isclose(
            stored["losses"][name]["expected"], case["expected"], rel_tol=1e-9, abs_tol=1e-12
        ), name
    for name, case in fresh["generation"].items():
        assert stored["generation"][name]["params"] == case["params"], name
        assert stored["generation"][name]["expected"] == case["expected"], name
    for name, case in fresh["gaps"].items():
        old = stored["gaps"][name]
        assert old["params"] == case["params"] and old["atol"] == case["atol"], name
        assert all(
            abs(a - b) <= case["atol"]
            for a, b in zip(old["expected"], case["expected"], strict=True)
        )


def _lse_loss(logits: torch.Tensor, targets: list[tuple[int, int, int]]) -> float:
    """Mean of logsumexp(logits[b, t]) - logits[b, t, y] over (b, t, y), in plain Python."""
    total = 0.0
    for b, t, y in targets:
        row = logits[b, t].tolist()
        m = max(row)
        total += m + math.log(sum(math.exp(x - m) for x in row)) - row[y]
    return total / len(targets) if targets else 0.0


def _independent_value(params: dict[str, Any]) -> float:
    kw = build_loss_inputs(params)
    logits = kw["logits"]
    if params["function"] == "masked_lm_loss":
        labels = kw["labels"]
        targets = [
            (b, t, int(labels[b, t]))
            for b in range(labels.size(0))
            for t in range(labels.size(1))
            if labels[b, t] != -100
        ]
    else:
        ids, mask = kw["input_ids"], kw.get("attention_mask")
        targets = [
            (b, t, int(ids[b, t + 1]))
            for b in range(ids.size(0))
            for t in range(ids.size(1) - 1)
            if mask is None or mask[b, t + 1]
        ]
    return _lse_loss(logits, targets)


@pytest.mark.parametrize("name", sorted(LOSS_CASES))
def test_loss_values_agree_with_an_independent_computation(
    stored: dict[str, Any], name: str
) -> None:
    case = stored["losses"][name]
    assert math.isclose(
        _independent_value(case["params"]), case["expected"], rel_tol=1e-9, abs_tol=1e-12
    )


@pytest.mark.parametrize("name", sorted(LOSS_CASES))
def test_reference_reproduces_the_fixture_in_float32(stored: dict[str, Any], name: str) -> None:
    case = stored["losses"][name]
    tol = stored["tolerances"]["loss_float32"]
    kwargs = {
        k: (v.float() if v.is_floating_point() else v)
        for k, v in build_loss_inputs(case["params"]).items()
    }
    got = getattr(losses, case["params"]["function"])(**kwargs)
    assert got.dtype == torch.float32
    assert math.isclose(got.item(), case["expected"], rel_tol=tol["rtol"], abs_tol=tol["atol"])


def test_inputs_are_rebuilt_identically_without_the_global_rng() -> None:
    state = torch.get_rng_state()
    for params in LOSS_CASES.values():
        a, b = build_loss_inputs(params), build_loss_inputs(params)
        assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
        assert a["logits"].dtype == torch.float64
    assert torch.equal(torch.get_rng_state(), state)


def _no_shift(
    logits: torch.Tensor, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None
) -> float:
    V = logits.size(-1)
    return torch.nn.functional.cross_entropy(logits.reshape(-1, V), input_ids.reshape(-1)).item()


def _padding_counted(
    logits: torch.Tensor, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None
) -> float:
    return losses.causal_lm_loss(logits, input_ids).item()


def test_oracle_cases_expose_classic_loss_bugs(stored: dict[str, Any]) -> None:
    correct = stored["losses"]["clm_oracle"]["expected"]
    assert correct < 1e-3
    assert _no_shift(**build_loss_inputs(LOSS_CASES["clm_oracle"])) > 5.0
    for name in ("clm_oracle_right_pad", "clm_oracle_left_pad"):
        assert _padding_counted(**build_loss_inputs(LOSS_CASES[name])) > 1.0, name
    params = LOSS_CASES["mlm_oracle"]
    every_token = token_ids(
        params["batch"], params["seq_len"], params["vocab_size"], **params["ids"]
    )
    logits = build_loss_inputs(params)["logits"]
    every_position = torch.nn.functional.cross_entropy(
        logits.reshape(-1, 7), every_token.reshape(-1)
    )
    assert every_position.item() > 1.0  # unlabelled positions counted
