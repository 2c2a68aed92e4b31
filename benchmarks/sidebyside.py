"""Run one benchmark script under several checkouts, alternating them, and print medians.

Each tree's own ``.venv/bin/python`` runs the script (the sandbox imports the package installed
in that venv); the order of the trees flips every round so a drift in the machine's load does
not favour one. The script must print its result as one JSON object on its last line.
"""

from __future__ import annotations

import json
import statistics
import subprocess
from collections.abc import Callable
from pathlib import Path

Result = dict[str, float]


def alternate(
    script: Path,
    trees: list[Path],
    rounds: int,
    args_for: Callable[[Path], list[str]],
    line: Callable[[str, Result], str],
) -> dict[Path, list[Result]]:
    """Run `script` with `args_for(tree)` in every tree for `rounds` rounds; print each run with
    `line(name, result)` and then the medians; return every result by tree."""
    results: dict[Path, list[Result]] = {t: [] for t in trees}
    for r in range(rounds):
        for tree in trees if r % 2 == 0 else trees[::-1]:
            out = subprocess.run(
                [str(tree / ".venv" / "bin" / "python"), str(script), *args_for(tree)],
                cwd=tree,
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            res = json.loads(out.strip().splitlines()[-1])
            results[tree].append(res)
            print(line(f"round {r + 1} {tree.name}", res), flush=True)
    print(f"medians over {rounds} rounds:")
    for tree in trees:
        med = {k: statistics.median(x[k] for x in results[tree]) for k in results[tree][0]}
        print(line(str(tree), med))
    return results
