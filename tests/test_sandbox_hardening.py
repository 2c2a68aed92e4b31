"""Unit tests for the sandbox's defences that the attack corpus exercises only end to end.

- the jail's mount plan (pure): what is exposed, what is covered by an empty tmpfs;
- what a real jailed worker can see of the repository;
- per-worker sandbox uids (flock) and the no-root fallback;
- the wire's decoder against hostile frames and trees (Hypothesis): only WireError escapes;
- cleaning of student text before it reaches a report;
- per-part workers, request ids and the timeout budget of SandboxSession.
"""

from __future__ import annotations

import errno
import json
import os
import platform
import socket
import struct
import time
from pathlib import Path

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.sandbox import jail, wire
from grader.sandbox.client import (
    MAX_CRASHES_BEFORE_FIRST_RETURN,
    MAX_TIMEOUTS_PER_FUNCTION,
    SandboxSession,
    StudentCrash,
    StudentException,
    StudentTimeout,
    Zygote,
    clean_text,
)
from grader.sandbox.limits import SandboxLimits

REPO = Path(__file__).resolve().parents[1]
JAILED = jail.can_jail()
needs_root = pytest.mark.skipif(not JAILED, reason="jail mode needs root and namespaces")


# ----------------------------------------------------------------------------- mount plan


def test_plan_mounts_covers_a_site_packages_install(tmp_path):
    sp = tmp_path / "venv/lib/python3.11/site-packages"
    for d in ("grader/sandbox", "grader/suites/hidden", "solutions", "torch"):
        (sp / d).mkdir(parents=True)
    (sp / "grader/__init__.py").touch()
    expose = [
        str(tmp_path / "venv/lib"),
        str(sp / "grader/sandbox"),
        str(sp / "grader/__init__.py"),
    ]
    hide = [str(sp / "grader"), str(sp / "solutions")]
    ops = jail.plan_mounts(expose, hide)
    assert ops == [
        ("bind", str(tmp_path / "venv/lib")),
        ("empty", str(sp / "grader")),
        ("empty", str(sp / "solutions")),
        ("bind", str(sp / "grader/__init__.py")),
        ("bind", str(sp / "grader/sandbox")),
    ]


def test_plan_mounts_covers_a_repository_under_usr(tmp_path):
    app = "/usr/src/app"
    expose = ["/usr", f"{app}/exercises", f"{app}/grader/sandbox"]
    hide = [app, f"{app}/grader", f"{app}/solutions"]
    ops = jail.plan_mounts(expose, hide)
    assert ops == [
        ("bind", "/usr"),
        ("empty", app),  # everything of the project disappears ...
        ("bind", f"{app}/exercises"),  # ... except what the worker needs
        ("bind", f"{app}/grader/sandbox"),
    ]


def test_plan_mounts_hidden_wins_over_exposed_and_nested_exposes_are_skipped():
    ops = jail.plan_mounts(["/a", "/a/b", "/s"], ["/s", "/a/b/c"])
    assert ops == [("bind", "/a"), ("empty", "/a/b/c")]


def test_needed_paths_never_expose_the_project_and_secrets_are_listed():
    needed = jail._needed_paths()
    secret = jail._secret_paths()
    for p in needed:  # no mount of the project folder or of anything above it
        assert not (str(REPO) + "/").startswith(p.rstrip("/") + "/"), p
    assert str(REPO / "grader") in secret
    assert str(REPO / "solutions") in secret
    assert str(REPO) in secret  # the project folder, covered wherever a mount would show it


@needs_root
def test_a_jailed_worker_sees_only_exercises_and_the_sandbox_of_the_repository():
    src = f"""
import os
def causal_mask(q_len, k_len=None, device=None):
    seen = []
    for dirpath, dirnames, filenames in os.walk({str(REPO)!r}):
        dirnames[:] = [d for d in dirnames if d not in ("__pycache__", "lib")]
        seen += [os.path.join(dirpath, f) for f in filenames]
    return seen
"""
    with Zygote() as z, SandboxSession(z, {"masks": src}, SandboxLimits()) as s:
        seen = s.call("masks", "causal_mask", (1,), {}).value
    allowed = (
        str(REPO / "exercises") + "/",
        str(REPO / "grader/sandbox") + "/",
        str(REPO / "grader/__init__.py"),
    )
    assert seen, "the walk found nothing at all: the test is broken"
    assert all(p.startswith(allowed) for p in seen), [p for p in seen if not p.startswith(allowed)]


