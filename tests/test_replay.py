"""One report cannot be replayed: a later submission that looks answers up still fails.

The attack: grade a buggy submission, read the expected values its report shows, and hand
in a submission holding a lookup table from (a hash of) each call's inputs to the right
answer, falling back to the old buggy code. Here the attacker is stronger than any report
allows: the table holds the reference's answer to *every* call of every test whose failure
message showed an expected value (recorded by running the suite with the buggy
submission's own per-submission inputs).

* Control: with the buggy submission's inputs (what every submission got before inputs were
  drawn per submission), the replaying code passes those tests - the attack works.
* Defence: graded for real, the replaying submission has another content hash, so its
  inputs are new (`grader.suite.cases`), every lookup misses, and it passes none of them.
* The fixed golden cases keep their inputs, so they must never show an expected value: no
  test with pinned inputs can be in the replayed set.
"""

from __future__ import annotations

import base64
import os
import re
import sys
from pathlib import Path

import pytest
import torch

from exercises import TASKS
from grader.loading.model import Submission
from grader.pipeline import GradeOptions, Grader
from grader.suite.cases import Cases
from grader.suite.proxy import ReferenceProxy
from grader.suite.runner import run_suite

ROOT = Path(__file__).resolve().parents[1]
SECRET = "replay-test instructor secret"
# part -> its functions, in task order (exercises.TASKS is the one list of them)
FUNCTIONS: dict[str, tuple[str, ...]] = {}
for _part, _name in TASKS.values():
    FUNCTIONS[_part] = (*FUNCTIONS.get(_part, ()), _name)
MAX_VALUE_BYTES = 64 << 10  # the replayed table stays a reasonable source file
# "expected 0.25", "expected: [[...", "expected labels [[...", "expected frequencies: [..."
SHOWS_EXPECTED = re.compile(r"expected(?: [a-z]+)?:?\s+[-\[(]?\d|expected(?: [a-z]+)?:\s*\[")

# Shared by the recorder (here) and the replaying submission (in the sandbox).
DIGEST = """
import hashlib as _replay_hashlib

import torch as _replay_torch


def _replay_digest(args, kwargs):
    h = _replay_hashlib.sha256()

    def walk(x):
        if isinstance(x, _replay_torch.Tensor):
            t = x.detach().contiguous().reshape(-1)
            h.update(f"T{x.dtype}{tuple(x.shape)}".encode())
            h.update(t.view(_replay_torch.uint8).numpy().tobytes())
        elif isinstance(x, _replay_torch.Generator):
            h.update(b"G")
            walk(x.get_state())
        elif isinstance(x, _replay_torch.nn.Module):
            h.update(b"M")
        elif isinstance(x, (list, tuple)):
            h.update(b"[")
            for v in x:
                walk(v)
            h.update(b"]")
        elif isinstance(x, dict):
            for k in sorted(x):
                h.update(repr(k).encode())
                walk(x[k])
        else:
            h.update(repr(x).encode())

    walk(list(args))
    walk(dict(kwargs))
    return h.hexdigest()
"""
WRAPPER = """

import base64 as _replay_b64

_TABLE = {table}


def _replay_decode(v):
    kind = v[0]
    if kind == "t":
        _, dtype, shape, data = v
        raw = bytearray(_replay_b64.b64decode(data))
        flat = _replay_torch.frombuffer(raw, dtype=_replay_torch.uint8) if raw else None
        t = _replay_torch.empty(shape, dtype=getattr(_replay_torch, dtype))
        if flat is not None:
            t.reshape(-1).view(_replay_torch.uint8).copy_(flat)
        return t
    if kind == "tuple":
        return tuple(_replay_decode(x) for x in v[1])
    return v[1]


def _replay_wrong(x):
    if isinstance(x, tuple):
        return tuple(_replay_wrong(v) for v in x)
    if isinstance(x, _replay_torch.Tensor):
        if x.dtype == _replay_torch.bool:
            return ~x
        if x.is_floating_point():
            # shifted by more than any tolerance allows at every magnitude (a fixed +0.5 passed
            # half precision's 10% value check on a loss above 4.5); the shift is detached, so
            # the gradient stays right and the gradient tests are not in the replayed set
            return x + 0.5 + 0.5 * x.detach().abs()
        return x + 1
    return x


def _replay(name, function):
    def wrapped(*args, **kwargs):
        hit = _TABLE.get((name, _replay_digest(args, kwargs)))
        if hit is not None:
            return _replay_decode(hit)
        return _replay_wrong(function(*args, **kwargs))

    return wrapped
"""


def _encode(value):
    if isinstance(value, torch.Tensor):
        t = value.detach().contiguous()
        data = t.reshape(-1).view(torch.uint8).numpy().tobytes()
        return ("t", str(t.dtype).removeprefix("torch."), tuple(t.shape),
                base64.b64encode(data).decode())  # fmt: skip
    if isinstance(value, tuple):
        return ("tuple", tuple(_encode(v) for v in value))
    return ("v", value)


def _nbytes(value) -> int:
    if isinstance(value, torch.Tensor):
        return value.numel() * value.element_size()
    if isinstance(value, tuple):
        return sum(_nbytes(v) for v in value)
    return 0


