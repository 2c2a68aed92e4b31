"""The only format values cross the sandbox boundary in: safe to decode, never executable.

Frames (a length-prefixed JSON header plus raw buffers) are `grader.sandbox.framing`'s; this
module turns values into a header tree and buffers and back. Tensors travel as
``{"__t__": index, "dtype": "float32", "shape": [2, 3]}`` plus one raw little-endian buffer and
are rebuilt with ``torch.frombuffer`` from an allow-listed dtype after checking that the length
matches. Nothing is ever unpickled. Every decode is bounded: frame size, header size, nesting
depth and item count all have caps, and violating one raises :class:`WireError`.
"""

from __future__ import annotations

import itertools
import math
import weakref
from typing import Any

import torch

# The frame format and its caps live in `framing`; they are part of this module's interface.
from grader.sandbox.framing import (  # noqa: F401 - re-exported
    MAX_HEADER_BYTES,
    MAX_ITEMS,
    Limits,
    WireError,
    recv_frame,
    send_frame,
)

DTYPES: dict[str, torch.dtype] = {
    "bool": torch.bool,
    "uint8": torch.uint8,
    "int8": torch.int8,
    "int16": torch.int16,
    "int32": torch.int32,
    "int64": torch.int64,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "float32": torch.float32,
    "float64": torch.float64,
}
_DTYPE_NAMES = {v: k for k, v in DTYPES.items()}
_ITEMSIZE = {name: torch.empty((), dtype=dt).element_size() for name, dt in DTYPES.items()}

MAX_DEPTH = 16
MAX_DIMS = 8
MAX_DIM_SIZE = 1 << 40  # per dimension
# An empty tensor may not claim an absurd shape either: the product of its non-zero sizes is
# capped, so printing or walking it stays cheap (a (10^6, 10^6, 0) tensor costs no bytes).
MAX_EMPTY_SPAN = 1 << 16

# Bound once, at import: in the worker, student code runs later in the same process and may
# monkeypatch torch.Tensor methods, so the encoder never looks them up again.
_detach = torch.Tensor.detach
_contiguous = torch.Tensor.contiguous
_clone = torch.Tensor.clone
_stride = torch.Tensor.stride
_cpu = torch.Tensor.cpu
_as_subclass = torch.Tensor.as_subclass
_reshape = torch.Tensor.reshape
_view = torch.Tensor.view
_numpy = torch.Tensor.numpy
_numel = torch.Tensor.numel
_element_size = torch.Tensor.element_size
_equal = torch.equal
_CPU_GENERATOR_STATE_BYTES = torch.Generator().get_state().numel()


# ----------------------------------------------------------------------------- encoding


class ModelRefs:
    """The models one worker already holds, by reference (see `encode`'s `models`).

    Belongs to one worker connection: a replaced worker starts with a new, empty one.
    """

    __slots__ = ("held",)

    def __init__(self) -> None:
        self.held: set[int] = set()


#: How many models one worker keeps for later references (the hidden suite sends ~5).
MAX_MODEL_REFS = 16


def encode(
    value: Any,
    *,
    max_bytes: int | None = None,
    models: ModelRefs | None = None,
    encoded: EncodedModels | None = None,
) -> tuple[Any, list[bytes]]:
    """Turn a value into a JSON-able tree plus raw buffers. Raises WireError if unsupported.

    With `max_bytes`, tensor data beyond that total is refused *before* it is copied, so a
    huge result fails fast with a clear message instead of exhausting memory.

    With `models` (the receiving worker's `ModelRefs`), a TinyLM whose exact weights that
    worker already received is sent as a reference to them; the first send of a model asks
    the worker to keep its weights (up to MAX_MODEL_REFS). Either way the worker builds a
    new model object from private copies, so nothing a call does to its model reaches the
    next one. References need `encoded`, the sender's `EncodedModels`, which also saves
    encoding an unchanged model again; without it every model is encoded in full.
    """
    buffers: list[bytes] = []
    counter = [0, 0 if max_bytes is None else int(max_bytes)]
    tree = _enc(value, buffers, 0, counter, models, encoded)
    return tree, buffers


