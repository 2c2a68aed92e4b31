"""The fast model paths (grader/sandbox/models.py templates, wire.py's encoded-model cache)
cannot change behaviour.

- a model built from a template is the model the constructor (+ load_state_dict) gives:
  same classes, attributes in the same order, parameters, flags; nothing is shared between
  two models or with the template, so a model mutated in one call is never seen in the next;
- build_trusted_model gives the constructor's weights, fresh objects every time, and leaves
  the global RNG alone;
- an encoded model is byte-identical to an uncached encoding, and every change to the model
  (in place, through ``.data``, a sign of zero, a NaN payload, a swapped parameter, its dtype,
  mode or config) is sent; the round trip is exact;
- a malformed spec is still refused with WireError, before and after a template exists;
- through a real worker: what student code does to the model it received is gone in the
  next call.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import replace

import pytest
import torch

from exercises.tinylm import TinyLM, TinyLMConfig
from grader import trusted_tinylm as trusted
from grader.sandbox import jail, models, wire
from grader.sandbox.client import SandboxSession, StudentCrash, Zygote
from grader.sandbox.limits import SandboxLimits
from grader.sandbox.models import STANDARD_CONFIGS, model_from_spec, model_to_spec
from grader.trusted_tinylm import build_trusted_model, trusted_attention, trusted_mask

CAUSAL = STANDARD_CONFIGS["causal"]
BIDI = STANDARD_CONFIGS["bidirectional"]
DROPOUT = replace(CAUSAL, dropout=0.3)
IDS = torch.tensor([[1, 2, 3, 4], [5, 6, 7, 8]])


# ----------------------------------------------------------------------------- helpers


def _bits(t: torch.Tensor) -> bytes:
    t = t.detach().contiguous()
    if t.device.type == "meta":
        return b"meta"
    return t.reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b""


def fingerprint(model: torch.nn.Module, *, versions: bool = True) -> list:
    """Everything observable about a model's structure and state, module by module."""
    out = []
    for name, module in model.named_modules(remove_duplicate=False):
        attrs = []
        for key, value in module.__dict__.items():
            if key == "_parameters":
                value = [
                    (
                        n,
                        None
                        if p is None
                        else (
                            type(p), p.dtype, tuple(p.shape), p.stride(), p.requires_grad,
                            p.is_leaf, p.grad, p.device, p.storage_offset(), _bits(p),
                            p._version if versions else None,
                            p.untyped_storage().nbytes(), p.__dict__,
                        ),
                    )
                    for n, p in value.items()
                ]  # fmt: skip
            elif key == "_modules":
                value = [(n, type(c)) for n, c in value.items()]
            elif isinstance(value, (dict, OrderedDict, set, list)):
                value = (type(value), list(value))
            else:
                value = (type(value), value)
            attrs.append((key, value))
        out.append((name, type(module), attrs))
    return out


def _storages(model: torch.nn.Module) -> set[int]:
    return {p.untyped_storage().data_ptr() for p in model.parameters()}


def _containers(model: torch.nn.Module) -> set[int]:
    return {
        id(v)
        for m in model.modules()
        for v in m.__dict__.values()
        if isinstance(v, (dict, OrderedDict, set, list))
    }


@pytest.fixture
def templates():
    """A fresh template cache, as a worker holds one (inherited warm from its zygote)."""
    return models.Templates()


def _slow_from_spec(header, tensors, **kw):
    """The constructor path (no templates): what the fast path must reproduce."""
    return model_from_spec(header, tensors, **kw)


def _reference_encode(value):
    """The encoding without the cache (a capped encode never uses it)."""
    return wire.encode(value, max_bytes=1 << 40)


# ----------------------------------------------------------------------------- models.py


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
@pytest.mark.parametrize("training", [False, True])
@pytest.mark.parametrize("config", [CAUSAL, BIDI, DROPOUT], ids=["causal", "bidi", "dropout"])
def test_a_template_copy_is_the_constructed_model(templates, config, training, dtype):
    source = build_trusted_model(config, 3).to(dtype).train(training)
    header, tensors = model_to_spec(source)
    slow = _slow_from_spec(header, tensors)
    for _ in range(2):  # the first call builds the template, the second only copies it
        fast = model_from_spec(header, tensors, templates=templates)
        assert templates.get(config) is not None
        assert fingerprint(fast) == fingerprint(slow)
        assert fast.config == config and fast.config is not source.config
        assert _storages(fast).isdisjoint(_storages(source) | _storages(slow))
        if not (training and config.dropout):
            assert torch.equal(fast(IDS), slow(IDS))


