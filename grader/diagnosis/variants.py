"""Trusted models of known mistakes: what a specific wrong implementation would return.

Diagnosis is by observed values, never by reading code: when a student's result is wrong, the
hidden test recomputes the same call with every *variant* registered for that function (each
one is a small trusted implementation of one misconception from ``catalogue.toml``) and names
the variants whose output matches what the student returned. A variant that agrees with the
correct answer on those inputs is skipped, since it cannot explain a difference.

Variants are plain functions with the signature of the function they model, registered with
``@variant("losses.causal_lm_loss", "forgot_shift")``. Several variants may share one id (two
common ways of making the same mistake). Sampling is diagnosed from distributions instead of
single draws: ``SAMPLING_VARIANTS`` maps an id to the probabilities the wrong filter gives.

Everything here runs in the trusted process on inputs the test built: no student code.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor

from grader.diagnosis import evidence, memo

IGNORE = -100
_HALF = (torch.float16, torch.bfloat16)

Variant = tuple[str, Callable[..., Any]]
REGISTRY: dict[str, list[Variant]] = {}


class NotApplicable(Exception):
    """Raised by a variant whose mistake cannot show on the given inputs."""


def variant(
    function: str, mid: str, *, applies: Callable[..., bool] | None = None
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register ``fn`` as a model of misconception ``mid`` for ``function`` ("module.name").

    ``applies(*args, **kwargs)`` (optional) says whether the mistake is observable on these
    inputs at all; when it is not, the variant is skipped instead of coinciding with another.
    """

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        REGISTRY.setdefault(function, []).append((mid, guarded(fn, mid, applies)))
        return fn

    return deco


def guarded(fn: Callable[..., Any], mid: str, applies: Callable[..., bool] | None):
    """``fn``, raising `NotApplicable` on inputs where ``applies`` says the mistake is invisible."""
    if applies is None:
        return fn

    def entry(*args: Any, **kwargs: Any) -> Any:
        if not applies(*args, **kwargs):
            raise NotApplicable(mid)
        return fn(*args, **kwargs)

    return entry


def variants_for(function: str) -> list[Variant]:
    return list(REGISTRY.get(function, ()))


def all_ids() -> set[str]:
    """Every misconception id a variant can name (for the catalogue consistency test)."""
    ids = {mid for vs in REGISTRY.values() for mid, _ in vs}
    return ids | set(SAMPLING_VARIANTS)


# ============================================================================ comparison


def same(a: Any, b: Any, *, rtol: float = 1e-5, atol: float = 1e-6) -> bool:
    """Equal in structure, shape and value (NaN == NaN, inf == inf; dtype not compared)."""
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        if tuple(a.shape) != tuple(b.shape):
            return False
        if a.numel() == 0:
            return True
        if not (a.is_floating_point() or b.is_floating_point()):
            return bool(torch.equal(a.long(), b.long()))
        x, y = a.detach().double(), b.detach().double()
        return bool(torch.isclose(x, y, rtol=rtol, atol=atol, equal_nan=True).all())
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        if len(a) != len(b):
            return False
        return all(same(x, y, rtol=rtol, atol=atol) for x, y in zip(a, b, strict=True))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=rtol, abs_tol=atol) or (a != a and b != b)
    return a is None and b is None


_copy = memo.copy_value


