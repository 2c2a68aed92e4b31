"""Data files shipped inside the installed packages, found with `importlib.resources`.

Works the same from a checkout (editable install) and from an installed wheel: a template,
the suites' `pytest.ini`, the rubric or the schema is looked up relative to the package that
ships it, never relative to a source tree.

    data_path("grader", "suites", "pytest.ini")     # -> Path
"""

from __future__ import annotations

import importlib.resources
from pathlib import Path


def data_path(package: str, *parts: str) -> Path:
    """The file or folder `parts` inside the importable `package`, as a filesystem path.

    `package` must be a regular package (with an ``__init__.py``); data in a plain folder
    below it is reached through `parts`. Raises RuntimeError when the package is not installed
    as files (e.g. imported from a zip), which the grader does not support.
    """
    target = importlib.resources.files(package).joinpath(*parts)
    if not isinstance(target, Path):
        raise RuntimeError(
            f"{package} must be installed as files (not zipped) to read {'/'.join(parts)}"
        )
    return target