# ----------------------------------------------------------------------------- uids


@needs_root
def test_claimed_sandbox_uids_are_exclusive_until_released():
    a, fa = jail.claim_sandbox_uid(7)
    b, fb = jail.claim_sandbox_uid(7)
    try:
        assert fa is not None and fb is not None
        assert a != b and 61000 <= a < 62000 and 61000 <= b < 62000
    finally:
        os.close(fa)
    c, fc = jail.claim_sandbox_uid(7)
    os.close(fb)
    os.close(fc)
    assert c == a


@needs_root
def test_each_part_runs_in_its_own_worker_with_its_own_uid():
    src = "import os\ndef f():\n    return [os.getuid(), os.getpid()]\n"
    with Zygote() as z, SandboxSession(z, {"masks": src, "losses": src}, SandboxLimits()) as s:
        a = s.call("masks", "f", (), {}).value
        b = s.call("losses", "f", (), {}).value
        assert s.workers_started == 2
    assert a[0] != b[0]
    assert a[1] == b[1] == 1  # each is PID 1 of its own namespace


@needs_root
def test_jailed_workers_are_forked_straight_from_the_zygote_and_free_their_uid():
    """One fork per worker: its parent is the zygote (no supervisor in between), it is PID 1
    of a namespace of its own, and once it has ended its uid can be claimed again."""
    src = "import os\ndef f():\n    return [os.getuid(), os.getpid()]\n"
    with Zygote() as z:
        uids = []
        for _ in range(3):
            with SandboxSession(z, {"masks": src}, SandboxLimits(), slot=321) as s:
                uid, pid = s.call("masks", "f", (), {}).value
                host_pid = s._workers["masks"].pid
                with open(f"/proc/{host_pid}/stat") as f:
                    stat = f.read()
                assert int(stat[stat.rfind(")") + 2 :].split()[1]) == z._proc.pid
                assert pid == 1
                uids.append(uid)
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline and os.path.exists(f"/proc/{host_pid}"):
                time.sleep(0.01)
        assert uids[0] == 61000 + 321
        assert len(set(uids)) == 1, uids  # reaped, so its claim was released


@needs_root
def test_basic_mode_as_root_still_drops_to_a_sandbox_uid():
    src = "import os\ndef f():\n    return [os.getuid(), os.getgid(), os.getgroups()]\n"
    with Zygote(jail=False) as z, SandboxSession(z, {"masks": src}, SandboxLimits()) as s:
        uid, gid, groups = s.call("masks", "f", (), {}).value
    assert 61000 <= uid < 62000 and gid == uid and groups == []


# ----------------------------------------------------------------------------- session


def test_a_function_that_keeps_timing_out_stops_being_called():
    src = "def slow():\n    while True:\n        pass\n\ndef fast():\n    return 1\n"
    limits = SandboxLimits(call_timeout=0.5, submission_timeout=30)
    with Zygote(jail=JAILED) as z, SandboxSession(z, {"masks": src}, limits) as s:
        start = time.monotonic()
        for _ in range(MAX_TIMEOUTS_PER_FUNCTION):
            with pytest.raises(StudentTimeout, match="did not finish"):
                s.call("masks", "slow", (), {})
        with pytest.raises(StudentTimeout, match="already timed out"):
            s.call("masks", "slow", (), {})
        # "already timed out" (not "did not finish") proves the third call was not run; the
        # clock only catches a hang (each timed-out call takes 0.5 s plus a fresh worker)
        assert time.monotonic() - start < MAX_TIMEOUTS_PER_FUNCTION * 0.5 + 25
        assert s.call("masks", "fast", (), {}).value == 1  # the module still works