def test_template_copies_take_the_functions_they_are_given(templates):
    header, tensors = model_to_spec(build_trusted_model(CAUSAL, 3))

    def mask(a, t, c):
        return trusted_mask(a, t, c)

    def attention(q, k, v, m):
        return trusted_attention(q, k, v, m)

    slow = _slow_from_spec(header, tensors, mask_fn=mask, attention_fn=attention)
    fast = model_from_spec(header, tensors, mask_fn=mask, attention_fn=attention,
                           templates=templates)  # fmt: skip
    assert fast.mask_fn is mask and fast.attention_fn is attention
    assert fingerprint(fast) == fingerprint(slow)
    plain = model_from_spec(header, tensors, templates=templates)
    # what a worker rebuilds: the sandbox's own functions, never the trusted ones
    assert plain.mask_fn is models.sandbox_mask
    assert plain.attention_fn is models.sandbox_attention


def test_a_mutated_model_never_reaches_the_next_copy(templates):
    header, tensors = model_to_spec(build_trusted_model(CAUSAL, 3))
    pristine = fingerprint(model_from_spec(header, tensors, templates=templates))
    victim = model_from_spec(header, tensors, templates=templates)
    # everything student code could do to the object it received
    with torch.no_grad():
        for p in victim.parameters():
            p.add_(1.0)
    victim.lm_head.weight.data.mul_(3)
    victim.tok_emb.weight = torch.nn.Parameter(torch.zeros(24, 32))
    victim.blocks[0].attn.qkv.weight.requires_grad_(False)
    victim.blocks[0].attn.proj.weight.grad = torch.ones(32, 32)
    victim.eval()
    victim.blocks[1].train()
    victim.forward = lambda *a, **k: "patched"
    victim.blocks[0].mlp.secret = [1, 2, 3]
    victim.register_forward_hook(lambda *a: None)
    victim.register_buffer("extra", torch.ones(1))
    victim.blocks.append(torch.nn.Linear(2, 2))
    victim._forward_pre_hooks[99] = print
    victim.blocks[0].ln_1._non_persistent_buffers_set.add("x")
    victim.config = BIDI
    victim.seed = 42
    victim.drop.p = 0.9
    template = templates.get(CAUSAL)
    assert template is not None
    before = fingerprint(template.model)
    fresh = model_from_spec(header, tensors, templates=templates)
    assert fingerprint(fresh) == pristine
    assert fingerprint(template.model) == before
    assert fresh(IDS).shape == (2, 4, 24)
    assert _containers(fresh).isdisjoint(_containers(victim) | _containers(template.model))


def test_the_template_holds_no_weights(templates):
    model_from_spec(*model_to_spec(build_trusted_model(CAUSAL, 3)), templates=templates)
    template = templates.get(CAUSAL)
    assert all(p.device.type == "meta" for p in template.model.parameters())


def test_configs_equal_but_of_other_types_get_their_own_template(templates):
    header, tensors = model_to_spec(build_trusted_model(CAUSAL, 3))
    model_from_spec(header, tensors, templates=templates)  # the float one's template
    header = dict(header, config=dict(header["config"], dropout=0))  # int, not 0.0
    model = model_from_spec(header, tensors, templates=templates)
    assert type(model.drop.p) is int and type(model.config.dropout) is int
    assert len(templates) == 2
    assert fingerprint(model) == fingerprint(_slow_from_spec(header, tensors))


