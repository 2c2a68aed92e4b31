"""Fuzzing the submission loaders: malformed input never crashes the grader.

Whatever the folder or .zip holds - random bytes, mutated archives, hostile member names,
links, pipes, non-UTF-8 text, odd compression, nesting - `load_submission` either raises
`SubmissionError` (the whole thing is unreadable, with a message for the student) or returns
a well-formed `Submission` (each code part either has a source or a reason it is missing),
in bounded time, and writes nothing anywhere.
"""

from __future__ import annotations

import io
import os
import stat
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from grader.loading import CODE_PARTS, LoadLimits, Submission, SubmissionError, load_submission
from grader.loading.model import KNOWN_FILES

FUZZ = settings(
    max_examples=150,
    deadline=5000,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
SMALL = LoadLimits(
    max_file_bytes=4096,
    max_total_bytes=20_000,
    max_members=40,
    max_ratio=50,
    max_archive_bytes=200_000,
    max_depth=4,
)

pytestmark = pytest.mark.filterwarnings("ignore:Duplicate name:UserWarning")

# ----------------------------------------------------------------------------- invariants


def check(path: Path, limits: LoadLimits | None = None) -> Submission | None:
    """Load `path` under the loader's contract; return the Submission (None if refused)."""
    before = _snapshot(path.parent)
    try:
        sub = load_submission(path, limits=limits)
    except SubmissionError as exc:
        assert str(exc).strip(), "a SubmissionError must say why"
        sub = None
    else:
        assert isinstance(sub, Submission)
        assert set(sub.sources) <= set(CODE_PARTS)
        assert set(sub.sources) | set(sub.missing) == set(CODE_PARTS)
        assert not set(sub.sources) & set(sub.missing)
        assert all(type(v) is str for v in sub.sources.values())
        assert all(type(v) is str and v for v in sub.missing.values())
        assert all(type(p) is str and p for p in sub.problems)
        assert set(sub.files) <= set(KNOWN_FILES)
        assert len(sub.digest) == 64
    assert _snapshot(path.parent) == before, "loading wrote or removed files"
    return sub


def _snapshot(folder: Path) -> set[str]:
    out = set()
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        for n in dirnames + filenames:
            out.add(os.path.join(dirpath, n))
    return out


# ----------------------------------------------------------------------------- zips

NAMES = st.one_of(
    st.sampled_from(list(KNOWN_FILES)),
    st.sampled_from([f"alice/{k}" for k in KNOWN_FILES]),
    st.sampled_from(
        [
            "../masks.py",
            "../../etc/passwd",
            "/abs/masks.py",
            "C:\\x\\losses.py",
            "a/../../b.py",
            "sub/../../masks.py",
            "./masks.py",
            "a//b/masks.py",
            "masks.py/",
            "drill/",
            ".",
            "..",
            "",
            "a\\..\\..\\c.py",
            "é/ü/masks.py",
            "a" * 300 + "/masks.py",
            "x/" * 60 + "losses.py",
        ]
    ),
    st.text(min_size=0, max_size=30).filter(lambda s: "\x00" not in s),
)
CONTENT = st.one_of(
    st.binary(max_size=300),
    st.text(max_size=300).map(lambda s: s.encode("utf-8", "surrogatepass")),
    st.just(b"\xef\xbb\xbfdef f():\n    return 1\n"),
    st.just(b"\xff\xfe\x00\x00"),
    st.integers(min_value=0, max_value=20_000).map(bytes),
)
MODES = st.sampled_from([0, 0o100644, 0o120777, 0o010644, 0o040755, 0o020644, 0o140777])
METHODS = st.sampled_from(
    [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA]
)
MEMBER = st.tuples(NAMES, CONTENT, MODES, METHODS, st.booleans())


def _build_zip(members) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data, mode, method, encrypted_flag in members:
            info = zipfile.ZipInfo(name or "empty", date_time=(2024, 1, 2, 3, 4, 6))
            info.compress_type = method
            info.external_attr = mode << 16
            if encrypted_flag:
                info.flag_bits |= 0x1  # claims encryption it does not have
            try:
                zf.writestr(info, data)
            except (ValueError, OverflowError):
                pass
    return buf.getvalue()


@FUZZ
@given(members=st.lists(MEMBER, max_size=12))
def test_structured_zips(tmp_path_factory, members):
    folder = tmp_path_factory.mktemp("z")
    path = folder / "sub.zip"
    path.write_bytes(_build_zip(members))
    check(path)
    check(path, SMALL)


@FUZZ
@given(
    members=st.lists(MEMBER, min_size=1, max_size=8),
    flips=st.lists(st.tuples(st.integers(min_value=0), st.integers(0, 255)), max_size=12),
    cut=st.one_of(st.none(), st.integers(min_value=0)),
)
def test_mutated_zips(tmp_path_factory, members, flips, cut):
    data = bytearray(_build_zip(members))
    assume(data)
    for pos, value in flips:
        data[pos % len(data)] = value
    if cut is not None:
        data = data[: cut % (len(data) + 1)]
    path = tmp_path_factory.mktemp("m") / "sub.zip"
    path.write_bytes(bytes(data))
    check(path)


@FUZZ
@given(data=st.binary(max_size=2000))
def test_random_bytes_named_zip(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("r") / "sub.zip"
    path.write_bytes(b"PK\x03\x04" + data if data[:1] == b"\x00" else data)
    check(path)


def test_zip_with_every_escape_still_grades_its_real_files(tmp_path):
    real = {f"{p}.py": f"def f():\n    return {p!r}\n" for p in CODE_PARTS if p != "generation"}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, text in real.items():
            zf.writestr(name, text)
        for evil in ("../../x.py", "/etc/masks.py", "C:/w/losses.py", "a/../../masks.py"):
            zf.writestr(evil, "evil")
        link = zipfile.ZipInfo("generation.py")
        link.external_attr = 0o120777 << 16
        zf.writestr(link, "/etc/passwd")
    path = tmp_path / "s.zip"
    path.write_bytes(buf.getvalue())
    sub = check(path)
    assert sub is not None
    assert set(sub.sources) == {"masks", "corruption", "losses"}
    assert "symbolic link" in sub.missing["generation"]
    assert sum("outside the folder" in p or "absolute path" in p for p in sub.problems) == 4


def test_zip_bomb_member_is_skipped_not_read(tmp_path):
    path = tmp_path / "bomb.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("masks.py", bytes(900_000))  # under the size cap, ~1000:1
        zf.writestr("losses.py", "def f():\n    return 1\n")
    sub = check(path)
    assert sub is not None and "zip bomb" in sub.missing["masks"]
    assert "losses" in sub.sources


def test_corrupt_member_costs_only_its_part(tmp_path):
    path = tmp_path / "c.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("masks.py", "x = 1\n" * 200)
        zf.writestr("losses.py", "def f():\n    return 1\n")
    data = bytearray(path.read_bytes())
    i = data.find(b"masks.py") + len("masks.py") + 5  # into masks.py's compressed data
    data[i : i + 8] = b"\x00" * 8
    path.write_bytes(bytes(data))
    sub = check(path)
    assert sub is not None and "losses" in sub.sources
    assert "masks" not in sub.sources and "corrupt" in sub.missing["masks"]


# ----------------------------------------------------------------------------- folders

ENTRY_NAMES = st.one_of(
    st.sampled_from(list(KNOWN_FILES) + ["drill", "sub", ".git", "__pycache__", "a b", "ü"]),
    st.text(
        alphabet=st.characters(blacklist_characters="/\x00", blacklist_categories=["Cs"]),
        min_size=1,
        max_size=12,
    ).filter(lambda s: s not in (".", "..")),
)
ENTRY = st.tuples(
    st.lists(ENTRY_NAMES, min_size=1, max_size=4),
    st.sampled_from(["file", "file", "file", "dir", "symlink", "dangling", "fifo", "loop"]),
    CONTENT,
)


def _build_folder(root: Path, entries) -> None:
    root.mkdir()
    for parts, kind, data in entries:
        target = root.joinpath(*parts)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            if target.exists() or target.is_symlink():
                continue
            if kind == "file":
                target.write_bytes(data)
            elif kind == "dir":
                target.mkdir()
            elif kind == "symlink":
                target.symlink_to("/etc/hostname")
            elif kind == "dangling":
                target.symlink_to(root / "nowhere")
            elif kind == "fifo":
                os.mkfifo(target)
            elif kind == "loop":
                target.symlink_to(root)
        except (OSError, ValueError):
            continue


@FUZZ
@given(entries=st.lists(ENTRY, max_size=15))
def test_random_folders(tmp_path_factory, entries):
    root = tmp_path_factory.mktemp("f") / "student"
    _build_folder(root, entries)
    check(root)
    check(root, SMALL)


def test_folder_with_pipe_link_and_unreadable_file(tmp_path):
    root = tmp_path / "s"
    root.mkdir()
    (root / "losses.py").write_text("def f():\n    return 1\n")
    os.mkfifo(root / "masks.py")
    (root / "corruption.py").symlink_to("/etc/passwd")
    (root / "generation.py").write_bytes(b"\xff\xfe bad utf8")
    sub = check(root)
    assert sub is not None and set(sub.sources) == {"losses"}
    assert "not a regular file" in sub.missing["masks"]
    assert "symbolic link" in sub.missing["corruption"]
    assert "UTF-8" in sub.missing["generation"]


def test_folder_nesting_and_entry_count_are_bounded(tmp_path):
    root = tmp_path / "deep"
    root.mkdir()
    fd = os.open(root, os.O_RDONLY)
    for _ in range(200):
        os.mkdir("d", dir_fd=fd)
        nxt = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = nxt
    os.close(fd)
    (root / "masks.py").write_text("x = 1\n")
    sub = check(root)
    assert sub is not None and any("nested more than" in p for p in sub.problems)
    wide = tmp_path / "wide"
    wide.mkdir()
    for i in range(SMALL.max_members + 5):
        (wide / f"f{i}").touch()
    with pytest.raises(SubmissionError, match="more than"):
        load_submission(wide, limits=SMALL)


def test_archive_size_is_checked_before_parsing(tmp_path):
    path = tmp_path / "huge.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("masks.py", "x = 1\n")
    with open(path, "ab") as f:
        f.truncate(SMALL.max_archive_bytes + 1)
    with pytest.raises(SubmissionError, match="larger than"):
        load_submission(path, limits=SMALL)


@pytest.mark.skipif(os.geteuid() != 0, reason="needs a device node (root)")
def test_a_device_named_like_an_exercise_file_is_not_read(tmp_path):
    root = tmp_path / "s"
    root.mkdir()
    os.mknod(root / "masks.py", stat.S_IFCHR | 0o644, os.makedev(1, 5))  # /dev/zero
    sub = check(root)
    assert sub is not None and "not a regular file" in sub.missing["masks"]


def test_a_member_with_an_empty_name_is_skipped_not_a_crash(tmp_path):
    """Found by the fuzzer: ZipInfo.is_dir() raises IndexError on an empty file name."""
    import io
    import zipfile

    from grader.loading import load_submission

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("masks.py", "def causal_mask(q_len, k_len=None, device=None):\n    pass\n")
        zf.writestr(zipfile.ZipInfo(""), b"")
    path = tmp_path / "s.zip"
    path.write_bytes(buf.getvalue())
    assert "masks" in load_submission(path).sources
