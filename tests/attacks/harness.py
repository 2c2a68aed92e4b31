"""The attack corpus: discovery, building each hostile submission, and the checks on its report.

An attack is one folder under ``tests/attacks/corpus/<name>/``:

* ``attack.toml`` - what it attacks and what containment means for it (see `Attack`);
* ``attack.py`` (optional) - the hostile module. It replaces ``<module>.py`` of an otherwise
  correct submission built from ``solutions/`` at test time. Unless ``base = "none"``, the
  reference module's source is put *before* it, so the attack only redefines what it needs and
  can call the reference versions it saved (``_ref = mask_tokens`` ...).

Placeholders such as ``"@MARKER_DIR@"`` in ``attack.py`` (and in the toml's archive/folder
entries) are replaced at test time with absolute paths the test owns (`Context`), so an attack
aims at the real targets: the marker folder, the hidden tests, the solutions, another
student's submission, the installed package, a listening port.
"""

from __future__ import annotations

import hashlib
import io
import os
import socket
import stat
import sys
import tomllib
import warnings
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).resolve().parent / "corpus"
REPO = Path(__file__).resolve().parents[2]
PARTS = ("masks", "corruption", "losses", "generation")
SCORED_PARTS = (*PARTS, "drill")  # what an attack may cost (`Expect.parts`)
STATUSES = {"passed", "failed", "error", "timeout", "missing"}
SANDBOX_UIDS = range(61000, 62000)


def attack_limits():
    """The small limits the corpus is graded under (timeouts cost little), in every mode."""
    from grader.sandbox.limits import SandboxLimits

    return SandboxLimits(
        call_timeout=1.5,
        submission_timeout=20,
        cpu_seconds=10,
        memory_mb=512,
        max_processes=32,
        max_file_mb=4,
        max_result_mb=16,
        scratch_mb=16,
    )


@dataclass(frozen=True)
class Expect:
    """What containment means for one attack.

    parts: the parts the attack is allowed to cost (default: the attacked module's part).
        Every other part must keep exactly the reference's per-test statuses and scores.
    statuses: statuses an attacked test may end with when it does not match the reference.
    message: regex each such test's message must match: the student's clear explanation.
    min_affected: at least this many attacked tests must not pass (0: side-effect-only).
    max_fraction: the attacked parts may keep at most this fraction of their points (e.g.
        0.5 for an attack that returns wrong values unless it can reach the solutions: it
        must gain nothing; 0 when every test must fail).
    max_seconds: bound on the wall time of grading this submission.
    problems: regex one of the report's `errors` (submission problems) must match.
    load_error: regex; loading must raise SubmissionError with a matching message instead.
    forbidden: strings that must appear nowhere in the JSON report.
    forbidden_html: strings that must appear nowhere in the HTML report.
    forged: ids of tests the attack passes by forging a signal that stays self-reported: each
        must pass, and docs/security.md must name it (so the docs' list is the truth).
    written_max: the written answer (Exercise 2), scored as in grading, earns at most this.
    written_flagged: ... and is flagged for an instructor to read.
    feedback_forbidden: strings that must appear nowhere in the feedback notebook the grader
        writes for a notebook submission (`grader.render.ipynb`).
    """

    parts: tuple[str, ...] = ()
    statuses: tuple[str, ...] = ("error",)
    message: str = ""
    min_affected: int = 1
    max_fraction: float = 1.0
    max_seconds: float = 25.0
    problems: str = ""
    load_error: str = ""
    forbidden: tuple[str, ...] = ()
    forbidden_html: tuple[str, ...] = ()
    forged: tuple[str, ...] = ()
    written_max: float | None = None
    written_flagged: bool = False
    feedback_forbidden: tuple[str, ...] = ()


@dataclass(frozen=True)
class Attack:
    name: str
    summary: str
    defence: str
    module: str | None
    base: str
    requires_jail: bool
    grade_other_first: bool
    expect: Expect
    archive: dict[str, Any] | None = None
    folder: dict[str, Any] | None = None
    source: str | None = None
    written: str | None = None  # the explanation.md handed in (`[written] file`)
    notebook: dict[str, Any] | None = None  # `[notebook] cells`: added to the reference's

    @property
    def parts(self) -> tuple[str, ...]:
        if self.expect.parts:
            return self.expect.parts
        return (self.module,) if self.module else ()


