"""A notebook student can run the drill (found walking the student flow): `drill/experiment.py`
imports `masks`, `losses`, ... from `exercises/`, which for a notebook student still hold the
stubs. The handout's Exercise 3 section (exercises/README.md, also the notebook's drill cell)
gives the cell that runs it on the notebook's own functions; this runs that exact cell."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PARTS = ("masks", "corruption", "losses", "generation")


def _notebook_recipe() -> str:
    drill = (ROOT / "exercises" / "README.md").read_text(encoding="utf-8")
    drill = drill.split("## Exercise 3", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", drill, re.DOTALL)
    assert len(blocks) == 1, "the drill section shows one Python cell for notebook students"
    return blocks[0]


def _handout(tmp: Path) -> Path:
    """The handout as a notebook student has it: stub exercises/, the drill's TODOs done."""
    shutil.copytree(ROOT / "exercises", tmp / "exercises",
                    ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    shutil.copyfile(ROOT / "solutions" / "drill" / "experiment.py",
                    tmp / "exercises" / "drill" / "experiment.py")  # fmt: skip
    return tmp


def _run(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)  # fmt: skip


def test_the_documented_cell_runs_the_drill_on_the_notebooks_functions(tmp_path):
    root = _handout(tmp_path)
    # as the docs say, the script alone imports the stubs
    alone = _run(root / "exercises", "drill/experiment.py", "--seed", "0")
    assert alone.returncode != 0 and "NotImplementedError" in alone.stderr, alone.stderr[-2000:]
    # the kernel after the student ran their code cells: the functions live in __main__
    cells = [(ROOT / "solutions" / f"{p}.py").read_text(encoding="utf-8") for p in PARTS]
    kernel = "".join(f"exec(compile({c!r}, 'cell', 'exec'))\n" for c in cells)
    recipe = _notebook_recipe()
    assert '["--seed", "0"]' in recipe
    recipe = recipe.replace('["--seed", "0"]', '["--seed", "0", "--steps", "3"]')  # fast here
    (root / "kernel.py").write_text(kernel + recipe, encoding="utf-8")
    done = _run(root, "kernel.py")
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads((root / "exercises" / "drill" / "results.json").read_text("utf-8"))
    assert results["command"] == "python drill/experiment.py --seed 0 --steps 3"
    assert set(results["runs"]) == {"causal", "masked", "failure", "repaired"}
