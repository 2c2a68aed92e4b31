"""A probe sent as a submission's masks.py by tests/test_no_answers_in_jail.py (not a test).

Inside the jail it imports every module of the project the jail shows (the `grader` and
`exercises` packages as mounted, every .py file under them, and whatever the zygote
preloaded), collects every callable they hold (module attributes, the methods of their
classes, and the functions attached to the models a call receives) and tries each one as each
exercise function on the cases it is sent. It returns the (callable, task) pairs whose
results match the expected values on every case of the task, and the names it tried.
"""

import importlib
import importlib.util
import inspect
import os
import pkgutil
import select
import signal
import sys
import time
import types

import torch

_OWN = sys.modules.get(__name__)
_PER_CALL_SECONDS = 2.0
_PER_CANDIDATE_SECONDS = 60.0
_REAL_EXIT = os._exit


class _Stop(BaseException):
    pass


def _alarm(_signum, _frame):
    raise _Stop("timeout")


def _no_exit(*_args, **_kwargs):
    raise _Stop("exit refused")


def _project_modules():
    import exercises
    import grader

    mods = {}
    for pkg in (grader, exercises):
        mods[pkg.__name__] = pkg
        for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + ".", onerror=len):
            try:
                mods[info.name] = importlib.import_module(info.name)
            except BaseException:  # noqa: BLE001 - a module that cannot load holds nothing
                pass
        for root in pkg.__path__:  # plain folders (exercises/drill) and files walk_packages skips
            for dirpath, _dirs, files in os.walk(root):
                for f in sorted(files):
                    if not f.endswith(".py"):
                        continue
                    path = os.path.join(dirpath, f)
                    rel = os.path.relpath(path, os.path.dirname(root))[:-3].replace(os.sep, ".")
                    if rel.endswith(".__init__"):
                        rel = rel[: -len(".__init__")]
                    if rel in mods:
                        continue
                    try:
                        spec = importlib.util.spec_from_file_location("_probe_" + rel, path)
                        mod = importlib.util.module_from_spec(spec)
                        spec.loader.exec_module(mod)
                        mods[rel] = mod
                    except BaseException:  # noqa: BLE001
                        pass
    for name, mod in list(sys.modules.items()):
        if name.split(".")[0] in ("grader", "exercises") and isinstance(mod, types.ModuleType):
            mods.setdefault(name, mod)
    return {n: m for n, m in mods.items() if m is not _OWN}


def _members(prefix, namespace, out, seen, names):
    for name, obj in list(namespace.items()):
        if isinstance(obj, (staticmethod, classmethod)):
            obj = obj.__func__
        if isinstance(obj, types.ModuleType) or not callable(obj):
            continue
        names.append(f"{prefix}.{name}")  # every name it is reachable by
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        out.append((f"{prefix}.{name}", obj))  # tried once
        if isinstance(obj, type):
            _members(f"{prefix}.{name}", dict(vars(obj)), out, seen, names)


def _candidates(extra):
    """(name, callable) once per object, and every name the objects are reachable by (a
    class found first as an import elsewhere has its methods listed under that name)."""
    out, seen, names = [], set(), []
    for name, mod in sorted(_project_modules().items()):
        _members(name, dict(vars(mod)), out, seen, names)
    for i, obj in enumerate(extra):
        _members(f"<argument {i}: {type(obj).__name__}>", dict(vars(obj)), out, seen, names)
    return out, names


def _fresh(x):
    if isinstance(x, torch.Tensor):
        return x.clone()
    if isinstance(x, list):
        return [_fresh(v) for v in x]
    if isinstance(x, tuple):
        return tuple(_fresh(v) for v in x)
    return x


def _same(got, want, atol):
    if isinstance(want, torch.Tensor):
        if type(got) is not torch.Tensor or got.shape != want.shape:
            return False
        if want.dtype == torch.bool or got.dtype == torch.bool:
            return got.dtype == want.dtype and torch.equal(got, want)
        if got.is_complex():
            return False
        return bool(torch.allclose(got.double(), want.double(), rtol=1e-5, atol=atol))
    if isinstance(want, (list, tuple)):
        return (
            isinstance(got, (list, tuple))
            and len(got) == len(want)
            and all(_same(g, w, atol) for g, w in zip(got, want, strict=True))
        )
    return type(got) is type(want) and got == want


def _forms(fn, case):
    """The call as the exercise is called, then all-positional in the exercise's order."""
    args, kwargs = list(case["args"]), dict(case["kwargs"])
    if case.get("generator_seed") is not None:
        kwargs["generator"] = torch.Generator().manual_seed(case["generator_seed"])
    forms = [(args, kwargs)]
    if kwargs:
        forms.append((args + [kwargs[k] for k in case["order"] if k in kwargs], {}))
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return forms
    bindable = []
    for a, k in forms:
        try:
            sig.bind(*a, **k)
            bindable.append((a, k))
        except TypeError:
            pass
    return bindable


def _passes(fn, cases):
    for case in cases:
        ok = False
        for args, kwargs in _forms(fn, case):
            signal.setitimer(signal.ITIMER_REAL, _PER_CALL_SECONDS)
            try:
                got = fn(*_fresh(args), **_fresh(kwargs))
                ok = _same(got, case["want"], case["atol"])
            except BaseException:  # noqa: BLE001 - anything a stray call may raise
                ok = False
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            if ok:
                break
        if not ok:
            return False
    return True


def _tasks_answered(fn, tasks):
    """The tasks ``fn`` answers, tried in a forked child: a candidate may close descriptors,
    lower limits, exit or crash, and only that child pays (the probe needs may_fork)."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        code = 0
        try:
            signal.signal(signal.SIGALRM, _alarm)
            os._exit, sys.exit = _no_exit, _no_exit
            hits = [task for task, cases in tasks.items() if _passes(fn, cases)]
            os.write(write_end, "\n".join(hits).encode() or b"-")
        except BaseException:  # noqa: BLE001
            code = 1
        _REAL_EXIT(code)
    os.close(write_end)
    data = b""
    deadline = time.monotonic() + _PER_CANDIDATE_SECONDS
    while True:
        left = deadline - time.monotonic()
        ready, _, _ = select.select([read_end], [], [], max(left, 0))
        chunk = os.read(read_end, 65536) if ready else b""
        if not chunk:
            break
        data += chunk
    os.close(read_end)
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
    os.waitpid(pid, 0)
    text = data.decode()
    return [] if text in ("", "-") else text.split("\n")


def find_answers(tasks, models, window=None):
    """``tasks``: {"module.function": [case, ...]}; ``models``: objects whose attached
    functions are candidates too. Returns {"found": [...], "tried": [...]}."""
    candidates, names = _candidates(models)
    if window is not None:
        candidates = candidates[window[0] : window[1]]
    found = []
    for name, fn in candidates:
        found += [f"{name} -> {task}" for task in _tasks_answered(fn, tasks)]
    return {"found": found, "tried": names, "calls": len(candidates)}
