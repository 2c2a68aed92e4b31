"""The only format values cross the sandbox boundary in: safe to decode, never executable.

A frame is a 4-byte big-endian header length, a UTF-8 JSON header, then raw buffers whose byte
lengths the header lists under ``"_buffers"``. Tensors travel as
``{"__t__": index, "dtype": "float32", "shape": [2, 3]}`` plus one raw little-endian buffer and
are rebuilt with ``torch.frombuffer`` from an allow-listed dtype after checking that the length
matches. Nothing is ever unpickled. Every decode is bounded: frame size, header size, nesting
depth and item count all have caps, and violating one raises :class:`WireError`.
"""

from __future__ import annotations

import json
import math
import socket
import struct
import time
from dataclasses import dataclass
from typing import Any

import torch

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
MAX_ITEMS = 100_000
MAX_HEADER_BYTES = 4 * 1024 * 1024
MAX_DIMS = 8


class WireError(Exception):
    """A frame or value that does not follow the wire format (or exceeds a cap)."""


@dataclass(frozen=True)
class Limits:
    """Caps applied when *receiving*; the sender is assumed hostile."""

    max_frame_bytes: int = 64 * 1024 * 1024


# ----------------------------------------------------------------------------- encoding


def encode(value: Any) -> tuple[Any, list[bytes]]:
    """Turn a value into a JSON-able tree plus raw buffers. Raises WireError if unsupported."""
    buffers: list[bytes] = []
    counter = [0]
    tree = _enc(value, buffers, 0, counter)
    return tree, buffers


def _enc(value: Any, buffers: list[bytes], depth: int, counter: list[int]) -> Any:
    counter[0] += 1
    if depth > MAX_DEPTH or counter[0] > MAX_ITEMS:
        raise WireError("value is nested too deeply or has too many items to send")
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
        return _enc_tensor(value, buffers)
    if isinstance(value, torch.Generator):
        state = value.get_state()
        return {"__gen__": _enc_tensor(state, buffers)}
    if isinstance(value, torch.nn.Module):
        from grader.sandbox.models import model_to_spec

        header, tensors = model_to_spec(value)
        return {
            "__model__": header,
            "tensors": {k: _enc_tensor(t, buffers) for k, t in tensors.items()},
        }
    if isinstance(value, tuple):
        return {"__tuple__": [_enc(v, buffers, depth + 1, counter) for v in value]}
    if isinstance(value, list):
        return [_enc(v, buffers, depth + 1, counter) for v in value]
    if isinstance(value, dict):
        items = []
        for k, v in value.items():
            if not isinstance(k, str):
                raise WireError("only dicts with string keys can be sent")
            items.append([str(k), _enc(v, buffers, depth + 1, counter)])
        return {"__dict__": items}
    if isinstance(value, torch.dtype):
        name = _DTYPE_NAMES.get(value)
        if name is None:
            raise WireError(f"dtype {value} is not supported")
        return {"__dtype__": name}
    raise WireError(f"a value of type {type(value).__name__} cannot be sent")


def _enc_tensor(t: torch.Tensor, buffers: list[bytes]) -> dict[str, Any]:
    t = torch.Tensor.detach(t)
    if t.is_sparse or t.layout != torch.strided:
        raise WireError("sparse tensors are not supported")
    name = _DTYPE_NAMES.get(t.dtype)
    if name is None:
        raise WireError(f"tensors of dtype {t.dtype} are not supported")
    plain = torch.Tensor.contiguous(torch.Tensor.cpu(t)).as_subclass(torch.Tensor)
    if plain.numel():
        raw = plain.reshape(-1).view(torch.uint8).numpy().tobytes()
    else:
        raw = b""
    buffers.append(raw)
    return {
        "__t__": len(buffers) - 1,
        "dtype": name,
        "shape": [int(s) for s in plain.shape],
        "rg": bool(t.requires_grad),
    }


# ----------------------------------------------------------------------------- decoding


def decode(tree: Any, buffers: list[bytes]) -> Any:
    """Rebuild a value from `encode`'s output, validating everything."""
    return _dec(tree, buffers, 0, [0])


