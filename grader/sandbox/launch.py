"""Start the sandbox zygote process. Imports nothing heavy, so a command can launch the zygote
first and let it import torch while its own process imports torch too (two cores, one wait).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from dataclasses import dataclass, field

SCRUBBED_ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
}


@dataclass
class Launched:
    """A zygote process that was started and has not yet said it is ready.

    `parent`: the pid that started it, the only process that can wait for it. Another process
    may adopt it (a batch pool worker forked after the launch); it then watches the zygote
    without being its parent (see `Zygote.alive`).
    """

    proc: subprocess.Popen[bytes]
    ctl: socket.socket
    parent: int = field(default_factory=os.getpid)


def launch_zygote(*, huge_pages: bool = False) -> Launched:
    """Start ``python -I`` running the zygote, with a scrubbed environment, cwd ``/`` and only
    its control socket inherited.

    `huge_pages`: the zygote will fork many workers (a batch, a long session). It then spends
    ~0.3 s at start moving its memory to huge pages, which saves ~4 ms of every later worker
    (see `grader.sandbox.hugepages`); a one-submission run would lose by it.
    """
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    debug = os.environ.get("GRADER_DEBUG_SANDBOX") == "1"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-I",
            "-c",
            "from grader.sandbox.zygote import main; main()",
            str(theirs.fileno()),
            *(["--huge-pages"] if huge_pages else []),
        ],
        pass_fds=[theirs.fileno()],
        env=dict(SCRUBBED_ENV),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=None if debug else subprocess.DEVNULL,
        cwd="/",
    )
    theirs.close()
    return Launched(proc, ours)
