"""The sandboxed side of Exercise 3: run the student's drill script like its command would.

Runs only inside a jailed worker dedicated to the drill (`SandboxSession.run_drill`), whose
working directory holds the student's part modules. ``python drill/experiment.py ARGS`` is
reproduced in-process (the zygote already imported torch, and the seccomp filter forbids new
processes): the script is written to ``drill/experiment.py``, executed as ``__main__`` with
``sys.argv`` set and its folder first on ``sys.path``; ``import masks`` and friends resolve to
the student's own modules through the worker's finder. What the script wrote to
``drill/results.json`` goes back as text, capped; the trusted side parses it.
"""

from __future__ import annotations

import importlib
import os
import sys
import types
from typing import Any

SCRIPT = os.path.join("drill", "experiment.py")
RESULTS = os.path.join("drill", "results.json")


def run_drill(source: str, argv: list[str], max_bytes: int) -> dict[str, Any]:
    """Run the script; ``{"ok": True, "results": text | None, "size": n}`` or a failure.

    A failure is ``{"ok": False, "kind": "exit", "code": ...}`` for a non-zero exit status;
    an exception propagates to the caller, which turns it into the usual error reply.
    """
    os.makedirs("drill", exist_ok=True)
    for stale in (SCRIPT, RESULTS):
        if os.path.lexists(stale):
            os.unlink(stale)
    path = os.path.abspath(SCRIPT)
    with open(path, "w", encoding="utf-8") as f:
        f.write(source)
    code = compile(source, "experiment.py", "exec", dont_inherit=True)
    main = types.ModuleType("__main__")
    main.__file__ = path
    main.__builtins__ = __builtins__
    # The worker is discarded after this one request, so replacing its __main__ (dataclasses
    # and friends look the script's module up there) costs nothing later.
    sys.modules["__main__"] = main
    _defer_dynamo()
    sys.argv = [SCRIPT, *argv]
    sys.path.insert(0, os.path.dirname(path))
    try:
        exec(code, main.__dict__)
    except SystemExit as exc:
        if exc.code not in (None, 0):
            status = exc.code if isinstance(exc.code, int) else 1
            return {"ok": False, "kind": "exit_status", "code": int(status)}
    return _read_results(max_bytes)


def _read_results(max_bytes: int) -> dict[str, Any]:
    try:
        with open(RESULTS, "rb") as f:
            data = f.read(max_bytes + 1)
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return {"ok": True, "results": None, "size": 0}
    if len(data) > max_bytes:
        return {"ok": True, "results": None, "size": len(data)}
    return {"ok": True, "results": data.decode("utf-8", "replace"), "size": len(data)}


class _DeferredDynamo(types.ModuleType):
    """Stands in for ``torch._dynamo`` until something needs more than eager mode does.

    Every ``optimizer.step()`` imports ``torch._dynamo`` (1.5-2 CPU-s, more than the whole
    default drill) only to call ``graph_break()`` and ``disable(fn)``, which outside
    ``torch.compile`` do nothing and return ``fn``. Those two (and ``is_compiling``) are
    answered here; any other attribute imports the real module, which then replaces this one,
    so ``torch.compile`` still works. The zygote does not import it for every worker instead:
    it makes each fork of every part's worker slower.
    """

    @staticmethod
    def graph_break(msg: str = "") -> None:
        return None

    @staticmethod
    def disable(fn: Any = None, recursive: bool = True, *, wrapping: bool = True, **_: Any):
        return fn if fn is not None else (lambda f: f)

    @staticmethod
    def is_compiling() -> bool:
        return False

    def __getattr__(self, name: str) -> Any:
        import torch

        if sys.modules.get("torch._dynamo") is self:
            del sys.modules["torch._dynamo"]
        if torch.__dict__.get("_dynamo") is self:
            del torch._dynamo
        return getattr(importlib.import_module("torch._dynamo"), name)


def _defer_dynamo() -> None:
    import torch

    if "torch._dynamo" in sys.modules:
        return
    stand_in = _DeferredDynamo("torch._dynamo")
    sys.modules["torch._dynamo"] = stand_in
    torch._dynamo = stand_in
