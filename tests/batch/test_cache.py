"""The journal: durable, torn-tail tolerant, single writer; keys follow content and grader."""

from __future__ import annotations

import json
import shutil

import pytest

from grader.batch.cache import FINGERPRINT_SOURCES, Journal, cache_key, grader_fingerprint
from grader.batch.pool import submission_from_dict, submission_to_dict
from grader.errors import UsageError
from grader.testing import reference_submission

from .conftest import make_report


def test_append_reload_and_torn_tail(tmp_path):
    report = make_report("a").to_dict()
    with Journal(tmp_path) as j:
        j.append("k1", report, fingerprint="fp")
        j.append("k2", report, fingerprint="fp")
    with open(tmp_path / "journal.jsonl", "a") as f:
        f.write('{"key": "k3", "report": {"grader_vers')  # killed mid-write
    with Journal(tmp_path) as j:
        assert set(j.entries) == {"k1", "k2"}
        j.append("k3", report)
    lines = (tmp_path / "journal.jsonl").read_text().splitlines()
    assert [json.loads(line)["key"] for line in lines] == ["k1", "k2", "k3"]


def test_garbage_lines_are_ignored(tmp_path):
    (tmp_path / "journal.jsonl").write_text('not json\n{"key": "x", "report": {}}\n')
    with Journal(tmp_path) as j:
        assert j.entries == {} and j.discarded_lines == 2


def test_last_write_wins_and_compaction(tmp_path):
    a, b = make_report("a", score_pattern="pp").to_dict(), make_report("a").to_dict()
    with Journal(tmp_path) as j:
        j.append("k", a)
        j.append("k", b)
        j.append("old", a)
        assert j.get("k") == b
        assert j.compact({"k"}) == 2
        j.append("k2", a)
    with Journal(tmp_path) as j:
        assert set(j.entries) == {"k", "k2"} and j.get("k") == b


def test_one_writer_at_a_time(tmp_path):
    with Journal(tmp_path):
        with pytest.raises(UsageError, match="another `grader batch`"):
            Journal(tmp_path).open()


def test_key_depends_on_content_problems_and_fingerprint():
    s1 = reference_submission("a")
    s2 = reference_submission("b")  # same files, other student
    s3 = reference_submission("c", {"losses.py": "x = 1\n"})
    assert cache_key(s1, "fp") == cache_key(s2, "fp")
    assert cache_key(s1, "fp") != cache_key(s3, "fp")
    assert cache_key(s1, "fp") != cache_key(s1, "fp2")
    s4 = submission_from_dict({**submission_to_dict(s1), "problems": ["big.py was ignored"]})
    assert s4.digest == s1.digest and cache_key(s4, "fp") != cache_key(s1, "fp")


def test_fingerprint_follows_grader_files_and_options(tmp_path):
    root = tmp_path / "repo"
    for rel in FINGERPRINT_SOURCES:
        if rel.endswith(".py"):
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text("# v1\n")
        else:
            (root / rel).mkdir(parents=True, exist_ok=True)
    test_file = root / "grader/suites/hidden/test_masks.py"
    test_file.parent.mkdir(parents=True)
    test_file.write_text("def test_a(): pass\n")
    base = grader_fingerprint({"w": True}, root=root)
    assert grader_fingerprint({"w": True}, root=root) == base
    assert grader_fingerprint({"w": False}, root=root) != base
    (root / "grader/suites/hidden/__pycache__").mkdir()
    (root / "grader/suites/hidden/__pycache__/x.pyc").write_bytes(b"\0")
    assert grader_fingerprint({"w": True}, root=root) == base  # caches do not count
    test_file.write_text("def test_a(): assert False\n")
    changed = grader_fingerprint({"w": True}, root=root)
    assert changed != base
    shutil.copy(test_file, root / "solutions" / "masks.py")
    assert grader_fingerprint({"w": True}, root=root) != changed


@pytest.mark.parametrize(
    "rel",
    [
        "grader/textsafe.py",
        "grader/loading/notebook.py",
        "grader/parts.py",
        "grader/batch/poolworker.py",  # a notebook's cell map once did not reach the worker
    ],
)
def test_the_cache_is_invalidated_by_how_student_text_is_read(tmp_path, rel):
    """The digest covers the files as handed in, not the answer as scored: a change to how
    an answer is cleaned or a notebook read must not leave old grades in the cache."""
    target = tmp_path / rel
    target.parent.mkdir(parents=True)
    target.write_text("# v1\n")
    before = grader_fingerprint(root=tmp_path)
    target.write_text("# v2\n")
    assert grader_fingerprint(root=tmp_path) != before