def test_a_function_that_crashes_on_its_first_calls_stops_being_called():
    src = (
        "import os\n"
        "def dies():\n"
        "    os._exit(1)\n"
        "def dies_on_zero(x):\n"
        "    if x == 0:\n"
        "        os._exit(1)\n"
        "    return x\n"
    )
    with Zygote(jail=JAILED) as z, SandboxSession(z, {"masks": src}, SandboxLimits()) as s:
        for _ in range(MAX_CRASHES_BEFORE_FIRST_RETURN):
            with pytest.raises(StudentCrash, match="died"):
                s.call("masks", "dies", (), {})
        started = s.workers_started
        with pytest.raises(StudentCrash, match="not run: .* on each of its first 3 calls"):
            s.call("masks", "dies", (), {})
        assert s.workers_started == started  # no worker was spent on it
        # A function that returned once is always called: its crashes are per input.
        assert s.call("masks", "dies_on_zero", (1,), {}).value == 1
        for _ in range(MAX_CRASHES_BEFORE_FIRST_RETURN + 1):
            with pytest.raises(StudentCrash, match="died"):
                s.call("masks", "dies_on_zero", (0,), {})
        assert s.call("masks", "dies_on_zero", (2,), {}).value == 2


def test_a_reply_with_the_wrong_request_id_ends_the_worker():
    src = """
import json, os, struct
def forge():
    data = json.dumps({"ok": True, "payload": None, "id": 999999, "_buffers": []}).encode()
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}").startswith("socket:"):
                os.write(int(fd), struct.pack(">I", len(data)) + data)
        except OSError:
            pass
    return 1

def ok():
    return 2
"""
    with Zygote(jail=JAILED) as z, SandboxSession(z, {"masks": src}, SandboxLimits()) as s:
        with pytest.raises(StudentCrash, match="did not ask for"):
            s.call("masks", "forge", (), {})
        assert s.call("masks", "ok", (), {}).value == 2  # a fresh worker


def test_a_setup_failure_is_the_graders_problem_not_the_students(monkeypatch):
    from grader.sandbox.client import SandboxUnavailable

    with Zygote(jail=JAILED) as z:
        monkeypatch.setattr(
            wire, "send_frame", _breaking_setup_frame(wire.send_frame), raising=True
        )
        with pytest.raises(SandboxUnavailable):
            z.spawn({"masks": ""}, SandboxLimits(), 0)


def _breaking_setup_frame(real):
    def send(sock, header, buffers=()):
        if header.get("op") == "setup":  # a source file that cannot be written: setup fails
            header = dict(header, sources={"no/such/folder": ""})
        return real(sock, header, buffers)

    return send


# ----------------------------------------------------------------------------- wire


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "__t__",
                    "__tuple__",
                    "__dict__",
                    "__f__",
                    "__gen__",
                    "__model__",
                    "__dtype__",
                    "dtype",
                    "shape",
                    "rg",
                    "tensors",
                    "x",
                ]
            ),
            inner,
            max_size=4,
        )
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree=json_values, buffers=st.lists(st.binary(max_size=64), max_size=3))
def test_decode_of_any_tree_raises_only_wire_error(tree, buffers):
    try:
        wire.decode(tree, buffers, allow_models=False)
    except wire.WireError:
        pass


@settings(max_examples=200, deadline=None)
@given(
    shape=st.lists(st.integers(min_value=0, max_value=2**62), min_size=1, max_size=3),
    dtype=st.sampled_from(sorted(wire.DTYPES)),
    nbytes=st.integers(min_value=0, max_value=64),
)
def test_decode_of_lying_tensor_headers(shape, dtype, nbytes):
    try:
        t = wire.decode({"__t__": 0, "dtype": dtype, "shape": shape}, [bytes(nbytes)])
    except wire.WireError:
        return
    assert isinstance(t, torch.Tensor) and list(t.shape) == shape


def test_decode_refuses_models_and_bad_generator_states_from_a_worker():
    with pytest.raises(wire.WireError):
        wire.decode({"__model__": {"format": "tinylm/1"}, "tensors": {}}, [], allow_models=False)
    with pytest.raises(wire.WireError):
        wire.decode({"__gen__": {"__t__": 0, "dtype": "uint8", "shape": [3]}}, [b"abc"])


def _frame_bytes(payload: bytes) -> bytes:
    return struct.pack(">I", len(payload)) + payload


