import os as _os

_os._exit(3)