def matching(
    function: str,
    got: Any,
    args: tuple[Any, ...] = (),
    kwargs: dict[str, Any] | None = None,
    *,
    want: Any = None,
    project: Callable[[Any], Any] | None = None,
    rtol: float = 1e-5,
    atol: float = 1e-6,
    only: set[str] | None = None,
) -> evidence.Found:
    """Ids of the variants of ``function`` whose output on these inputs equals ``got`` (with
    the evidence: which models matched, which were evaluated and did not).

    ``want`` is the correct output: variants that also equal it are skipped. ``project`` maps an
    output to what is compared (e.g. broadcast a mask to a canonical shape). Inputs given as
    generators are copied, so pass a generator in the state the student's call started from.
    """
    project = project or (lambda x: x)
    kwargs = kwargs or {}
    try:
        g = project(got)
        w = None if want is None else project(want)
    except Exception:  # noqa: BLE001 - a student value that cannot even be projected
        return evidence.Found()
    focus = evidence.focus()
    if focus is not None:  # a deferred diagnosis: only the ids named elsewhere matter
        only = set(focus) if only is None else only & focus
    found: list[str] = []
    evaluated: set[str] = set()  # ids with a model that differs from the correct output here
    like_correct: set[str] = set()  # ids with a model that gives the correct output here
    key = memo.inputs_key(function, args, kwargs)
    for i, (mid, fn) in enumerate(variants_for(function)):
        if mid in found or (only is not None and mid not in only):
            continue

        def run(fn=fn):
            with _quiet_rng():
                return fn(*_copy(args), **_copy(kwargs))

        try:
            out = project(memo.output(key, (function, mid, i), run))
        except Exception:  # noqa: BLE001 - a variant that fails on these inputs explains nothing
            continue
        if w is not None and same(out, w, rtol=rtol, atol=atol):
            like_correct.add(mid)
            continue
        evaluated.add(mid)
        if same(g, out, rtol=rtol, atol=atol):
            found.append(mid)
    if w is None:  # without the correct output, a non-match proves nothing
        return evidence.Found(found)
    passed = same(g, w, rtol=rtol, atol=atol)
    return evidence.found(function, found, _refuted(evaluated, found, like_correct, passed))


def _refuted(evaluated: set[str], found: list[str], like_correct: set[str],
             passed: bool) -> set[str]:  # fmt: skip
    """The ids none of whose models fits the observation. A model that gives the correct
    output here fits a check that passed (and no failed one): the same id may have another
    model (keeps k+1 vs k-1 tokens) that this check cannot tell from the correct one."""
    return evaluated - set(found) - (like_correct if passed else set())


@contextmanager
def _quiet_rng() -> Iterator[None]:
    """Variants that model a global-RNG bug must not disturb the grader's own global RNG."""
    with torch.random.fork_rng(devices=[]):
        yield


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
) -> tuple[Tensor, Tensor]:
    """Attention with knobs: the defaults are correct; each knob models one mistake."""
    dtype = q.dtype
    compute = torch.float32 if (upcast and dtype in _HALF) else dtype
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
            value = {"min": torch.finfo(compute).min, "-inf": float("-inf"), "zero": 0.0}.get(
                fill, fill
            )
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
    out = weights @ v
    return out.to(dtype), weights.to(dtype)


def correct_attention(q, k, v, mask=None):
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
    ("mask_polarity_flipped", {"keep_where_false": True}),
    ("unstable_softmax", {"naive_softmax": True}),
]
def _half_inputs(q, k, v, mask=None) -> bool:
    return q.dtype in _HALF


def _large_scores(q, k, v, mask=None) -> bool:
    """A fill constant of -1e3..-1e9 only differs from a proper fill when scores are huge."""
    scores = (q.double() @ k.double().transpose(-2, -1)) / math.sqrt(q.size(-1))
    return bool(scores.abs().max() > 1e3)


_GUARDS: dict[str, Callable[..., bool]] = {
    "half_precision_overflow": _half_inputs,
    "weak_mask_constant": _large_scores,
    "unstable_softmax": _large_scores,
}
ATTENTION_VARIANTS: dict[str, Callable[..., tuple[Tensor, Tensor]]] = {}
for _i, (_mid, _kw) in enumerate(_ATTENTION_VARIANTS):
    _att = guarded(partial(attention, **_kw), _mid, _GUARDS.get(_mid))
    ATTENTION_VARIANTS[f"{_mid}:{_i}"] = _att
    variant("masks.masked_attention", _mid)(_att)


def model_variants() -> Iterator[tuple[str, Callable[..., Tensor], Callable[..., Any]]]:
    """(id, mask_fn, attention_fn) pairs: a TinyLM built on one wrong piece each."""
    for mid, build in MASK_BUILDERS:
        yield mid, build, correct_attention
    for key, fn in ATTENTION_VARIANTS.items():
        yield key.split(":")[0], _build, fn