@pytest.mark.parametrize(
    "raw",
    [
        b"\xff\xff\xff\xff",  # absurd header length
        _frame_bytes(b"\xff\xfe not utf8"),
        _frame_bytes(b"[" * 100_000 + b"]" * 100_000),  # nesting deeper than the C parser allows
        _frame_bytes(b'{"x": ' + b"9" * 5000 + b"}"),  # int beyond Python's str->int limit
        _frame_bytes(b"[1, 2]"),  # not an object
        _frame_bytes(b'{"_buffers": [-1]}'),
        _frame_bytes(b'{"_buffers": [true]}'),
        _frame_bytes(b'{"_buffers": [999999999999]}'),
    ],
)
def test_recv_frame_refuses_hostile_frames_with_wire_error(raw):
    a, b = socket.socketpair()
    with a, b:
        a.sendall(raw)
        a.shutdown(socket.SHUT_WR)
        with pytest.raises((wire.WireError, EOFError)):
            wire.recv_frame(b, wire.Limits(max_frame_bytes=1 << 20), time.monotonic() + 5)


def test_encode_measures_a_huge_tensor_before_copying_it():
    big = torch.zeros(1).expand(2**40)  # a 4 TB view of one float: copying it would be fatal
    with pytest.raises(wire.WireError, match="results this large"):
        wire.encode({"value": big}, max_bytes=1 << 20)


def test_encode_sends_a_tensor_subclass_as_a_plain_tensor():
    class Liar(torch.Tensor):
        def __eq__(self, other):
            return True

    tree, bufs = wire.encode(torch.tensor([1.0, 2.0]).as_subclass(Liar))
    back = wire.decode(tree, bufs)
    assert type(back) is torch.Tensor and back.tolist() == [1.0, 2.0]


# ----------------------------------------------------------------------------- text


@pytest.mark.parametrize(
    ("raw", "want"),
    [
        ("plain\nlines\tstay", "plain\nlines\tstay"),
        ("\x1b[2J\x1b[32mPASSED\x1b[0m", "PASSED"),
        ("a\rb\x07c\x00d\x9b", "abcd"),
        ("\u202eevil\u202c", "evil"),
        ("\x1b]8;;http://x\x07link\x1b]8;;\x07", "link"),
    ],
)
def test_clean_text_removes_escapes_and_controls(raw, want):
    assert clean_text(raw, 100) == want


def test_clean_text_caps_length_and_accepts_non_strings():
    assert len(clean_text("x" * 10_000, 50)) == 50
    assert clean_text(12, 10) == "12"


def test_reply_errors_from_a_worker_are_cleaned():
    from grader.sandbox.client import _reply_error

    err = _reply_error(
        {
            "kind": "exception",
            "exc_type": "Bad\x1b[31mError",
            "message": "m\x1b[2J" * 2000,
            "traceback": "\r" * 10,
        },
        "calling f()",
    )
    assert "\x1b" not in err.message and "\r" not in err.message
    assert len(err.message) < 2200
    assert json.dumps(err.message)  # plain, serialisable text


def test_effects_from_a_worker_keep_only_well_formed_argument_paths():
    from grader.sandbox.invoke import Effects

    eff = Effects.from_dict(
        {
            "mutated_args": ["args[0]", "args[" + "9" * 5000 + "]", "kwargs['labels']", "x" * 99]
            + ["args[1]"] * 1000,
            "model_modes": {"args[1]": 1, "../etc": 0},
            "model_forward_with_grad": {"kwargs['model']": 0, 5: 1},
        }
    )
    assert eff.mutated_args[:2] == ("args[0]", "kwargs['labels']")
    assert len(eff.mutated_args) <= 64
    assert eff.model_modes == {"args[1]": True}
    assert eff.model_forward_with_grad == {"kwargs['model']": False}


def test_a_forked_child_cannot_answer_for_the_worker():
    """The child of an os.fork returns too, but only the worker's own reply reaches the grader:
    the child's copy of the connection is /dev/null."""
    src = (
        "import os, time\n"
        "def f():\n"
        "    if os.fork() == 0:\n"
        "        return 'from the child'\n"
        "    time.sleep(0.05)\n"  # let the child reach the socket first
        "    return 'from the worker'\n"
    )
    limits = SandboxLimits(may_fork=True)  # by default the fork itself is refused (below)
    with Zygote(jail=JAILED) as z, SandboxSession(z, {"masks": src}, limits) as s:
        for _ in range(3):
            assert s.call("masks", "f", (), {}).value == "from the worker"