def test_a_model_the_copy_cannot_reproduce_takes_the_constructor_path(monkeypatch, templates):
    real = models._copyable
    monkeypatch.setattr(models, "_copyable", lambda model: False)
    header, tensors = model_to_spec(build_trusted_model(CAUSAL, 3))
    model = model_from_spec(header, tensors, templates=templates)
    assert templates.known(CAUSAL) and templates.get(CAUSAL) is None
    monkeypatch.setattr(models, "_copyable", real)
    assert fingerprint(model) == fingerprint(_slow_from_spec(header, tensors))
    # what _copyable refuses: a buffer, a shared module, a mutable attribute, a hook
    for spoil in (
        lambda m: m.register_buffer("b", torch.ones(1)),
        lambda m: setattr(m, "shared", m.blocks[0]),
        lambda m: setattr(m, "notes", bytearray(b"x")),
        lambda m: m.register_forward_hook(lambda *a: None),
        lambda m: setattr(m.blocks[1].ln_1, "weight", m.blocks[0].ln_1.weight),
    ):
        model = TinyLM(CAUSAL, seed=0)
        assert models._copyable(model)
        spoil(model)
        assert not models._copyable(model)


@pytest.mark.parametrize("config", [CAUSAL, DROPOUT], ids=["causal", "dropout"])
def test_build_trusted_model_is_the_constructor_every_time(monkeypatch, config):
    with monkeypatch.context() as m:
        m.setattr(trusted, "_weights_key", lambda config, seed: None)
        slow = build_trusted_model(config, 77)
    rng = torch.get_rng_state()
    built = [build_trusted_model(config, 77) for _ in range(3)]
    assert torch.equal(rng, torch.get_rng_state())  # the global RNG is untouched
    for model in built:
        assert fingerprint(model, versions=False) == fingerprint(slow, versions=False)
        assert model.seed == 77 and not model.training
    assert len(set.union(*(_storages(m) for m in built))) == 3 * len(list(slow.parameters()))
    with torch.no_grad():
        built[1].lm_head.weight.mul_(4.0)  # what the suites do to a built model
    assert fingerprint(build_trusted_model(config, 77), versions=False) == fingerprint(
        slow, versions=False
    )
    assert not torch.equal(build_trusted_model(config, 78).lm_head.weight, slow.lm_head.weight)


def test_build_trusted_model_follows_the_default_dtype():
    old = torch.get_default_dtype()
    try:
        torch.set_default_dtype(torch.float64)
        assert build_trusted_model(CAUSAL, 5).lm_head.weight.dtype == torch.float64
        assert build_trusted_model(CAUSAL, 5).lm_head.weight.dtype == torch.float64
    finally:
        torch.set_default_dtype(old)
    assert build_trusted_model(CAUSAL, 5).lm_head.weight.dtype == torch.float32


def test_under_a_device_context_models_are_built_by_the_constructor():
    build_trusted_model(CAUSAL, 5)
    with torch.device("meta"):
        model = build_trusted_model(CAUSAL, 5)
    assert model.lm_head.weight.device.type == "meta"


# ----------------------------------------------------------------------------- wire.py


def _wire_mutations():
    def in_place(m):
        with torch.no_grad():
            m.blocks[0].mlp.fc.weight[0, 0] += 1

    def through_data(m):  # does not bump _version
        m.blocks[1].attn.proj.weight.data[3, 4] = 123.0

    def negative_zero(m):  # 0.0 == -0.0 for torch.equal
        m.blocks[0].ln_1.bias.data[0] = -0.0

    def nan(m):
        with torch.no_grad():
            m.ln_f.bias[1] = math.nan

    def nan_payload(m):  # NaN != NaN for torch.equal: after `nan`, another NaN
        bits = m.ln_f.bias.data.view(torch.int32)
        bits[1] = bits[1] ^ 1

    def swap_parameter(m):
        m.ln_f.weight = torch.nn.Parameter(torch.full((32,), 2.0))

    def swap_data(m):  # same object, new storage, same version
        m.lm_head.weight.data = m.lm_head.weight.data * 2

    def dtype(m):
        m.double()

    def mode(m):
        m.train()

    def config(m):
        m.config = replace(m.config, dropout=0.25)

    def requires_grad(m):
        m.ln_f.weight.requires_grad_(False)  # not part of a spec: same encoding

    return [[in_place], [through_data], [negative_zero], [nan, nan_payload], [swap_parameter],
            [swap_data], [dtype], [mode], [config], [requires_grad]]  # fmt: skip


