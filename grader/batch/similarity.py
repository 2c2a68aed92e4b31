"""Similar submissions across a class: winnowing fingerprints, as MOSS computes them.

Code is normalised before it is fingerprinted: comments, docstrings, blank lines and layout
are dropped, every identifier that is not a keyword, a builtin or an attribute name becomes
`V`, every string `S` (Python's own tokenizer, linear in the file). The answer to Exercise 2
is lower-cased words. The drill (Exercise 3) is compared on its own: `drill/experiment.py` as
code and the evidence note as words (its template's comments left out), so a copied drill is
found even when everything else is the student's own. Each run of `k` tokens (words) is
hashed; winnowing keeps the smallest hash of every window of `w` consecutive hashes, so any
shared run of `w + k - 1` tokens is found. Then:

* fingerprints of the handout's stub code (and stub explanation) are removed;
* fingerprints found in more than `max_share` of the class are ignored (a correct
  `causal_mask` looks the same in everyone's work; MOSS's `-m`);
* a pair is reported when the fingerprints it shares are at least `min_shared` and at least
  `threshold` of the smaller submission's (counting only fingerprints not ignored above).

Pairs come from an inverted index (fingerprint -> submissions), so the cost is the class's
fingerprints plus the pairs that share one: a class of 300 takes well under a second.
Fingerprints are computed once per submission on the trusted side, from text the loader has
already bounded (1 MB per file), and stored in OUT so `grader render` never reads student files.
"""

from __future__ import annotations

import builtins
import csv
import hashlib
import io
import json
import keyword
import re
import tokenize
from collections import defaultdict, deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from grader.loading.model import (
    CODE_PARTS,
    EXPLANATION_FILE,
    Submission,
    extract_answer,
    strip_comments,
)
from grader.resources import data_path

_KEEP_NAMES = frozenset(keyword.kwlist) | frozenset(dir(builtins)) | {"self", "torch", "F", "nn"}
_WORD = re.compile(r"[a-z0-9]+")
MAX_CODE_CHARS = 200_000  # per file: tokenizing is linear, but the parent's time is shared
Prints = dict[str, list[list[int]]]  # "code:masks" / "text" / "drill:..." -> [[hash, first, last]]
DRILL_SCRIPT, DRILL_NOTE = "drill/experiment.py", "drill/evidence_note.md"
KINDS = ("code", "written", "drill")


def _kind(where: str) -> str:
    """The comparison a fingerprint's place belongs to (`KINDS`)."""
    return "written" if where == "text" else "drill" if where.startswith("drill:") else "code"


@dataclass(frozen=True)
class SimilarityOptions:
    """Thresholds (see the module doc). Code: k tokens, window w; text: k words, window w."""

    code_k: int = 15
    code_w: int = 8
    text_k: int = 6
    text_w: int = 4
    threshold: float = 0.5
    min_shared: int = 6
    max_share: float = 0.1
    max_pairs: int = 200


# ----------------------------------------------------------------------------- normalising


def code_tokens(source: str) -> list[tuple[str, int]]:
    """(normalised token, line) of Python source; a file that does not tokenize falls back to
    a plain split into words and symbols (still normalised)."""
    out: list[tuple[str, int]] = []
    prev = ""
    line_start = True
    fstring = (getattr(tokenize, "FSTRING_START", -1),)
    fstring_rest = (getattr(tokenize, "FSTRING_MIDDLE", -1), getattr(tokenize, "FSTRING_END", -1))
    layout = (
        tokenize.COMMENT,
        tokenize.NL,
        tokenize.INDENT,
        tokenize.DEDENT,
        tokenize.ENCODING,
        tokenize.ENDMARKER,
    )
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            kind, text = tok.type, tok.string
            if kind in layout or kind in fstring_rest:
                continue
            if kind == tokenize.NEWLINE:
                line_start = True
                continue
            if kind == tokenize.STRING or kind in fstring:
                if line_start:  # a docstring or a bare string statement
                    continue
                text = "S"
            elif kind == tokenize.NAME and text not in _KEEP_NAMES and prev != ".":
                text = "V"
            out.append((text, tok.start[0]))
            line_start = False
            prev = text
    except (tokenize.TokenError, SyntaxError, ValueError):
        out = []
        for n, line in enumerate(source.splitlines(), 1):
            for t in re.findall(r"[A-Za-z_]\w*|\d+|\S", line.split("#", 1)[0]):
                out.append(("V" if t[0].isalpha() and t not in _KEEP_NAMES else t, n))
    return out


def text_tokens(text: str) -> list[tuple[str, int]]:
    """The lower-cased words of `text` with their positions."""
    return [(w, i) for i, w in enumerate(_WORD.findall(text.lower()))]


def _hash(parts: list[str]) -> int:
    return (
        int.from_bytes(hashlib.blake2b("\x1f".join(parts).encode(), digest_size=8).digest(), "big")
        >> 1
    )


