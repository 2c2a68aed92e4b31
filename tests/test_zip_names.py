"""Zip member names as real archivers store them (leftover 1 of the last walkthrough).

Windows Explorer writes names in the OEM code page (cp437) without the UTF-8 flag; macOS,
Linux `zip` and many LMS exports write UTF-8 bytes without the flag; 7-Zip and WinRAR add an
Info-ZIP Unicode Path extra field. The archives here are built byte by byte (zipfile itself
would always set the flag for a non-ASCII name), so each test sees exactly those bytes.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

from grader.batch.intake import open_intake
from grader.loading import LoadLimits, load_submission
from grader.loading.archive import open_zip

UTF8_FLAG = 0x800
MASKS = b"def causal_mask(n):\n    return None\n"


def unicode_path(name: str, stored: bytes, *, crc_of: bytes | None = None) -> bytes:
    """An Info-ZIP Unicode Path extra field (0x7075) naming `stored` as `name`."""
    body = b"\x01" + struct.pack("<I", zlib.crc32(stored if crc_of is None else crc_of))
    body += name.encode("utf-8")
    return struct.pack("<HH", 0x7075, len(body)) + body


def raw_zip(members: list[tuple[bytes, bytes, int, bytes]]) -> bytes:
    """A stored (uncompressed) zip of (name bytes, data, flag bits, extra field) members."""
    out, central = b"", b""
    for name, data, flags, extra in members:
        crc = zlib.crc32(data)
        fields = (20, flags, 0, 0, 0x21, crc, len(data), len(data), len(name), len(extra))
        header = struct.pack("<4s5H3I2H", b"PK\x03\x04", *fields)
        central += struct.pack(
            "<4s6H3I5H2I",
            b"PK\x01\x02",
            20,
            *fields,
            0,  # comment length
            0,  # disk
            0,  # internal attributes
            0o100644 << 16,  # a regular file
            len(out),
        )
        central += name + extra
        out += header + name + extra + data
    end = struct.pack(
        "<4s4H2IH", b"PK\x05\x06", 0, 0, len(members), len(members), len(central), len(out), 0
    )
    return out + central + end


def _names(data: bytes, tmp_path: Path) -> list[str]:
    p = tmp_path / "a.zip"
    p.write_bytes(data)
    with open_zip(p) as zf:
        return [i.filename for i in zf.infolist()]


def test_each_maker_decodes_to_the_name_the_student_typed(tmp_path):
    data = raw_zip(
        [
            ("Müller/masks.py".encode("cp437"), MASKS, 0, b""),  # Windows Explorer
            ("José/masks.py".encode(), MASKS, 0, b""),  # macOS, Linux zip: UTF-8, no flag
            ("Zoë/masks.py".encode(), MASKS, UTF8_FLAG, b""),  # flagged UTF-8
            (b"?ukasz/masks.py", MASKS, 0, unicode_path("Łukasz/masks.py", b"?ukasz/masks.py")),
        ]
    )
    assert _names(data, tmp_path) == [
        "Müller/masks.py",
        "José/masks.py",
        "Zoë/masks.py",
        "Łukasz/masks.py",
    ]


def test_a_unicode_path_field_for_another_name_is_ignored(tmp_path):
    # renamed after the field was written: its checksum is of the old name
    field = unicode_path("Old.py", b"x", crc_of=b"old-name")
    assert _names(raw_zip([("Müller.py".encode("cp437"), MASKS, 0, field)]), tmp_path) == [
        "Müller.py"
    ]


def test_the_renamed_members_are_still_read(tmp_path):
    """zipfile checks each member's local header name against the central one: the decoded
    name must not break that, and the student's files load from their non-ASCII folder."""
    for raw in ("Übung 1/masks.py".encode(), "Übung 1/masks.py".encode("cp437")):
        p = tmp_path / "s.zip"
        p.write_bytes(raw_zip([(raw, MASKS, 0, b"")]))
        sub = load_submission(p, name="s", limits=LoadLimits())
        assert sub.files["masks.py"] == MASKS.decode()


def test_a_class_zip_of_utf8_folders_keeps_the_students_names(tmp_path):
    """A class zipped on macOS/Linux: one folder per student, UTF-8 names without the flag.
    zipfile's cp437 made `JosÃ© GarcÃ\xada`, a name no roster matches."""
    data = raw_zip(
        [
            ("José García/masks.py".encode(), MASKS, 0, b""),
            ("Anaïs Müller/masks.py".encode(), MASKS, 0, b""),
            ("Björn Åberg/masks.py".encode("cp437"), MASKS, 0, b""),  # zipped on Windows
        ]
    )
    p = tmp_path / "class.zip"
    p.write_bytes(data)
    with open_intake(p) as intake:
        names = sorted(e.display for e in intake.entries)
        assert names == ["Anaïs Müller", "Björn Åberg", "José García"]
        assert all(e.load().files["masks.py"] for e in intake.entries)


def test_decoded_names_still_cannot_escape(tmp_path):
    """The zip-slip check applies to the decoded name, whichever way it was decoded."""
    data = raw_zip(
        [
            ("../José/masks.py".encode(), MASKS, 0, b""),
            (b"ok/masks.py", MASKS, 0, unicode_path("../../etc/masks.py", b"ok/masks.py")),
            ("Ü/../../masks.py".encode("cp437"), MASKS, 0, b""),
        ]
    )
    p = tmp_path / "evil.zip"
    p.write_bytes(data)
    sub = load_submission(p, name="evil", limits=LoadLimits())
    assert "masks.py" not in sub.files
    assert sum("points outside the folder" in m for m in sub.problems) == 3


def test_size_bounds_hold_for_decoded_names(tmp_path):
    big = b"#" * 2000 + b"\n"
    p = tmp_path / "big.zip"
    p.write_bytes(raw_zip([("Müller/masks.py".encode(), big, 0, b"")]))
    sub = load_submission(p, name="big", limits=LoadLimits(max_file_bytes=1000))
    assert "masks.py" not in sub.files
    assert any("masks.py is larger than 1 kB" in m for m in sub.problems)


def test_a_name_flagged_utf8_that_is_not_is_named_and_the_rest_is_graded(tmp_path):
    """Red team (8dbc064): one member flagged UTF-8 whose name is not (a Latin-1 "\\xe9")
    made zipfile raise UnicodeDecodeError, and the whole archive was refused ("not a readable
    zip archive"), so a student lost every part for one stray file. The member is skipped with
    its name (bad bytes escaped) and every other file is graded."""
    p = tmp_path / "s.zip"
    p.write_bytes(
        raw_zip(
            [
                (b"notes-caf\xe9.txt", b"hello", UTF8_FLAG, b""),
                (b"masks.py", MASKS, UTF8_FLAG, b""),
                (b"losses.py", b"x = 1\n", UTF8_FLAG, b""),
                ("Zoë.txt".encode(), b"hi", UTF8_FLAG, b""),
            ]
        )
    )
    sub = load_submission(p, name="s", limits=LoadLimits())
    assert sub.files["masks.py"] == MASKS.decode()
    assert sub.files["losses.py"] == "x = 1\n"
    (problem,) = [x for x in sub.problems if "UTF-8" in x]
    assert "notes-caf\\xe9.txt" in problem and "it was ignored" in problem
    with open_zip(p) as zf:  # and only that member is read with another code page
        assert [i.filename for i in zf.infolist()][1:] == ["masks.py", "losses.py", "Zoë.txt"]
