"""Similarity across the class (issue 17): winnowing fingerprints over normalised code and
written answers; stub code and code everyone shares left out; ranked pairs with regions."""

from __future__ import annotations

import csv
import io
import random
import shutil
import time

from click.testing import CliRunner

from grader.batch.sampleclass import Student, correct_files, write_folder_class
from grader.batch.similarity import (
    SimilarityOptions,
    code_tokens,
    compare,
    fingerprints,
)
from grader.cli import main
from grader.loading import LoadLimits
from grader.loading.model import assemble
from grader.resources import data_path

from .test_instructor_loop import batch, seed

OPS = ("+", "-", "*", "//", "%")


def own_code(seed_: int, lines: int = 30) -> str:
    """A function nobody else writes (seeded, so deterministic)."""
    rng = random.Random(seed_)
    body = []
    for _ in range(lines):
        a, b = rng.sample(["x", "y", "z", "w"], 2)
        op = rng.choice(OPS)
        kind = rng.randrange(3)
        if kind == 0:
            body.append(f"    {a} = {a} {op} {rng.randrange(1, 99)}")
        elif kind == 1:
            body.append(f"    if {a} > {rng.randrange(99)}:\n        {b} = {b} {op} {a}")
        else:
            body.append(f"    for _ in range({rng.randrange(2, 9)}):\n        {a} {op}= {b}")
    return "def helper(x, y, z, w):\n" + "\n".join(body) + "\n    return x + y + z + w\n"


def disguise(source: str) -> str:
    """The same code, renamed, recommented and re-laid out."""
    out = source.replace("helper", "my_func")
    for old, new in (("x", "alpha"), ("y", "beta"), ("z", "gamma"), ("w", "delta")):
        out = out.replace(old, new)
    lines = []
    for n, line in enumerate(out.splitlines()):
        lines.append(line + ("   # my own idea" if n % 3 == 0 else ""))
        if n % 5 == 0:
            lines.append("")
    return '"""Written all by myself."""\n\n' + "\n".join(lines) + "\n"


def test_normalising_ignores_names_comments_layout_and_docstrings():
    src = own_code(1)
    assert [t for t, _ in code_tokens(src)] == [t for t, _ in code_tokens(disguise(src))]
    assert [t for t, _ in code_tokens(src)] != [t for t, _ in code_tokens(own_code(2))]
    # attribute names and torch calls are structure, not names
    assert [t for t, _ in code_tokens("y = torch.tril(x)")] == [
        "V",
        "=",
        "torch",
        ".",
        "tril",
        "(",
        "V",
        ")",
    ]


def _sub(name: str, masks: str, answer: str = "") -> object:
    files = {"masks.py": masks.encode()}
    if answer:
        files["explanation.md"] = answer.encode()
    return assemble(name, name, files, [])


def _class(n: int) -> dict[str, object]:
    stub = (data_path("exercises") / "masks.py").read_text()
    shared = (data_path("solutions") / "masks.py").read_text()  # what every correct one has
    subs = {
        f"s{i:03d}": _sub(
            f"s{i:03d}",
            stub + "\n" + shared + "\n" + own_code(i),
            f"In my own words number {i}: "
            + " ".join(
                random.Random(i).choices(
                    ["mask", "token", "future", "loss", "predict", "left", "right"], k=60
                )
            ),
        )
        for i in range(n)
    }
    return subs


def test_copied_code_and_answers_are_ranked_with_regions():
    subs = _class(20)
    subs["copycat"] = _sub(
        "copycat",
        disguise(own_code(7)),
        "I think " + subs["s011"].written["explanation"] + " Thanks.",
    )
    prints = {k: fingerprints(s) for k, s in subs.items()}
    pairs = compare(prints)
    found = {(p.kind, p.a, p.b) for p in pairs}
    assert found == {("code", "copycat", "s007"), ("written", "copycat", "s011")}, found
    code = next(p for p in pairs if p.kind == "code")
    assert code.similarity > 0.8
    (region,) = code.regions_a  # one span covering (nearly) the whole disguised copy
    first, last = map(int, region.removeprefix("masks.py lines ").split("-"))
    total = len(disguise(own_code(7)).splitlines())
    assert first <= 6 and last >= total - 3, (region, total)
    assert code.regions_b and all(r.startswith("masks.py lines") for r in code.regions_b)


def test_stub_code_alone_never_makes_a_pair():
    stub = (data_path("exercises") / "masks.py").read_text()
    prints = {k: fingerprints(_sub(k, stub)) for k in ("a", "b")}
    assert prints["a"] == {} and compare(prints) == []


def test_thresholds_are_configurable():
    subs = _class(12)
    subs["half"] = _sub("half", "\n".join(own_code(3).splitlines()[:14]) + "\n" + own_code(99))
    prints = {k: fingerprints(s) for k, s in subs.items()}
    strict = compare(prints, SimilarityOptions(threshold=0.9))
    loose = compare(prints, SimilarityOptions(threshold=0.2))
    assert not any("half" in (p.a, p.b) for p in strict)
    assert any({p.a, p.b} == {"half", "s003"} for p in loose)


def test_a_class_of_300_takes_seconds():
    subs = _class(300)
    t0 = time.process_time()
    prints = {k: fingerprints(s) for k, s in subs.items()}
    pairs = compare(prints)
    assert time.process_time() - t0 < 15
    assert pairs == []  # nobody copied


def test_batch_writes_similarity_and_render_rebuilds_it_without_the_files(tmp_path):
    people = [
        Student(k, k, 100 + i, "correct", correct_files(f"sim-{k}"))
        for i, k in enumerate(("ada", "ben", "cleo", "dan", "eve"))
    ]
    people[0].files["masks.py"] += ("\n" + own_code(5) + "\n").encode()
    people[1].files["masks.py"] += ("\n" + disguise(own_code(5)) + "\n").encode()
    class_dir = write_folder_class(tmp_path / "class", people)
    out = tmp_path / "out"
    seed(class_dir, out)
    batch(class_dir, out)
    rows = list(
        csv.DictReader(io.StringIO((out / "similarity.csv").read_text(encoding="utf-8-sig")))
    )
    assert [(r["Kind"], r["Submission A"], r["Submission B"]) for r in rows] == [
        ("code", "ada", "ben")
    ]
    html = (out / "report.html").read_text()
    assert "Unusually similar submissions (1)" in html and "masks.py lines" in html
    before = (out / "similarity.csv").read_bytes(), html
    shutil.rmtree(class_dir)  # render reads no student file
    (out / "similarity.csv").unlink()
    (out / "report.html").unlink()
    res = CliRunner().invoke(main, ["render", str(out)])
    assert res.exit_code == 0, res.output
    assert ((out / "similarity.csv").read_bytes(), (out / "report.html").read_text()) == before


def test_a_notebooks_combined_code_counts_once():
    from grader.batch.sampleclass import notebook_bytes
    from grader.loading.notebook import load_notebook_bytes

    files = correct_files("nbsim")
    files["masks.py"] += ("\n" + own_code(11) + "\n").encode()
    sub = load_notebook_bytes(notebook_bytes(files), name="n", origin="n", limits=LoadLimits())
    assert len(set(sub.sources.values())) == 1 and len(sub.sources) == 4
    assert list(fingerprints(sub)) == ["code:corruption", "text"]
