"""Regenerate the golden fixture ``grader/suites/golden.json`` from ``solutions/``.

    python scripts/make_golden.py            # rewrite grader/suites/golden.json
    python scripts/make_golden.py --check    # exit 1 if the file differs from a fresh build

Inputs come from ``grader/suites/golden_inputs.py`` (closed-form, no RNG); the models are
``grader.trusted_tinylm.standard_models()``. Besides computing the expected values, the build
checks that every case still tests what it claims (greedy choices far from ties, an eos that
really finishes one row early, a prompt longer than ``max_seq_len``, ...) and refuses to
write a fixture that does not.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import torch

from grader.suites.golden_inputs import (
    GAP_CASES,
    GENERATION_CASES,
    GOLDEN_PATH,
    LOSS_CASES,
    build_gap_inputs,
    build_generation_inputs,
    build_loss_inputs,
)
from grader.trusted_tinylm import standard_models
from solutions import generation, losses

FORMAT = "golden/1"
MIN_MARGIN = 1e-2  # smallest allowed top-1 / top-2 logit gap at any greedy step
TOLERANCES = {
    # losses of float64 inputs: any correct float64 implementation agrees to ~1e-15
    "loss_float64": {"rtol": 1e-9, "atol": 1e-12},
    # the same inputs cast to float32 (oracle losses ~2.7e-4 carry ~1e-6 absolute error)
    "loss_float32": {"rtol": 1e-5, "atol": 2e-5},
}


class GoldenError(RuntimeError):
    """A case no longer tests what it claims; change the case, not the check."""


def _greedy_margin(model: torch.nn.Module, params: dict[str, Any]) -> float | None:
    """Replay a greedy case step by step; the smallest top-2 logit gap of an unfinished row."""
    ids = torch.tensor(params["prompt"])
    eos = params["eos_token_id"]
    finished = torch.zeros(ids.size(0), dtype=torch.bool)
    smallest = None
    with torch.no_grad():
        for _ in range(params["max_new_tokens"]):
            logits = model(ids[:, -model.max_seq_len :])[:, -1]  # (B, V)
            top2 = logits.topk(2, dim=-1).values  # (B, 2)
            gap = (top2[:, 0] - top2[:, 1])[~finished]
            if gap.numel():
                step_min = gap.min().item()
                smallest = step_min if smallest is None else min(smallest, step_min)
            nxt = logits.argmax(-1)
            if eos is not None:
                nxt = torch.where(finished, eos, nxt)
                finished |= nxt == eos
            ids = torch.cat([ids, nxt[:, None]], dim=1)
            if eos is not None and finished.all():
                break
    return smallest


def _check_generation_case(name: str, params: dict[str, Any], out: list[list[int]]) -> None:
    T0, n = len(params["prompt"][0]), params["max_new_tokens"]
    new = [row[T0:] for row in out]
    eos = params["eos_token_id"]
    if name.endswith("long_prompt") and T0 <= 12:
        raise GoldenError(f"{name}: the prompt must be longer than max_seq_len")
    if name.endswith("eos_sticky"):
        early = [row.index(eos) < len(row) - 1 for row in new if eos in row]
        if not any(early) or all(eos in row for row in new) or len(new[0]) != n:
            raise GoldenError(f"{name}: eos must finish one row early and not the others")
    if name.endswith("eos_early_stop") and not (all(eos in row for row in new) and len(new[0]) < n):
        raise GoldenError(f"{name}: every row must reach eos before max_new_tokens")


def compute_golden() -> dict[str, Any]:
    """Every expected value of the fixture, from the reference solutions."""
    golden: dict[str, Any] = {
        "format": FORMAT,
        "regenerate": "python scripts/make_golden.py",
        "tolerances": TOLERANCES,
        "losses": {},
        "generation": {},
        "gaps": {},
    }
    for name, params in LOSS_CASES.items():
        fn = getattr(losses, params["function"])
        value = fn(**build_loss_inputs(params)).item()
        if params["logits"]["form"] == "oracle" and not value < 1e-3:
            raise GoldenError(f"{name}: an oracle loss must be ~2.7e-4, got {value}")
        golden["losses"][name] = {"params": params, "expected": value}

    models = standard_models()
    for name, params in GENERATION_CASES.items():
        model_name, kwargs = build_generation_inputs(params)
        model = models[model_name]
        out = generation.greedy_generate(model, **kwargs).tolist()
        margin = _greedy_margin(model, params)
        if margin is not None and margin < MIN_MARGIN:
            raise GoldenError(f"{name}: a greedy step is a near-tie (margin {margin:.2e})")
        _check_generation_case(name, params, out)
        golden["generation"][name] = {"params": params, "expected": out, "min_margin": margin}

    for name, params in GAP_CASES.items():
        model_name, kwargs = build_gap_inputs(params)
        gap = generation.prefix_consistency_gap(models[model_name], **kwargs)
        if models[model_name].config.causal:
            if gap.max() >= 1e-5:
                raise GoldenError(f"{name}: a causal model's gap must be ~0, got {gap.max()}")
            entry = {"params": params, "expected": [0.0] * len(gap), "atol": 1e-5}
        else:
            if gap[:-1].min() <= 1e-2:
                raise GoldenError(f"{name}: a bidirectional gap must be clearly > 0: {gap}")
            entry = {"params": params, "expected": gap.tolist(), "atol": 1e-4}
        golden["gaps"][name] = entry
    return golden


def render(golden: dict[str, Any]) -> str:
    """The file's exact text: stable key order, floats at full (round-trip) precision."""
    return json.dumps(golden, indent=1, sort_keys=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args(argv)
    text = render(compute_golden())
    if args.check:
        if not GOLDEN_PATH.exists() or GOLDEN_PATH.read_text(encoding="utf-8") != text:
            print(f"{GOLDEN_PATH} is stale: run python scripts/make_golden.py", file=sys.stderr)
            return 1
        print(f"{GOLDEN_PATH} is up to date")
        return 0
    GOLDEN_PATH.write_text(text, encoding="utf-8")
    print(f"wrote {GOLDEN_PATH}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