def _enc(
    value: Any,
    buffers: list[bytes],
    depth: int,
    counter: list[int],
    models: ModelRefs | None = None,
    cache: EncodedModels | None = None,
) -> Any:
    counter[0] += 1
    if depth > MAX_DEPTH or counter[0] > MAX_ITEMS:
        raise WireError("value is nested too deeply or has too many items to send")
    if isinstance(value, str) and len(value) > MAX_HEADER_BYTES // 4:
        raise WireError(f"a string of {len(value)} characters is too long to send")
    # Exact type checks: a subclass of int/str/tensor from student code is converted to the
    # plain base type here, so its overridden methods never reach the trusted side.
    if value is None or type(value) is bool:
        return value
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        f = float(value)
        if math.isfinite(f):
            return f
        return {"__f__": "nan" if math.isnan(f) else ("inf" if f > 0 else "-inf")}
    if isinstance(value, str):
        return str(value)
    if isinstance(value, torch.Tensor):
        return _enc_tensor(value, buffers, counter)
    if isinstance(value, torch.Generator):
        state = value.get_state()
        return {"__gen__": _enc_tensor(state, buffers, counter)}
    if isinstance(value, torch.nn.Module):
        return _enc_model(value, buffers, counter, models, cache)
    if isinstance(value, tuple):
        return {"__tuple__": [_enc(v, buffers, depth + 1, counter, models, cache) for v in value]}
    if isinstance(value, list):
        return [_enc(v, buffers, depth + 1, counter, models, cache) for v in value]
    if isinstance(value, dict):
        items = []
        for k, v in value.items():
            if not isinstance(k, str):
                raise WireError("only dicts with string keys can be sent")
            items.append([str(k), _enc(v, buffers, depth + 1, counter, models, cache)])
        return {"__dict__": items}
    if isinstance(value, torch.dtype):
        name = _DTYPE_NAMES.get(value)
        if name is None:
            raise WireError(f"dtype {value} is not supported")
        return {"__dtype__": name}
    raise WireError(f"a value of type {type(value).__name__} cannot be sent")


def _enc_tensor(t: torch.Tensor, buffers: list[bytes], counter: list[int]) -> dict[str, Any]:
    # A subclass (or an object whose __class__ lies) is reduced to a plain tensor first, so
    # none of its overridden methods run below.
    t = _as_subclass(_detach(t), torch.Tensor)
    if t.is_sparse or t.layout != torch.strided:
        raise WireError("sparse tensors are not supported")
    name = _DTYPE_NAMES.get(t.dtype)
    if name is None:
        raise WireError(f"tensors of dtype {t.dtype} are not supported")
    if len(t.shape) > MAX_DIMS:
        raise WireError(f"tensors with more than {MAX_DIMS} dimensions are not supported")
    if _numel(t) == 0 and math.prod(s for s in t.shape if s) > MAX_EMPTY_SPAN:
        raise WireError(f"an empty tensor of shape {tuple(t.shape)} is not accepted")
    nbytes = _numel(t) * _element_size(t)
    if counter[1]:
        counter[1] -= nbytes
        if counter[1] < 0:
            raise WireError(
                f"the result holds a tensor of shape {tuple(t.shape)} "
                f"({nbytes / 2**20:.1f} MB); results this large are not accepted"
            )
    plain = _contiguous(_cpu(t))
    if _numel(plain) == 1 and _stride(plain) != (1,) * plain.dim():
        # a one-element view (x[:, 0] of a (1, 2) tensor) counts as contiguous whatever its
        # stride, but reinterpreting its bytes needs the standard one
        plain = _clone(plain, memory_format=torch.contiguous_format)
    if _numel(plain):
        raw = _numpy(_view(_reshape(plain, (-1,)), torch.uint8)).tobytes()
    else:
        raw = b""
    buffers.append(raw)
    return {
        "__t__": len(buffers) - 1,
        "dtype": name,
        "shape": [int(s) for s in plain.shape],
        "rg": bool(t.requires_grad),
    }


# The trusted side sends the same few models again and again (~30 times per submission).
# Their encoded tensors are remembered per model object, with private copies of the values
# they were encoded from; a later encode of that object reuses the bytes only if its state
# dict still has the same names, dtypes, shapes and bit-identical values (a full comparison,
# not a version stamp: in-place changes through ``.data`` do not bump ``_version``). Anything
# else is encoded afresh. Only uncapped encodes (the trusted side's requests) use it, and only
# with an `EncodedModels` of the sender's (a `Grader` keeps one for all its submissions).
_BITS = {
    torch.float16: torch.int16,
    torch.bfloat16: torch.int16,
    torch.float32: torch.int32,
    torch.float64: torch.int64,
}


class EncodedModels:
    """The models one sender has encoded, for sending them again without encoding them again
    (see above): by model object, weakly, so a model that is gone takes its entry along. Each
    entry's `ref` is unique within this object, which is what a worker's `ModelRefs` refers
    to. Owned by the sender: a `Grader` keeps one for all its sessions; a `SandboxSession`
    given none makes its own."""

    __slots__ = ("_by_model", "_refs")

    def __init__(self) -> None:
        self._by_model: weakref.WeakKeyDictionary[torch.nn.Module, _EncodedModel] = (
            weakref.WeakKeyDictionary()
        )
        self._refs = itertools.count(1)

    def get(self, model: torch.nn.Module) -> _EncodedModel | None:
        return self._by_model.get(model)

    def put(self, model: torch.nn.Module, entry: _EncodedModel) -> None:
        self._by_model[model] = entry

    def next_ref(self) -> int:
        return next(self._refs)

    def __len__(self) -> int:
        return len(self._by_model)


