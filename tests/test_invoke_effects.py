"""What `invoke` observes besides the value, and the exception class a worker reports.

`result_aliases` is how a test sees that a function returned its input (or a view of it)
where the contract asks for a new tensor; `StudentException.raised` is how `check_raises`
accepts a documented ValueError, also when the student raises a subclass of it."""

from __future__ import annotations

import torch

from grader.sandbox.errors import StudentException, _reply_error
from grader.sandbox.invoke import Effects, invoke
from grader.sandbox.worker import _error_reply


def test_result_aliases_name_the_inputs_the_result_shares_memory_with():
    x, y = torch.arange(6), torch.ones(3)
    assert invoke(lambda a, b: a, [x, y], {}).effects.result_aliases == ("args[0]",)
    assert invoke(lambda a, b: a.view(2, 3)[1], [x, y], {}).effects.result_aliases == ("args[0]",)
    nested = invoke(lambda a, *, b: [a.clone(), {"k": b}], [x], {"b": y}).effects
    assert nested.result_aliases == ("kwargs['b']",)
    assert invoke(lambda a, b: a.clone(), [x, y], {}).effects.result_aliases == ()
    assert invoke(lambda a, b: a + 0, [x, y], {}).effects.result_aliases == ()
    empty = torch.empty(0)
    assert invoke(lambda a: a, [empty], {}).effects.result_aliases == ()  # nothing to share


def test_result_aliases_survive_the_wire_and_are_validated():
    effects = Effects(result_aliases=("args[1]",))
    assert Effects.from_dict(effects.to_dict()).result_aliases == ("args[1]",)
    forged = {"result_aliases": ["args[0]", "__import__('os')", 7]}
    assert Effects.from_dict(forged).result_aliases == ("args[0]",)


def test_dropout_in_train_mode_is_seen_apart_from_global_rng_draws():
    """`model_forward_dropout`: a forward pass with a dropout layer (p > 0) in train mode. A
    global RNG draw in eval mode (sampling where greedy decoding is due) is not dropout."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.Dropout(0.5))
    x = torch.ones(2, 3)
    seen = invoke(lambda m, a: m(a), [model.train(), x], {}).effects
    assert seen.model_forward_dropout == {"args[0]": True} and seen.global_rng_changed

    def sample_in_eval(m, a):
        m.eval()
        return torch.multinomial(m(a).softmax(-1), 1)

    other = invoke(sample_in_eval, [model.train(), x], {}).effects
    assert other.model_forward_dropout == {"args[0]": False} and other.global_rng_changed
    assert Effects.from_dict(seen.to_dict()).model_forward_dropout == {"args[0]": True}
    off = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.Dropout(0.0)).train()
    assert invoke(lambda m, a: m(a), [off, x], {}).effects.model_forward_dropout == {
        "args[0]": False
    }  # p = 0 draws nothing and changes nothing


class _Invalid(ValueError):
    pass


def _raised(exc: BaseException) -> StudentException:
    try:
        raise exc
    except BaseException as caught:  # noqa: BLE001
        reply = _error_reply(caught, "calling f")
    err = _reply_error(reply, "f()")
    assert isinstance(err, StudentException)
    return err


def test_a_documented_exception_is_recognised_through_its_built_in_bases():
    assert _raised(ValueError("bad")).raised("ValueError")
    sub = _raised(_Invalid("bad"))
    assert sub.exc_type == "_Invalid" and sub.raised("ValueError") and sub.raised("Exception")
    other = _raised(RuntimeError("shape mismatch"))
    assert not other.raised("ValueError") and other.raised("RuntimeError")
    assert "RuntimeError: shape mismatch" in other.message


def test_forged_exception_lineage_is_cleaned_and_capped():
    reply = {"ok": False, "kind": "exception", "exc_type": "X\x1b[31m", "message": "m",
             "exc_bases": ["ValueError\x07", 3, *["E"] * 50]}  # fmt: skip
    err = _reply_error(reply, "f()")
    assert err.exc_type == "X" and err.raised("ValueError")
    assert len(err.exc_bases) <= 8 and all(type(b) is str for b in err.exc_bases)


def test_check_raises_through_the_sandbox_and_in_process():
    import pytest

    from grader.suite.checks import GradeFailure, check_raises

    def raising(exc):
        def call():
            raise exc

        return call

    check_raises(raising(_raised(_Invalid("bad"))), "ValueError", what="f(-1)")  # sandboxed
    check_raises(raising(_Invalid("bad")), "ValueError", what="f(-1)")  # in-process proxy
    with pytest.raises(StudentException, match="must raise ValueError.*raised RuntimeError"):
        check_raises(raising(_raised(RuntimeError("x"))), "ValueError", what="f(-1)")
    with pytest.raises(RuntimeError):
        check_raises(raising(RuntimeError("x")), "ValueError", what="f(-1)")
    with pytest.raises(GradeFailure, match="accepted it and returned"):
        check_raises(lambda: 3, "ValueError", what="f(-1)")
    at_import = _raised(ValueError("at import"))
    at_import.at_import = True
    with pytest.raises(StudentException, match="at import"):
        check_raises(raising(at_import), "ValueError", what="f(-1)")
