"""Prove a handout holds nothing course-internal: no distinctive line of a secret text.

Secret texts are the reference solutions and the model answer (`solutions/`), the hidden
suites and their expected values, the rubric and its data, the demo class's answers, the
scorer's internals and the instructor docs (where a checkout has them). A line of a secret
text is *distinctive* when it is long enough to identify it and appears in no public text
(the stubs, the public tests, the grader code the handout ships): ``import torch`` is not
distinctive, a line of a reference implementation is.

`audit(folder)` reads every file below `folder`, the members of every .zip/.whl in it, and
the strings of every JSON document (a notebook's cells), and returns one line per leak.
"""

from __future__ import annotations

import json
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path

from grader.resources import data_path

MIN_CHARS = 16  # shorter lines ("return out", "},") identify nothing
MIN_TOKENS = 5  # a line of fewer words identifies a secret only with a word of its own
_WORD = re.compile(r"\w+")
# Below the grader package: what is secret, and what (everything else) is public code.
SECRET_GRADER = ("suites/hidden", "suites/golden.json", "suites/golden_inputs.py", "rubric",
                 "diagnosis/variants.py", "demo_class", "batch/sampleclass.py",
                 "trusted_tinylm.py")  # fmt: skip
CHECKOUT_SECRETS = "tools/rubric"  # the rubric's labelled sets and training tools
INSTRUCTOR_DOCS = ("instructor.md", "hidden-tests.md", "rubric.md", "architecture.md")
_TEXT_SUFFIXES = {".py", ".md", ".toml", ".json", ".jsonl", ".txt", ".ini", ".j2", ".ipynb"}


def _files(root: Path) -> Iterator[Path]:
    if root.is_file():
        yield root
    elif root.is_dir():
        for p in sorted(root.rglob("*")):
            if p.is_file() and "__pycache__" not in p.parts and p.suffix in _TEXT_SUFFIXES:
                yield p


def _is_secret_grader_file(path: Path, grader_dir: Path) -> bool:
    rel = path.relative_to(grader_dir).as_posix()
    return any(rel == s or rel.startswith(s + "/") for s in SECRET_GRADER)


def secret_sources() -> list[Path]:
    """Every secret text this installation has (solutions, hidden suites, rubric data...)."""
    grader_dir = data_path("grader")
    out = list(_files(data_path("solutions")))
    out += [p for p in _files(grader_dir) if _is_secret_grader_file(p, grader_dir)]
    docs = grader_dir.parent / "docs"  # a checkout's instructor docs (not in a wheel)
    out += [docs / name for name in INSTRUCTOR_DOCS if (docs / name).is_file()]
    out += list(_files(grader_dir.parent / CHECKOUT_SECRETS))  # likewise the labelled answers
    return out


def public_sources() -> list[Path]:
    """Texts students may see anyway: the stubs, templates and the grader's non-secret code."""
    grader_dir = data_path("grader")
    out = list(_files(data_path("exercises"))) + list(_files(data_path("feedback_templates")))
    out += [p for p in _files(grader_dir) if not _is_secret_grader_file(p, grader_dir)]
    return out


def _label(path: Path) -> str:
    root = data_path("grader").parent
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else path.name


def _lines(text: str) -> Iterator[str]:
    for line in text.splitlines():
        line = line.strip()
        if len(line) >= MIN_CHARS:
            yield line


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(k)
            yield from _strings(v)


def texts_of(name: str, data: bytes) -> Iterator[tuple[str, str]]:
    """(label, text) for a file, each member of an archive in it, and its JSON strings."""
    if name.endswith((".zip", ".whl")):
        import io

        try:
            with zipfile.ZipFile(io.BytesIO(data)) as zf:
                for info in zf.infolist():
                    if not info.is_dir() and info.file_size <= 50_000_000:
                        yield from texts_of(f"{name}!{info.filename}", zf.read(info))
        except zipfile.BadZipFile:
            pass
        return
    text = data.decode("utf-8", errors="replace")
    yield name, text
    if name.endswith((".json", ".ipynb")):
        try:
            doc = json.loads(text)
        except ValueError:
            return
        yield from ((f"{name} (JSON)", s) for s in _strings(doc))


def distinctive_lines() -> dict[str, str]:
    """Distinctive line -> the secret file it comes from.

    A line is not distinctive when a public text has it, or when it is only a few words that
    public texts use (a JSON key naming a stub's function, ``"function": "causal_lm_loss",``).
    """
    public: set[str] = set()
    public_words: set[str] = set()
    for p in public_sources():
        for _, text in texts_of(p.name, p.read_bytes()):
            public.update(_lines(text))
            public_words.update(_WORD.findall(text))
    out: dict[str, str] = {}
    for p in secret_sources():
        for _, text in texts_of(p.name, p.read_bytes()):
            for line in _lines(text):
                if line in public:
                    continue
                tokens = _WORD.findall(line)
                if len(tokens) >= MIN_TOKENS or not public_words.issuperset(tokens):
                    out.setdefault(line, _label(p))
    return out


def audit(folder: Path, secrets: dict[str, str] | None = None) -> list[str]:
    """One message per file of `folder` holding a distinctive secret line (empty: clean)."""
    secrets = distinctive_lines() if secrets is None else secrets
    leaks = []
    for path in sorted(Path(folder).rglob("*")):
        if not path.is_file():
            continue
        rel = path.relative_to(folder).as_posix()
        for label, text in texts_of(rel, path.read_bytes()):
            for line in text.splitlines():
                hit = secrets.get(line.strip())
                if hit is not None:
                    leaks.append(f"{label}: a line of {hit}: {line.strip()[:80]!r}")
                    break
    return leaks
