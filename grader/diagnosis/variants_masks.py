"""Part A variants: masks and attention (registered on import; see `grader.diagnosis.variants`)."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from typing import Any

import torch
from torch import Tensor

from grader.diagnosis.variant_registry import HALF, guarded, variant

# ============================================================================ Part A: masks


def _positions(q_len: int, k_len: int | None, device: Any = None) -> tuple[Tensor, Tensor, int]:
    k_len = q_len if k_len is None else k_len
    i = torch.arange(q_len, device=device)[:, None]
    j = torch.arange(k_len, device=device)[None, :]
    return i, j, k_len - q_len


CAUSAL_VARIANTS: dict[str, Callable[..., Tensor]] = {}


def _causal(mid: str) -> Callable[[Callable[..., Tensor]], Callable[..., Tensor]]:
    def deco(fn: Callable[..., Tensor]) -> Callable[..., Tensor]:
        CAUSAL_VARIANTS[f"{mid}:{fn.__name__}"] = fn
        return variant("masks.causal_mask", mid)(fn)

    return deco


def correct_causal(q_len: int, k_len: int | None = None, device: Any = None) -> Tensor:
    """The correct causal keep-mask (``masks.causal_mask``'s contract), the variants' baseline."""
    i, j, off = _positions(q_len, k_len, device)
    return j <= i + off


@_causal("triu_tril_swapped")
def _triu(q_len, k_len=None, device=None):
    i, j, off = _positions(q_len, k_len, device)
    return j >= i + off


@_causal("triu_tril_swapped")
def _triu_top_left(q_len, k_len=None, device=None):
    i, j, _ = _positions(q_len, k_len, device)
    return j >= i


@_causal("diagonal_excluded")
def _strict(q_len, k_len=None, device=None):
    i, j, off = _positions(q_len, k_len, device)
    return j < i + off


@_causal("diagonal_excluded")
def _strict_top_left(q_len, k_len=None, device=None):
    i, j, _ = _positions(q_len, k_len, device)
    return j < i


@_causal("mask_off_by_one_future")
def _plus_one(q_len, k_len=None, device=None):
    i, j, off = _positions(q_len, k_len, device)
    return j <= i + off + 1


@_causal("top_left_alignment")
def _top_left(q_len, k_len=None, device=None):
    i, j, _ = _positions(q_len, k_len, device)
    return j <= i


@_causal("kv_offset_sign_flipped")
def _offset_sign_flipped(q_len, k_len=None, device=None):
    i, j, off = _positions(q_len, k_len, device)
    return j <= i - off


@_causal("mask_polarity_flipped")
def _flipped(q_len, k_len=None, device=None):
    i, j, off = _positions(q_len, k_len, device)
    return j > i + off


PADDING_VARIANTS: dict[str, Callable[[Tensor], Tensor]] = {}


def _padding(mid: str) -> Callable[[Callable[[Tensor], Tensor]], Callable[[Tensor], Tensor]]:
    def deco(fn: Callable[[Tensor], Tensor]) -> Callable[[Tensor], Tensor]:
        PADDING_VARIANTS[mid] = fn
        return variant("masks.padding_mask", mid)(fn)

    return deco


def correct_padding(attention_mask: Tensor) -> Tensor:
    """The correct ``(B, 1, 1, T)`` key mask (``masks.padding_mask``), the variants' baseline."""
    return (attention_mask != 0)[:, None, None, :]


@_padding("padding_polarity_flipped")
def _pad_flipped(attention_mask):
    return (attention_mask == 0)[:, None, None, :]


@_padding("padding_applied_to_queries")
def _pad_queries(attention_mask):
    return (attention_mask != 0)[:, None, :, None]


def _build(attention_mask, seq_len, causal, *, cm=correct_causal, pm=correct_padding, op="and",
           causal_with_padding=True):  # fmt: skip
    if attention_mask is None:
        base = cm(seq_len) if causal else torch.ones(seq_len, seq_len, dtype=torch.bool)
        return base[None, None]
    keys = pm(attention_mask)
    if not causal or not causal_with_padding:
        return keys
    c = cm(seq_len, device=attention_mask.device)[None, None]
    return (keys | c) if op == "or" else (keys & c)


def _mask_builders() -> list[tuple[str, Callable[..., Tensor]]]:
    """(id, build_attention_mask-like function) for every mask mistake."""
    out: list[tuple[str, Callable[..., Tensor]]] = []
    for key, cm in CAUSAL_VARIANTS.items():
        out.append((key.split(":")[0], partial(_build, cm=cm)))
    for mid, pm in PADDING_VARIANTS.items():
        out.append((mid, partial(_build, pm=pm)))
    out.append(("mask_or_instead_of_and", partial(_build, op="or")))
    out.append(("causal_dropped_with_padding", partial(_build, causal_with_padding=False)))
    return out


MASK_BUILDERS = _mask_builders()
for _mid, _fn in MASK_BUILDERS:
    variant("masks.build_attention_mask", _mid)(_fn)


def _always(causal: bool) -> Callable[..., Tensor]:
    def build(attention_mask, seq_len, causal_flag):
        return _build(attention_mask, seq_len, causal)

    return build


variant("masks.build_attention_mask", "ignores_causal_flag")(_always(True))
variant("masks.build_attention_mask", "ignores_causal_flag")(_always(False))


def attention(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    mask: Tensor | None = None,
    *,
    scale: str = "sqrt_d",
    fill: str | float = "min",
    additive: bool = False,
    zero_after: bool = True,
    after_softmax: bool = False,
    dim: int = -1,
    upcast: bool = True,
    keep_where_false: bool = False,
    naive_softmax: bool = False,
    renormalise: bool = False,
) -> tuple[Tensor, Tensor]:
    """Attention with knobs: the defaults are correct; each knob models one mistake."""
    dtype = q.dtype
    compute = torch.float32 if (upcast and dtype in HALF) else dtype
    q, k, v = q.to(compute), k.to(compute), v.to(compute)
    D, Tq, Tk = q.size(-1), q.size(-2), k.size(-2)
    factor = {
        "sqrt_d": 1 / math.sqrt(D), "none": 1.0, "d": 1 / D, "sqrt_tk": 1 / math.sqrt(Tk),
        "sqrt_tq": 1 / math.sqrt(Tq), "times_sqrt_d": math.sqrt(D),
    }[scale]  # fmt: skip
    scores = (q @ k.transpose(-2, -1)) * factor
    if mask is not None:
        keep = mask.to(torch.bool)
        if keep_where_false:
            keep = ~keep
        keep = keep.expand_as(scores)
        if not after_softmax:
            value = {"min": torch.finfo(compute).min, "-inf": float("-inf"), "zero": 0.0,
                     "input_min": torch.finfo(dtype).min}.get(fill, fill)  # fmt: skip
            if additive:
                scores = scores + torch.where(keep, 0.0, float(value))
            else:
                scores = torch.where(keep, scores, torch.tensor(value, dtype=compute))
    if naive_softmax:
        e = torch.exp(scores)
        weights = e / e.sum(dim=dim, keepdim=True)
    else:
        weights = torch.softmax(scores, dim=dim)
    if mask is not None and (zero_after or after_softmax):
        weights = torch.where(keep, weights, 0.0)
    if mask is not None and renormalise:  # 0 / 0 on a row whose allowed weights are all 0
        weights = weights / weights.sum(dim=-1, keepdim=True)
    out = weights @ v
    return out.to(dtype), weights.to(dtype)


def correct_attention(
    q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None = None
) -> tuple[Tensor, Tensor]:
    """The correct ``(output, weights)`` (``masks.masked_attention``), the variants' baseline."""
    return attention(q, k, v, mask)


_ATTENTION_VARIANTS: list[tuple[str, dict[str, Any]]] = [
    ("missing_scale", {"scale": "none"}),
    ("wrong_scale", {"scale": "d"}),
    ("wrong_scale", {"scale": "sqrt_tk"}),
    ("wrong_scale", {"scale": "sqrt_tq"}),
    ("wrong_scale", {"scale": "times_sqrt_d"}),
    ("softmax_wrong_axis", {"dim": -2}),
    ("softmax_wrong_axis", {"dim": -2, "zero_after": False}),
    ("softmax_wrong_axis", {"dim": 1}),
    ("softmax_wrong_axis", {"dim": 0}),
    ("mask_after_softmax", {"after_softmax": True}),
    ("renormalised_after_softmax", {"after_softmax": True, "renormalise": True}),
    ("masked_scores_zero", {"fill": "zero"}),
    ("masked_scores_zero", {"fill": "zero", "zero_after": False}),
    ("nan_on_empty_rows", {"fill": "-inf"}),
    ("nan_on_empty_rows", {"fill": "-inf", "zero_after": False}),
    ("empty_row_not_zero", {"zero_after": False}),
    ("empty_row_not_zero", {"fill": -1e9, "zero_after": False}),
    ("weak_mask_constant", {"fill": -1e4, "zero_after": False}),
    ("weak_mask_constant", {"fill": -1e4}),
    ("weak_mask_constant", {"fill": -1e9}),
    ("weak_mask_constant", {"fill": -1e9, "zero_after": False, "additive": True}),
    ("weak_mask_constant", {"fill": -1e4, "zero_after": False, "additive": True}),
    ("weak_mask_constant", {"fill": -1e3, "zero_after": False}),
    ("half_precision_overflow", {"upcast": False}),
    ("half_precision_overflow", {"upcast": False, "zero_after": False}),
    ("attention_mask_inverted", {"keep_where_false": True}),
    ("unstable_softmax", {"naive_softmax": True}),
    # float32 scores of half inputs filled with finfo(float16).min = -65504: weak above 65504
    ("weak_mask_constant", {"fill": "input_min"}),
]


def _half_inputs(q, k, v, mask=None) -> bool:
    return q.dtype in HALF


def _large_scores(q, k, v, mask=None) -> bool:
    """A fill constant of -1e3..-1e9 only differs from a proper fill when scores are huge."""
    scores = (q.double() @ k.double().transpose(-2, -1)) / math.sqrt(q.size(-1))
    return bool(scores.abs().max() > 1e3)


def _exp_may_overflow(q, k, v, mask=None) -> bool:
    """exp(s) / sum(exp(s)) only differs from a softmax once exp overflows or underflows the
    compute dtype (|s| near 88 in float32, 709 in float64): half the limit, to be safe."""
    compute = torch.float32 if q.dtype in HALF else q.dtype
    scores = (q.double() @ k.double().transpose(-2, -1)) / math.sqrt(q.size(-1))
    return bool(scores.abs().max() > 0.5 * math.log(torch.finfo(compute).max))


_GUARDS: dict[str, Callable[..., bool]] = {
    "half_precision_overflow": _half_inputs,
    "weak_mask_constant": _large_scores,
    "unstable_softmax": _exp_may_overflow,
}
ATTENTION_VARIANTS: dict[str, Callable[..., tuple[Tensor, Tensor]]] = {}
for _i, (_mid, _kw) in enumerate(_ATTENTION_VARIANTS):
    _att = guarded(partial(attention, **_kw), _mid, _GUARDS.get(_mid))
    ATTENTION_VARIANTS[f"{_mid}:{_i}"] = _att
    variant("masks.masked_attention", _mid)(_att)
