"""One entry's loading rules, shared by `grader grade` (`load_submission`) and `grader batch`.

Inside a student's folder or .zip, the exercise files are used when present; otherwise its
single notebook (or single nested .zip) is loaded instead. No student code runs here.
"""

from __future__ import annotations

import ast
import io
import os
import stat
import zipfile
from dataclasses import replace
from pathlib import Path

from grader.loading.archive import load_zip, load_zip_members, open_zip
from grader.loading.folder import load_folder
from grader.loading.model import (
    EXPLANATION_FILE,
    LoadLimits,
    Submission,
    SubmissionError,
    assemble,
)
from grader.loading.notebook import load_notebook, load_notebook_bytes
from grader.parts import CODE_PARTS

IGNORED_NAMES = {"__MACOSX", ".DS_Store", "Thumbs.db", "desktop.ini", ".ipynb_checkpoints"}


def ignored(name: str) -> bool:
    """Whether a file or folder name is system clutter (`__MACOSX`, dot files, ...)."""
    return name in IGNORED_NAMES or name.startswith(".") or name.startswith("~$")


def read_member(
    zf: zipfile.ZipFile, info: zipfile.ZipInfo, limits: LoadLimits, cap: int | None = None
) -> bytes:
    """Read one archive member with the loaders' rules (no links, no bombs, size caps)."""
    cap = limits.max_file_bytes if cap is None else cap
    mode = info.external_attr >> 16
    if stat.S_ISLNK(mode):
        raise SubmissionError(f"{info.filename!r} is a symbolic link")
    if info.file_size > cap:
        raise SubmissionError(f"{Path(info.filename).name} is larger than {cap // 1000} kB")
    if info.compress_size and info.file_size / info.compress_size > limits.max_ratio:
        raise SubmissionError(f"{Path(info.filename).name} looks like a zip bomb")
    try:
        with zf.open(info) as f:
            data = f.read(cap + 1)
    except Exception as exc:  # noqa: BLE001 - zlib.error, NotImplementedError...: hostile bytes
        raise SubmissionError(f"{Path(info.filename).name} is corrupt ({exc})") from None
    if len(data) > cap:
        raise SubmissionError(f"{Path(info.filename).name} is larger than declared")
    return data


def load_zip_bytes(data: bytes, *, name: str, origin: str, limits: LoadLimits) -> Submission:
    """A student's .zip held in memory (nested in an LMS export)."""
    try:
        zf = open_zip(io.BytesIO(data))
    except Exception as exc:  # noqa: BLE001 - any parse failure of hostile bytes
        raise SubmissionError(
            f"{Path(origin).name} is not a readable zip archive ({exc})"
        ) from None
    with zf:
        sub = load_zip_members(zf, name=name, origin=origin, limits=limits)
        if not needs_notebook(sub):
            return sub
        notebooks = [i for i in zf.infolist() if is_notebook(i.filename)]
        if len(notebooks) == 1:
            nb = read_member(zf, notebooks[0], limits, cap=limits.max_total_bytes)
            return with_notebook(
                sub,
                load_notebook_bytes(
                    nb,
                    name=name,
                    origin=origin,
                    limits=limits,
                    filename=Path(notebooks[0].filename).name,
                ),
                Path(notebooks[0].filename).name,
            )
        if len(notebooks) > 1 and not sub.files:
            raise several_notebooks([i.filename for i in notebooks])
        return sub