class _EncodedModel:
    """A model's encoded tensors and the values they were encoded from (never handed out).

    `ref` names exactly these weights for `ModelRefs`: a changed model gets a new entry."""

    __slots__ = ("names", "values", "nodes", "raws", "ref")

    def __init__(self, names, values, nodes, raws, ref: int) -> None:
        self.names: list[str] = names
        self.values: list[torch.Tensor] = values
        self.nodes: list[tuple[str, list[int], bool]] = nodes  # dtype name, shape, rg
        self.raws: list[bytes] = raws
        self.ref = ref

    def matches(self, state: dict[str, Any]) -> bool:
        if len(state) != len(self.names):
            return False
        for (name, t), known, old in zip(state.items(), self.names, self.values, strict=True):
            # state_dict() gives plain detached tensors; anything else is encoded afresh
            if name != known or type(t) is not torch.Tensor or t.requires_grad:
                return False
            if (
                t.dtype != old.dtype
                or t.shape != old.shape
                or t.device != old.device
                or t.layout != torch.strided
            ):
                return False
            bits = _BITS.get(t.dtype)
            if bits is not None:  # bitwise: -0.0 vs 0.0 and NaN payloads count
                t, old = _view(t, bits), _view(old, bits)
            if not _equal(t, old):
                return False
        return True


def _enc_model(
    value: torch.nn.Module,
    buffers: list[bytes],
    counter: list[int],
    refs: ModelRefs | None,
    cache: EncodedModels | None,
) -> Any:
    from grader.sandbox import models

    if counter[1] or cache is None or type(value) is not models.TinyLM:
        header, tensors = models.model_to_spec(value)
        return {
            "__model__": header,
            "tensors": {k: _enc_tensor(t, buffers, counter) for k, t in tensors.items()},
        }
    header = models.spec_header(value)
    entry = cache.get(value)
    if entry is None or not entry.matches(value.state_dict()):
        _, tensors = models.model_to_spec(value)  # private copies: the cache keeps them
        raws: list[bytes] = []
        nodes = {k: _enc_tensor(t, raws, [0, 0]) for k, t in tensors.items()}
        entry = _EncodedModel(
            list(tensors),
            list(tensors.values()),
            [(n["dtype"], n["shape"], n["rg"]) for n in nodes.values()],
            raws,
            cache.next_ref(),
        )
        cache.put(value, entry)
    if refs is not None and entry.ref in refs.held:
        return {"__model__": header, "ref": entry.ref}
    out = {}
    for name, (dtype, shape, rg), raw in zip(entry.names, entry.nodes, entry.raws, strict=True):
        buffers.append(raw)
        out[name] = {"__t__": len(buffers) - 1, "dtype": dtype, "shape": list(shape), "rg": rg}
    node = {"__model__": header, "tensors": out}
    if refs is not None and len(refs.held) < MAX_MODEL_REFS:
        node["keep"] = entry.ref  # the worker keeps these weights under that number
        refs.held.add(entry.ref)
    return node


# ----------------------------------------------------------------------------- decoding


def decode(
    tree: Any, buffers: list[bytes], *, allow_models: bool = True, store: ModelStore | None = None
) -> Any:
    """Rebuild a value from `encode`'s output, validating everything.

    Any failure, whatever its cause, is raised as WireError: a hostile sender must not be able
    to raise an arbitrary exception type in the receiver. The trusted side decodes replies
    with ``allow_models=False``: a worker never needs to send a model back, so no model spec
    from student code is ever rebuilt (or allocated) on the trusted side. `store`: the
    receiving worker's `ModelStore` (the weights it keeps, the templates it builds from);
    without one, models are built by the constructor and none can be kept or referred to.
    """
    models = (store if store is not None else ModelStore()) if allow_models else None
    try:
        return _dec(tree, buffers, 0, [0], models)
    except WireError:
        raise
    except Exception as exc:  # noqa: BLE001 - normalise (RecursionError too), see docstring
        raise WireError(f"malformed value ({type(exc).__name__})") from None


