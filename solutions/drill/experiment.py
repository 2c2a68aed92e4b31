"""Reference for Exercise 3 (the scaffold with its five TODOs done): causal vs masked LM drill.

Reproduction command (run it from the folder that holds your masks.py, losses.py, ...):

    python drill/experiment.py --seed 0

It trains two tiny TinyLMs on the same sentences: a causal LM (next-token objective, causal
mask) and a masked LM (BERT-style corruption, bidirectional mask). Then it introduces ONE
controlled failure, measures it, repairs it, and writes everything to drill/results.json.
Budget: the grader stops a rerun after 30 s; the defaults need about a second on one CPU core.

Work through the TODOs in order:

    TODO 1  train_causal     the causal-LM training loop
    TODO 2  train_masked     the masked-LM training loop
    TODO 3  measure          what every run records
    TODO 4  broken_mask      the controlled failure (one factor changed, nothing else)
    TODO 5  diagnose         which measurements show the failure, as numbers and booleans

Then write drill/evidence_note.md from the numbers in drill/results.json.

Seed policy (keep it, or change it and say so in the note): one --seed. The weights of every
model are drawn from TinyLM's private generator seeded with --seed, the masked-LM corruption
draws from a torch.Generator seeded with --seed + 1, nothing uses the global RNG, dropout is 0
and torch runs on one thread, so a rerun on the same machine gives the same numbers.

drill/results.json (the grader reruns the command and compares):

    {"command": str, "seed": int, "seed_policy": str, "torch": str, "seconds": float,
     "config": {<TinyLMConfig fields but causal>, "steps": int, "lr": float,
                "mlm_probability": float},
     "data": {"sentences": [str, ...], "vocab_size": int,
              "shapes": {"input_ids": [B, T], "logits": [B, T, V]}},
     "runs": {"causal" | "masked" | "failure" | "repaired": {
                 "objective": "causal" | "masked", "mask": str,
                 "loss_curve": [float, ...], "final_loss": float,
                 "prefix_gap": [float, ...], "max_prefix_gap": float, "prefix_loss": float,
                 "prompt": str, "continuation": str, "continuation_accuracy": float}},
     "diagnosis": {...}}

How it is graded (docs/drill.md): the grader reruns your reproduction command in its sandbox
(your own masks.py, losses.py, ... ; no network; a time limit), compares the new results.json
with yours, checks that the failure's signature shows in the rerun's numbers, and checks that
drill/evidence_note.md has its five sections and quotes the rerun's numbers.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import torch
from torch import Tensor

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the folder with your masks.py, losses.py, ...

import corruption  # noqa: E402, F401  (your Task 2.1, for TODO 2)
import generation  # noqa: E402, F401  (your Tasks 4.1-4.4, for TODO 3)
import losses  # noqa: E402, F401  (your Tasks 3.1-3.2, for TODOs 1-2)
import masks  # noqa: E402  (your Tasks 1.1-1.4)

from exercises.tinylm import TinyLM, TinyLMConfig  # noqa: E402  (provided)

# ----------------------------------------------------------------------------- data (given)

SENTENCES = [
    "the cat sat on the mat.",
    "the dog sat on the log.",
    "a cat saw a dog.",
    "the dog saw the cat.",
]
PROMPT = "the cat s"  # a prefix of SENTENCES[0]; greedy continuation is compared with the rest
PAD, MASK, BOS, EOS = 0, 1, 2, 3
SPECIALS = [PAD, MASK, BOS, EOS]


def build_vocab(sentences: list[str]) -> dict[str, int]:
    """Character-level vocabulary; ids 0-3 are the special tokens."""
    chars = sorted(set("".join(sentences)))
    return {c: i + len(SPECIALS) for i, c in enumerate(chars)}


def encode(sentences: list[str], stoi: dict[str, int]) -> tuple[Tensor, Tensor]:
    """``[BOS] chars [EOS] [PAD]...`` -> input_ids (B, T) int64 and attention_mask (B, T)."""
    rows = [[BOS] + [stoi[c] for c in s] + [EOS] for s in sentences]
    T = max(len(r) for r in rows)
    ids = torch.full((len(rows), T), PAD, dtype=torch.int64)
    attention_mask = torch.zeros(len(rows), T, dtype=torch.int64)
    for b, row in enumerate(rows):
        ids[b, : len(row)] = torch.tensor(row)
        attention_mask[b, : len(row)] = 1
    return ids, attention_mask


def decode(ids: list[int], itos: dict[int, str]) -> str:
    return "".join(itos.get(i, "") for i in ids if i not in SPECIALS)


def continuation_accuracy(generated: str, expected: str) -> float:
    """Fraction of the expected continuation's characters reproduced at the same position."""
    if not expected:
        return 1.0
    return sum(a == b for a, b in zip(generated, expected, strict=False)) / len(expected)


