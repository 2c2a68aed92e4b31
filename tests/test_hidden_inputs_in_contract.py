"""Every hidden-test input lies inside the contract the docstrings in exercises/ document
(issue 16): a student must never lose points on an input the handout excludes.

The reference is graded with each public function wrapped in a check of its documented
preconditions. An input outside them is allowed only where the contract names the error it
raises (the `contract_errors` tests); any other makes the wrapper raise, and that test errors.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.loading.model import Submission

ROOT = Path(__file__).resolve().parents[1]
PARTS = ("masks", "corruption", "losses", "generation")

_WRAPPER = """

import inspect as _inspect


class _OutsideContract(Exception):
    pass


def _require(cond, what):
    if not cond:
        raise _OutsideContract(what)


def _in_contract(fn, pre):
    sig = _inspect.signature(fn)

    def checked(*args, **kwargs):
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        try:
            pre(**bound.arguments)
        except _OutsideContract as exc:
            fn(*args, **kwargs)  # a documented error for this input is raised here: fine
            raise RuntimeError(f"INPUT OUTSIDE THE CONTRACT of {fn.__name__}: {exc}") from None
        return fn(*args, **kwargs)

    return checked


def _ints_in(t, lo, hi):
    return not t.is_floating_point() and t.dtype != torch.bool and (
        t.numel() == 0 or (int(t.min()) >= lo and int(t.max()) < hi))
"""

_CHECKS = {
    "masks": """
def _attention(q, k, v, mask):
    _require(q.dim() == k.dim() == v.dim() == 4, "q, k, v are 4-D")
    _require(q.is_floating_point() and k.dtype == q.dtype == v.dtype, "one float dtype")
    _require(k.shape[:2] == q.shape[:2] == v.shape[:2], "same B and H")
    _require(k.shape[-1] == q.shape[-1] == v.shape[-1], f"head size D: q {tuple(q.shape)}, "
             f"k {tuple(k.shape)}, v {tuple(v.shape)}")
    _require(v.shape[-2] == k.shape[-2], "v has Tk rows")
    if mask is not None:
        _require(mask.dtype == torch.bool, "bool mask")
        torch.broadcast_shapes(mask.shape, (*q.shape[:3], k.shape[2]))


def _padding(attention_mask):
    _require(attention_mask.dim() == 2 and not attention_mask.is_floating_point(), "(B, T) ints")


def _build(attention_mask, seq_len, causal):
    _require(isinstance(causal, bool), "causal is a bool")
    if attention_mask is not None:
        _require(tuple(attention_mask.shape)[1:] == (seq_len,), "length seq_len")
        _padding(attention_mask)


def _causal(q_len, k_len, device):
    _require(q_len >= 0 and (k_len is None or k_len >= 0), "lengths >= 0")


masked_attention = _in_contract(masked_attention, _attention)
padding_mask = _in_contract(padding_mask, _padding)
build_attention_mask = _in_contract(build_attention_mask, _build)
causal_mask = _in_contract(causal_mask, _causal)
""",
    "corruption": """
def _mask_tokens(input_ids, mask_token_id, vocab_size, special_token_ids, mlm_probability,
                 generator):
    _require(_ints_in(input_ids, 0, vocab_size), "ids are integers in [0, V)")
    _require(0 <= mask_token_id < vocab_size, "mask id in [0, V)")
    _require(all(0 <= int(s) < vocab_size for s in special_token_ids),
             f"special ids in [0, V): {list(special_token_ids)}, V={vocab_size}")
    _require(0.0 <= mlm_probability <= 1.0, "mlm_probability in [0, 1]")


mask_tokens = _in_contract(mask_tokens, _mask_tokens)
""",
    "losses": """
