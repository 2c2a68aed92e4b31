"""Nothing student code can import inside the jail answers an exercise.

A probe submission (tests/jail_probe/masks.py) imports, inside a real jailed worker, every
project module the jail shows - the worker's own `grader.sandbox` modules, `exercises/`
(stubs, tinylm, the drill) and whatever the zygote preloaded - and tries every callable they
hold, and every function attached to a model a call receives, as every exercise function
(`exercises.TASKS`) on cases whose expected values the reference computes here. None may
reproduce any exercise on all of its cases.
"""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import pytest
import torch

import exercises
from grader.sandbox import jail
from grader.sandbox.client import SandboxSession, Zygote
from grader.sandbox.limits import SandboxLimits
from grader.trusted_tinylm import shared_standard_model

PROBE = Path(__file__).parent / "jail_probe" / "masks.py"

pytestmark = pytest.mark.skipif(not jail.can_jail(), reason="what the jail shows needs root")


def _gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _inputs() -> dict[str, list[tuple[tuple, dict, int | None, float]]]:
    """Per task: (args, kwargs, generator seed or None, atol). Two or three cases each, so a
    callable that happens to return one right constant does not count as an answer."""
    g = _gen(0)
    q, k, v = (torch.randn(2, 2, 4, 3, generator=g, dtype=torch.float64) for _ in range(3))
    causal = torch.ones(4, 4, dtype=torch.bool).tril()
    padded = torch.tensor([[0, 1, 1, 1], [1, 1, 1, 0]]) != 0
    padded = padded[:, None, None, :] & causal
    am = torch.tensor([[0, 1, 1], [1, 1, 0]])
    ids = torch.randint(4, 20, (3, 16), generator=g)
    logits = torch.randn(2, 5, 7, generator=g, dtype=torch.float64)
    tokens = torch.randint(0, 7, (2, 5), generator=g)
    labels = torch.where(torch.rand(2, 5, generator=g) < 0.5, tokens, torch.full_like(tokens, -100))
    labels[0, 0] = 3
    model = shared_standard_model("causal")
    prompt = torch.tensor([[3, 17, 8], [5, 9, 2]])
    sample_logits = torch.randn(6, 10, generator=g)
    corrupt = {"mask_token_id": 1, "vocab_size": 20, "special_token_ids": [0, 1, 2, 3],
               "mlm_probability": 0.5}  # fmt: skip
    return {
        "masks.causal_mask": [((4,), {}, None, 0), ((2, 5), {}, None, 0), ((5, 3), {}, None, 0)],
        "masks.padding_mask": [((am,), {}, None, 0),
                               ((torch.tensor([[1, 1, 0, 0]]),), {}, None, 0)],
        "masks.build_attention_mask": [
            ((None, 4, True), {}, None, 0), ((am, 3, True), {}, None, 0),
            ((am, 3, False), {}, None, 0),
        ],
        "masks.masked_attention": [
            ((q, k, v, causal), {}, None, 1e-9), ((q, k, v, padded), {}, None, 1e-9),
            ((q, k, v), {}, None, 1e-9),
        ],
        "corruption.mask_tokens": [((ids,), corrupt, 3, 0), ((ids[:2],), corrupt, 4, 0)],
        "losses.causal_lm_loss": [
            ((logits, tokens), {}, None, 1e-9),
            ((logits, tokens, torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]])), {}, None, 1e-9),
        ],
        "losses.masked_lm_loss": [((logits, labels), {}, None, 1e-9),
                                  ((logits[:1], labels[:1]), {}, None, 1e-9)],
        "generation.greedy_generate": [((model, prompt, 3), {}, None, 0),
                                       ((model, prompt[:1], 5), {}, None, 0)],
        "generation.sample_next_token": [
            ((sample_logits,), {"temperature": 0.8, "top_k": 5}, 5, 0),
            ((sample_logits,), {"temperature": 1.2, "top_p": 0.7}, 6, 0),
        ],
        "generation.sample_generate": [
            ((model, prompt, 3), {"temperature": 0.9, "top_k": 8}, 7, 0),
            ((model, prompt[:1], 4), {"temperature": 1.1}, 8, 0),
        ],
        "generation.prefix_consistency_gap": [((model, prompt[:1]), {}, None, 1e-4),
                                              ((model, prompt[1:]), {}, None, 1e-4)],
    }  # fmt: skip


def _cases() -> dict[str, list[dict]]:
    """The probe's cases: inputs, the reference's result, the exercise's parameter order."""
    tasks = {}
    for task, cases in _inputs().items():
        module, name = task.split(".")
        fn = getattr(importlib.import_module(f"solutions.{module}"), name)
        stub = getattr(importlib.import_module(f"exercises.{module}"), name)
        order = list(inspect.signature(stub).parameters)
        built = []
        for args, kwargs, seed, atol in cases:
            kw = dict(kwargs)
            if seed is not None:
                kw["generator"] = _gen(seed)
            with torch.no_grad():
                want = fn(*args, **kw)
            built.append({"args": list(args), "kwargs": dict(kwargs), "generator_seed": seed,
                          "atol": atol, "order": order, "want": want})  # fmt: skip
        tasks[task] = built
    return tasks


def test_every_task_is_probed():
    assert {f"{m}.{f}" for m, f in exercises.TASKS.values()} == set(_inputs())


def test_no_callable_in_the_jail_answers_an_exercise():
    limits = SandboxLimits(call_timeout=600.0, submission_timeout=900.0, may_fork=True)
    model = shared_standard_model("causal")
    with (
        Zygote(jail=True) as zygote,
        SandboxSession(zygote, {"masks": PROBE.read_text(encoding="utf-8")}, limits) as session,
    ):
        result = session.call("masks", "find_answers", (_cases(), [model]), {}).value
    tried = set(result["tried"])
    # the probe reached the jail's modules, the exercise stubs and the model it was sent
    assert {"grader.sandbox.worker._model_forward", "grader.sandbox.models.model_from_spec",
            "grader.sandbox.invoke.invoke", "grader.sandbox.models.sandbox_attention",
            "exercises.corruption.mask_tokens", "exercises.drill.experiment.broken_mask",
            "<argument 0: TinyLM>.mask_fn", "<argument 0: TinyLM>.attention_fn",
            } <= tried, sorted(tried)  # fmt: skip
    assert any(name.endswith(".TinyLM.forward") for name in tried)
    assert result["calls"] > 300
    assert result["found"] == []
