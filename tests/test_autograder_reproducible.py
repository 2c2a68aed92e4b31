"""`grader gradescope` gives the same bytes twice from the same checkout.

The wheel's zip entry used to carry the file's mtime, and the wheel pip built carried the
build's timestamps, so every rebuild of autograder.zip differed.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import os
import zipfile
from pathlib import Path

from grader.autograder.bundle import BundleOptions, build_bundle, build_wheel

FIXED = (1980, 1, 1, 0, 0, 0)


def _fake_wheel(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("grader/__init__.py", "")
        zf.writestr("objectives_grader-0.1.0.dist-info/RECORD", "grader/__init__.py,,\n")
    return path


def test_a_given_wheel_is_copied_as_it_is_with_a_fixed_date(tmp_path):
    wheel = _fake_wheel(tmp_path / "objectives_grader-0.1.0-py3-none-any.whl")
    options = BundleOptions(wheel=wheel)
    first = build_bundle(tmp_path / "a.zip", options).read_bytes()
    os.utime(wheel, (1_900_000_000, 1_900_000_000))  # another mtime, the same file
    second = build_bundle(tmp_path / "b.zip", options).read_bytes()
    assert first == second
    with zipfile.ZipFile(io.BytesIO(first)) as zf:
        assert {i.date_time for i in zf.infolist()} == {FIXED}
        assert zf.read(f"wheels/{wheel.name}") == wheel.read_bytes()


def _check_record(wheel: Path) -> None:
    """Every file of the wheel is in its RECORD with its sha256 and size (RECORD itself has
    none), and RECORD lists nothing else: what pip checks when it installs the wheel."""
    with zipfile.ZipFile(wheel) as zf:
        assert zf.testzip() is None
        names = [i.filename for i in zf.infolist()]
        (record,) = [n for n in names if n.endswith(".dist-info/RECORD")]
        assert names[-1] == record
        rows = {row[0]: row[1:] for row in csv.reader(io.StringIO(zf.read(record).decode()))}
        assert set(rows) == set(names)
        for name in names:
            if name == record:
                continue
            data = zf.read(name)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            assert rows[name] == [f"sha256={digest.decode()}", str(len(data))], name
        assert {i.date_time for i in zf.infolist()} == {FIXED}


def test_two_builds_from_the_checkout_are_byte_identical_and_the_wheel_stays_valid(tmp_path):
    """Two real wheel builds (about 5 s each on this machine) and two bundles."""
    wheels = [build_wheel(tmp_path / d) for d in ("w1", "w2")]
    assert wheels[0].read_bytes() == wheels[1].read_bytes()
    _check_record(wheels[0])
    bundles = [build_bundle(tmp_path / f"{d}.zip").read_bytes() for d in ("a", "b")]
    assert bundles[0] == bundles[1]
    with zipfile.ZipFile(io.BytesIO(bundles[0])) as zf:
        (entry,) = [n for n in zf.namelist() if n.startswith("wheels/")]
        assert zf.read(entry) == wheels[0].read_bytes()