@needs_root
def test_processes_a_call_leaves_running_are_killed_before_the_next_call():
    src = (
        "import os, time\n"
        "def start():\n"
        "    pid = os.fork()\n"
        "    if pid == 0:\n"
        "        while True:\n"
        "            time.sleep(1)\n"
        "    return pid\n"
        "def alive(pid):\n"
        "    try:\n"
        "        os.kill(pid, 0)\n"
        "    except ProcessLookupError:\n"
        "        return False\n"
        "    return True\n"
    )
    with Zygote() as z, SandboxSession(z, {"masks": src}, SandboxLimits(may_fork=True)) as s:
        pid = s.call("masks", "start", (), {}).value
        assert s.call("masks", "alive", (pid,), {}).value is False


SECCOMP = platform.system() == "Linux" and platform.machine() in ("x86_64", "aarch64")


@pytest.mark.skipif(not SECCOMP, reason="the no-fork filter exists for Linux x86_64/aarch64")
@pytest.mark.parametrize("jailed", [True, False] if JAILED else [False])
def test_student_code_cannot_start_processes_but_can_start_threads(jailed):
    src = (
        "import os, subprocess, threading, torch\n"
        "def fork():\n"
        "    return os.fork()\n"
        "def run():\n"
        "    return subprocess.run(['/bin/true']).returncode\n"
        "def thread():\n"
        "    out = []\n"
        "    t = threading.Thread(target=lambda: out.append(os.getpid()))\n"
        "    t.start()\n"
        "    t.join()\n"
        "    return out == [os.getpid()]\n"
        "def torch_threads():\n"
        "    torch.set_num_threads(2)\n"
        "    x = torch.ones(256, 256)\n"
        "    return float((x @ x).sum())\n"
    )
    with Zygote(jail=jailed) as z, SandboxSession(z, {"masks": src}, SandboxLimits()) as s:
        for name in ("fork", "run"):
            with pytest.raises(StudentException, match="PermissionError"):
                s.call("masks", name, (), {})
        assert s.call("masks", "thread", (), {}).value is True
        assert s.call("masks", "torch_threads", (), {}).value == 256.0**3
        assert s.workers_started == 1  # refused, not crashed: the same worker answered all


def test_the_no_fork_filter_refuses_every_process_creation_call():
    """The BPF program, run by a tiny interpreter: clone without CLONE_THREAD, fork, vfork and
    foreign ABIs are refused with EPERM, clone3 gets ENOSYS (libc then uses clone), a thread
    and every other call pass."""
    from bpf import ALLOW, ENOSYS, EPERM
    from bpf import run_filter as run

    from grader.sandbox import seccomp

    x86 = seccomp.filter_program("x86_64")
    native = 0xC000003E
    assert run(x86, 56, native, arg0=0x11) == EPERM  # clone(SIGCHLD): fork
    assert run(x86, 56, native, arg0=0x4111) == EPERM  # clone(CLONE_VM|CLONE_VFORK)
    assert run(x86, 56, native, arg0=0x3D0F00) == ALLOW  # pthread_create's clone
    assert run(x86, 57, native) == EPERM and run(x86, 58, native) == EPERM
    assert run(x86, 435, native) == ENOSYS
    assert run(x86, 0, native) == ALLOW and run(x86, 1, native) == ALLOW  # read, write
    assert run(x86, 0x40000000 + 57, native) == EPERM  # x32
    assert run(x86, 2, 0x40000003) == EPERM  # i386 fork through int 0x80
    arm = seccomp.filter_program("aarch64")
    assert run(arm, 220, 0xC00000B7, arg0=0x11) == EPERM
    assert run(arm, 220, 0xC00000B7, arg0=0x3D0F00) == ALLOW
    assert run(arm, 435, 0xC00000B7) == ENOSYS and run(arm, 63, 0xC00000B7) == ALLOW
    # sockets: Unix only (AF_UNIX = 1; AF_INET 2, AF_NETLINK 16, AF_VSOCK 40 refused)
    noafs = 0x00050000 | 97
    for prog, arch, socket_nr, pair_nr in ((x86, native, 41, 53), (arm, 0xC00000B7, 198, 199)):
        assert run(prog, socket_nr, arch, arg0=1) == ALLOW
        assert run(prog, pair_nr, arch, arg0=1) == ALLOW
        for family in (2, 10, 16, 17, 40):
            assert run(prog, socket_nr, arch, arg0=family) == noafs
    # the kernel keyring, ptrace, bpf, perf, userfaultfd, io_uring, process_vm_*: refused
    for nr in (248, 249, 250, 101, 321, 298, 323, 425, 426, 427, 310, 311):
        assert run(x86, nr, native) == EPERM
    for nr in (217, 218, 219, 117, 280, 241, 282, 425, 270, 271):
        assert run(arm, nr, 0xC00000B7) == EPERM