def _dec(node: Any, buffers: list[bytes], depth: int, counter: list[int]) -> Any:
    counter[0] += 1
    if depth > MAX_DEPTH or counter[0] > MAX_ITEMS:
        raise WireError("value nested too deeply or too many items")
    if node is None or isinstance(node, (bool, int, float, str)):
        return node
    if isinstance(node, list):
        return [_dec(v, buffers, depth + 1, counter) for v in node]
    if not isinstance(node, dict) or len(node) == 0:
        raise WireError("malformed value")
    if "__t__" in node:
        return _dec_tensor(node, buffers)
    if "__tuple__" in node:
        return tuple(_dec(v, buffers, depth + 1, counter) for v in _as_list(node["__tuple__"]))
    if "__dict__" in node:
        out = {}
        for pair in _as_list(node["__dict__"]):
            if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str)):
                raise WireError("malformed dict")
            out[pair[0]] = _dec(pair[1], buffers, depth + 1, counter)
        return out
    if "__f__" in node:
        special = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}
        if node["__f__"] not in special:
            raise WireError("malformed float")
        return special[node["__f__"]]
    if "__gen__" in node:
        state = _dec_tensor(node["__gen__"], buffers)
        if state.dtype != torch.uint8 or state.dim() != 1:
            raise WireError("malformed generator state")
        gen = torch.Generator()
        gen.set_state(state)
        return gen
    if "__model__" in node:
        from grader.sandbox.models import model_from_spec

        tensors = node.get("tensors")
        if not isinstance(tensors, dict):
            raise WireError("malformed model")
        return model_from_spec(
            node["__model__"], {str(k): _dec_tensor(v, buffers) for k, v in tensors.items()}
        )
    if "__dtype__" in node:
        if node["__dtype__"] not in DTYPES:
            raise WireError("unknown dtype")
        return DTYPES[node["__dtype__"]]
    raise WireError("malformed value")


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
        and all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in shape)
    ):
        raise WireError("malformed tensor shape")
    numel = math.prod(shape)
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


# ----------------------------------------------------------------------------- framing


def send_frame(sock: socket.socket, header: dict[str, Any], buffers: list[bytes] = ()) -> None:
    """Write one frame. The header must be JSON-able; buffers are raw bytes."""
    header = dict(header)
    header["_buffers"] = [len(b) for b in buffers]
    data = json.dumps(header, separators=(",", ":")).encode()
    sock.sendall(struct.pack(">I", len(data)) + data)
    for b in buffers:
        if b:
            sock.sendall(b)


def recv_frame(
    sock: socket.socket, limits: Limits, deadline: float | None = None
) -> tuple[dict[str, Any], list[bytes]]:
    """Read one frame, enforcing the caps and the deadline (time.monotonic() based).

    Raises TimeoutError when the deadline passes, EOFError when the peer closed,
    WireError on a malformed or oversized frame.
    """
    (hlen,) = struct.unpack(">I", _recv_exact(sock, 4, deadline))
    if hlen > min(MAX_HEADER_BYTES, limits.max_frame_bytes):
        raise WireError("frame header too large")
    try:
        header = json.loads(_recv_exact(sock, hlen, deadline))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise WireError("frame header is not JSON") from exc
    if not isinstance(header, dict):
        raise WireError("frame header is not an object")
    sizes = header.pop("_buffers", [])
    if not (isinstance(sizes, list) and all(isinstance(s, int) and s >= 0 for s in sizes)):
        raise WireError("malformed buffer list")
    if sum(sizes) + hlen > limits.max_frame_bytes:
        raise WireError("frame exceeds the size cap")
    buffers = [_recv_exact(sock, n, deadline) if n else b"" for n in sizes]
    return header, buffers


def _recv_exact(sock: socket.socket, n: int, deadline: float | None) -> bytes:
    chunks = bytearray()
    while len(chunks) < n:
        if deadline is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            sock.settimeout(remaining)
        else:
            sock.settimeout(None)
        try:
            chunk = sock.recv(min(n - len(chunks), 1 << 20))
        except TimeoutError:
            raise
        except OSError as exc:
            raise EOFError(str(exc)) from exc
        if not chunk:
            raise EOFError("peer closed the connection")
        chunks += chunk
    return bytes(chunks)
