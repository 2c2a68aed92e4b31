"""Two different submissions never share a cache key.

A handed-in text may hold NUL characters (valid UTF-8). The digest joined names and texts
with NULs, so one file could spell out the files after it: explanation.md holding
"E\\0generation.py\\0G" hashed exactly like explanation.md "E" plus generation.py "G", and a
batch served the second's cached report (generation graded) to the first (no generation.py)."""

from __future__ import annotations

from grader.batch.cache import cache_key
from grader.loading.model import assemble
from grader.resources import data_path


def _files() -> dict[str, bytes]:
    base = data_path("solutions")
    return {f"{p}.py": (base / f"{p}.py").read_bytes() for p in ("masks", "generation")}


def test_a_file_spelling_out_the_next_one_is_another_submission():
    honest = {**_files(), "explanation.md": b"My answer."}
    spelled = {
        "masks.py": honest["masks.py"],
        "explanation.md": b"My answer.\0generation.py\0" + honest["generation.py"],
    }
    a = assemble("a", "a", honest, [])
    b = assemble("b", "b", spelled, [])
    assert "generation" in a.sources and "generation" not in b.sources
    assert a.problems == b.problems  # nothing else tells them apart in the key
    assert a.digest != b.digest
    assert cache_key(a, "f") != cache_key(b, "f")


def test_the_digest_still_ignores_names_and_layouts():
    files = {**_files(), "explanation.md": b"Same."}
    wrapped = {f"alice/exercises/{k}": v for k, v in files.items()}
    assert assemble("a", "x.zip", files, []).digest == assemble("b", "y", wrapped, []).digest
