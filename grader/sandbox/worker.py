"""The sandboxed side: import the student's modules and answer call requests.

Runs only inside a jailed worker process (see `jail.py`). It trusts nothing it imports from the
submission; it only decodes requests from the trusted side (whose frames it also caps) and
encodes plain results with `wire`. Any exception of the student's becomes a structured error
reply; the trusted side decides what it means for the grade.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import os
import signal
import socket
import sys
import time
import traceback
import types
from typing import Any

from grader.parts import CODE_PARTS, FUNCTIONS
from grader.sandbox import wire
from grader.sandbox.invoke import invoke

PART_MODULES = CODE_PARTS
# What the worker refuses to import even where the files would be reachable (non-jail mode;
# in jail mode these paths are simply not mounted).
BLOCKED_PREFIXES = (
    "solutions",
    "grader.suites",
    "grader.suite",
    "grader.rubric",
    "grader.trusted_tinylm",
    "tests",
)
_REQUEST_LIMITS = wire.Limits(max_frame_bytes=512 * 1024 * 1024)


class _StudentFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves the submission's modules as `masks` and `exercises.masks` (and so on)."""

    def __init__(self, directory: str, present: set[str]) -> None:
        self.directory = directory
        self.present = present

    def find_spec(self, fullname, path=None, target=None):  # noqa: D401 - importlib API
        if fullname.startswith(BLOCKED_PREFIXES) and fullname.split(".")[0] in (
            "solutions",
            "grader",
            "tests",
        ):
            raise ImportError(f"importing {fullname!r} is not allowed while grading")
        short = fullname.removeprefix("exercises.")
        if short in PART_MODULES and fullname in (short, f"exercises.{short}"):
            if short not in self.present:
                return None
            origin = os.path.join(self.directory, f"{short}.py")
            return importlib.util.spec_from_file_location(fullname, origin, loader=self)
        return None

    def create_module(self, spec):
        # One module object per part: `import masks` and `import exercises.masks` are the same.
        short = spec.name.removeprefix("exercises.")
        for alias in (short, f"exercises.{short}"):
            if alias in sys.modules:
                return sys.modules[alias]
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        if getattr(module, "__grader_loaded__", False):
            return
        short = module.__name__.removeprefix("exercises.")
        with open(module.__spec__.origin, encoding="utf-8") as f:
            source = f.read()
        code = compile(source, f"{short}.py", "exec", dont_inherit=True)
        module.__grader_loaded__ = True
        sys.modules[short] = module
        sys.modules[f"exercises.{short}"] = module
        try:
            exec(code, module.__dict__)
        except BaseException:
            module.__grader_loaded__ = False
            sys.modules.pop(short, None)
            sys.modules.pop(f"exercises.{short}", None)
            raise


def _student_frames(tb) -> str:
    # Only the student's own frames are shown, so only their source lines are looked up
    # (extract_tb would read and stat the grader's files for every call that raises).
    own = [
        (frame, lineno)
        for frame, lineno in traceback.walk_tb(tb)
        if os.path.basename(frame.f_code.co_filename or "") in _STUDENT_FILES
    ]
    frames = traceback.StackSummary.extract(iter(own[-4:]))
    lines = []
    for f in frames:
        lines.append(f'  File "{os.path.basename(f.filename)}", line {f.lineno}, in {f.name}')
        if f.line:
            lines.append(f"    {f.line.strip()[:200]}")
    return "\n".join(lines)


_STUDENT_FILES = {f"{m}.py" for m in PART_MODULES} | {"experiment.py"}


def _text(get: Any, limit: int, fallback: str) -> str:
    """str() of something the student controls, never raising and always a plain str."""
    try:
        text = get()
        return str.__str__(text)[:limit] if isinstance(text, str) else fallback
    except BaseException:  # noqa: BLE001 - a student __str__ may raise anything
        return fallback


def _error_reply(exc: BaseException, where: str) -> dict[str, Any]:
    if isinstance(exc, SyntaxError) and (exc.filename or "") in _STUDENT_FILES:
        return {
            "ok": False,
            "kind": "syntax_error",
            "message": f"{exc.filename}, line {exc.lineno}: {_text(lambda: exc.msg, 500, '')}",
        }
    if isinstance(exc, NotImplementedError):
        kind = "not_implemented"
    elif isinstance(exc, SystemExit):
        kind = "exit"
    elif isinstance(exc, (MemoryError,)):
        kind = "memory"
    elif isinstance(exc, RecursionError):
        kind = "recursion"
    else:
        kind = "exception"
    return {
        "ok": False,
        "kind": kind,
        "where": where,
        "exc_type": _text(lambda: type(exc).__name__, 100, "Exception"),
        # the built-in classes it derives from, so a test can accept a documented ValueError
        # raised as a subclass of it
        "exc_bases": _builtin_bases(exc),
        "message": _text(lambda: str(exc), 2000, "<unprintable exception>"),
        "traceback": _text(lambda: _student_frames(exc.__traceback__), 4000, ""),
    }