@pytest.mark.parametrize("steps", _wire_mutations(), ids=lambda s: s[-1].__name__)
def test_an_encoded_model_follows_every_change(steps):
    enc = wire.EncodedModels()  # the sender's cache (a Grader keeps one)
    model = build_trusted_model(CAUSAL, 9)
    value = {"args": [model, torch.arange(3)], "kwargs": {}}
    first = wire.encode(value, encoded=enc)
    assert first == _reference_encode(value)
    assert wire.encode(value, encoded=enc) == first  # a cache hit is the same bytes
    previous = first
    for step in steps:
        step(model)
        got = wire.encode(value, encoded=enc)
        assert got == _reference_encode(value)
        assert (got == previous) == (step.__name__ == "requires_grad")  # not in a spec
        assert wire.encode(value, encoded=enc) == got
        previous = got


def test_a_model_encoded_twice_in_one_value_gets_two_sets_of_buffers():
    enc = wire.EncodedModels()  # the sender's cache (a Grader keeps one)
    model = build_trusted_model(BIDI, 9)
    value = ((model, model), {"m": model})
    tree, buffers = wire.encode(value, encoded=enc)
    assert (tree, buffers) == _reference_encode(value)
    n = len(model.state_dict())
    assert len(buffers) == 3 * n
    out = wire.decode(tree, buffers)
    assert out[0][0] is not out[0][1] and out[0][0] is not out[1]["m"]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16])
def test_a_model_round_trips_exactly(dtype):
    enc = wire.EncodedModels()  # the sender's cache (a Grader keeps one)
    model = build_trusted_model(CAUSAL, 11).to(dtype).train()
    with torch.no_grad():
        model.ln_f.bias[0] = -0.0
        model.ln_f.bias[1] = math.nan
    for _ in range(2):
        tree, buffers = wire.encode([model], encoded=enc)
        (back,) = wire.decode(tree, buffers)
        assert type(back) is TinyLM and back.training and back.config == model.config
        got, want = back.state_dict(), model.state_dict()
        assert list(got) == list(want)
        assert all(_bits(got[k]) == _bits(want[k]) and got[k].dtype == dtype for k in got)


def test_the_encoded_model_cache_lets_models_die():
    enc = wire.EncodedModels()  # the sender's cache (a Grader keeps one)
    import gc

    model = build_trusted_model(CAUSAL, 13)
    wire.encode(model, encoded=enc)
    assert enc.get(model) is not None
    n = len(enc)
    del model
    gc.collect()
    assert len(enc) == n - 1


def test_a_capped_encode_never_uses_the_cache():
    enc = wire.EncodedModels()  # the sender's cache (a Grader keeps one)
    model = build_trusted_model(CAUSAL, 15)
    with pytest.raises(wire.WireError, match="results this large"):
        wire.encode(model, max_bytes=100, encoded=enc)
    assert enc.get(model) is None
    wire.encode(model, encoded=enc)
    with pytest.raises(wire.WireError, match="results this large"):
        wire.encode(model, max_bytes=100, encoded=enc)


@pytest.fixture
def kept_models():
    """This process plays the worker: the store its request loop owns, empty at first."""
    return wire.ModelStore(models.Templates())


def _model_node(tree):
    return tree["__tuple__"][0] if isinstance(tree, dict) and "__tuple__" in tree else tree