def model_forward_matching(
    model: torch.nn.Module,
    input_ids: Tensor,
    attention_mask: Tensor | None,
    got: Tensor,
    *,
    want: Tensor | None = None,
    rtol: float = 1e-6,
    atol: float = 1e-8,
) -> evidence.Found:
    """Ids whose TinyLM (same weights, one wrong mask/attention piece) gives logits ``got``."""
    from grader.sandbox.models import model_from_spec, model_to_spec

    focus = evidence.focus()
    if focus is not None and not any(mid in focus for mid, _, _ in model_variants()):
        return evidence.Found()
    header, tensors = model_to_spec(model)
    copy = model_from_spec(header, tensors)  # one rebuilt copy; its two functions are swapped
    found: list[str] = []
    evaluated: set[str] = set()
    like_correct: set[str] = set()
    key = memo.inputs_key("model_forward", header, tensors, input_ids, attention_mask)
    for i, (mid, mask_fn, attention_fn) in enumerate(model_variants()):
        if mid in found or (focus is not None and mid not in focus):
            continue

        def run(mask_fn=mask_fn, attention_fn=attention_fn):
            copy.mask_fn, copy.attention_fn = mask_fn, attention_fn
            with torch.no_grad(), _quiet_rng():
                return copy(input_ids, attention_mask=attention_mask)

        try:
            out = memo.output(key, ("model_forward", mid, i), run)
        except Exception:  # noqa: BLE001
            continue
        if want is not None and same(out, want, rtol=rtol, atol=atol):
            like_correct.add(mid)
            continue
        evaluated.add(mid)
        if same(got, out, rtol=rtol, atol=atol):
            found.append(mid)
    if want is None:
        return evidence.Found(found)
    passed = same(got, want, rtol=rtol, atol=atol)
    return evidence.found("model_forward", found, _refuted(evaluated, found, like_correct, passed))


# ============================================================================ Part C: losses


def _ce_mean(logits: Tensor, targets: Tensor, *, reduce: str = "mean", transform: str = "none",
             per_row: Tensor | None = None) -> Tensor:  # fmt: skip
    """Cross-entropy of (N, V) logits vs (N,) targets (-100 ignored), with mistake knobs."""
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
    nll = torch.where(counted, nll, 0.0)
    n = counted.sum()
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


def causal_loss(logits, input_ids, attention_mask=None, *, shift: int = 1, side: str = "target",
                use_mask: bool = True, truncate: str = "", shifted_mask: bool = False,
                **ce: Any) -> Tensor:  # fmt: skip
    """``causal_lm_loss`` with knobs: shift 0/1/2 or -1 (wrong side), mask side, reduction.

    ``truncate`` ("last"/"first") with shift 0: no shift, but one position dropped as if shifted;
    ``shifted_mask``: the padding mask still read on the target side (``[:, 1:]``), as when only
    the targets line of a shifted loss was changed.
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
    if not use_mask:
        keep = torch.ones_like(keep)
    tg = torch.where(keep, tg, IGNORE)
    rows = torch.arange(B)[:, None].expand_as(tg).reshape(-1)
    return _ce_mean(lg.reshape(-1, V), tg.reshape(-1), per_row=rows, **ce)


def masked_loss(logits, labels, *, shift: int = 0, ignored_as: int | None = None,
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
]
_CAUSAL_LOSS: list[tuple[str, dict[str, Any]]] = [
    ("forgot_shift", {"shift": 0}),
    ("double_shift", {"shift": 2}),
    ("shifted_wrong_side", {"shift": -1}),
    ("averaged_over_padding", {"use_mask": False}),
    ("mask_from_wrong_side", {"side": "input"}),
    ("forgot_shift", {"shift": 0, "use_mask": False}),
    ("forgot_shift", {"shift": 0, "truncate": "last"}),
    ("forgot_shift", {"shift": 0, "truncate": "first"}),
    ("forgot_shift", {"shift": 0, "truncate": "last", "shifted_mask": True}),
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
    sp, order = torch.sort(probs, dim=-1, descending=True, stable=True)
    cum = sp.cumsum(-1)
    before = cum - sp
    if how == "drops_crossing":
        drop = cum > p
        drop[:, 0] = False
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
    p_how = {"drops_crossing": "drops_crossing", "not_scattered": "not_scattered",
             "inverted": "inverted"}.get(how, "correct")  # fmt: skip
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
    "top_p_not_scattered": ["not_scattered"],
    "top_p_inverted": ["inverted"],
    "top_p_ignored": ["top_p_ignored"],
    "filter_order": ["temperature_last", "top_p_before_top_k"],
}
"""Misconception id -> the ``how`` values of ``sampling_distribution`` that model it."""
