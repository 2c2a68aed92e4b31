"""A copied drill (Exercise 3, 20 points) is found like copied code or a copied answer.

With the same seed, every correct drill reruns to the same numbers, so a student who hands in
a classmate's `drill/` folder (script, results.json, note) passes every drill check; before,
the similarity check read only the four part modules and the Exercise 2 answer, and such a
copy was listed nowhere."""

from __future__ import annotations

import random

from grader.batch.similarity import compare, fingerprints
from grader.loading.model import assemble
from grader.resources import data_path

from .test_similarity import own_code

WORDS = ["gap", "causal", "masked", "prefix", "loss", "future", "tokens", "run", "failure", "seed"]
TABLE = (
    "| run | final loss | max gap | continuation accuracy |\n| --- | --- | --- | --- |\n"
    "| causal | 0.0660 | 0.0000 | 1.00 |\n| masked | 0.0410 | 0.5120 | 0.25 |\n"
    "| failure | 0.0390 | 0.4870 | 0.20 |\n| repaired | 0.0660 | 0.0000 | 1.00 |\n"
)


def _note(i: int) -> str:
    """The template's note filled with a student's own words and the shared numbers."""
    template = (data_path("exercises") / "drill" / "evidence_note.md").read_text()
    rng = random.Random(i)
    own = " ".join(rng.choices(WORDS, k=50))
    return template.replace("## Measurements", f"{own}\n\n## Measurements\n\n{TABLE}")


def _script(i: int) -> str:
    scaffold = (data_path("exercises") / "drill" / "experiment.py").read_text()
    return scaffold + "\n\n" + own_code(1000 + i).replace("helper", "train_step")


def _sub(name: str, masks: str, answer: str, script: str, note: str):
    files = {
        "masks.py": masks.encode(),
        "explanation.md": answer.encode(),
        "drill/experiment.py": script.encode(),
        "drill/evidence_note.md": note.encode(),
    }
    return assemble(name, name, files, [])


def _class(n: int) -> dict:
    return {
        f"s{i:03d}": _sub(
            f"s{i:03d}",
            own_code(i),
            "My own words " + " ".join(random.Random(-i).choices(WORDS, k=40)),
            _script(i),
            _note(i),
        )
        for i in range(n)
    }


def test_a_copied_drill_is_listed_with_its_regions():
    subs = _class(20)
    src = subs["s005"]
    subs["copycat"] = _sub(
        "copycat",
        own_code(77),
        "Entirely mine " + " ".join(random.Random(77).choices(WORDS, k=40)),
        src.files["drill/experiment.py"].replace("train_step", "my_step"),
        src.files["drill/evidence_note.md"],
    )
    pairs = compare({k: fingerprints(s) for k, s in subs.items()})
    found = {(p.kind, p.a, p.b) for p in pairs}
    assert found == {("drill", "copycat", "s005")}, found
    (pair,) = pairs
    assert pair.similarity > 0.8
    assert any(r.startswith("drill/experiment.py lines") for r in pair.regions_a)
    assert any(r.startswith("drill/evidence_note.md words") for r in pair.regions_a)


def test_the_scaffold_and_the_shared_numbers_alone_make_no_pair():
    """Every honest drill starts from the same scaffold and template and, seeded alike,
    reports the same numbers: none of that is a copy."""
    template = (data_path("exercises") / "drill" / "evidence_note.md").read_text()
    scaffold = (data_path("exercises") / "drill" / "experiment.py").read_text()
    subs = {
        k: _sub(k, own_code(i), f"answer {k}", scaffold, template + TABLE)
        for i, k in enumerate(("a", "b"))
    }
    prints = {k: fingerprints(s) for k, s in subs.items()}
    assert not any(w.startswith("drill") and v for fp in prints.values() for w, v in fp.items()
                   if w == "drill:experiment")  # fmt: skip
    assert compare(prints) == []
    assert compare({k: fingerprints(s) for k, s in _class(20).items()}) == []