def winnow(tokens: list[tuple[str, int]], k: int, w: int) -> list[list[int]]:
    """[hash, first position, last position] of the k-grams winnowing selects (the smallest
    hash of every window of w, the rightmost on ties; Schleimer, Wilkerson & Aiken 2003)."""
    if len(tokens) < k:
        return []
    words = [t for t, _ in tokens]
    hashes = [_hash(words[i : i + k]) for i in range(len(tokens) - k + 1)]
    picked: set[int] = set()
    window: deque[int] = deque()  # indices of increasing hashes: the front is the minimum
    for i, h in enumerate(hashes):
        while window and hashes[window[-1]] >= h:  # `>=`: the rightmost minimum wins ties
            window.pop()
        window.append(i)
        if window[0] <= i - w:
            window.popleft()
        if i >= w - 1 or i == len(hashes) - 1:
            picked.add(window[0])
    return [[hashes[i], tokens[i][1], tokens[i + k - 1][1]] for i in sorted(picked)]


def fingerprints(sub: Submission, opts: SimilarityOptions | None = None) -> Prints:
    """The submission's fingerprints, stub code excluded."""
    opts = opts or SimilarityOptions()
    stub = _stub_hashes(opts)
    out: Prints = {}
    seen: set[str] = set()
    for part, source in sorted(sub.sources.items()):
        if source in seen:  # a notebook gives every part the same combined code: count it once
            continue
        seen.add(source)
        source = source[:MAX_CODE_CHARS]
        prints = [
            p for p in winnow(code_tokens(source), opts.code_k, opts.code_w) if p[0] not in stub
        ]
        if prints:
            out[f"code:{part}"] = prints
    answer = sub.written.get("explanation", "")
    prints = [p for p in winnow(text_tokens(answer), opts.text_k, opts.text_w) if p[0] not in stub]
    if prints:
        out["text"] = prints
    script, note = sub.files.get(DRILL_SCRIPT), sub.files.get(DRILL_NOTE)
    for where, tokens, k, w in (
        ("drill:experiment", script is not None and code_tokens(script[:MAX_CODE_CHARS]),
         opts.code_k, opts.code_w),
        ("drill:note", note is not None and _note_words(note), opts.text_k,
         opts.text_w),
    ):  # fmt: skip
        prints = [p for p in winnow(tokens or [], k, w) if p[0] not in stub]
        if prints:
            out[where] = prints
    return out


def _note_words(note: str) -> list[tuple[str, int]]:
    """The evidence note's own words: not the template's comments, nor what every honest note
    shares because the seeded rerun dictates it (the numbers, the Measurements table's rows)."""
    text = strip_comments(note[:MAX_CODE_CHARS])
    prose = "\n".join(line for line in text.split("\n") if not line.lstrip().startswith("|"))
    return [(w, i) for w, i in text_tokens(prose) if not w.isdigit()]


@lru_cache(maxsize=4)
def _stub_hashes(opts: SimilarityOptions) -> frozenset[int]:
    """Every k-gram hash (not only the winnowed ones) of the handout's stubs."""
    base = data_path("exercises")
    hashes: set[int] = set()
    for part in CODE_PARTS:
        f = base / f"{part}.py"
        if f.is_file():
            toks = [t for t, _ in code_tokens(f.read_text(encoding="utf-8"))]
            k = opts.code_k
            hashes.update(_hash(toks[i : i + k]) for i in range(len(toks) - k + 1))
    f = base / EXPLANATION_FILE
    if f.is_file():
        toks = [t for t, _ in text_tokens(extract_answer(f.read_text(encoding="utf-8")))]
        k = opts.text_k
        hashes.update(_hash(toks[i : i + k]) for i in range(len(toks) - k + 1))
    for name, k in ((DRILL_SCRIPT, opts.code_k), (DRILL_NOTE, opts.text_k)):  # the scaffold
        f = base / name
        if f.is_file():
            text = f.read_text(encoding="utf-8")
            found = code_tokens(text) if name == DRILL_SCRIPT else _note_words(text)
            toks = [t for t, _ in found]
            hashes.update(_hash(toks[i : i + k]) for i in range(len(toks) - k + 1))
    return frozenset(hashes)


# ----------------------------------------------------------------------------- comparing


@dataclass
class Pair:
    kind: str  # "code" | "written" | "drill"
    a: str
    b: str
    shared: int
    similarity: float  # shared / the smaller submission's fingerprints
    regions_a: list[str] = field(default_factory=list)
    regions_b: list[str] = field(default_factory=list)


def _regions(kind: str, hits: list[tuple[str, int, int]]) -> list[str]:
    """Shared spans merged per file: `masks.py lines 3-17`, `answer words 12-40`."""
    by_file: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for where, first, last in hits:
        by_file[where].append((first, last))
    out = []
    for where in sorted(by_file):
        merged: list[list[int]] = []
        for first, last in sorted(by_file[where]):
            if merged and first <= merged[-1][1] + 1:
                merged[-1][1] = max(merged[-1][1], last)
            else:
                merged.append([first, last])
        for first, last in merged:
            if where == "drill:experiment":
                out.append(f"{DRILL_SCRIPT} lines {first}-{last}")
            elif where == "drill:note":
                out.append(f"{DRILL_NOTE} words {first + 1}-{last + 1}")
            elif kind == "code":
                out.append(f"{where.removeprefix('code:')}.py lines {first}-{last}")
            else:
                out.append(f"answer words {first + 1}-{last + 1}")
    return out


