"""Load a .zip submission in memory: nothing is extracted to disk, nothing escapes.

Only the archive as a whole can be refused (not a zip, too big, too many entries, too much
data once unpacked): that raises `SubmissionError`. A single bad member - a name that points
outside the folder, a symbolic link, a zip bomb, a corrupt or encrypted entry - is skipped
with a message in `Submission.problems`, and if it was one of the exercise files, that part
is reported missing with the reason. The rest of the submission is graded normally.
"""

from __future__ import annotations

import io
import stat
import struct
import zipfile
import zlib
from pathlib import Path
from typing import IO

from grader.loading.model import (
    MAX_NEAR_MISSES,
    LoadLimits,
    Submission,
    SubmissionError,
    assemble,
    is_known,
    safe_relpath,
)


def load_zip(path: Path, *, name: str, limits: LoadLimits) -> Submission:
    """Read the known files of a zip. Refuses escaping names, links and zip bombs."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise SubmissionError(f"{path.name} could not be read ({exc.strerror})") from None
    if size > limits.max_archive_bytes:
        raise SubmissionError(
            f"{path.name} is {size / 1e6:.0f} MB; archives larger than "
            f"{limits.max_archive_bytes / 1e6:.0f} MB are not accepted (hand in only the "
            "exercise files)"
        )
    try:
        zf = open_zip(path)
    except Exception as exc:  # noqa: BLE001 - zipfile raises many types on hostile input
        raise SubmissionError(
            f"{path.name} is not a readable zip archive ({_short(exc)})"
        ) from None
    with zf:
        return load_zip_members(zf, name=name, origin=str(path), limits=limits)


_UTF8_FLAG = 0x800  # general purpose bit 11: the names are UTF-8
_UNICODE_PATH = 0x7075  # Info-ZIP Unicode Path extra field (7-Zip, Info-ZIP, WinRAR)


def open_zip(file: str | Path | IO[bytes]) -> zipfile.ZipFile:
    """A zip opened for reading with each member's name decoded the way its maker meant it.

    zipfile decodes every name without the UTF-8 flag as cp437. That is right for Windows
    Explorer's zips (the bytes `M\\x81ller.py` are `Müller.py`), but macOS, Linux `zip` and
    many LMS exports write UTF-8 bytes without the flag, which cp437 turns into `MÃ¼ller.py`.
    So, per member: the flag -> UTF-8 (zipfile's own); else a Unicode Path extra field whose
    checksum matches the stored name; else the bytes as strict UTF-8; else cp437. Only
    `filename` changes: `orig_filename` stays, so zipfile's own header check still compares
    like with like. Names are only text here: `safe_relpath` refuses escaping ones later.

    A member flagged UTF-8 whose name is not UTF-8 made zipfile refuse the whole archive; it is
    read with the flag cleared instead (`_unflag_bad_names`, on a copy in memory) and listed
    in the returned zip's `unreadable_names` (zipfile index -> the stored bytes, escaped), so
    the loader skips it with a message and grades the rest."""
    try:
        zf = zipfile.ZipFile(file)
        bad: dict[int, str] = {}
    except UnicodeDecodeError:
        data, bad = _unflag_bad_names(_read_all(file))
        zf = zipfile.ZipFile(io.BytesIO(data))
    try:
        for info in zf.infolist():
            if not info.flag_bits & _UTF8_FLAG:
                info.filename = member_name(info)
        zf.unreadable_names = bad  # type: ignore[attr-defined]
    except BaseException:
        zf.close()
        raise
    return zf


_MAX_REREAD = 4 * 1024**3  # an archive read again in memory for its names: at most this


def _read_all(file: str | Path | IO[bytes]) -> bytes:
    if isinstance(file, str | Path):
        if Path(file).stat().st_size > _MAX_REREAD:
            raise zipfile.BadZipFile("a member's name is not valid UTF-8")
        return Path(file).read_bytes()
    file.seek(0)
    return file.read(_MAX_REREAD + 1)


def _unflag_bad_names(data: bytes) -> tuple[bytes, dict[int, str]]:
    """`data` with the UTF-8 flag cleared on every central-directory entry whose name is not
    UTF-8 (zipfile then reads it as cp437), and those entries' indices -> their names with
    the bad bytes escaped. One pass over the central directory; a zip this cannot walk (no
    end record, ZIP64) is refused as before."""
    end = data.rfind(b"PK\x05\x06", max(0, len(data) - 65_557))
    if end < 0 or end + 22 > len(data):
        raise zipfile.BadZipFile("a member's name is not valid UTF-8")
    count, size = struct.unpack_from("<HI", data, end + 10)
    pos = end - size  # zipfile's own reading: the directory ends where the end record starts
    if count == 0xFFFF or size == 0xFFFFFFFF or pos < 0:
        raise zipfile.BadZipFile("a member's name is not valid UTF-8 (in a ZIP64 archive)")
    out = bytearray(data)
    bad: dict[int, str] = {}
    for index in range(count):
        if data[pos : pos + 4] != b"PK\x01\x02" or pos + 46 > end:
            break
        flags, n, m, k = (struct.unpack_from("<H", data, pos + o)[0] for o in (8, 28, 30, 32))
        raw = data[pos + 46 : pos + 46 + n]
        if flags & _UTF8_FLAG:
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError:
                struct.pack_into("<H", out, pos + 8, flags & ~_UTF8_FLAG)
                bad[index] = raw.decode("utf-8", "backslashreplace")
        pos += 46 + n + m + k
    return bytes(out), bad


def member_name(info: zipfile.ZipInfo) -> str:
    """The name of a member stored without the UTF-8 flag (see `open_zip`)."""
    raw = info.orig_filename.encode("cp437")  # zipfile decoded the stored bytes as cp437
    name = _unicode_path(info.extra, raw)
    if name is None:
        try:
            name = raw.decode("utf-8")
        except UnicodeDecodeError:
            return info.filename
    return name.split("\0", 1)[0]  # zipfile cuts a name at NUL; so does this


def _unicode_path(extra: bytes, raw: bytes) -> str | None:
    """The UTF-8 name in a Unicode Path extra field (0x7075) that describes `raw`, or None.
    The field holds a CRC-32 of the stored name: a field left from an earlier name is ignored."""
    pos = 0
    while pos + 4 <= len(extra):  # at most 64 kB: the field length is 16 bits
        kind, size = struct.unpack_from("<HH", extra, pos)
        body = extra[pos + 4 : pos + 4 + size]
        pos += 4 + size
        if kind != _UNICODE_PATH or len(body) < 5 or body[0] != 1:
            continue
        if struct.unpack_from("<I", body, 1)[0] != zlib.crc32(raw):
            return None
        try:
            return body[5:].decode("utf-8")
        except UnicodeDecodeError:
            return None
    return None


def _short(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text[:200]


def load_zip_members(
    zf: zipfile.ZipFile, *, name: str, origin: str, limits: LoadLimits, prefix: str = ""
) -> Submission:
    """Read known files below `prefix` of an open archive (also used for LMS exports)."""
    infos = zf.infolist()
    if prefix:  # one student's folder inside a class export: only its members count
        infos = [i for i in infos if i.filename.replace("\\", "/").lstrip("/").startswith(prefix)]
    if len(infos) > limits.max_members:
        raise SubmissionError(f"the archive holds more than {limits.max_members} entries")
    raw: dict[str, bytes] = {}
    mtimes: dict[str, float] = {}
    problems: list[str] = []
    unusable: dict[str, str] = {}
    others: list[str] = []  # unknown members, for a misnamed exercise file's message
    seen: dict[str, str] = {}  # a known member's name, case-folded -> its name
    total = 0

    def skip(rel: str, why: str) -> None:
        problems.append(f"{rel} {why}; it was ignored")
        if is_known(rel):
            unusable[rel] = f"{rel} {why}"

    unreadable = getattr(zf, "unreadable_names", {})
    bad_infos = {id(zf.infolist()[i]): name for i, name in unreadable.items()}
    for info in infos:
        if id(info) in bad_infos:
            problems.append(
                f"an entry's name is not valid UTF-8 although the archive says it is "
                f"({bad_infos[id(info)]}); it was ignored (rename it and zip again)"
            )
            continue
        try:
            rel = safe_relpath(info.filename)
        except SubmissionError as exc:
            problems.append(f"{exc}; it was ignored")
            continue
        if prefix:
            if not rel.startswith(prefix):
                continue
            rel = rel[len(prefix) :]
        if not rel or info.filename.endswith("/"):  # ZipInfo.is_dir() raises on an empty name
            continue
        if not is_known(rel):
            if len(others) < MAX_NEAR_MISSES:
                others.append(rel)
            continue  # unknown members are never read: no bomb or link there can matter
        if rel.lower() in seen:
            # Two members of one name ("masks.py" twice, "./masks.py", "MASKS.PY" on a
            # case-blind disk): the last is graded, but an unzip tool may keep or show the
            # other, so what a reviewer reads would not be what was graded. Never silent.
            problems.append(
                f"the archive holds {rel} more than once ({seen[rel.lower()]} before it): the "
                "last copy was graded; hand in each file once"
            )
        seen[rel.lower()] = rel
        mode = info.external_attr >> 16
        if stat.S_ISLNK(mode):
            skip(rel, "is a symbolic link (hand in the real file)")
            continue
        if stat.S_IFMT(mode) not in (0, stat.S_IFREG):
            skip(rel, "is not a regular file")
            continue
        if info.flag_bits & 0x1:
            skip(rel, "is encrypted")
            continue
        if info.file_size > limits.max_file_bytes:
            skip(rel, f"is larger than {limits.max_file_bytes // 1000} kB")
            continue
        if info.compress_size and info.file_size / info.compress_size > limits.max_ratio:
            skip(rel, "looks like a zip bomb (it unpacks to far more than it takes)")
            continue
        total += info.file_size
        if total > limits.max_total_bytes:
            raise SubmissionError("the archive is too large once unpacked")
        try:
            with zf.open(info) as f:
                data = f.read(limits.max_file_bytes + 1)
        except Exception as exc:  # noqa: BLE001 - bad CRC, zlib.error, unsupported method...
            skip(rel, f"is corrupt ({_short(exc)})")
            continue
        if len(data) > limits.max_file_bytes:
            skip(rel, "is larger than its archive entry declares")
            continue
        raw[rel] = data
        mtimes[rel] = _zip_time(info)
    return assemble(name, origin, raw, problems, unusable=unusable, mtimes=mtimes, others=others)


def _zip_time(info: zipfile.ZipInfo) -> float:
    """The member's recorded modification time, comparable within one archive."""
    y, mo, d, h, mi, s = info.date_time
    return float(((((y * 13 + mo) * 32 + d) * 24 + h) * 60 + mi) * 60 + s)
