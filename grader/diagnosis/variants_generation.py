"""Part D variants: generation and sampling (registered on import; see
`grader.diagnosis.variants`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor

from grader.diagnosis.variant_registry import variant

# ============================================================================ Part D: generation


def generate(
    model: Any,
    input_ids: Tensor,
    max_new_tokens: int,
    choose: Callable[[Tensor], Tensor],
    eos_token_id: int | None = None,
    *,
    crop: str = "last",
    sticky: bool = True,
    early_stop: bool = True,
    position: int = -1,
    prompt_eos: bool = False,
) -> Tensor:
    """The generation loop with knobs (crop side, eos handling, position read)."""
    ids = input_ids.clone()
    finished = torch.zeros(ids.size(0), dtype=torch.bool)
    if prompt_eos and eos_token_id is not None:
        finished = (ids == eos_token_id).any(dim=1)
    L = model.max_seq_len
    was = [m.training for m in model.modules()] if isinstance(model, torch.nn.Module) else []
    if was:
        model.eval()
    try:
        with torch.no_grad():
            for _ in range(max_new_tokens):
                ctx = {"last": ids[:, -L:], "first": ids[:, :L], "none": ids}[crop]
                nxt = choose(model(ctx)[:, position, :]).to(ids.dtype)
                if eos_token_id is not None:
                    if sticky:
                        nxt = torch.where(finished, eos_token_id, nxt)
                    finished = finished | (nxt == eos_token_id)
                ids = torch.cat([ids, nxt[:, None]], dim=1)
                if eos_token_id is not None and early_stop and bool(finished.all()):
                    break
    finally:
        for m, t in zip(model.modules() if was else [], was, strict=False):
            m.training = t
    return ids


_GEN_KNOBS: list[tuple[str, dict[str, Any]]] = [
    ("crop_wrong_side", {"crop": "first"}),
    ("eos_not_sticky", {"sticky": False}),
    ("eos_no_early_stop", {"early_stop": False}),
    ("eos_not_sticky", {"sticky": False, "early_stop": False}),
    ("wrong_position_logits", {"position": 0}),
    ("eos_in_prompt_counts", {"prompt_eos": True}),
]
for _mid, _kw in _GEN_KNOBS:
    variant("generation.greedy_generate", _mid)(
        lambda model, input_ids, max_new_tokens, eos_token_id=None, _kw=_kw: generate(
            model, input_ids, max_new_tokens, lambda x: x.argmax(-1), eos_token_id, **_kw
        )
    )

    def _sampled(model, input_ids, max_new_tokens, *, temperature=1.0, top_k=None, top_p=None,
                 generator=None, eos_token_id=None, _kw=_kw):  # fmt: skip
        def choose(x: Tensor) -> Tensor:
            probs = sampling_distribution(x, temperature=temperature, top_k=top_k, top_p=top_p)
            if temperature == 0:
                return x.argmax(-1)
            return torch.multinomial(probs, 1, generator=generator).squeeze(-1)

        return generate(model, input_ids, max_new_tokens, choose, eos_token_id, **_kw)

    variant("generation.sample_generate", _mid)(_sampled)


def _eos_is_zero(*args: Any, eos_token_id: int | None = None, **kwargs: Any) -> bool:
    return eos_token_id == 0


# `if eos_token_id:` is False for the valid id 0: the loop runs as if no eos was given
@variant("generation.greedy_generate", "eos_id_zero_ignored", applies=_eos_is_zero)
def _greedy_eos_zero_ignored(model, input_ids, max_new_tokens, eos_token_id=None):
    return generate(model, input_ids, max_new_tokens, lambda x: x.argmax(-1), None)


def _argmax_of_divided(logits: Tensor) -> Tensor:
    """The greedy pick of logits divided by a temperature of 0 (x / 0: +-inf, NaN for 0)."""
    x = logits.to(torch.promote_types(logits.dtype, torch.float32))
    return (x / 0.0).argmax(-1)


@variant("generation.sample_next_token", "divided_by_temperature_zero",
         applies=lambda logits, temperature=1.0, **_: temperature == 0)  # fmt: skip
def _next_divided_by_zero(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    return _argmax_of_divided(logits)


@variant("generation.sample_generate", "divided_by_temperature_zero",
         applies=lambda *a, temperature=1.0, **_: temperature == 0)  # fmt: skip
def _generate_divided_by_zero(model, input_ids, max_new_tokens, *, temperature=1.0, top_k=None,
                              top_p=None, generator=None, eos_token_id=None):  # fmt: skip
    return generate(model, input_ids, max_new_tokens, _argmax_of_divided, eos_token_id)


# each step draws from a new generator seeded with the caller's initial_seed(): every step
# repeats the first draw's random number and the caller's generator never advances
@variant("generation.sample_generate", "generator_not_advanced",
         applies=lambda *a, temperature=1.0, generator=None, **_: (
             generator is not None and temperature != 0))  # fmt: skip
def _generate_fresh_generator_each_step(model, input_ids, max_new_tokens, *, temperature=1.0,
                                        top_k=None, top_p=None, generator=None,
                                        eos_token_id=None):  # fmt: skip
    seed = generator.initial_seed()

    def choose(x: Tensor) -> Tensor:
        probs = sampling_distribution(x, temperature=temperature, top_k=top_k, top_p=top_p)
        fresh = torch.Generator(device=probs.device).manual_seed(seed)
        return torch.multinomial(probs, 1, generator=fresh).squeeze(-1)

    return generate(model, input_ids, max_new_tokens, choose, eos_token_id)


def gap(model: Any, input_ids: Tensor, *, offset: int = 0, reduce: str = "max_abs") -> Tensor:
    """prefix_consistency_gap with knobs: prefix length off by ``offset``, other reductions."""
    T = input_ids.size(1)
    with torch.no_grad():
        full = model(input_ids)[0].double()
        out = []
        for t in range(T):
            n = min(max(t + 1 + offset, 1), T)
            pre = model(input_ids[:, :n])[0, -1].double()
            d = full[t] - pre
            out.append({"max_abs": d.abs().max(), "mean_abs": d.abs().mean(), "signed": d.max(),
                        "sum_abs": d.abs().sum()}[reduce])  # fmt: skip
    return torch.stack(out).float()


for _mid, _kw in [("gap_prefix_off_by_one", {"offset": -1}),
                  ("gap_prefix_off_by_one", {"offset": 1}),
                  ("gap_not_max_abs", {"reduce": "mean_abs"}),
                  ("gap_not_max_abs", {"reduce": "signed"}),
                  ("gap_not_max_abs", {"reduce": "sum_abs"})]:  # fmt: skip
    variant("generation.prefix_consistency_gap", _mid)(
        lambda model, input_ids, _kw=_kw: gap(model, input_ids, **_kw)
    )


# ---------------------------------------------------------------------------- sampling


def _top_k(logits: Tensor, k: int | None) -> Tensor:
    if k is None or k >= logits.size(-1):
        return logits
    k = max(k, 1)
    kth = torch.topk(logits, k, dim=-1).values[:, -1:]
    return logits.masked_fill(logits < kth, float("-inf"))


def _top_k_exactly(logits: Tensor, k: int | None, *, prefer_low_ids: bool) -> Tensor:
    """Keep exactly k tokens, breaking ties with the k-th value by id (dropping the others)."""
    if k is None or k >= logits.size(-1):
        return logits
    ids = torch.arange(logits.size(-1), dtype=logits.dtype).expand_as(logits)
    by_id = torch.sort(-ids if prefer_low_ids else ids, dim=-1, descending=True, stable=True)
    by_value = torch.sort(logits.gather(-1, by_id.indices), dim=-1, descending=True, stable=True)
    order = by_id.indices.gather(-1, by_value.indices)
    keep = torch.zeros_like(logits, dtype=torch.bool).scatter(-1, order[:, : max(k, 1)], True)
    return logits.masked_fill(~keep, float("-inf"))


def _top_p(probs: Tensor, p: float | None, how: str = "correct") -> Tensor:
    if p is None or p >= 1:
        return probs
    if how == "unsorted":  # the cumulative sum taken in vocabulary order, never sorted
        kept = probs.masked_fill(probs.cumsum(-1) - probs >= p, 0.0)
        return kept / kept.sum(-1, keepdim=True)
    sp, order = torch.sort(probs, dim=-1, descending=True, stable=True)
    cum = sp.cumsum(-1)
    before = cum - sp
    if how == "drops_crossing":
        drop = cum > p
        drop[:, 0] = False
    elif how == "keeps_extra":  # the mass before the previous token: shifted right twice
        drop = torch.cat([torch.zeros_like(before[:, :1]), before[:, :-1]], -1) >= p
    elif how == "inverted":
        drop = before >= 1 - p
    else:
        drop = before >= p
    if how == "not_scattered":
        dropv = drop  # sorted-order mask applied to vocabulary order
    else:
        dropv = drop.scatter(-1, order, drop)
    kept = probs.masked_fill(dropv, 0.0)
    return kept / kept.sum(-1, keepdim=True)


def sampling_distribution(
    logits: Tensor,
    *,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    how: str = "correct",
) -> Tensor:
    """The (B, V) distribution ``sample_next_token`` draws from, correct or with one mistake."""
    x = logits.to(torch.promote_types(logits.dtype, torch.float32))
    if temperature == 0 or how == "argmax":
        return F.one_hot(x.argmax(-1), x.size(-1)).to(x.dtype)
    if how == "top_p_ignored":
        top_p = None
    k_used = top_k
    if how == "top_k_plus_one" and top_k is not None:
        k_used = top_k + 1
    if how == "top_k_minus_one" and top_k is not None:
        k_used = top_k - 1
    if how == "top_k_smallest" and top_k is not None and top_k < x.size(-1):
        k_used = x.size(-1) - top_k + 1  # the k-th smallest logit as the threshold
    p_how = {"drops_crossing": "drops_crossing", "not_scattered": "not_scattered",
             "inverted": "inverted", "unsorted": "unsorted",
             "keeps_extra": "keeps_extra"}.get(how, "correct")  # fmt: skip
    if how == "temperature_on_probabilities":
        probs = torch.softmax(_top_k(x, k_used), -1)
        return _top_p(probs, top_p)
    if how == "temperature_inverted":
        return _top_p(torch.softmax(_top_k(x * temperature, k_used), -1), top_p)
    if how == "temperature_last":
        probs = _top_p(torch.softmax(_top_k(x, k_used), -1), top_p)
        kept = probs > 0
        return torch.softmax(torch.where(kept, x / temperature, float("-inf")), -1)
    if how == "top_p_before_top_k":
        probs = _top_p(torch.softmax(x / temperature, -1), top_p)
        kept = probs > 0
        return torch.softmax(_top_k(torch.where(kept, x / temperature, float("-inf")), k_used), -1)
    if how in ("top_k_ties_low_ids", "top_k_ties_high_ids"):
        kept = _top_k_exactly(x / temperature, top_k, prefer_low_ids=how == "top_k_ties_low_ids")
        return _top_p(torch.softmax(kept, -1), top_p)
    return _top_p(torch.softmax(_top_k(x / temperature, k_used), -1), top_p, p_how)


SAMPLING_VARIANTS: dict[str, list[str]] = {
    "temperature_on_probabilities": ["temperature_on_probabilities"],
    "temperature_inverted": ["temperature_inverted"],
    "top_k_off_by_one": ["top_k_plus_one", "top_k_minus_one"],
    "top_k_ties_dropped": ["top_k_ties_low_ids", "top_k_ties_high_ids"],
    "argmax_instead_of_sampling": ["argmax"],
    "top_p_drops_crossing": ["drops_crossing"],
    "top_p_keeps_extra": ["keeps_extra"],
    "top_k_from_smallest": ["top_k_smallest"],
    "top_p_not_scattered": ["not_scattered"],
    "top_p_unsorted": ["unsorted"],
    "top_p_inverted": ["inverted"],
    "top_p_ignored": ["top_p_ignored"],
    "filter_order": ["temperature_last", "top_p_before_top_k"],
}
"""Misconception id -> the ``how`` values of ``sampling_distribution`` that model it."""
