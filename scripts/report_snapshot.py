"""Snapshot the JSON reports of a fixed set of submissions, to show a refactor changes no grade.

    python scripts/report_snapshot.py write SNAP_DIR            # every set
    python scripts/report_snapshot.py write SNAP_DIR --sets reference,mutants
    python scripts/report_snapshot.py compare OLD_DIR NEW_DIR   # exit 1 on any difference

Run `write` from two checkouts (each with its own venv: `/work/old/.venv/bin/python
/work/old/scripts/report_snapshot.py write /tmp/old` and the same for the new tree), then
`compare`. The sets:

* reference: solutions/ with the model explanation;
* alternatives: each of tests/alternatives spliced into the reference;
* mutants: each one-bug mutant of tests/mutants/catalogue.py, graded on the whole suite;
* sample: the synthetic class of grader.batch.sampleclass (correct, buggy, stub and hostile);
* attacks: every submission of the attack corpus (tests/attacks), built in a fresh context.

Everything that could differ between two runs of the same code is pinned: the case secret, the
canaries (uuid4 is replaced by a counter), the listener port and the temporary folder (both
written as placeholders). A report is written as sorted, indented JSON, one file per
submission, so `diff -r` also works.
"""

from __future__ import annotations

import argparse
import difflib
import importlib.util
import itertools
import json
import re
import shutil
import sys
import tempfile
import uuid
from pathlib import Path

from grader.parts import CODE_PARTS

ROOT = Path(__file__).resolve().parents[1]
# Attacks whose outcome is a race by design (which of two processes acts first on a shared
# socket): for them only statuses and scores are compared, not the messages.
RACY = {"attack-socket_tamper.json"}
SETS = ("reference", "alternatives", "mutants", "sample", "attacks")
CASE_SECRET = "report-snapshot"
PARTS = CODE_PARTS


