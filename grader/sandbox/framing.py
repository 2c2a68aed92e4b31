"""Frames on a worker's socket: the byte format every message of the sandbox uses.

A frame is a 4-byte big-endian header length, a UTF-8 JSON header, then raw buffers whose byte
lengths the header lists under ``"_buffers"``. Receiving is bounded: the header size, the
buffer count and the frame size have caps (`Limits`), a deadline stops a slow sender, and any
violation raises `WireError`. The values inside a header are `grader.sandbox.wire`'s.
"""

from __future__ import annotations

import json
import socket
import struct
import time
from dataclasses import dataclass
from typing import Any

MAX_ITEMS = 100_000
MAX_HEADER_BYTES = 4 * 1024 * 1024


class WireError(Exception):
    """A frame or value that does not follow the wire format (or exceeds a cap)."""


@dataclass(frozen=True)
class Limits:
    """Caps applied when *receiving*; the sender is assumed hostile."""

    max_frame_bytes: int = 64 * 1024 * 1024


_COALESCE_BYTES = 1 << 20


def send_frame(sock: socket.socket, header: dict[str, Any], buffers: list[bytes] = ()) -> None:
    """Write one frame. The header must be JSON-able; buffers are raw bytes."""
    header = dict(header)
    header["_buffers"] = [len(b) for b in buffers]
    data = json.dumps(header, separators=(",", ":")).encode()
    head = struct.pack(">I", len(data)) + data
    if sum(len(b) for b in buffers) <= _COALESCE_BYTES:
        # One write per frame: a frame with a model has a dozen small buffers, and each
        # separate write costs a system call here and a wake-up and a read on the other side.
        sock.sendall(b"".join([head, *buffers]))
        return
    sock.sendall(head)
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
    raw = _recv_exact(sock, hlen, deadline)
    try:
        header = json.loads(raw)
    except (ValueError, RecursionError):  # bad UTF-8 or JSON, huge ints, deep nesting
        raise WireError("frame header is not JSON") from None
    if not isinstance(header, dict):
        raise WireError("frame header is not an object")
    sizes = header.pop("_buffers", [])
    if not (
        isinstance(sizes, list)
        and len(sizes) <= MAX_ITEMS
        and all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in sizes)
    ):
        raise WireError("malformed buffer list")
    if sum(sizes) + hlen > limits.max_frame_bytes:
        raise WireError("frame exceeds the size cap")
    blob = _recv_exact(sock, sum(sizes), deadline) if sizes else b""
    buffers, offset = [], 0
    for n in sizes:  # one read for all the buffers, then cut it up
        buffers.append(blob[offset : offset + n])
        offset += n
    return header, buffers


def _recv_exact(sock: socket.socket, n: int, deadline: float | None) -> bytes:
    buf = bytearray(n)
    view = memoryview(buf)
    got = 0
    while got < n:
        if deadline is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            sock.settimeout(remaining)
        else:
            sock.settimeout(None)
        try:
            k = sock.recv_into(view[got:], min(n - got, 1 << 20))
        except TimeoutError:
            raise
        except OSError as exc:
            raise EOFError(str(exc)) from exc
        if not k:
            raise EOFError("peer closed the connection")
        got += k
    view.release()
    return bytes(buf)