def _dec(
    node: Any, buffers: list[bytes], depth: int, counter: list[int], models: ModelStore | None
) -> Any:
    counter[0] += 1
    if depth > MAX_DEPTH or counter[0] > MAX_ITEMS:
        raise WireError("value nested too deeply or too many items")
    if node is None or isinstance(node, (bool, int, float, str)):
        return node
    if isinstance(node, list):
        return [_dec(v, buffers, depth + 1, counter, models) for v in node]
    if not isinstance(node, dict) or len(node) == 0:
        raise WireError("malformed value")
    if "__t__" in node:
        return _dec_tensor(node, buffers)
    if "__tuple__" in node:
        return tuple(
            _dec(v, buffers, depth + 1, counter, models) for v in _as_list(node["__tuple__"])
        )
    if "__dict__" in node:
        out = {}
        for pair in _as_list(node["__dict__"]):
            if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str)):
                raise WireError("malformed dict")
            out[pair[0]] = _dec(pair[1], buffers, depth + 1, counter, models)
        return out
    if "__f__" in node:
        special = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}
        if node["__f__"] not in special:
            raise WireError("malformed float")
        return special[node["__f__"]]
    if "__gen__" in node:
        state = _dec_tensor(node["__gen__"], buffers)
        if (
            state.dtype != torch.uint8
            or state.dim() != 1
            or state.numel() != _CPU_GENERATOR_STATE_BYTES
        ):
            raise WireError("malformed generator state")
        gen = torch.Generator()
        gen.set_state(state)
        return gen
    if "__model__" in node:
        if models is None:
            raise WireError("a model cannot be sent in this direction")
        from grader.sandbox.models import model_from_spec

        tensors, keep = _dec_model_tensors(node, buffers, models)
        # validates; builds from copies
        model = model_from_spec(node["__model__"], tensors, templates=models.templates)
        if keep is not None:
            models.keep(keep, tensors)
        return model
    if "__dtype__" in node:
        if node["__dtype__"] not in DTYPES:
            raise WireError("unknown dtype")
        return DTYPES[node["__dtype__"]]
    raise WireError("malformed value")


class ModelStore:
    """A worker's models across its calls, owned by its request loop (`worker.serve`): the
    weights the trusted side asked it to keep (`encode`'s `models`), by number, up to
    MAX_MODEL_REFS, and the `models.Templates` its models are built from (None: by the
    constructor). Kept weights are only ever read to build new models from copies
    (`model_from_spec` clones what it is given)."""

    __slots__ = ("_kept", "templates")

    def __init__(self, templates: Any = None) -> None:
        self._kept: dict[int, dict[str, torch.Tensor]] = {}
        self.templates = templates

    def kept(self, ref: Any) -> dict[str, torch.Tensor] | None:
        return self._kept.get(ref) if type(ref) is int else None

    def keep(self, ref: int, tensors: dict[str, torch.Tensor]) -> None:
        if len(self._kept) < MAX_MODEL_REFS:
            self._kept[ref] = tensors

    def __len__(self) -> int:
        return len(self._kept)


def _dec_model_tensors(
    node: dict[str, Any], buffers: list[bytes], models: ModelStore
) -> tuple[dict[str, torch.Tensor], int | None]:
    """A model node's weights (sent, or kept earlier) and the number to keep them under."""
    tensors = node.get("tensors")
    if tensors is None:
        kept = models.kept(node.get("ref"))
        if kept is None:
            raise WireError("unknown model reference")
        return kept, None
    if not isinstance(tensors, dict):
        raise WireError("malformed model")
    keep = node.get("keep")
    decoded = {str(k): _dec_tensor(v, buffers) for k, v in tensors.items()}
    return decoded, keep if type(keep) is int else None


def _as_list(x: Any) -> list[Any]:
    if not isinstance(x, list):
        raise WireError("malformed value")
    return x


def _dec_tensor(node: Any, buffers: list[bytes]) -> torch.Tensor:
    if not isinstance(node, dict):
        raise WireError("malformed tensor")
    idx, name, shape = node.get("__t__"), node.get("dtype"), node.get("shape")
    if not (isinstance(idx, int) and 0 <= idx < len(buffers)):
        raise WireError("tensor refers to a missing buffer")
    if name not in DTYPES:
        raise WireError(f"tensor dtype {name!r} is not allowed")
    if not (
        isinstance(shape, list)
        and len(shape) <= MAX_DIMS
        and all(
            isinstance(s, int) and not isinstance(s, bool) and 0 <= s <= MAX_DIM_SIZE for s in shape
        )
    ):
        raise WireError("malformed tensor shape")
    numel = math.prod(shape)
    if numel == 0 and math.prod(s for s in shape if s) > MAX_EMPTY_SPAN:
        raise WireError(f"an empty tensor of shape {tuple(shape)} is not accepted")
    raw = buffers[idx]
    if len(raw) != numel * _ITEMSIZE[name]:
        raise WireError("tensor byte length does not match its shape")
    dtype = DTYPES[name]
    if numel == 0:
        t = torch.empty(shape, dtype=dtype)
    else:
        t = torch.frombuffer(bytearray(raw), dtype=torch.uint8).view(dtype).reshape(shape)
    if node.get("rg") is True and t.is_floating_point():
        t.requires_grad_(True)
    return t