def _builtin_bases(exc: BaseException) -> list[str]:
    """Names of the built-in classes `exc` derives from; [] if its class lies about them."""
    try:
        return [str(c.__name__)[:60] for c in type(exc).__mro__ if c.__module__ == "builtins"][:8]
    except BaseException:  # noqa: BLE001 - a student metaclass may raise anything
        return []


def _load_module(name: str) -> types.ModuleType:
    return importlib.import_module(name)


def _resolve(module_name: str, function: str) -> Any:
    if module_name == "__grader__" and function == "model_forward":
        return _model_forward
    if module_name not in PART_MODULES:
        raise LookupError(f"unknown module {module_name!r}")
    mod = _load_module(module_name)
    fn = getattr(mod, function, None)
    if fn is None or not callable(fn):
        raise AttributeError(f"{module_name}.py does not define a function named {function!r}")
    return fn


def _undefined(name: str) -> list[str]:
    """The handout's functions (`FUNCTIONS`) that module `name` does not define as callables,
    asked once per module load so that no call of one of them needs a round trip."""
    mod = _load_module(name)
    missing = []
    for function in FUNCTIONS.get(name, ()):
        try:
            found = callable(getattr(mod, function, None))
        except Exception:  # noqa: BLE001 - a student module __getattr__ may raise anything
            found = False
        if not found:
            missing.append(function)
    return missing


def _model_forward(model, input_ids, attention_mask=None):
    """Run a TinyLM whose mask and attention are the student's own `masks` functions."""
    masks = _load_module("masks")
    model.mask_fn = masks.build_attention_mask
    model.attention_fn = masks.masked_attention
    with __import__("torch").no_grad():
        return model(input_ids, attention_mask=attention_mask)


def serve(
    sock: socket.socket,
    directory: str,
    present: set[str],
    *,
    max_result_bytes: int | None = None,
    namespace_init: bool = False,
    templates: Any = None,
) -> None:
    """Answer requests until the trusted side says goodbye or closes the socket.

    The models the calls receive live in this loop's `wire.ModelStore`: the weights the
    trusted side asked it to keep, and `templates` (`models.Templates`, inherited warm from
    the zygote; None: every model is built by the constructor).

    Every reply echoes the request's ``id``; the trusted side drops a worker whose reply does
    not match (e.g. student code that wrote its own frame to the socket). A process the
    student forks loses the connection at once (`_cut_off_children`), so only this process
    ever answers. `namespace_init`: this process is PID 1 of its own PID namespace (jail
    mode), so after every request it kills whatever the student left running.
    """
    store = wire.ModelStore(templates)
    sys.meta_path.insert(0, _StudentFinder(directory, present))
    _cut_off_children(sock)
    _seed_global_rngs()
    while True:
        if namespace_init:
            _kill_strays()
        try:
            header, buffers = wire.recv_frame(sock, _REQUEST_LIMITS)
        except (EOFError, OSError, wire.WireError):
            return
        op = header.get("op")
        rid = header.get("id")
        if op == "bye":
            return
        if op == "load":
            name = str(header.get("module"))
            try:
                reply: dict[str, Any] = {"ok": True, "undefined": _undefined(name)}
            except BaseException as exc:  # noqa: BLE001 - student code may raise anything
                reply = _error_reply(exc, f"importing {name}.py")
            _send(sock, rid, reply)
            continue
        if op == "drill":  # Exercise 3: a worker of its own, discarded afterwards
            _send(sock, rid, _drill(header))
            continue
        if op != "call":
            _send(sock, rid, {"ok": False, "kind": "protocol", "message": f"unknown op {op!r}"})
            continue
        where = f"{header.get('module')}.{header.get('function')}"
        try:
            values = wire.decode(header["values"], buffers, store=store)
            args, kwargs = list(values["args"]), dict(values["kwargs"])
            grad_output = values.get("grad_output")
            grad_wrt = [k for k in header.get("grad_wrt", []) if isinstance(k, (int, str))]
        except (KeyError, TypeError, wire.WireError) as exc:
            _send(sock, rid, {"ok": False, "kind": "protocol", "message": str(exc)})
            continue
        try:
            fn = _resolve(str(header["module"]), str(header["function"]))
        except BaseException as exc:  # noqa: BLE001
            _send(sock, rid, _error_reply(exc, f"importing {header['module']}.py"))
            continue
        try:
            result = invoke(fn, args, kwargs, grad_wrt=grad_wrt, grad_output=grad_output)
        except BaseException as exc:  # noqa: BLE001
            _send(sock, rid, _error_reply(exc, f"calling {where}"))
            continue
        try:
            gens = dict(_generators(args, kwargs))
            tree, bufs = wire.encode(
                {"value": result.value, "grads": result.grads, "generators": gens},
                max_bytes=max_result_bytes,
            )
            effects = result.effects.to_dict()
        except BaseException as exc:  # noqa: BLE001 - includes WireError and lying objects
            detail = _text(lambda exc=exc: str(exc), 400, type(exc).__name__)
            _send(
                sock,
                rid,
                {
                    "ok": False,
                    "kind": "unsendable",
                    "message": f"{where} returned something that cannot be graded: {detail}",
                },
            )
            continue
        _send(sock, rid, {"ok": True, "payload": tree, "effects": effects}, bufs)