def compare(prints: Mapping[str, Prints], opts: SimilarityOptions | None = None) -> list[Pair]:
    """Ranked pairs of submissions (by key) whose code, answer or drill is unusually similar
    (each kind of `KINDS` compared on its own)."""
    opts = opts or SimilarityOptions()
    pairs: list[Pair] = []
    n = len(prints)
    for kind in KINDS:
        sets: dict[str, dict[int, list[tuple[str, int, int]]]] = {}
        for key, fp in prints.items():
            own: dict[int, list[tuple[str, int, int]]] = defaultdict(list)
            for where, items in fp.items():
                if _kind(where) == kind:
                    for h, first, last in items:
                        own[h].append((where, first, last))
            if own:
                sets[key] = own
        index: dict[int, list[str]] = defaultdict(list)
        for key, own in sets.items():
            for h in own:
                index[h].append(key)
        limit = max(2, int(opts.max_share * n))
        counts: dict[tuple[str, str], list[int]] = defaultdict(list)
        for h, keys in index.items():
            if 2 <= len(keys) <= limit:
                keys = sorted(keys)
                for i, a in enumerate(keys):
                    for b in keys[i + 1 :]:
                        counts[(a, b)].append(h)
        # what the class shares widely says nothing about a pair: it is left out of the
        # denominator too, so a copied helper is not drowned by everyone's common code
        own_count = {
            key: sum(1 for h in own if len(index[h]) <= limit) for key, own in sets.items()
        }
        for (a, b), shared in counts.items():
            smaller = min(own_count[a], own_count[b])
            sim = len(shared) / smaller if smaller else 0.0
            if len(shared) < opts.min_shared or sim < opts.threshold:
                continue
            hits_a = [x for h in shared for x in sets[a][h]]
            hits_b = [x for h in shared for x in sets[b][h]]
            pairs.append(
                Pair(
                    kind,
                    a,
                    b,
                    len(shared),
                    round(sim, 3),
                    _regions(kind, hits_a),
                    _regions(kind, hits_b),
                )
            )
    pairs.sort(key=lambda p: (-p.similarity, -p.shared, p.kind, p.a, p.b))
    return pairs[: opts.max_pairs]


def render_csv(pairs: list[Pair]) -> str:
    """OUT/similarity.csv: one row per pair, most similar first."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\r\n")
    w.writerow(
        [
            "Rank",
            "Kind",
            "Submission A",
            "Submission B",
            "Similarity %",
            "Shared fingerprints",
            "Regions in A",
            "Regions in B",
        ]
    )
    for i, p in enumerate(pairs, 1):
        w.writerow(
            [
                i,
                p.kind,
                p.a,
                p.b,
                f"{100 * p.similarity:.0f}",
                p.shared,
                "; ".join(p.regions_a),
                "; ".join(p.regions_b),
            ]
        )
    return out.getvalue()


def view(pairs: list[Pair], top: int = 30, regions_shown: int = 6) -> list[dict[str, Any]]:
    """The class report's rows (the first `regions_shown` regions of each side)."""

    def few(regions: list[str]) -> list[str]:
        more = len(regions) - regions_shown
        return regions[:regions_shown] + ([f"{more} more in similarity.csv"] if more > 0 else [])

    return [
        {
            "kind": p.kind,
            "a": p.a,
            "b": p.b,
            "pct": f"{100 * p.similarity:.0f}",
            "shared": p.shared,
            "regions_a": few(p.regions_a),
            "regions_b": few(p.regions_b),
        }
        for p in pairs[:top]
    ]


PRINTS_VERSION = 2  # 2: the drill's files are fingerprinted too


def print_shape(opts: SimilarityOptions) -> list[int]:
    """What fingerprints depend on: stored with them, so other k or w, or fingerprints made
    before a file was covered (`PRINTS_VERSION`), are never mixed or reused."""
    return [opts.code_k, opts.code_w, opts.text_k, opts.text_w, PRINTS_VERSION]


def read_prints(out: Path, opts: SimilarityOptions) -> dict[str, Prints]:
    """The fingerprints a batch stored in OUT, by cache key and by "key:" + entry key (empty
    if none or unreadable; records made with other k or w are skipped)."""
    try:
        text = (Path(out) / ".cache" / "fingerprints.jsonl").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    found: dict[str, Prints] = {}
    for line in text.splitlines():
        try:
            rec = json.loads(line)
            prints = rec["prints"]
            if rec.get("shape") != print_shape(opts):
                continue
            if isinstance(prints, dict) and all(
                isinstance(v, list)
                and all(
                    isinstance(x, list) and len(x) == 3 and all(isinstance(i, int) for i in x)
                    for x in v
                )
                for v in prints.values()
            ):
                found[str(rec["cache_key"])] = prints
                found["key:" + str(rec["key"])] = prints
        except (ValueError, KeyError, TypeError):
            continue
    return found
