"""Per-request and per-worker work the sandbox does not need is not done, and nothing a
student's code can observe changes (docs/architecture.md: the worker protocol)."""

from __future__ import annotations

import subprocess
import sys

import torch

from grader.sandbox.client import SandboxSession, Zygote
from grader.sandbox.limits import SandboxLimits


def test_a_worker_seeds_the_cpu_generator_without_recording_lazy_device_seeds():
    """`torch.manual_seed` queues a CUDA seed with the caller's formatted stack (~2 ms per
    worker, reading source files): the worker seeds the CPU generator directly instead,
    to the very same state."""
    probe = (
        "import torch\n"
        "from grader.sandbox.worker import _seed_global_rngs\n"
        "torch.rand(5)\n"
        "_seed_global_rngs()\n"
        "state = torch.get_rng_state()\n"
        "assert not any(torch.cuda._lazy_seed_tracker.get_calls()), 'a lazy seed was queued'\n"
        "torch.manual_seed(0)\n"
        "assert torch.equal(state, torch.get_rng_state()), 'a different state'\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]


def test_student_code_drawing_from_the_global_generators_sees_the_seeded_streams():
    src = (
        "import random\nimport torch\n"
        "def f():\n    return torch.rand(4), torch.randint(100, (3,)), random.random()\n"
    )
    torch.manual_seed(0)
    want_t = torch.rand(4)
    want_i = torch.randint(100, (3,))
    import random

    random.seed(0)
    want_r = random.random()
    with Zygote() as z, SandboxSession(z, {"masks": src}, SandboxLimits()) as s:
        got_t, got_i, got_r = s.call("masks", "f", (), {}).value
    assert torch.equal(got_t, want_t) and torch.equal(got_i, want_i) and got_r == want_r