def load(name: str) -> Attack:
    folder = CORPUS / name
    spec = tomllib.loads((folder / "attack.toml").read_text(encoding="utf-8"))
    known = {
        "summary",
        "defence",
        "module",
        "base",
        "requires_jail",
        "grade_other_first",
        "expect",
        "archive",
        "folder",
        "written",
        "notebook",
    }
    unknown = set(spec) - known
    if unknown:
        raise ValueError(f"{name}/attack.toml: unknown keys {sorted(unknown)}")
    exp = dict(spec.get("expect", {}))
    for key in ("parts", "statuses", "forbidden", "forbidden_html", "forged",
                "feedback_forbidden"):  # fmt: skip
        if key in exp:
            exp[key] = tuple(exp[key])
    expect = Expect(**exp)
    bad = set(expect.statuses) - STATUSES
    if bad or not set(expect.parts) <= set(SCORED_PARTS):
        raise ValueError(f"{name}/attack.toml: bad statuses or parts")
    module = spec.get("module")
    if module is not None and module not in PARTS:
        raise ValueError(f"{name}/attack.toml: module must be one of {PARTS}")
    src = folder / "attack.py"
    if (module is None) != (not src.exists()):
        raise ValueError(f"{name}: attack.py and `module` go together")
    if not (spec.get("summary") and spec.get("defence")):
        raise ValueError(f"{name}/attack.toml: summary and defence are required")
    return Attack(
        name=name,
        summary=spec["summary"],
        defence=spec["defence"],
        module=module,
        base=spec.get("base", "reference"),
        requires_jail=bool(spec.get("requires_jail", False)),
        grade_other_first=bool(spec.get("grade_other_first", False)),
        expect=expect,
        archive=spec.get("archive"),
        folder=spec.get("folder"),
        source=src.read_text(encoding="utf-8") if src.exists() else None,
        written=(folder / spec["written"]["file"]).read_text(encoding="utf-8")
        if "written" in spec
        else None,
        notebook=spec.get("notebook"),
    )


def discover() -> list[str]:
    return sorted(p.name for p in CORPUS.iterdir() if (p / "attack.toml").is_file())


# ----------------------------------------------------------------------------- context


@dataclass
class Context:
    """Everything an attack may aim at, and what the checks compare against."""

    root: Path  # the test's own temporary folder
    marker_dir: Path  # an attack that escapes writes here; must stay empty
    submissions: Path  # the class folder: this submission, another student's, a gradebook
    other: Path  # another student's submission
    write_canary: str  # written by every write attempt; must not appear anywhere afterwards
    secrets: dict[str, str]  # label -> text that must appear in no report
    port: int = 0
    listeners: list[socket.socket] = field(default_factory=list)

    def placeholders(self, submission_dir: Path) -> dict[str, str]:
        import grader
        import solutions

        site = next((p for p in sys.path if p.endswith("site-packages")), "/nonexistent")
        return {
            "@MARKER_DIR@": str(self.marker_dir),
            "@SUBMISSION_DIR@": str(submission_dir),
            "@SUBMISSIONS_ROOT@": str(self.submissions),
            "@OTHER_SUBMISSION@": str(self.other),
            "@REPO@": str(REPO),
            "@PACKAGE_DIR@": str(Path(grader.__file__).parent),
            "@HIDDEN_DIR@": str(Path(grader.__file__).parent / "suites" / "hidden"),
            "@SOLUTIONS_DIR@": str(Path(solutions.__file__).parent),
            "@SITE_PACKAGES@": site,
            "@WRITE_CANARY@": self.write_canary,
            "@PORT@": str(self.port),
        }


def substitute(text: str, mapping: dict[str, str]) -> str:
    for key, value in mapping.items():
        text = text.replace(key, value)
    return text


def reference_source(part: str) -> str:
    return (REPO / "solutions" / f"{part}.py").read_text(encoding="utf-8")