def _sources(table: dict) -> dict[str, str]:
    """The buggy submission (empty table) or the replaying one."""
    out = {}
    for part, names in FUNCTIONS.items():
        src = (ROOT / "solutions" / f"{part}.py").read_text(encoding="utf-8")
        mine = {k: v for k, v in table.items() if k[0] in names}
        src += DIGEST + WRAPPER.format(table=repr(mine))
        src += "".join(f"{n} = _replay({n!r}, {n})\n" for n in names)
        out[part] = src
    return out


def _current_test() -> str:
    """The graded id of the running test, from PYTEST_CURRENT_TEST."""
    node = os.environ.get("PYTEST_CURRENT_TEST", "").split(" ")[0]
    path, _, name = node.partition("::")
    return f"{Path(path).stem.removeprefix('test_')}.{name.removeprefix('test_')}"


namespace: dict = {}
exec(DIGEST, namespace)  # noqa: S102 - our own code, the same the submission runs
_digest = namespace["_replay_digest"]


class _Recorder(ReferenceProxy):
    """The reference as the student, with a submission's cases, recording every call."""

    def __init__(self, cases: Cases) -> None:
        super().__init__(memo=False)
        self.cases = cases
        self.calls: list[tuple[str, str, str, object]] = []

    def _call(self, module, function, args, kwargs, *, grad_wrt=(), grad_output=None):
        key = _digest(args, kwargs)
        res = super()._call(module, function, args, kwargs, grad_wrt=grad_wrt,
                            grad_output=grad_output)  # fmt: skip
        self.calls.append((_current_test(), function, key, res.value))
        return res


@pytest.fixture(scope="module")
def grader():
    with Grader(GradeOptions(grade_written=False, grade_drill=False, case_secret=SECRET)) as g:
        yield g


def test_a_report_cannot_be_replayed(grader, tmp_path, monkeypatch):
    buggy = Submission(name="buggy", origin="tests", sources=_sources({}), missing={})
    report = grader.grade(buggy)
    shown = {t.id for t in report.tests
             if t.status == "failed" and SHOWS_EXPECTED.search(t.message)}  # fmt: skip
    assert len(shown) >= 30, sorted(shown)

    # every answer the attacker could want, for the inputs the buggy submission was given
    buggy_cases = Cases.for_submission(SECRET.encode(), buggy.sources)
    recorder = _Recorder(buggy_cases)
    run_suite("hidden", recorder, ReferenceProxy())
    table = {(fn, key): _encode(value) for test, fn, key, value in recorder.calls
             if test in shown and _nbytes(value) <= MAX_VALUE_BYTES}  # fmt: skip
    assert table
    replay_sources = _sources(table)

    # control: with the buggy submission's inputs, the lookups hit and the tests pass
    package = tmp_path / "replaypkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for part, src in replay_sources.items():
        (package / f"{part}.py").write_text(src, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        replaying = ReferenceProxy("replaypkg", memo=False)
        replaying.cases = buggy_cases
        control = run_suite("hidden", replaying, ReferenceProxy())
    finally:
        for name in [m for m in sys.modules if m.startswith("replaypkg")]:
            del sys.modules[name]
    replayed = {t.id for t in control.results if t.status == "passed"} & shown
    # (gradient, autograd and model-forward tests cannot be answered from a table: about half)
    assert len(replayed) >= max(10, len(shown) // 3), sorted(shown - replayed)

    # defence: the replaying submission's own hash draws new inputs, and nothing replays
    replay = Submission(name="replay", origin="tests", sources=replay_sources, missing={})
    graded = grader.grade(replay)
    assert not [e for e in graded.errors if e.startswith("internal")], graded.errors
    passed = {t.id for t in graded.tests if t.status == "passed"} & shown
    assert not passed, f"replayed from one report: {sorted(passed)}"


def test_the_secret_never_reaches_a_report(grader):
    """Neither the secret nor the per-submission seed appears in a report or in the options'
    repr; the same submission and secret give the same report (the batch cache relies on it)."""
    sub = Submission(name="s", origin="tests", sources=_sources({}), missing={})
    a, b = grader.grade(sub), grader.grade(sub)
    assert a.to_json() == b.to_json()
    assert SECRET not in a.to_json() and SECRET not in repr(grader.options)
    seed = Cases.for_submission(SECRET.encode(), sub.sources)
    assert str(seed.seed("x")) not in a.to_json() and "per-submission" in repr(seed)


def test_a_new_secret_invalidates_the_batch_cache(monkeypatch, tmp_path):
    """Reports graded under one secret are never reused under another (other inputs)."""
    from grader.batch.cache import grader_fingerprint

    monkeypatch.delenv("GRADER_CASE_SECRET_FILE", raising=False)
    monkeypatch.setenv("GRADER_CASE_SECRET", "one")
    one = grader_fingerprint()
    monkeypatch.setenv("GRADER_CASE_SECRET", "two")
    two = grader_fingerprint()
    secret_file = tmp_path / "secret"
    secret_file.write_text("one\n")
    monkeypatch.setenv("GRADER_CASE_SECRET_FILE", str(secret_file))
    assert one != two and grader_fingerprint() == one  # the file wins, stripped
    assert grader_fingerprint(GradeOptions(case_secret="two")) != grader_fingerprint()
