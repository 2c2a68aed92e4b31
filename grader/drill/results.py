"""Exercise 3's results.json on the trusted side: bounded parsing, its shape, the comparison
of two of them and the failure's signature. Plain JSON values only; nothing is unpickled.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from grader.drill.note import RUNS, numbers
from grader.textsafe import clean_text

MAX_RESULTS_BYTES = 256 * 1024
MAX_DEPTH = 12
MAX_DIFFS_SHOWN = 8

# Numbers of two runs agree when |a - b| <= ATOL + RTOL * |b|: the same code, seed and torch
# on another CPU rounds differently by ~1e-6 and training amplifies that a little.
RTOL = 5e-3
ATOL = 1e-4
# The signature of the controlled failure (a causal model that saw the future in training).
GAP_LEAK = 0.1  # the failure run's max prefix-consistency gap must be above this
GAP_ZERO = 1e-3  # the causal and repaired runs' gaps must be at most this ("about 0")
LOSS_MARGIN = 0.1  # failure: prefix loss (what generation reaches) above training loss by this
NOT_COMPARED = ("seconds", "torch")  # wall time and the torch build may differ on a rerun
RUN_NUMBERS = ("final_loss", "max_prefix_gap", "prefix_loss", "continuation_accuracy")


class ResultsError(ValueError):
    """A results.json that cannot be used; the message is for the student."""


@dataclass(frozen=True)
class Run:
    final_loss: float
    max_prefix_gap: float
    prefix_loss: float
    continuation_accuracy: float
    continuation: str


def parse_results(text: str, what: str) -> dict[str, Any]:
    """Parse a results.json bounded in size and nesting (`what` names it in messages)."""
    if len(text) > MAX_RESULTS_BYTES:
        raise ResultsError(f"{what} is larger than {MAX_RESULTS_BYTES:,} bytes")
    if _depth_exceeds(text, MAX_DEPTH):
        raise ResultsError(f"{what} is nested more than {MAX_DEPTH} levels deep")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ResultsError(f"{what} is not valid JSON: {clean_text(exc, 200)}") from None
    if not isinstance(data, dict):
        raise ResultsError(f"{what} must hold a JSON object, not {type(data).__name__}")
    return data


def _depth_exceeds(text: str, limit: int) -> bool:
    """Bracket depth outside strings, in one pass (json.loads recurses per level)."""
    depth, in_string, escaped = 0, False, False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return True
        elif ch in "]}":
            depth -= 1
    return False


def runs_of(data: dict[str, Any], what: str) -> dict[str, Run]:
    """The four runs' measurements; ResultsError naming every field that is absent or not
    of the documented type (the format is in the scaffold's docstring)."""
    problems: list[str] = []
    for key, kind in (("command", str), ("seed", int), ("seed_policy", str), ("config", dict)):
        if not _is(data.get(key), kind):
            problems.append(f"{key} ({kind.__name__})")
    shapes = (data.get("data") or {}).get("shapes") if isinstance(data.get("data"), dict) else None
    for key in ("input_ids", "logits"):
        value = shapes.get(key) if isinstance(shapes, dict) else None
        if not (isinstance(value, list) and value and all(_is(v, int) for v in value)):
            problems.append(f"data.shapes.{key} (list of int)")
    runs = data.get("runs") if isinstance(data.get("runs"), dict) else {}
    out: dict[str, Run] = {}
    for name in RUNS:
        run = runs.get(name)
        if not isinstance(run, dict):
            problems.append(f"runs.{name}")
            continue
        bad = [k for k in RUN_NUMBERS if not _finite(run.get(k))]
        if not isinstance(run.get("continuation"), str):
            bad.append("continuation")
        problems += [f"runs.{name}.{k}" for k in bad]
        if not bad:
            out[name] = Run(*(float(run[k]) for k in RUN_NUMBERS), run["continuation"])
    if problems:
        shown = ", ".join(problems[:MAX_DIFFS_SHOWN])
        more = f" and {len(problems) - MAX_DIFFS_SHOWN} more" if len(problems) > 8 else ""
        raise ResultsError(
            f"{what} lacks {shown}{more} (see the format in the docstring of drill/experiment.py)"
        )
    return out


def _is(value: Any, kind: type) -> bool:
    return isinstance(value, kind) and not (kind is int and isinstance(value, bool))


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def close(a: float, b: float) -> bool:
    """True when `a` is within the drill's tolerance of `b` (ATOL + RTOL * |b|)."""
    return abs(a - b) <= ATOL + RTOL * abs(b)


def differences(submitted: Any, rerun: Any, path: str = "") -> list[str]:
    """Where two results differ beyond the tolerance, as `path: yours X, the rerun Y` lines
    (numbers within RTOL/ATOL, everything else exactly; `NOT_COMPARED` keys skipped)."""
    if isinstance(rerun, dict) and isinstance(submitted, dict):
        out = []
        for key in rerun:
            if path == "" and key in NOT_COMPARED:
                continue
            sub = f"{path}.{key}" if path else str(key)
            if key not in submitted:
                out.append(f"{sub}: missing in yours, the rerun has {_show(rerun[key])}")
            else:
                out += differences(submitted[key], rerun[key], sub)
        out += [
            f"{path + '.' if path else ''}{k}: yours has it, the rerun does not"
            for k in submitted
            if k not in rerun and not (path == "" and k in NOT_COMPARED)
        ]
        return out
    if isinstance(rerun, list) and isinstance(submitted, list):
        if len(rerun) != len(submitted):
            return [f"{path}: yours has {len(submitted)} values, the rerun {len(rerun)}"]
        out = []
        for i, (s, r) in enumerate(zip(submitted, rerun, strict=True)):
            out += differences(s, r, f"{path}[{i}]")
            if len(out) > MAX_DIFFS_SHOWN:
                break
        return out
    if _finite(rerun) and _finite(submitted) and not isinstance(rerun, bool):
        if close(float(submitted), float(rerun)):
            return []
    elif submitted == rerun and type(submitted) is type(rerun):
        return []
    return [f"{path}: yours {_show(submitted)}, the rerun {_show(rerun)}"]


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return clean_text(text if len(text) <= 60 else text[:57] + "...", 80)


def signature(runs: dict[str, Run]) -> dict[str, tuple[bool, str]]:
    """case -> (shown, what the measurements say), for the four signature checks."""
    c, f, r = runs["causal"], runs["failure"], runs["repaired"]
    return {
        "future_leak": (
            f.max_prefix_gap > GAP_LEAK and c.max_prefix_gap <= GAP_ZERO,
            f"the failure run's max prefix-consistency gap is {f.max_prefix_gap:.4g} (must be "
            f"above {GAP_LEAK:g}) and the causal run's {c.max_prefix_gap:.4g} (must be at most "
            f"{GAP_ZERO:g})",
        ),
        "loss_below_generation": (
            f.final_loss + LOSS_MARGIN < f.prefix_loss and f.final_loss < c.final_loss,
            f"the failure run's training loss is {f.final_loss:.4g}, its prefix loss (each "
            f"position seeing only its prefix, as in generation) {f.prefix_loss:.4g} (must be "
            f"higher by more than {LOSS_MARGIN:g}), the causal run's training loss "
            f"{c.final_loss:.4g} (must be higher than the failure's)",
        ),
        "generation_degraded": (
            f.continuation_accuracy < c.continuation_accuracy,
            f"the failure run's continuation accuracy is {f.continuation_accuracy:.4g}, the "
            f"causal run's {c.continuation_accuracy:.4g} (the failure's must be lower)",
        ),
        "repaired": (
            r.max_prefix_gap <= GAP_ZERO
            and close(r.final_loss, c.final_loss)
            and r.continuation == c.continuation,
            f"the repaired run's max gap is {r.max_prefix_gap:.4g} (must be at most "
            f"{GAP_ZERO:g}), its training loss {r.final_loss:.4g} against the causal run's "
            f"{c.final_loss:.4g}, its continuation {r.continuation!r} against "
            f"{c.continuation!r} (both must agree)",
        ),
    }


MEASURED = ("runs", "diagnosis")  # the parts of results.json that hold measurements


def measurements(results: Any) -> list[float]:
    """The rerun's summary measurements: each run's numbers (final loss, prefix loss, max gap,
    accuracy) and the diagnosis's. Not the config, seed or data (settings), nor the per-step
    curves, whose 80 values span every loss and would match a setting such as lr 0.01."""
    if not isinstance(results, dict):
        return []
    runs = results.get("runs")
    groups = [*(runs.values() if isinstance(runs, dict) else ()), results.get("diagnosis")]
    return [
        float(v)
        for g in groups
        if isinstance(g, dict)
        for v in g.values()
        if isinstance(v, int | float) and not isinstance(v, bool)
    ]


def quotes_a_measurement(body: str, results: Any) -> bool:
    """Whether a number of `body` is one of the rerun's measurements (`measurements`, to the
    digits written) and is no closer to a setting of results.json (config, seed, data) than
    to that measurement: "trained at lr 0.01 with dropout 0.0" measures nothing, though 0.0
    is also a causal gap of 3.6e-06 to the digits written. Without a rerun's results there is
    nothing to compare with, and any number counts."""
    measured = measurements(results)
    if not measured:
        return True
    settings = [v for k, sub in results.items() if k not in MEASURED for v in _leaves(sub)]
    for q in numbers(body):
        near = min((abs(q.value - v) for v in measured if q.matches(v, RTOL, ATOL)), default=None)
        if near is not None and not any(abs(q.value - v) < near for v in settings):
            return True
    return False


def _leaves(value: Any):
    if isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    elif isinstance(value, list):
        for v in value:
            yield from _leaves(v)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        yield float(value)