def test_a_worker_gets_a_model_once_then_a_reference(kept_models):
    enc = wire.EncodedModels()  # the sender's cache (a Grader keeps one)
    model = build_trusted_model(CAUSAL, 31).train()
    refs = wire.ModelRefs()
    tree, buffers = wire.encode(model, models=refs, encoded=enc)
    assert "tensors" in tree and type(tree["keep"]) is int and buffers
    first = wire.decode(tree, buffers, store=kept_models)
    assert len(kept_models) == 1 and kept_models.kept(tree["keep"]) is not None
    again, no_buffers = wire.encode(model.eval(), models=refs, encoded=enc)
    assert again == {"__model__": models.spec_header(model), "ref": tree["keep"]}
    assert no_buffers == []
    second = wire.decode(again, no_buffers, store=kept_models)
    with pytest.raises(wire.WireError, match="unknown model reference"):
        wire.decode(again, no_buffers)  # another worker (store) never got them
    assert fingerprint(second) == fingerprint(model_from_spec(*model_to_spec(model)))
    assert not second.training and first.training  # the mode travels with every send
    for got in (first, second):
        assert [_bits(p) for p in got.parameters()] == [_bits(p) for p in model.parameters()]
    kept = kept_models.kept(tree["keep"])
    kept_storages = {t.untyped_storage().data_ptr() for t in kept.values()}
    for got in (first, second):
        assert _storages(got).isdisjoint(kept_storages | _storages(model))
    assert _storages(first).isdisjoint(_storages(second))
    with torch.no_grad():  # changed weights are new weights: sent in full, kept anew
        model.ln_f.bias.data[0] += 1.0
    changed, changed_buffers = wire.encode(model, models=refs, encoded=enc)
    assert "tensors" in changed and changed["keep"] != tree["keep"] and changed_buffers
    back = wire.decode(changed, changed_buffers, store=kept_models)
    assert _bits(back.ln_f.bias) == _bits(model.ln_f.bias)


def test_a_worker_keeps_at_most_max_model_refs(kept_models):
    enc = wire.EncodedModels()  # the sender's cache (a Grader keeps one)
    refs = wire.ModelRefs()
    built = [build_trusted_model(CAUSAL, 100 + i) for i in range(wire.MAX_MODEL_REFS + 2)]
    for model in built:
        tree, buffers = wire.encode(model, models=refs, encoded=enc)
        wire.decode(tree, buffers, store=kept_models)
    assert len(refs.held) == len(kept_models) == wire.MAX_MODEL_REFS
    for model in built[-2:]:  # no room: sent in full every time, never referenced
        tree, buffers = wire.encode(model, models=refs, encoded=enc)
        assert "tensors" in tree and "keep" not in tree and "ref" not in tree
    tree, buffers = wire.encode(built[0], models=refs, encoded=enc)
    assert "tensors" not in tree and buffers == []


def test_an_unknown_model_reference_is_refused(kept_models):
    header = models.spec_header(build_trusted_model(CAUSAL, 3))
    for ref in (123456789, "1", None, True):
        with pytest.raises(wire.WireError):
            wire.decode({"__model__": header, "ref": ref}, [], store=kept_models)


def test_without_a_senders_cache_every_model_is_sent_in_full():
    model = build_trusted_model(CAUSAL, 41)
    refs = wire.ModelRefs()
    for _ in range(2):
        tree, buffers = wire.encode(model, models=refs)
        assert "tensors" in tree and "keep" not in tree and "ref" not in tree
        assert (tree, buffers) == _reference_encode(model)
    assert not refs.held


def test_each_sender_has_its_own_encoded_models():
    from grader.pipeline import GradeOptions, Grader
    from grader.sandbox.client import SandboxSession

    one, two = wire.EncodedModels(), wire.EncodedModels()
    model = build_trusted_model(CAUSAL, 43)
    first, _ = wire.encode(model, models=wire.ModelRefs(), encoded=one)
    wire.encode(model, models=wire.ModelRefs(), encoded=two)
    assert one.get(model) is not two.get(model) and len(one) == len(two) == 1
    assert first["keep"] == one.get(model).ref
    assert not [n for n, v in vars(wire).items() if isinstance(v, wire.EncodedModels)]
    a, b = Grader(GradeOptions()), Grader(GradeOptions())
    try:
        assert a._encoded is not b._encoded
    finally:
        a.close()
        b.close()
    assert SandboxSession(None, {}).encoded is not SandboxSession(None, {}).encoded


# ----------------------------------------------------------------------------- hostile specs


def _spec_tree(model=None):
    tree, buffers = wire.encode(model or build_trusted_model(CAUSAL, 3))
    return tree, buffers


