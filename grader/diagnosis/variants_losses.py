"""Part C variants: the two losses (registered on import; see `grader.diagnosis.variants`)."""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor

from grader.diagnosis.variant_registry import IGNORE, variant

# ============================================================================ Part C: losses


def _ce_mean(logits: Tensor, targets: Tensor, *, reduce: str = "mean", transform: str = "none",
             per_row: Tensor | None = None, smoothing: float = 0.0,
             denominator: Tensor | None = None) -> Tensor:  # fmt: skip
    """Cross-entropy of (N, V) logits vs (N,) targets (-100 ignored), with mistake knobs
    (``smoothing``: F.cross_entropy's label_smoothing; ``denominator``: the count divided by
    instead of the counted targets)."""
    logits = logits.to(torch.promote_types(logits.dtype, torch.float32))
    counted = targets != IGNORE
    safe = torch.where(counted, targets, 0)
    if transform == "softmax":
        logp = F.log_softmax(torch.softmax(logits, -1), -1)
    elif transform == "log_of_softmax":
        logp = torch.log(torch.softmax(logits, -1))
    elif transform == "naive_exp":
        e = torch.exp(logits)
        logp = torch.log(e / e.sum(-1, keepdim=True))
    else:
        logp = F.log_softmax(logits, -1)
    nll = -logp.gather(-1, safe[:, None]).squeeze(-1)
    if smoothing:
        nll = (1 - smoothing) * nll - smoothing * logp.mean(-1)
    nll = torch.where(counted, nll, 0.0)
    n = counted.sum()
    if denominator is not None:
        return nll.sum() / denominator if n > 0 else logits.sum() * 0.0
    if reduce == "sum":
        return nll.sum()
    if reduce == "nan_mean":
        return nll.sum() / n
    if reduce == "all_positions":
        return nll.sum() / max(targets.numel(), 1)
    if reduce == "per_row" and per_row is not None:
        rows = per_row.unique()
        means = []
        for r in rows:
            sel = (per_row == r) & counted
            if sel.any():
                means.append(nll[sel].sum() / sel.sum())
        return torch.stack(means).mean() if means else logits.sum() * 0.0
    return nll.sum() / n if n > 0 else logits.sum() * 0.0


def causal_loss(logits: Tensor, input_ids: Tensor, attention_mask: Tensor | None = None, *,
                shift: int = 1, side: str = "target",
                use_mask: bool = True, truncate: str = "", shifted_mask: bool = False,
                padding_as: int | None = None, **ce: Any) -> Tensor:  # fmt: skip
    """``causal_lm_loss`` with knobs: shift 0/1/2 or -1 (wrong side), mask side, reduction.

    ``truncate`` ("last"/"first") with shift 0: no shift, but one position dropped as if shifted;
    ``shifted_mask``: the padding mask still read on the target side (``[:, 1:]``), as when only
    the targets line of a shifted loss was changed; ``padding_as``: padding targets replaced by
    this id and still counted (``targets * mask``).
    """
    B, T, V = logits.shape
    ids = input_ids.long()
    real = torch.ones(B, T, dtype=torch.bool) if attention_mask is None else attention_mask != 0
    if shift == 0 and truncate:
        cut = slice(None, -1) if truncate == "last" else slice(1, None)
        lg, tg, keep = logits[:, cut], ids[:, cut], real[:, cut]
        if shifted_mask:
            keep = real[:, 1:]
    elif shift == 0:
        lg, tg, keep = logits, ids, real
    elif shift > 0:
        lg, tg = logits[:, :-shift], ids[:, shift:]
        keep = real[:, shift:] if side == "target" else real[:, :-shift]
    else:  # wrong side: logits at t+1 scored against token t
        lg, tg, keep = logits[:, 1:], ids[:, :-1], real[:, :-1]
    if padding_as is not None:
        tg = torch.where(keep, tg, padding_as)
    if not use_mask or padding_as is not None:
        keep = torch.ones_like(keep)
    if ce.pop("count_every_real_token", False):  # attention_mask.sum(): the first token too
        ce["denominator"] = real.sum()
    tg = torch.where(keep, tg, IGNORE)
    rows = torch.arange(B)[:, None].expand_as(tg).reshape(-1)
    return _ce_mean(lg.reshape(-1, V), tg.reshape(-1), per_row=rows, **ce)


def masked_loss(logits: Tensor, labels: Tensor, *, shift: int = 0, ignored_as: int | None = None,
                **ce: Any) -> Tensor:  # fmt: skip
    """``masked_lm_loss`` with knobs; ``ignored_as``: the -100 slots scored as this id."""
    B, T, V = logits.shape
    if ignored_as is not None:
        labels = torch.where(labels == IGNORE, ignored_as, labels)
    lg, tg = (logits[:, :-1], labels[:, 1:]) if shift else (logits, labels)
    rows = torch.arange(B)[:, None].expand(B, tg.shape[1]).reshape(-1)
    return _ce_mean(lg.reshape(-1, V), tg.reshape(-1).long(), per_row=rows, **ce)


_COMMON_LOSS: list[tuple[str, dict[str, Any]]] = [
    ("per_sequence_mean", {"reduce": "per_row"}),
    ("sum_not_mean", {"reduce": "sum"}),
    ("softmax_before_ce", {"transform": "softmax"}),
    ("unstable_log_softmax", {"transform": "log_of_softmax"}),
    ("unstable_log_softmax", {"transform": "naive_exp"}),
    ("nan_on_empty_loss", {"reduce": "nan_mean"}),
    ("label_smoothing", {"smoothing": 0.1}),
]
_CAUSAL_LOSS: list[tuple[str, dict[str, Any]]] = [
    ("forgot_shift", {"shift": 0}),
    ("double_shift", {"shift": 2}),
    ("shifted_wrong_side", {"shift": -1}),
    ("averaged_over_padding", {"use_mask": False}),
    ("averaged_over_padding", {"padding_as": 0}),
    ("mask_from_wrong_side", {"side": "input"}),
    ("forgot_shift", {"shift": 0, "use_mask": False}),
    ("forgot_shift", {"shift": 0, "truncate": "last"}),
    ("forgot_shift", {"shift": 0, "truncate": "first"}),
    ("forgot_shift", {"shift": 0, "truncate": "last", "shifted_mask": True}),
    ("count_includes_first_token", {"count_every_real_token": True}),
    ("mean_over_all_positions", {"reduce": "all_positions"}),
    *_COMMON_LOSS,
]
for _mid, _kw in _CAUSAL_LOSS:
    variant("losses.causal_lm_loss", _mid)(
        lambda logits, input_ids, attention_mask=None, _kw=_kw: causal_loss(
            logits, input_ids, attention_mask, **_kw
        )
    )
_MASKED_LOSS: list[tuple[str, dict[str, Any]]] = [
    ("mlm_shifted", {"shift": 1}),
    ("mean_over_all_positions", {"reduce": "all_positions"}),
    ("mlm_pad_slots_counted", {"ignored_as": 0}),
    *_COMMON_LOSS,
]
for _mid, _kw in _MASKED_LOSS:
    variant("losses.masked_lm_loss", _mid)(
        lambda logits, labels, _kw=_kw: masked_loss(logits, labels, **_kw)
    )