@pytest.mark.skipif(not SECCOMP, reason="the filter exists for Linux x86_64/aarch64")
def test_student_code_cannot_reach_the_keyring_or_non_unix_sockets():
    """A key added to the kernel keyring would outlive the worker (the next submission under
    the same uid could read it), and vsock / netlink are not confined by the empty network
    namespace: the filter refuses them; Unix socket pairs still work."""
    src = (
        "import ctypes, errno, os, socket\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "ADD_KEY = {'x86_64': 248, 'aarch64': 217}[os.uname().machine]\n"
        "def add_key():\n"
        "    libc.syscall.restype = ctypes.c_long\n"
        "    r = libc.syscall(ADD_KEY, b'user', b'probe:grader', b'secret', 6, -4)\n"
        "    return [int(r), ctypes.get_errno()]\n"
        "def family(af):\n"
        "    try:\n"
        "        socket.socket(af, socket.SOCK_DGRAM if af != 40 else socket.SOCK_STREAM).close()\n"
        "        return 0\n"
        "    except OSError as e:\n"
        "        return e.errno\n"
        "def pair():\n"
        "    a, b = socket.socketpair()\n"
        "    a.sendall(b'x')\n"
        "    return b.recv(1) == b'x'\n"
    )
    with Zygote(jail=JAILED) as z, SandboxSession(z, {"masks": src}, SandboxLimits()) as s:
        assert s.call("masks", "add_key", (), {}).value == [-1, errno.EPERM]
        for af in (16, 40):  # AF_NETLINK, AF_VSOCK
            assert s.call("masks", "family", (af,), {}).value == errno.EAFNOSUPPORT
        assert s.call("masks", "pair", (), {}).value is True


def test_zero_dim_tensor_arguments_are_checked_for_mutation_like_any_other():
    src = "def double(x):\n    return x * 2\ndef bump(x):\n    x.add_(1)\n    return x\n"
    with Zygote(jail=JAILED) as z, SandboxSession(z, {"masks": src}, SandboxLimits()) as s:
        out = s.call("masks", "double", (torch.tensor(1.5),), {})
        assert out.value.item() == 3.0 and out.effects.mutated_args == ()
        assert s.call("masks", "bump", (torch.tensor(1.5),), {}).effects.mutated_args == (
            "args[0]",
        )


def test_a_worker_that_cannot_be_confined_says_why_at_once():
    """A confinement failure is the grader's problem: it surfaces as SandboxUnavailable with
    the reason, without waiting for a timeout, in jail and in basic mode."""
    from grader.sandbox.client import SandboxUnavailable

    with Zygote(jail=JAILED) as z:
        started = time.monotonic()
        with pytest.raises(SandboxUnavailable, match="could not be confined: ValueError"):
            z.spawn({"masks": "x = 1\n"}, SandboxLimits(max_open_files=-5), 0)
        assert time.monotonic() - started < 20  # the handshake deadline is 30 s


def test_encode_sends_one_element_views_with_any_stride():
    """x[:, 0] of a (1, 2) tensor is 'contiguous' with stride 2: a valid result, not an error
    (multinomial(probs, 2)[:, 0] on one row returns exactly that)."""
    for t in (torch.zeros(1, 2, dtype=torch.long)[:, 0], torch.arange(6.0).reshape(2, 3)[:1, 1:2]):
        tree, buffers = wire.encode({"v": t})
        back = wire.decode(tree, buffers)["v"]
        assert back.shape == t.shape and torch.equal(back, t)