def _causal(logits, input_ids, attention_mask):
    _require(logits.dim() == 3 and logits.is_floating_point(), "(B, T, V) float logits")
    B, T, V = logits.shape
    _require(tuple(input_ids.shape) == (B, T) and _ints_in(input_ids, 0, V), "ids (B, T) in [0, V)")
    if attention_mask is not None:
        _require(tuple(attention_mask.shape) == (B, T), "attention_mask (B, T)")
        _require(bool(((attention_mask == 0) | (attention_mask == 1)).all()), "0/1 mask")


def _masked(logits, labels):
    _require(logits.dim() == 3 and logits.is_floating_point(), "(B, T, V) float logits")
    B, T, V = logits.shape
    _require(tuple(labels.shape) == (B, T), "labels (B, T)")
    _require(_ints_in(labels, -100, V) and bool(((labels == -100) | (labels >= 0)).all()),
             "labels: -100 or ids in [0, V)")


causal_lm_loss = _in_contract(causal_lm_loss, _causal)
masked_lm_loss = _in_contract(masked_lm_loss, _masked)
""",
    "generation": """
def _settings(temperature=1.0, top_k=None, top_p=None):
    _require(temperature >= 0, "temperature >= 0")
    _require(top_k is None or top_k >= 1, "top_k >= 1")
    _require(top_p is None or top_p > 0, "top_p > 0")


def _prompt(input_ids):
    _require(input_ids.dim() == 2 and input_ids.shape[1] >= 1, "(B, T0) prompt, T0 >= 1")
    _require(_ints_in(input_ids, 0, 2**62), "integer ids")


def _greedy(model, input_ids, max_new_tokens, eos_token_id):
    _prompt(input_ids)
    _require(max_new_tokens >= 0, "max_new_tokens >= 0")


def _sample_generate(model, input_ids, max_new_tokens, temperature, top_k, top_p,
                     eos_token_id, generator):
    _greedy(model, input_ids, max_new_tokens, eos_token_id)
    _settings(temperature, top_k, top_p)


def _next(logits, temperature, top_k, top_p, generator):
    _require(logits.dim() == 2 and logits.is_floating_point(), "(B, V) float logits")
    _settings(temperature, top_k, top_p)


def _gap(model, input_ids):
    _prompt(input_ids)
    _require(input_ids.shape[0] == 1 and input_ids.shape[1] <= model.max_seq_len, "(1, T)")


greedy_generate = _in_contract(greedy_generate, _greedy)
sample_generate = _in_contract(sample_generate, _sample_generate)
sample_next_token = _in_contract(sample_next_token, _next)
prefix_consistency_gap = _in_contract(prefix_consistency_gap, _gap)
""",
}


@pytest.fixture(scope="module")
def checked_report(shared_grader):
    sources = {}
    for m in PARTS:
        sources[m] = (ROOT / "solutions" / f"{m}.py").read_text(encoding="utf-8")
        sources[m] += _WRAPPER + _CHECKS[m]
    # the session's warm grader (tests/conftest.py): grade_written and grade_drill off
    return shared_grader.grade(
        Submission(name="checked", origin="tests", sources=sources, missing={})
    )


def test_every_hidden_input_is_inside_the_documented_contract(checked_report):
    r = checked_report
    assert not r.errors, r.errors
    outside = [f"{t.id}: {t.message.splitlines()[0][:300]}" for t in r.tests
               if t.status != "passed"]  # fmt: skip
    assert not outside, "\n".join(outside)
    assert r.score == r.max_score


def test_the_checks_see_a_violation():
    """The wrapper is not vacuous: an input outside the contract is reported."""
    namespace: dict = {}
    source = (ROOT / "solutions" / "masks.py").read_text(encoding="utf-8")
    exec(source + _WRAPPER + _CHECKS["masks"], namespace)  # noqa: S102 - our own code
    torch = namespace["torch"]

    q = k = torch.zeros(1, 1, 2, 2)
    with pytest.raises(RuntimeError, match="head size D"):
        namespace["masked_attention"](q, k, torch.zeros(1, 1, 2, 4))
    namespace["masked_attention"](q, k, torch.zeros(1, 1, 2, 2))