def _malformed():
    def drop_tensor(tree, buffers):
        tree["tensors"].pop("ln_f.weight")

    def extra_tensor(tree, buffers):
        tree["tensors"]["ln_f.extra"] = dict(tree["tensors"]["ln_f.bias"])

    def wrong_shape(tree, buffers):
        node = tree["tensors"]["ln_f.bias"]
        node["shape"] = [16, 2]

    def mixed_dtypes(tree, buffers):
        node = tree["tensors"]["ln_f.bias"]
        buffers[node["__t__"]] = buffers[node["__t__"]] * 2
        node["dtype"] = "float64"

    def int_weights(tree, buffers):
        for node in tree["tensors"].values():
            node["dtype"] = "int32"

    def bad_format(tree, buffers):
        tree["__model__"]["format"] = "tinylm/2"

    def unknown_field(tree, buffers):
        tree["__model__"]["config"]["evil"] = 1

    def missing_field(tree, buffers):
        del tree["__model__"]["config"]["n_heads"]

    def bad_field(tree, buffers):
        tree["__model__"]["config"]["n_heads"] = 5  # 32 % 5 != 0

    def bool_field(tree, buffers):
        tree["__model__"]["config"]["n_layers"] = True

    def huge(tree, buffers):
        tree["__model__"]["config"]["d_model"] = 1 << 20

    def training_not_bool(tree, buffers):
        tree["__model__"]["training"] = 1

    def tensors_not_dict(tree, buffers):
        tree["tensors"] = []

    def short_buffer(tree, buffers):
        node = tree["tensors"]["lm_head.weight"]
        buffers[node["__t__"]] = buffers[node["__t__"]][:-4]

    return [drop_tensor, extra_tensor, wrong_shape, mixed_dtypes, int_weights, bad_format,
            unknown_field, missing_field, bad_field, bool_field, huge, training_not_bool,
            tensors_not_dict, short_buffer]  # fmt: skip


@pytest.mark.parametrize("warm", [False, True], ids=["cold", "warm"])
@pytest.mark.parametrize("spoil", _malformed(), ids=lambda f: f.__name__)
def test_a_malformed_spec_is_refused_with_wire_error(spoil, warm):
    store = wire.ModelStore(models.Templates().warm() if warm else models.Templates())
    tree, buffers = _spec_tree()
    spoil(tree, buffers)
    with pytest.raises(wire.WireError):
        wire.decode(tree, buffers, store=store)
    with pytest.raises(wire.WireError):
        wire.decode(tree, buffers, allow_models=False, store=store)
    # the same error as the constructor path gives
    with pytest.raises(wire.WireError) as slow:
        wire.decode(tree, buffers)
    with pytest.raises(wire.WireError) as fast:
        wire.decode(tree, buffers, store=store)
    assert str(fast.value) == str(slow.value)


def test_a_spec_message_is_the_same_on_both_paths(templates):
    header, tensors = model_to_spec(build_trusted_model(CAUSAL, 3))
    tensors["ln_f.bias"] = torch.zeros(31)
    assert templates.get(CAUSAL) is not None  # a template exists
    with pytest.raises(ValueError) as fast:
        model_from_spec(header, tensors, templates=templates)
    with pytest.raises(ValueError) as slow:
        model_from_spec(header, tensors)
    assert (
        str(fast.value)
        == str(slow.value)
        == ("model spec: ln_f.bias has shape (31,), expected (32,)")
    )


def test_the_template_cache_is_bounded():
    templates = models.Templates(limit=2)
    for vocab in (5, 6, 7, 8):
        config = TinyLMConfig(vocab_size=vocab, max_seq_len=4, d_model=4, n_heads=1,
                              n_layers=1, causal=True)  # fmt: skip
        header, tensors = model_to_spec(build_trusted_model(config, 1))
        assert fingerprint(model_from_spec(header, tensors, templates=templates)) == fingerprint(
            _slow_from_spec(header, tensors)
        )
    assert len(templates) == 2


# ----------------------------------------------------------------------------- a real worker

