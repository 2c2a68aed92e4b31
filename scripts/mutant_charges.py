"""How much each single-bug mutant of tests/mutants/catalogue.py is charged.

For every mutant: how many of its part's hidden tests it fails and how many points it loses
there. One warm `Grader` grades them in bundles of one mutant per part (each judged by its own
part's tests only, exactly as tests/test_hidden_suite.py does), so a run takes about a minute.
The alternatives in tests/alternatives are graded too: each must keep full marks.

    python scripts/mutant_charges.py              # the table
    python scripts/mutant_charges.py --verbose    # plus which tests each mutant fails
    python scripts/mutant_charges.py --json out.json

Exit 1 when a mutant keeps full marks on its part or an alternative loses points.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from dataclasses import replace
from pathlib import Path

from grader.parts import CODE_PARTS

ROOT = Path(__file__).resolve().parents[1]
PARTS = CODE_PARTS


def _catalogue():
    path = ROOT / "tests" / "mutants" / "catalogue.py"
    spec = importlib.util.spec_from_file_location("mutant_catalogue", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module.build_all()


def _sources() -> dict[str, str]:
    return {m: (ROOT / "solutions" / f"{m}.py").read_text(encoding="utf-8") for m in PARTS}


def charge(replacements: dict[str, tuple[str, dict[str, str]]]) -> dict[str, dict]:
    """Grade each entry (name -> (part, {module: source})) on its part with the reference for
    the rest; return, per entry, the tests it does not pass and the points it loses."""
    from grader.loading.model import Submission
    from grader.pipeline import GradeOptions, Grader

    base = GradeOptions(grade_written=False)
    by_part: dict[str, list[str]] = {p: [] for p in PARTS}
    for name, (part, _) in replacements.items():
        by_part[part].append(name)
    out: dict[str, dict] = {}
    grader = Grader(base)
    grader.start()
    try:
        for i in range(max((len(v) for v in by_part.values()), default=0)):
            members = {p: names[i] for p, names in by_part.items() if i < len(names)}
            sources = _sources()
            for name in members.values():
                sources.update(replacements[name][1])
            grader.options = replace(base, keyword=" or ".join(f"test_{p}" for p in members))
            report = grader.grade(Submission(name="+".join(members.values()), origin="charges",
                                             sources=sources, missing={}))  # fmt: skip
            for part, name in members.items():
                tests = [t for t in report.tests if t.part == part]
                bad = [t for t in tests if t.status != "passed"]
                out[name] = {
                    "part": part,
                    "tests": len(tests),
                    "failed": len(bad),
                    "lost": round(sum(t.max_score - t.score for t in tests), 4),
                    "max": sum(t.max_score for t in tests),
                    "failing": [(t.id, t.status, t.max_score - t.score) for t in bad],
                    "diagnoses": sorted({d for t in bad for d in t.diagnoses}),
                    "messages": {t.id: t.message for t in bad},
                }
    finally:
        grader.close()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--verbose", "-v", action="store_true", help="list each mutant's failed tests")
    ap.add_argument("--json", type=Path, help="also write the numbers as JSON")
    args = ap.parse_args(argv)

    mutants = _catalogue()
    alt_dir = ROOT / "tests" / "alternatives"
    alternatives = {}
    for folder in sorted(p for p in alt_dir.iterdir() if p.is_dir() and p.name[0] not in "_."):
        for f in folder.glob("*.py"):
            if f.stem in PARTS:
                alternatives[f"alt:{folder.name}"] = (f.stem, {f.stem: f.read_text("utf-8")})
    entries = {n: (m.module, {m.module: m.source}) for n, m in mutants.items()}
    results = charge({**entries, **alternatives})

    print(f"{'mutant':36s} {'part':11s} {'failed':>9s} {'lost':>12s}  diagnoses")
    print("-" * 100)
    problems = []
    for part in PARTS:
        for name, m in mutants.items():
            if m.module != part:
                continue
            r = results[name]
            print(f"{name:36s} {part:11s} {r['failed']:>3d}/{r['tests']:<5d} "
                  f"{r['lost']:>5.2f}/{r['max']:<6.1f}  {','.join(r['diagnoses'])}")  # fmt: skip
            if args.verbose:
                for tid, status, lost in r["failing"]:
                    print(f"{'':6s}{tid:58s} {status:9s} -{lost:g}")
            if r["lost"] <= 0:
                problems.append(f"mutant {name} keeps full marks on {part}")
    failed = [r["failed"] for n, r in results.items() if n in mutants]
    lost = [r["lost"] for n, r in results.items() if n in mutants]
    print("-" * 100)
    print(
        f"{len(failed)} mutants: tests failed min {min(failed)} / median "
        f"{sorted(failed)[len(failed) // 2]} / max {max(failed)}; points lost min "
        f"{min(lost):g} / median {sorted(lost)[len(lost) // 2]:g} / max {max(lost):g}"
    )
    print("\nalternatives (must keep full marks):")
    for name in alternatives:
        r = results[name]
        verdict = "full marks" if r["lost"] == 0 and not r["failed"] else f"LOST {r['lost']:g}"
        print(f"  {name[4:]:34s} {r['part']:11s} {verdict}")
        if r["failed"]:
            problems.append(f"alternative {name[4:]} loses {r['lost']:g} on {r['part']}")
            for tid, status, lost_ in r["failing"]:
                print(f"{'':6s}{tid:58s} {status:9s} -{lost_:g}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, sort_keys=True), encoding="utf-8")
    for p in problems:
        print("PROBLEM:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
