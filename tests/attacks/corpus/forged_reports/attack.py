# Appended to the reference losses.py: replace the worker's own reporting, so that every call
# claims no side effect and "a gradient reached the inputs" (zeros), while the losses below
# are disconnected from the graph (the classic .item() bug) and overwrite their logits.
import torch as _torch

import grader.sandbox.worker as _worker
from grader.sandbox.invoke import Effects as _Effects
from grader.sandbox.invoke import Invocation as _Invocation

_honest_invoke = _worker.invoke


def _forged_invoke(fn, args, kwargs, *, grad_wrt=(), grad_output=None):
    inv = _honest_invoke(fn, args, kwargs)  # nothing is ever backpropagated
    grads = []
    for key in grad_wrt:
        target = args[key] if isinstance(key, int) else kwargs[key]
        grads.append(_torch.zeros_like(target) if isinstance(target, _torch.Tensor) else None)
    return _Invocation(value=inv.value, grads=tuple(grads), effects=_Effects())


_worker.invoke = _forged_invoke

_reference_causal, _reference_masked = causal_lm_loss, masked_lm_loss  # noqa: F821


def causal_lm_loss(logits, input_ids, attention_mask=None):
    value = _reference_causal(logits.detach(), input_ids, attention_mask).detach().clone()
    logits.detach().fill_(0.0)  # the caller's logits are destroyed
    return value


def masked_lm_loss(logits, labels):
    value = _reference_masked(logits.detach(), labels).detach().clone()
    logits.detach().fill_(0.0)
    return value
