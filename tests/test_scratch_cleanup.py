"""No sandbox work folder (`/tmp/grader-sbx-*`) outlives the run that made it.

`grader grade` and `grader batch` remove every folder they made, also when a worker is still
running at the end; a run killed with SIGKILL leaves its folders behind, and the next run's
zygote removes them when it starts (`reap_stale_workdirs`: only folders named after a pid that
no longer exists). The end-to-end tests run the CLI in a private mount namespace with its own
empty /tmp, so other graders on the machine cannot disturb the count.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from grader.sandbox.zygote import WORKDIR_PREFIX, reap_stale_workdirs

ROOT = Path(__file__).resolve().parents[1]
GRADER = str(Path(sys.executable).with_name("grader"))

needs_root = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("unshare") is None, reason="needs root and unshare"
)


def _dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid  # reaped: no process has it (until the kernel reuses it)


def test_reaper_removes_only_folders_of_dead_owners(tmp_path):
    dead, alive = _dead_pid(), os.getpid()
    stale = tmp_path / f"{WORKDIR_PREFIX}{dead}-abc_123"
    (stale / "scratch").mkdir(parents=True)
    (stale / "scratch" / "masks.py").write_text("x = 1\n")
    live = tmp_path / f"{WORKDIR_PREFIX}{alive}-def456"
    live.mkdir()
    legacy = tmp_path / f"{WORKDIR_PREFIX}q9x_2k1z"  # no owner recorded: never touched
    legacy.mkdir()
    other = tmp_path / f"other-{dead}-abc"
    other.mkdir()
    a_file = tmp_path / f"{WORKDIR_PREFIX}{dead}-file0001"
    a_file.write_text("not a folder")
    target = tmp_path / "target"
    target.mkdir()
    (target / "keep.txt").write_text("keep")
    link = tmp_path / f"{WORKDIR_PREFIX}{dead}-link0001"
    link.symlink_to(target)

    removed = reap_stale_workdirs(str(tmp_path))

    assert removed == [str(stale)]
    assert not stale.exists()
    for kept in (live, legacy, other, a_file, link, target / "keep.txt"):
        assert kept.exists() or kept.is_symlink(), kept


def _in_private_tmp(script: str, timeout: float = 300) -> dict:
    """Run a Python script as root in a new mount namespace with an empty tmpfs on /tmp.

    A checkout or venv that itself lies under /tmp (a CI clone, say) is bound back at its own
    path on the new /tmp, from a hold of the old one on a private tmpfs over /mnt."""
    keep = sorted(
        {str(ROOT), sys.prefix, os.path.dirname(os.path.realpath(sys.executable))} - {"/tmp"}
    )
    keep = [k for k in keep if k.startswith("/tmp/")]
    binds = "".join(
        f" && mkdir -p {shlex.quote(k)} && mount --bind /mnt/hold{shlex.quote(k[4:])} "
        f"{shlex.quote(k)}"
        for k in keep
    )
    wrapper = (
        "mount -t tmpfs tmpfs /mnt && mkdir /mnt/hold && mount --bind /tmp /mnt/hold"
        f' && mount -t tmpfs -o size=256m tmpfs /tmp{binds} && exec "$0" -c "$1"'
    )
    proc = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c", wrapper,
         sys.executable, textwrap.dedent(script)],
        capture_output=True, text=True, timeout=timeout, cwd=ROOT,
        env={**os.environ, "GRADER": GRADER, "ROOT": str(ROOT)},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


_HELPERS = """
    import glob, json, os, shutil, signal, subprocess, time
    GRADER, ROOT = os.environ["GRADER"], os.environ["ROOT"]
    def left():
        return sorted(glob.glob("/tmp/grader-sbx-*"))
    def run(*args):
        return subprocess.run([GRADER, *args], capture_output=True, text=True).returncode
"""


def test_a_zombie_owner_counts_as_gone(tmp_path):
    # a killed zygote is a zombie until init reaps it (seconds on some machines)
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    try:
        while open(f"/proc/{pid}/stat", "rb").read().rsplit(b")", 1)[1][1:2] != b"Z":
            pass
        folder = tmp_path / f"{WORKDIR_PREFIX}{pid}-abc"
        folder.mkdir()
        assert reap_stale_workdirs(str(tmp_path)) == [str(folder)]
        assert not folder.exists()
    finally:
        os.waitpid(pid, 0)


@needs_root
def test_grade_and_batch_leave_no_work_folders():
    result = _in_private_tmp(
        _HELPERS
        + """
    out = {}
    out["grade_rc"] = run("grade", os.path.join(ROOT, "exercises"), "--format", "json")
    out["after_grade"] = left()
    cls = "/tmp/class"
    for name in ("ann", "bob"):
        shutil.copytree(os.path.join(ROOT, "exercises"), os.path.join(cls, name))
    out["batch_rc"] = run("batch", cls, "--out", "/tmp/graded", "--workers", "2")
    out["after_batch"] = left()
    print(json.dumps(out))
    """
    )
    assert result["grade_rc"] in (0, 1) and result["batch_rc"] in (0, 1), result
    assert result["after_grade"] == [] and result["after_batch"] == [], result


@needs_root
def test_folders_of_a_killed_run_are_removed_by_the_next():
    result = _in_private_tmp(
        _HELPERS
        + """
    out = {}
    proc = subprocess.Popen([GRADER, "grade", os.path.join(ROOT, "exercises")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not left() and time.monotonic() < deadline:
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    time.sleep(0.5)  # the zygote and its workers die by their parent-death signals
    out["after_kill"] = left()
    out["grade_rc"] = run("grade", os.path.join(ROOT, "exercises"), "--format", "json")
    out["after_next"] = left()
    print(json.dumps(out))
    """
    )
    assert result["after_kill"], "the killed run made no work folder: nothing was tested"
    assert result["grade_rc"] in (0, 1), result
    assert result["after_next"] == [], result
