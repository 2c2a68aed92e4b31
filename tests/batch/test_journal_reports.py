"""A re-run parses each journal report once (reading the journal validates it by parsing),
and a parsed report never outlives its line: a later append, or a compaction, drops it."""

from __future__ import annotations

from grader.batch import BatchOptions, run_batch
from grader.batch.cache import Journal, cache_key
from grader.batch.sampleclass import Student, correct_files, write_folder_class
from grader.loading import load_submission
from grader.report import GradeReport

from .conftest import FINGERPRINT, make_report


def test_a_parsed_report_is_the_lines_and_never_an_older_one(tmp_path):
    a, b = make_report("a", score_pattern="pp"), make_report("a", score_pattern="ff")
    with Journal(tmp_path) as j:
        j.append("k", a.to_dict())
        j.append("gone", a.to_dict())
    with Journal(tmp_path) as j:
        assert j.get_report("k") == GradeReport.from_dict(j.get("k")) == a
        j.append("k", b.to_dict())  # graded again in this run
        assert j.get_report("k") is None and j.get("k") == b.to_dict()
        assert j.get_report("gone") == a
        j.compact({"k"})
        assert j.get_report("gone") is None
        assert j.get_report("never") is None


def test_a_cached_class_parses_each_report_once_and_names_it_per_student(tmp_path, monkeypatch):
    """Two students with one content share a journal line; each gets a report of their own
    name, and the re-run (nothing graded, so no sandbox) reads each line's report once."""
    files = correct_files("one content")
    students = [
        Student(key, key.title(), i, "correct", files) for i, key in enumerate(("ann", "bea"))
    ]
    root = write_folder_class(tmp_path / "class", students)
    out = tmp_path / "out"
    keys = {cache_key(load_submission(d), FINGERPRINT) for d in root.iterdir()}
    assert len(keys) == 1  # one content
    with Journal(out / ".cache") as j:
        j.append(keys.pop(), make_report("whoever graded first").to_dict())
    parsed: list[str] = []
    from_dict = GradeReport.from_dict.__func__

    def counting(cls, data):
        parsed.append(data["submission"])
        return from_dict(cls, data)

    monkeypatch.setattr(GradeReport, "from_dict", classmethod(counting))
    result = run_batch(
        BatchOptions(input=root, out=out, progress=False, fingerprint=FINGERPRINT, workers=1)
    )
    assert result.graded_now == 0 and result.from_cache == 2
    assert sorted(o.report.submission for o in result.outcomes) == ["ann", "bea"]
    assert parsed == ["whoever graded first"]  # the one line, parsed when it was read