STUDENT = """
import torch
KEPT = []

def spoil(model):
    KEPT.append(model)
    with torch.no_grad():
        for p in model.parameters():
            p.mul_(-2.0)
    model.lm_head.weight.data.zero_()
    model.eval()
    model.secret = 1
    model.forward = lambda *a, **k: None
    model.register_forward_hook(lambda *a: None)
    model.blocks[0].attn.qkv.weight.requires_grad_(False)
    return 0

def look(model):
    return {
        "same_object": any(m is model for m in KEPT),
        "kept": len(KEPT),
        "params": [p.detach().clone() for p in model.parameters()],
        "training": [m.training for m in model.modules()],
        "secret": hasattr(model, "secret"),
        "patched": "forward" in model.__dict__,
        "hooks": len(model._forward_hooks),
        "grad": [p.requires_grad for p in model.parameters()],
        "logits": model(torch.tensor([[1, 2, 3]])),
    }
"""


def test_a_replaced_worker_gets_the_models_in_full_again():
    """The first worker kept the model's weights; a crash replaces it, and the new worker,
    which holds nothing, must not be sent a reference."""
    source = STUDENT + "\nimport os\n\ndef crash(model):\n    os._exit(1)\n"
    model = build_trusted_model(CAUSAL, 23)
    with torch.no_grad():
        want = model(torch.tensor([[1, 2, 3]]))
    limits = SandboxLimits()
    with Zygote(jail=jail.can_jail()) as z, SandboxSession(z, {"losses": source}, limits) as s:
        for _ in range(2):
            torch.testing.assert_close(s.call("losses", "look", (model,), {}).value["logits"],
                                       want)  # fmt: skip
        held = s._workers["losses"].models.held
        assert len(held) == 1
        with pytest.raises(StudentCrash):
            s.call("losses", "crash", (model,), {})
        got = s.call("losses", "look", (model,), {}).value
        torch.testing.assert_close(got["logits"], want)
        assert got["kept"] == 0  # a new process
        assert s._workers["losses"].models.held == held  # kept again, by the new worker


def test_what_student_code_does_to_a_model_is_gone_in_the_next_call():
    model = build_trusted_model(CAUSAL, 21).train()
    want = [p.detach().clone() for p in model.parameters()]
    with torch.no_grad():
        want_logits = model(torch.tensor([[1, 2, 3]]))
    limits = SandboxLimits()
    with Zygote(jail=jail.can_jail()) as z, SandboxSession(z, {"losses": STUDENT}, limits) as s:
        first = s.call("losses", "look", (model,), {}).value
        assert s.call("losses", "spoil", (model,), {}).value == 0
        after = s.call("losses", "look", (model,), {}).value
    for got in (first, after):
        assert [_bits(p) for p in got["params"]] == [_bits(p) for p in want]
        assert got["training"] == [True] * len(got["training"])
        assert not got["secret"] and not got["patched"] and got["hooks"] == 0
        assert all(got["grad"])
        assert not got["same_object"]
        torch.testing.assert_close(got["logits"], want_logits)
    assert after["kept"] == 1  # the worker kept the spoiled model: still not the one given
    assert model.training  # the trusted model itself was never touched by the worker


COUNTING = """
import exercises.tinylm as tinylm

BUILT = []
_init = tinylm.TinyLM.__init__

def _counting(self, *a, **k):
    BUILT.append(1)
    _init(self, *a, **k)

tinylm.TinyLM.__init__ = _counting

def built(model):
    return len(BUILT)
"""


def test_a_worker_builds_models_from_the_templates_its_zygote_warmed():
    """The zygote's `Templates` reach each worker's `ModelStore` (no module state): the
    standard models are structural copies, so TinyLM's constructor never runs in the worker,
    and a config it has no template for still goes through the constructor."""
    small = TinyLMConfig(vocab_size=7, max_seq_len=4, d_model=4, n_heads=1, n_layers=1,
                         causal=True)  # fmt: skip
    limits = SandboxLimits()
    with Zygote(jail=jail.can_jail()) as z, SandboxSession(z, {"losses": COUNTING}, limits) as s:
        for config in (CAUSAL, BIDI, DROPOUT, CAUSAL):
            assert s.call("losses", "built", (build_trusted_model(config, 5),), {}).value == 0
        # a config the zygote did not warm: its template is built by the constructor once
        assert s.call("losses", "built", (build_trusted_model(small, 5),), {}).value == 1
        assert s.call("losses", "built", (build_trusted_model(small, 6),), {}).value == 1