def _load_tests_module(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _reference_sources() -> dict[str, str]:
    return {p: (ROOT / "solutions" / f"{p}.py").read_text(encoding="utf-8") for p in PARTS}


def _submission(name: str, sources: dict[str, str], explanation: str | None = None):
    from grader.loading.model import Submission

    written = {"explanation": explanation} if explanation is not None else {}
    return Submission(name=name, origin="snapshot", sources=sources, written=written)


def _reference_set():
    explanation = (ROOT / "solutions" / "explanation.md").read_text(encoding="utf-8")
    yield "reference", _submission("reference", _reference_sources(), explanation)


def _alternatives_set():
    for folder in sorted((ROOT / "tests" / "alternatives").iterdir()):
        if not folder.is_dir() or folder.name[0] in "_.":
            continue
        sources = _reference_sources()
        for f in sorted(folder.glob("*.py")):
            if f.stem in sources:
                sources[f.stem] = f.read_text(encoding="utf-8")
        yield f"alternative-{folder.name}", _submission(folder.name, sources)


def _mutants_set():
    catalogue = _load_tests_module(
        "snapshot_catalogue", ROOT / "tests" / "mutants" / "catalogue.py"
    )
    for name, mutant in catalogue.build_all().items():
        sources = _reference_sources()
        sources[mutant.module] = mutant.source
        yield f"mutant-{name}", _submission(name, sources)


def _sample_set(tmp: Path):
    from grader.batch.sampleclass import synthetic_class, write_folder_class
    from grader.loading import SubmissionError, load_submission

    root = write_folder_class(tmp / "sample", synthetic_class(40, seed=0))
    for entry in sorted(root.iterdir()):
        try:
            yield f"sample-{entry.name}", load_submission(entry)
        except SubmissionError as exc:
            yield f"sample-{entry.name}", {"load_error": str(exc)}


def _attacks_set(tmp: Path, grade):
    sys.path.insert(0, str(ROOT / "tests"))
    from attacks import checks, harness

    from grader.loading import SubmissionError, load_submission

    for name in harness.discover():
        attack = harness.load(name)
        ctx = checks.make_context(tmp / name, "snapshot-token")
        try:
            if attack.grade_other_first:
                grade(load_submission(ctx.other))
            path = harness.build(attack, ctx)
            try:
                result = grade(load_submission(path))
            except SubmissionError as exc:
                result = {"load_error": str(exc)}
        finally:
            for s in ctx.listeners:
                s.close()
        text = json.dumps(result, sort_keys=True)
        text = text.replace(str(tmp), "@TMP@")
        # the port as a whole number only: "expected 4.44703" must not become "4.@PORT@"
        text = re.sub(rf"(?<![\d.]){ctx.port}(?!\d)", "@PORT@", text)
        yield f"attack-{name}", json.loads(text)


def write(out: Path, sets: list[str]) -> int:
    """Grade every submission of `sets`; write one JSON file per report into `out`."""
    from grader.pipeline import GradeOptions, Grader

    counter = itertools.count()
    uuid.uuid4 = lambda: uuid.UUID(int=next(counter))  # deterministic canaries
    out.mkdir(parents=True, exist_ok=True)
    grader = Grader(GradeOptions(case_secret=CASE_SECRET)).start()

    def grade(sub):
        return grader.grade(sub).to_dict()

    written = 0
    try:
        # A fixed folder: attack sources embed their paths, and a path that changed between runs
        # would change the code digest, and with it the per-submission inputs.
        tmp = Path(tempfile.gettempdir()) / "grader-report-snapshot"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        try:
            producers = {
                "reference": lambda: _reference_set(),
                "alternatives": lambda: _alternatives_set(),
                "mutants": lambda: _mutants_set(),
                "sample": lambda: _sample_set(tmp),
                "attacks": lambda: _attacks_set(tmp, grade),
            }
            for set_name in sets:
                for key, item in producers[set_name]():
                    report = grade(item) if not isinstance(item, dict) else item
                    text = json.dumps(report, sort_keys=True, indent=1, ensure_ascii=False)
                    (out / f"{key}.json").write_text(text.replace(str(tmp), "@TMP@") + "\n",
                                                     encoding="utf-8")  # fmt: skip
                    written += 1
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    finally:
        grader.close()
    print(f"{written} reports written to {out}")
    return 0


def _marks(text: str) -> list[tuple]:
    report = json.loads(text)
    return [(t["id"], t["status"], t["score"]) for t in report.get("tests", [])]


def compare(old: Path, new: Path) -> int:
    """Exit status 1 and a unified diff per differing report; 0 when all are byte-identical."""
    a = {p.name for p in old.glob("*.json")}
    b = {p.name for p in new.glob("*.json")}
    status = 0
    for name in sorted(a ^ b):
        print(f"only in {'old' if name in a else 'new'}: {name}")
        status = 1
    same = 0
    for name in sorted(a & b):
        x = (old / name).read_text(encoding="utf-8")
        y = (new / name).read_text(encoding="utf-8")
        if x == y or (name in RACY and _marks(x) == _marks(y)):
            same += 1
            continue
        status = 1
        sys.stdout.writelines(
            difflib.unified_diff(
                x.splitlines(True), y.splitlines(True), f"old/{name}", f"new/{name}", n=1
            )
        )
    print(
        f"{same} of {len(a | b)} reports byte-identical "
        f"(for {', '.join(sorted(RACY))}: the same statuses and scores)"
    )
    return status


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    w = sub.add_parser("write")
    w.add_argument("out", type=Path)
    w.add_argument("--sets", default=",".join(SETS))
    c = sub.add_parser("compare")
    c.add_argument("old", type=Path)
    c.add_argument("new", type=Path)
    args = parser.parse_args(argv)
    if args.command == "compare":
        return compare(args.old, args.new)
    sets = [s for s in args.sets.split(",") if s]
    unknown = sorted(set(sets) - set(SETS))
    if unknown:
        parser.error(f"unknown set(s) {', '.join(unknown)}; choose from {', '.join(SETS)}")
    return write(args.out, sets)


if __name__ == "__main__":
    sys.exit(main())