def _drill(header: dict[str, Any]) -> dict[str, Any]:
    from grader.sandbox.drillrun import run_drill

    try:
        argv = [str(a) for a in header.get("argv", [])]
        return run_drill(str(header["source"]), argv, int(header["max_bytes"]))
    except BaseException as exc:  # noqa: BLE001 - student code may raise anything
        return _error_reply(exc, "running drill/experiment.py")


def _seed_global_rngs() -> None:
    """Fixed seeds for the global RNGs of torch, random and numpy. Torch seeds its default
    generator from the OS at start-up, so a student who (wrongly) draws from it would get
    different numbers, hence a different report, on every run; grading must be repeatable.

    torch's CPU generator is seeded directly: `torch.manual_seed` would seed it the same way,
    but first queue lazy seeds for CUDA, XPU and MTIA, each recording the caller's stack with
    `traceback.format_stack` (source lines read through linecache): ~2 ms of every worker's
    start, for devices no worker has."""
    import random

    import torch

    torch.default_generator.manual_seed(0)
    random.seed(0)
    try:
        import numpy

        numpy.random.seed(0)
    except ImportError:
        pass


def _cut_off_children(sock: socket.socket) -> None:
    """In any child forked with os.fork (or multiprocessing), replace the grader's socket by
    /dev/null: a fork bomb's copies would otherwise all read requests and write replies on
    one connection. The child's code runs on; its reads see end-of-file and it exits."""
    null = os.open(os.devnull, os.O_RDWR)
    fd = sock.fileno()
    dup2 = os.dup2
    os.register_at_fork(after_in_child=lambda: dup2(null, fd))


def _kill_strays() -> None:
    """SIGKILL every other process in this PID namespace and wait until all are reaped.

    Only for a namespace init: there kill(-1) reaches exactly the namespace's other processes
    (all the student's, same uid). Stray processes would otherwise spend CPU, memory and the
    process limit of the calls that follow. Costs two system calls when there are none."""
    if _getpid() != 1:
        return
    deadline = _monotonic() + 2.0
    while True:
        try:
            _kill(-1, signal.SIGKILL)
        except OSError:  # nobody else is left
            pass
        try:
            pid, _ = _waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            if _monotonic() > deadline:
                return
            _sleep(0.001)


# Bound before any student code runs: a student's monkeypatch of os or time cannot reach them.
_getpid, _kill, _waitpid = os.getpid, os.kill, os.waitpid
_monotonic, _sleep = time.monotonic, time.sleep


def _generators(args, kwargs):
    import torch

    for i, a in enumerate(args):
        if isinstance(a, torch.Generator):
            yield f"args[{i}]", a
    for k, a in kwargs.items():
        if isinstance(a, torch.Generator):
            yield f"kwargs[{k!r}]", a


def _send(sock: socket.socket, rid: Any, header: dict[str, Any], buffers: list[bytes] = ()) -> None:
    header = dict(header)
    header["id"] = rid if isinstance(rid, int) else None
    try:
        wire.send_frame(sock, header, list(buffers))
    except BaseException:  # noqa: BLE001 - socket gone, or json/socket sabotaged by the student
        os._exit(0)