def write_reference(folder: Path, skip: tuple[str, ...] = ()) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for part in PARTS:
        if part not in skip:
            (folder / f"{part}.py").write_text(reference_source(part), encoding="utf-8")


def attack_module_source(attack: Attack, mapping: dict[str, str]) -> str:
    assert attack.module and attack.source is not None
    body = substitute(attack.source, mapping)
    if attack.base == "none":
        return body
    return reference_source(attack.module) + "\n\n# ---- attack ----\n" + body


# ----------------------------------------------------------------------------- building


def build(attack: Attack, ctx: Context) -> Path:
    """Write the hostile submission into ctx.submissions; return the path to grade."""
    if attack.archive is not None:
        return _build_zip(attack, ctx)
    if attack.notebook is not None:
        return _build_notebook(attack, ctx)
    folder = ctx.submissions / attack.name
    mapping = ctx.placeholders(folder)
    write_reference(folder)
    if attack.module:
        (folder / f"{attack.module}.py").write_text(
            attack_module_source(attack, mapping), encoding="utf-8"
        )
    if attack.written is not None:
        (folder / "explanation.md").write_text(attack.written, encoding="utf-8")
    for entry in (attack.folder or {}).get("entries", []):
        target = folder / entry["name"]
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists() or target.is_symlink():
            target.unlink()
        if "symlink" in entry:
            target.symlink_to(substitute(entry["symlink"], mapping))
        elif "reference" in entry:  # a file of the reference submission (its drill ...)
            target.write_bytes((REPO / "solutions" / entry["reference"]).read_bytes())
        elif entry.get("fifo"):
            os.mkfifo(target)
        elif "depth" in entry:  # a deeply nested chain of folders, built one level at a time
            fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
            try:
                for name in [target.name] + ["d"] * int(entry["depth"]):
                    os.mkdir(name, dir_fd=fd)
                    nxt = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
                    os.close(fd)
                    fd = nxt
                leaf = os.open("masks.py", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
                os.write(leaf, b"raise SystemExit('deep')\n")
                os.close(leaf)
            finally:
                os.close(fd)
        else:
            target.write_text(substitute(entry.get("text", ""), mapping), encoding="utf-8")
    return folder


def _build_notebook(attack: Attack, ctx: Context) -> Path:
    """A notebook submission: the reference's four modules as code cells, then the toml's
    `[notebook] cells` (each `cell_type`, `source`, optional `tags`) in order."""
    from grader.loading.notebook import notebook_json

    cells: list[dict[str, Any]] = [
        {"cell_type": "code", "source": reference_source(p)} for p in PARTS
    ]
    for c in (attack.notebook or {}).get("cells", []):
        tags = {"tags": list(c["tags"])} if "tags" in c else {}
        cells.append({"cell_type": c.get("cell_type", "markdown"), "source": c["source"],
                      "metadata": tags})  # fmt: skip
    path = ctx.submissions / f"{attack.name}.ipynb"
    path.write_text(notebook_json(cells), encoding="utf-8")
    return path


def _zip_bytes(members: list[tuple[str, bytes]]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members:
            zf.writestr(name, data)
    return buf.getvalue()


def _build_zip(attack: Attack, ctx: Context) -> Path:
    spec = attack.archive or {}
    path = ctx.submissions / f"{attack.name}.zip"
    mapping = ctx.placeholders(path)
    prefix = spec.get("prefix", "")
    skip = tuple(spec.get("omit_reference", ()))
    with (
        warnings.catch_warnings(),  # a member named twice is an attack here, not a mistake
        zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, allowZip64=True) as zf,
    ):
        warnings.filterwarnings("ignore", "Duplicate name", UserWarning)
        for part in PARTS:
            if part not in skip:
                zf.writestr(prefix + f"{part}.py", reference_source(part))
        for m in spec.get("members", []):
            for i in range(int(m.get("count", 1))):
                name = substitute(m["name"], mapping).replace("{i}", str(i))
                info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                if "symlink" in m:
                    info.external_attr = 0o120777 << 16
                    zf.writestr(info, substitute(m["symlink"], mapping))
                elif "zeros" in m:
                    with zf.open(info, "w", force_zip64=True) as out:
                        chunk = bytes(1 << 20)
                        for _ in range(int(m["zeros"]) >> 20):
                            out.write(chunk)
                elif "nested_zip_depth" in m:
                    inner = _zip_bytes([(f"{p}.py", reference_source(p).encode()) for p in PARTS])
                    for level in range(int(m["nested_zip_depth"])):
                        inner = _zip_bytes([(f"level{level}.zip", inner)])
                    zf.writestr(info, inner)
                else:
                    zf.writestr(info, substitute(m.get("text", ""), mapping))
    if "pad_to_bytes" in spec:  # junk appended after the archive: a huge file
        with open(path, "ab") as f:
            f.truncate(int(spec["pad_to_bytes"]))
    return path


# ----------------------------------------------------------------------------- checks


def _processes() -> dict[int, tuple[int, int, str, str]]:
    """pid -> (ppid, uid, state, name) of every live process."""
    out = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            status = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        try:
            out[int(entry)] = (
                int(fields["PPid"].split()[0]),
                int(fields["Uid"].split()[0]),
                fields["State"].split()[0],
                fields["Name"].strip(),
            )
        except (KeyError, ValueError, IndexError):
            continue
    return out


def orphaned_sandbox_pids() -> set[int]:
    """Sandbox-uid processes adopted by init: the snapshot an attack is compared against."""
    return {
        pid
        for pid, (ppid, uid, state, _) in _processes().items()
        if uid in SANDBOX_UIDS and ppid == 1 and state != "Z"
    }


def sandbox_processes(zygote_pid: int, orphans_before: set[int]) -> list[str]:
    """Live sandbox-uid processes that belong to our grader: descendants of its zygote, or
    processes that escaped the tree (adopted by init) since `orphans_before` was taken.

    Other grader processes on the machine (other people's test runs) use the same uid range,
    so the uid alone does not say a process is ours.
    """
    procs = _processes()
    children: dict[int, list[int]] = {}
    for pid, (ppid, *_rest) in procs.items():
        children.setdefault(ppid, []).append(pid)
    ours, todo = set(), [zygote_pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in ours:
                ours.add(child)
                todo.append(child)
    found = []
    for pid, (ppid, uid, state, name) in procs.items():
        if uid not in SANDBOX_UIDS or state == "Z":
            continue
        if pid in ours or (ppid == 1 and pid not in orphans_before):
            found.append(f"{pid} {name}")
    return found


def tree_digest(folder: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        h.update(str(p.relative_to(folder)).encode())
        if p.is_file() and not p.is_symlink():
            h.update(p.read_bytes())
    return h.hexdigest()


def files_containing(
    needle: str, roots: list[Path], *, top_level_only: bool = False, skip: tuple[Path, ...] = ()
) -> list[str]:
    """Files under `roots` whose bytes contain `needle` (links not followed, `skip` pruned)."""
    hits = []
    raw = needle.encode()
    skipped = {str(p) for p in skip}
    for root in roots:
        if not root.exists():
            continue
        for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
            dirnames[:] = (
                []
                if top_level_only
                else [d for d in dirnames if os.path.join(dirpath, d) not in skipped]
            )
            for fn in filenames:
                p = os.path.join(dirpath, fn)
                try:
                    st = os.lstat(p)
                    if not stat.S_ISREG(st.st_mode) or st.st_size > 5_000_000:
                        continue
                    with open(p, "rb") as f:
                        if raw in f.read():
                            hits.append(p)
                except OSError:
                    continue
    return hits


def secret_lines(path: Path, exclude: str, n: int = 3) -> list[str]:
    """Distinctive lines of a trusted file that the submission does not contain.

    Lines with string literals are skipped: a test's failure message is meant to be shown.
    """
    lines = [
        ln.strip()
        for ln in path.read_text(encoding="utf-8").splitlines()
        if len(ln.strip()) >= 40
        and ln.strip() not in exclude
        and "import" not in ln
        and '"' not in ln
        and "'" not in ln
    ]
    lines.sort(key=len, reverse=True)
    return lines[:n]
