"""The rubric as data: dataclasses plus a validating TOML loader.

`load_rubric(path=None)` reads `grader/rubric/rubric.toml` (or `path`) and returns a `Rubric`.
Every problem in the file raises `RubricError` naming the file and the offending key, so an
instructor who edits the rubric sees what to fix instead of a traceback from deep inside the
scorer. Lexicon entries are compiled here once (see `compile_entry` for the small syntax).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any, get_args

from grader.errors import InternalError
from grader.report import Verdict
from grader.resources import data_path
from grader.rubric.prefilter import LiteralIndex

DEFAULT_RUBRIC_PATH = data_path("grader.rubric", "rubric.toml")
VERDICTS: tuple[Verdict, ...] = get_args(Verdict)
LEVEL_FIELDS = ("good", "gap", "improve")

#: Concepts the scorer reasons with; each must have a lexicon entry list (see docs/rubric.md).
LEXICON_KEYS: tuple[str, ...] = (
    "masked_model", "causal_model", "both_models", "other_model", "contrast_prefix",
    "both_sides", "future_ref", "whole_seq", "earlier_ref", "only", "causal_mask",
    "one_direction", "hide_verb", "view_verb", "available_verb",
    "predict_masked", "predict_next",
    "generation", "generation_time", "left_to_right", "absent",
    "training", "same_relation", "diff_relation", "never_trained",
    "understanding", "generation_use", "usage", "suitability", "negation",
)  # fmt: skip
#: Messages the scorer may attach to a contradicted verdict.
CLAIM_KEYS: tuple[str, ...] = (
    "mlm_left_only", "clm_sees_future", "future_at_generation", "mlm_consistent",
    "clm_mismatch", "mlm_generation", "arch_swap", "mlm_causal", "mlm_trailing_mask",
    "mlm_no_problem", "clm_fills_blanks", "training_alike", "clm_cannot_generate",
)  # fmt: skip
# claim messages added after rubrics were first edited by instructors: a rubric without them
# keeps loading, with these texts
_CLAIM_DEFAULTS = {
    "clm_cannot_generate": "The answer says the causal LM cannot generate coherent text. It "
    "can: it is trained on exactly what generation gives it, only the earlier tokens.",
}
THRESHOLD_KEYS: dict[str, type] = {
    "short_words": int,
    "long_words": int,
    "review_confidence": float,
    "copy_containment": float,
    "copy_run_words": int,
    "english_stopword_ratio": float,
    "list_stopword_ratio": float,
}


class RubricError(InternalError, ValueError):
    """The rubric file is missing, not TOML, or does not have the expected shape.

    The only rubric is the one installed with the grader, so a broken one is a broken
    installation (exit 3), not a usage mistake."""


@dataclass(frozen=True)
class Level:
    """Feedback for one verdict on one criterion: what was good, the gap, how to improve."""

    good: str
    gap: str
    improve: str


@dataclass(frozen=True)
class Criterion:
    id: str
    weight: float
    title: str
    requires: str
    levels: Mapping[Verdict, Level]


@dataclass(frozen=True)
class FalseClaim:
    """An instructor-supplied pattern that, found in a sentence, contradicts `criterion`."""

    criterion: str
    claim: str
    pattern: re.Pattern[str]


@dataclass(frozen=True)
class Thresholds:
    short_words: int
    long_words: int
    review_confidence: float
    copy_containment: float
    copy_run_words: int
    english_stopword_ratio: float
    list_stopword_ratio: float


@dataclass(frozen=True)
class Rubric:
    """A validated rubric. `lexicon` maps each concept to compiled, word-bounded patterns."""

    id: str
    title: str
    max_score: float
    scoring: Mapping[Verdict, float]
    thresholds: Thresholds
    criteria: tuple[Criterion, ...]
    claims: Mapping[str, str]
    lexicon: Mapping[str, tuple[re.Pattern[str], ...]]
    false_claims: tuple[FalseClaim, ...]
    injection: tuple[re.Pattern[str], ...]
    source: str
    # One alternation per lexicon key, derived from `lexicon`: a sentence none of whose
    # words can start any entry of a key is not scanned with that key's patterns one by one.
    lexicon_gate: Mapping[str, re.Pattern[str]] = field(init=False, repr=False, compare=False)
    # Every lexicon entry as (key, pattern), in lexicon order, with the literals each needs:
    # `lexicon_index.candidates(text)` names the entries that may match (`prefilter.py`).
    lexicon_entries: tuple[tuple[str, re.Pattern[str]], ...] = field(
        init=False, repr=False, compare=False
    )
    lexicon_index: LiteralIndex = field(init=False, repr=False, compare=False)
    injection_index: LiteralIndex = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        gates = {k: lexicon_gate(pats) for k, pats in self.lexicon.items()}
        object.__setattr__(self, "lexicon_gate", MappingProxyType(gates))
        entries = tuple((k, p) for k, pats in self.lexicon.items() for p in pats)
        object.__setattr__(self, "lexicon_entries", entries)
        object.__setattr__(self, "lexicon_index", LiteralIndex(tuple(p for _, p in entries)))
        object.__setattr__(self, "injection_index", LiteralIndex(self.injection))

    def criterion(self, cid: str) -> Criterion:
        """The criterion with id `cid`; KeyError if the rubric has none."""
        for c in self.criteria:
            if c.id == cid:
                return c
        raise KeyError(cid)

    def points(self, cid: str, verdict: Verdict) -> float:
        """Points a verdict earns on criterion `cid` (weight x the verdict's multiplier)."""
        return self.criterion(cid).weight * self.scoring[verdict]

    def says(self, text: str, key: str) -> bool:
        """Some entry of lexicon `key` matches `text`. A gate built from `compile_entry`
        entries matches exactly where one of them does, so it alone decides; the always-matching
        gate of hand-written patterns leaves it to the entries."""
        gate = self.lexicon_gate[key]
        if gate.pattern:
            return gate.search(text) is not None
        return any(p.search(text) for p in self.lexicon[key])


def compile_entry(entry: str) -> re.Pattern[str]:
    """Compile one lexicon entry: a case-insensitive regex matched on word boundaries.

    A plain (unescaped) space matches any run of spaces or hyphens, so `left to right` also
    matches `left-to-right`. Entries may use regex syntax (`s?`, `(?:a|b)`), but not spaces
    inside `[...]`.
    """
    body = re.sub(r"(?<!\\) ", r"(?:[\\s\\-]+)", entry)
    return re.compile(rf"(?<![\w])(?:{body})(?![\w])", re.IGNORECASE)


_PREFIX, _SUFFIX = r"(?<![\w])(?:", r")(?![\w])"


def lexicon_gate(patterns: tuple[re.Pattern[str], ...]) -> re.Pattern[str]:
    """One pattern that matches wherever any of `patterns` (from `compile_entry`) matches.

    It is a necessary condition, never a replacement: a sentence it finds nothing in has no
    hit of any of them, and one it matches is still read pattern by pattern, so the hits are
    exactly the same. One scan with one word-boundary check per position is several times
    cheaper than one scan per entry (the lexicon has ~600 entries)."""
    bodies = []
    for p in patterns:
        s = p.pattern
        if not (s.startswith(_PREFIX) and s.endswith(_SUFFIX)) or p.groups:
            return re.compile("")  # not from compile_entry: always scan entry by entry
        bodies.append(s[len(_PREFIX) : -len(_SUFFIX)])
    return re.compile(_PREFIX + "|".join(f"(?:{b})" for b in bodies) + _SUFFIX, re.IGNORECASE)


def load_rubric(path: str | Path | None = None) -> Rubric:
    """Load and validate a rubric TOML file (default: the bundled `rubric.toml`).

    Raises `RubricError` with the file name and the offending key on any problem. The default
    rubric is cached; pass a path to read another file.
    """
    if path is None:
        return _load_default()
    return _load(Path(path))


@lru_cache(maxsize=1)
def _load_default() -> Rubric:
    return _load(DEFAULT_RUBRIC_PATH)


def _load(path: Path) -> Rubric:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise RubricError(f"cannot read rubric file {path}: {exc.strerror or exc}") from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise RubricError(f"{path}: not valid TOML: {exc}") from None
    return _parse(data, str(path))


def _parse(data: dict[str, Any], where: str) -> Rubric:
    def err(msg: str) -> RubricError:
        return RubricError(f"{where}: {msg}")

    head = _table(data, "rubric", err)
    rid = _str(head, "id", "rubric", err)
    title = _str(head, "title", "rubric", err)
    max_score = _num(head, "max_score", "rubric", err)

    sc = _table(data, "scoring", err)
    scoring: dict[Verdict, float] = {}
    for v in VERDICTS:
        x = _num(sc, v, "scoring", err)
        if not 0.0 <= x <= 1.0:
            raise err(f"scoring.{v} must be between 0 and 1, got {x}")
        scoring[v] = x
    _no_extra(sc, set(VERDICTS), "scoring", err)

    th = _table(data, "thresholds", err)
    th_vals: dict[str, Any] = {}
    for key, typ in THRESHOLD_KEYS.items():
        x = _num(th, key, "thresholds", err)
        if x < 0:
            raise err(f"thresholds.{key} must not be negative")
        th_vals[key] = typ(x)
    _no_extra(th, set(THRESHOLD_KEYS), "thresholds", err)

    crit_list = data.get("criteria")
    if not isinstance(crit_list, list) or not crit_list:
        raise err("needs at least one [[criteria]] table")
    criteria = tuple(_criterion(c, i, err) for i, c in enumerate(crit_list))
    ids = [c.id for c in criteria]
    if len(set(ids)) != len(ids):
        raise err(f"criterion ids must be unique, got {ids}")
    total = sum(c.weight for c in criteria)
    if abs(total - max_score) > 1e-9:
        raise err(f"criterion weights sum to {total:g} but rubric.max_score is {max_score:g}")

    claims_t = _table(data, "claims", err)
    claims = {
        k: _CLAIM_DEFAULTS[k]
        if k in _CLAIM_DEFAULTS and k not in claims_t
        else _str(claims_t, k, "claims", err)
        for k in CLAIM_KEYS
    }
    _no_extra(claims_t, set(CLAIM_KEYS), "claims", err)

    lex_t = _table(data, "lexicon", err)
    _no_extra(lex_t, set(LEXICON_KEYS), "lexicon", err)
    lexicon: dict[str, tuple[re.Pattern[str], ...]] = {}
    for key in LEXICON_KEYS:
        entries = lex_t.get(key)
        if not isinstance(entries, list) or not entries:
            raise err(f"lexicon.{key} must be a non-empty list of strings (the scorer needs it)")
        lexicon[key] = tuple(_compile(e, f"lexicon.{key}[{i}]", err) for i, e in enumerate(entries))

    false_claims = []
    for i, fc in enumerate(data.get("false_claims", [])):
        if not isinstance(fc, dict):
            raise err(f"false_claims[{i}] must be a table")
        crit = _str(fc, "criterion", f"false_claims[{i}]", err)
        if crit not in ids:
            raise err(f"false_claims[{i}].criterion {crit!r} is not a criterion id ({ids})")
        claim = _str(fc, "claim", f"false_claims[{i}]", err)
        if claim not in claims:
            raise err(f"false_claims[{i}].claim {claim!r} is not a key of [claims]")
        pat = _str(fc, "pattern", f"false_claims[{i}]", err)
        try:
            cp = re.compile(pat, re.IGNORECASE)
        except re.error as exc:
            raise err(
                f"false_claims[{i}].pattern is not a valid regular expression: {exc}"
            ) from None
        false_claims.append(FalseClaim(crit, claim, cp))

    inj = _table(data, "injection", err)
    pats = inj.get("patterns")
    if not isinstance(pats, list) or not pats:
        raise err("injection.patterns must be a non-empty list of strings")
    injection = tuple(_compile(p, f"injection.patterns[{i}]", err) for i, p in enumerate(pats))

    return Rubric(
        id=rid,
        title=title,
        max_score=max_score,
        scoring=MappingProxyType(scoring),
        thresholds=Thresholds(**th_vals),
        criteria=criteria,
        claims=MappingProxyType(claims),
        lexicon=MappingProxyType(lexicon),
        false_claims=tuple(false_claims),
        injection=injection,
        source=where,
    )


def _criterion(c: Any, i: int, err: Any) -> Criterion:
    at = f"criteria[{i}]"
    if not isinstance(c, dict):
        raise err(f"{at} must be a table")
    cid = _str(c, "id", at, err)
    at = f"criterion {cid}"
    weight = _num(c, "weight", at, err)
    if weight <= 0:
        raise err(f"{at}: weight must be positive, got {weight:g}")
    levels_t = c.get("levels")
    if not isinstance(levels_t, dict):
        raise err(f"{at}: needs [criteria.levels.<verdict>] tables for {', '.join(VERDICTS)}")
    levels: dict[Verdict, Level] = {}
    for v in VERDICTS:
        lv = levels_t.get(v)
        if not isinstance(lv, dict):
            raise err(f"{at}: missing level {v!r} (needs {', '.join(VERDICTS)})")
        fields = {f: _str(lv, f, f"{at}.levels.{v}", err, allow_empty=True) for f in LEVEL_FIELDS}
        _no_extra(lv, set(LEVEL_FIELDS), f"{at}.levels.{v}", err)
        levels[v] = Level(**fields)
    _no_extra(levels_t, set(VERDICTS), f"{at}.levels", err)
    _no_extra(c, {"id", "weight", "title", "requires", "levels"}, at, err)
    return Criterion(
        id=cid,
        weight=weight,
        title=_str(c, "title", at, err),
        requires=" ".join(_str(c, "requires", at, err).split()),
        levels=MappingProxyType(levels),
    )


def _table(d: dict[str, Any], key: str, err: Any) -> dict[str, Any]:
    t = d.get(key)
    if not isinstance(t, dict):
        raise err(f"missing [{key}] table")
    return t


def _str(d: dict[str, Any], key: str, at: str, err: Any, allow_empty: bool = False) -> str:
    v = d.get(key)
    if not isinstance(v, str) or (not allow_empty and not v.strip()):
        raise err(f"{at}.{key} must be a {'string' if allow_empty else 'non-empty string'}")
    return v


def _num(d: dict[str, Any], key: str, at: str, err: Any) -> float:
    v = d.get(key)
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise err(f"{at}.{key} must be a number, got {v!r}")
    return float(v)


def _no_extra(d: dict[str, Any], allowed: set[str], at: str, err: Any) -> None:
    extra = sorted(set(d) - allowed)
    if extra:
        raise err(f"{at}: unknown key(s) {extra}; expected {sorted(allowed)}")


def _compile(entry: Any, at: str, err: Any) -> re.Pattern[str]:
    if not isinstance(entry, str) or not entry.strip():
        raise err(f"{at} must be a non-empty string")
    try:
        return compile_entry(entry)
    except re.error as exc:
        raise err(f"{at} {entry!r} is not a valid regular expression: {exc}") from None