def make_model(config: TinyLMConfig, seed: int, mask_fn: Any = None) -> TinyLM:
    """A TinyLM on *your* masks.py (``mask_fn`` replaces build_attention_mask if given)."""
    return TinyLM(
        config,
        mask_fn=mask_fn or masks.build_attention_mask,
        attention_fn=masks.masked_attention,
        seed=seed,
    )


# ----------------------------------------------------------------------------- TODOs


def train_causal(
    model: TinyLM, ids: Tensor, attention_mask: Tensor, *, steps: int, lr: float
) -> list[float]:
    """TODO 1: full-batch AdamW on ``losses.causal_lm_loss``; the loss of every step."""
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    curve = []
    for _ in range(steps):
        logits = model(ids, attention_mask)  # (B, T, V)
        loss = losses.causal_lm_loss(logits, ids, attention_mask)
        opt.zero_grad()
        loss.backward()
        opt.step()
        curve.append(round(loss.item(), 6))
    return curve


def train_masked(
    model: TinyLM,
    ids: Tensor,
    attention_mask: Tensor,
    *,
    steps: int,
    lr: float,
    mlm_probability: float,
    generator: torch.Generator,
) -> list[float]:
    """TODO 2: a fresh ``corruption.mask_tokens`` every step, ``losses.masked_lm_loss``."""
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    curve = []
    for _ in range(steps):
        inputs, labels = corruption.mask_tokens(
            ids,
            mask_token_id=MASK,
            vocab_size=model.config.vocab_size,
            special_token_ids=SPECIALS,
            mlm_probability=mlm_probability,
            generator=generator,
        )
        labels = labels.masked_fill(attention_mask == 0, -100)  # never score padding
        logits = model(inputs, attention_mask)
        loss = losses.masked_lm_loss(logits, labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        curve.append(round(loss.item(), 6))
    return curve


def prefix_loss(model: TinyLM, ids: Tensor, attention_mask: Tensor) -> float:
    """The causal loss when every position sees only its prefix (all that generation has).

    Position t's logits come from ``model(ids[:, :t + 1])``; for a causal model this equals
    the training loss, for a model that peeked at later tokens it is higher.
    """
    T = ids.shape[1]
    with torch.no_grad():
        rows = [model(ids[:, : t + 1], attention_mask[:, : t + 1])[:, -1] for t in range(T)]
        logits = torch.stack(rows, dim=1)  # (B, T, V)
        return round(losses.causal_lm_loss(logits, ids, attention_mask).item(), 6)


def measure(
    model: TinyLM, ids: Tensor, attention_mask: Tensor, stoi: dict[str, int]
) -> dict[str, Any]:
    """TODO 3: prefix gap on ``ids[0]``, greedy continuation of the prompt, prefix loss."""
    model.eval()
    itos = {i: c for c, i in stoi.items()}
    length = int(attention_mask[0].sum())
    gap = generation.prefix_consistency_gap(model, ids[:1, :length])
    prompt = torch.tensor([[BOS] + [stoi[c] for c in PROMPT]])
    expected = SENTENCES[0][len(PROMPT) :]
    budget = min(len(expected) + 1, model.max_seq_len - prompt.shape[1])
    out = generation.greedy_generate(model, prompt, budget, eos_token_id=EOS)
    continuation = decode(out[0, prompt.shape[1] :].tolist(), itos)
    return {
        "prefix_gap": [float(f"{g:.4g}") for g in gap.tolist()],
        "max_prefix_gap": float(f"{gap.max().item():.4g}"),
        "prefix_loss": prefix_loss(model, ids, attention_mask),
        "prompt": PROMPT,
        "continuation": continuation,
        "continuation_accuracy": round(continuation_accuracy(continuation, expected), 4),
    }


def broken_mask(attention_mask: Tensor | None, seq_len: int, causal: bool) -> Tensor:
    """TODO 4: the causal mask removed (padding kept): every position sees the future."""
    return masks.build_attention_mask(attention_mask, seq_len, False)


def diagnose(runs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """TODO 5: the failure named from the measurements alone."""
    causal, failure, repaired = runs["causal"], runs["failure"], runs["repaired"]
    loss_ratio = failure["final_loss"] / max(causal["final_loss"], 1e-12)
    return {
        "failure_loss_ratio": round(loss_ratio, 4),
        "failure_generation_loss_excess": round(failure["prefix_loss"] - failure["final_loss"], 4),
        "failure_max_gap": failure["max_prefix_gap"],
        "causal_max_gap": causal["max_prefix_gap"],
        "accuracy_drop": round(
            causal["continuation_accuracy"] - failure["continuation_accuracy"], 4
        ),
        "loss_collapsed": loss_ratio < 1.0,
        "future_leak": failure["max_prefix_gap"] > 1e-3 >= causal["max_prefix_gap"],
        "generation_degraded": failure["continuation_accuracy"] < causal["continuation_accuracy"],
        "repair_restores_causal": repaired["max_prefix_gap"] <= 1e-4
        and repaired["continuation"] == causal["continuation"],
    }


# ----------------------------------------------------------------------------- main (given)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Exercise 3: causal vs masked LM drill")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--steps", type=int, default=80)
    parser.add_argument("--lr", type=float, default=1e-2)
    parser.add_argument("--mlm-probability", type=float, default=0.15)
    parser.add_argument("--out", type=Path, default=HERE / "results.json")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    start = time.perf_counter()

    stoi = build_vocab(SENTENCES)
    ids, attention_mask = encode(SENTENCES, stoi)
    B, T = ids.shape
    vocab_size = len(SPECIALS) + len(stoi)

    def config(causal: bool) -> TinyLMConfig:
        return TinyLMConfig(
            vocab_size=vocab_size, max_seq_len=T, d_model=32, n_heads=2, n_layers=1, causal=causal
        )

    train = {"steps": args.steps, "lr": args.lr}
    plan = {  # name -> (config, mask_fn, objective, mask description)
        "causal": (config(True), None, "causal", "causal + padding"),
        "masked": (config(False), None, "masked", "bidirectional + padding"),
        "failure": (config(True), broken_mask, "causal", "broken_mask (see TODO 4)"),
        "repaired": (config(True), None, "causal", "causal + padding (restored)"),
    }
    runs: dict[str, dict[str, Any]] = {}
    for name, (cfg, mask_fn, objective, mask_text) in plan.items():
        model = make_model(cfg, args.seed, mask_fn)
        if objective == "causal":
            curve = train_causal(model, ids, attention_mask, **train)
        else:
            g = torch.Generator().manual_seed(args.seed + 1)
            curve = train_masked(
                model,
                ids,
                attention_mask,
                **train,
                mlm_probability=args.mlm_probability,
                generator=g,
            )
        runs[name] = {
            "objective": objective,
            "mask": mask_text,
            "loss_curve": curve,
            "final_loss": curve[-1],
            **measure(model, ids, attention_mask, stoi),
        }

    results = {
        "command": " ".join(
            ["python drill/experiment.py", *(sys.argv[1:] if argv is None else argv)]
        ),
        "seed": args.seed,
        "seed_policy": "weights: TinyLM(seed); corruption: Generator(seed + 1); "
        "no global RNG; dropout 0; 1 thread",
        "torch": torch.__version__,
        "config": {
            **{k: v for k, v in asdict(config(True)).items() if k != "causal"},
            **train,
            "mlm_probability": args.mlm_probability,
        },
        "data": {
            "sentences": SENTENCES,
            "vocab_size": vocab_size,
            "shapes": {"input_ids": [B, T], "logits": [B, T, vocab_size]},
        },
        "runs": runs,
        "diagnosis": diagnose(runs),
        "seconds": round(time.perf_counter() - start, 2),
    }
    args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    for name, run in runs.items():
        print(
            f"{name:9s} loss {run['final_loss']:.4f}  max gap {run['max_prefix_gap']:.2e}  "
            f"{run['prompt']!r} -> {run['continuation']!r}"
        )
    print(f"wrote {args.out} in {results['seconds']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