def is_stub(source: str) -> bool:
    """Whether a part's source is an untouched stub of the handout: it defines functions, and
    each only raises NotImplementedError (after its docstring). Unparseable code is work."""
    if "NotImplementedError" not in source:
        return False
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    funcs = [n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    return bool(funcs) and all(_raises_not_implemented(f.body) for f in funcs)


def _raises_not_implemented(body: list[ast.stmt]) -> bool:
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    if len(body) != 1 or not isinstance(body[0], ast.Raise) or body[0].exc is None:
        return False
    exc = body[0].exc.func if isinstance(body[0].exc, ast.Call) else body[0].exc
    return isinstance(exc, ast.Name) and exc.id == "NotImplementedError"


def needs_notebook(sub: Submission) -> bool:
    """Whether the entry's notebook (if it has one) holds the work: its exercise .py files are
    absent or only the handout's stubs (a notebook student handing in the whole handout, or
    the notebook with the drill's files beside it)."""
    return all(is_stub(src) for src in sub.sources.values())


def with_notebook(sub: Submission, nb: Submission, filename: str) -> Submission:
    """The submission `nb` of the notebook `filename`, plus what only `sub` (the files beside
    it) has: the drill's files, and explanation.md's answer when the notebook has none."""
    if not sub.files:
        return nb
    files = dict(nb.files)
    files.update({p: t for p, t in sub.files.items() if p.startswith("drill/") and p not in files})
    problems = list(nb.problems)
    if sub.written.get("explanation") and not nb.written.get("explanation"):
        files[EXPLANATION_FILE] = sub.files[EXPLANATION_FILE]
    if sub.sources:
        stubs = ", ".join(f"{p}.py" for p in sorted(sub.sources))
        problems.append(
            f"{stubs} beside the notebook still hold only the handout's stubs, so the code was "
            f"graded from {filename}"
        )
    raw = {p: t.encode("utf-8") for p, t in files.items()}
    return replace(
        assemble(nb.name, nb.origin, raw, problems),
        notebook=nb.notebook,
        cell_lines=nb.cell_lines,
    )


def is_notebook(path: str) -> bool:
    """True for a `.ipynb` path with no ignored part (`__MACOSX`, dot folders such as
    `.ipynb_checkpoints`, ...)."""
    parts = path.replace("\\", "/").split("/")
    return path.lower().endswith(".ipynb") and not any(ignored(p) for p in parts)


def several_notebooks(paths: list[str]) -> SubmissionError:
    """The error for a submission that holds several notebooks and no exercise files (names the
    first five)."""
    names = ", ".join(sorted(Path(p).name for p in paths)[:5])
    return SubmissionError(
        f"the submission holds several notebooks ({names}) and no exercise files; hand in "
        "one notebook, or the .py files"
    )


def load_dir(path: Path, *, name: str, limits: LoadLimits) -> Submission:
    """A student's folder: its exercise files, else its one notebook or its one .zip."""
    sub = load_folder(path, name=name, limits=limits)
    if not needs_notebook(sub):
        return sub
    notebooks: list[Path] = []
    zips: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(path, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not ignored(d))
        if Path(dirpath).relative_to(path).parts.__len__() > 2:
            dirnames[:] = []
        for f in sorted(filenames):
            full = Path(dirpath) / f
            if ignored(f) or full.is_symlink():
                continue
            if f.lower().endswith(".ipynb"):
                notebooks.append(full)
            elif f.lower().endswith(".zip"):
                zips.append(full)
    if len(notebooks) == 1:
        nb = load_notebook(notebooks[0], name=name, limits=limits)
        return with_notebook(sub, nb, notebooks[0].name)
    if sub.files:
        return sub
    if len(notebooks) > 1:
        raise several_notebooks([str(p) for p in notebooks])
    if len(zips) == 1:
        size = zips[0].stat().st_size
        if size > limits.max_total_bytes:
            raise SubmissionError(f"{zips[0].name} is too large")
        return load_zip_bytes(zips[0].read_bytes(), name=name, origin=str(zips[0]), limits=limits)
    return sub


def load_file(path: Path, *, name: str, limits: LoadLimits) -> Submission:
    """A student's .ipynb, or .zip: its exercise files, else its one notebook or one .zip."""
    if path.suffix.lower() == ".ipynb":
        return load_notebook(path, name=name, limits=limits)
    sub = load_zip(path, name=name, limits=limits)
    if sub.files and not needs_notebook(sub):
        return sub
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SubmissionError(f"{path.name} could not be read ({exc.strerror})") from None
    return load_zip_bytes(data, name=name, origin=str(path), limits=limits)


def default_work_folder(cwd: Path) -> Path:
    """Where `grader check` with no argument looks, from `cwd`: the folder itself when it
    holds an exercise file, else its `exercises/` folder (the handout's layout), else the
    folder. A notebook student's handout (a notebook here, only stubs in exercises/) is
    checked whole: the notebook with exercises/drill/, as it is graded."""
    if any((cwd / f"{p}.py").is_file() for p in CODE_PARTS):
        return cwd
    sub = cwd / "exercises"
    if not sub.is_dir():
        return cwd
    if any(cwd.glob("*.ipynb")) and all(_stub_file(sub / f"{p}.py") for p in CODE_PARTS):
        return cwd
    return sub


def work_for(path: Path) -> Path:
    """What `grader check PATH` checks: PATH, except that the handout's notebook
    (`student.ipynb` beside stub-only exercises/, the only notebook there) is checked with its
    folder, which is how it is graded: the notebook with exercises/drill/. Alone it would lose
    the drill ("not handed in"), though the notebook's own check cell runs exactly this."""
    if path.suffix.lower() != ".ipynb" or not path.is_file():
        return path
    folder = path.parent
    if [p.resolve() for p in folder.glob("*.ipynb")] != [path.resolve()]:
        return path
    for where in (folder, folder / "exercises"):  # any code of its own: the folder is not it
        if not all(_stub_file(where / f"{p}.py") for p in CODE_PARTS):
            return path
    return folder


def _stub_file(path: Path) -> bool:
    try:
        return not path.is_file() or is_stub(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return False
