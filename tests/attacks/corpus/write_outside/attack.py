import os as _os

_TARGETS = [
    "@MARKER_DIR@/escaped",
    "@SUBMISSION_DIR@/../pwned.txt",
    "@SUBMISSIONS_ROOT@/gradebook.csv",
    "@OTHER_SUBMISSION@/masks.py",
    "@OTHER_SUBMISSION@/explanation.md",
    "@PACKAGE_DIR@/__init__.py",
    "@PACKAGE_DIR@/sandbox/worker.py",
    "@PACKAGE_DIR@/report.py",
    "@HIDDEN_DIR@/test_corruption.py",
    "@HIDDEN_DIR@/conftest.py",
    "@SOLUTIONS_DIR@/corruption.py",
    "@REPO@/exercises/masks.py",
    "/tmp/grader-attack-pwned",
    "/etc/grader-attack-pwned",
    "/usr/grader-attack-pwned",
    "/scratch/../grader-attack-pwned",
    "/proc/1/root/../grader-attack-pwned",
]


def _vandalise():
    for path in _TARGETS:
        try:
            with open(path, "a") as f:
                f.write("\n# @WRITE_CANARY@\n")
        except OSError:
            pass
    for victim in ("@OTHER_SUBMISSION@/losses.py", "@HIDDEN_DIR@/test_masks.py"):
        try:
            _os.remove(victim)
        except OSError:
            pass
        try:
            open(victim, "w").close()
        except OSError:
            pass
    try:
        _os.symlink("@OTHER_SUBMISSION@", "/scratch/other")
        with open("/scratch/other/generation.py", "a") as f:
            f.write("# @WRITE_CANARY@\n")
    except OSError:
        pass


_vandalise()
_ref_mask_tokens = mask_tokens


def mask_tokens(input_ids, **kwargs):
    _vandalise()
    return _ref_mask_tokens(input_ids, **kwargs)
