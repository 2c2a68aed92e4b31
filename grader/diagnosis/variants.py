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

from collections.abc import Callable, Iterator
from typing import Any

import torch
from torch import Tensor

from grader.diagnosis import evidence, memo
from grader.diagnosis.variant_registry import (
    IGNORE,
    REGISTRY,
    NotApplicable,
    Variant,
    guarded,
    quiet_rng,
    same,
    variant,
    variants_for,
)
from grader.diagnosis.variants_generation import (
    SAMPLING_VARIANTS,
    gap,
    generate,
    sampling_distribution,
)
from grader.diagnosis.variants_losses import causal_loss, masked_loss
from grader.diagnosis.variants_masks import (
    ATTENTION_VARIANTS,
    CAUSAL_VARIANTS,
    MASK_BUILDERS,
    _build,
    attention,
    correct_attention,
    correct_causal,
    correct_padding,
)

__all__ = [  # the variants' public face: tests and diagnoses import these from here
    "ATTENTION_VARIANTS", "CAUSAL_VARIANTS", "IGNORE", "MASK_BUILDERS", "REGISTRY",
    "SAMPLING_VARIANTS", "NotApplicable", "Variant", "all_ids", "attention", "causal_loss",
    "correct_attention", "correct_causal", "correct_padding", "gap", "generate", "guarded",
    "masked_loss", "matching", "model_forward_matching", "model_variants", "same",
    "sampling_distribution", "variant", "variants_for", "_build",
]  # fmt: skip


def all_ids() -> set[str]:
    """Every misconception id a variant can name (for the catalogue consistency test)."""
    ids = {mid for vs in REGISTRY.values() for mid, _ in vs}
    return ids | set(SAMPLING_VARIANTS)


# ============================================================================ comparison


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
            with quiet_rng():
                return fn(*_copy(args), **_copy(kwargs))

        try:
            out = project(memo.output(key, (function, mid, i), run))
        except NotApplicable:  # the mistake is invisible here: this model gives the correct output
            like_correct.add(mid)
            continue
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
    model (keeps k+1 vs k-1 tokens) that this check cannot tell from the correct one. Where
    the output is wrong, an id whose models all give the correct output fits it no better."""
    if passed:
        return evaluated - set(found) - like_correct
    return (evaluated | like_correct) - set(found)


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
    from grader.trusted_tinylm import templates_in_use

    focus = evidence.focus()
    if focus is not None and not any(mid in focus for mid, _, _ in model_variants()):
        return evidence.Found()
    header, tensors = model_to_spec(model)
    # one rebuilt copy; its two functions are swapped
    copy = model_from_spec(header, tensors, templates=templates_in_use())
    found: list[str] = []
    evaluated: set[str] = set()
    like_correct: set[str] = set()
    key = memo.inputs_key("model_forward", header, tensors, input_ids, attention_mask)
    for i, (mid, mask_fn, attention_fn) in enumerate(model_variants()):
        if mid in found or (focus is not None and mid not in focus):
            continue

        def run(mask_fn=mask_fn, attention_fn=attention_fn):
            copy.mask_fn, copy.attention_fn = mask_fn, attention_fn
            with torch.no_grad(), quiet_rng():
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
