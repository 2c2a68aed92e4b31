"""Does the Exercise-2 feedback say only what the answer says? A property checker.

    python -m tools.rubric.feedback_truth dev11 dev12          # violation counts per set
    python -m tools.rubric.feedback_truth dev11 --details      # one line per violation

`check(text, result, rubric)` reads the feedback a student would see (the rows
`grader.rubric.render.context` hands the templates) and the answer itself, and returns every
`Violation` of these properties:

- every quoted passage is the student's own words: each piece of a quote (pieces are joined by
  " ... ", a trailing " ..." marks a cut) occurs verbatim in the answer, spaces collapsed;
- praise ("What was good") only on a met or partial verdict, always with a quote, and the
  quote is about the model the criterion is about (C1, C2: the masked LM; C3: the causal LM)
  and asserted: not a question, a supposition, a reported or denied view, a quotation or a
  retracted statement;
- a contradicted verdict quotes the sentence with the wrong claim, names that claim (one of
  the rubric's `[claims]` messages) and praises nothing;
- a missing verdict quotes nothing and praises nothing, and no gap text asserts what the
  answer lacks ("you do not say ...") rather than what was not recognised;
- when the scorer declines to judge, the feedback says so and why (`Not judged: <why>`) and
  nothing else; an answer that gives nothing to read (empty, not English, course material
  copied, only text addressed to the grader) must be declined;
- feedback leads with what to fix: a criterion with something to fix opens with it, and the
  overall paragraph names the fix before the strongest part.

The checker's own cues (questions, suppositions, denial frames, retractions, language, copies)
are deliberately simple and independent of the scorer's parser: they judge the feedback
against the text, not against the scorer's reading of it. Labels are never used.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from grader.report import WrittenResult
from grader.rubric.evasion import visible_text
from grader.rubric.feedback import GOOD, IMPROVE, MISSING, NOT_JUDGED, NOTE, WITHHELD, WRONG
from grader.rubric.model import Rubric, load_rubric
from grader.rubric.render import context
from grader.rubric.text import normalize
from grader.textsafe import clean_text

# The model each criterion's praise must be about (a lexicon key), or None: either family.
# (C2's half about generation names no model, so only C1 and C3 are checked.)
CRITERION_MODEL = {"C1": "masked_model", "C3": "causal_model"}
OTHER_MODEL = {"masked_model": "causal_model", "causal_model": "masked_model"}
# A claim key's model: the sentence that makes it must name (or point to) that model.
CLAIM_MODEL = {"mlm": "masked_model", "clm": "causal_model"}
ELLIPSIS = "\u2026"
PIECE_SEP = f" {ELLIPSIS} "

_QUESTION = re.compile(r"\?\W*$")
_SUPPOSE = re.compile(
    r"^\W*(?:if|suppose|supposing|imagine|assume|assuming|let'?s say|what if|hypothetically|"
    r"in theory|had)\b(?=.*\b(?:would|could|might)\b)",
    re.IGNORECASE,
)
# the speaker's own claim after a reported view or a supposition: "..., but actually ..."
_OWN_VOICE = re.compile(
    r"\b(?:but|however|whereas|while|in reality|actually|in fact|instead|which is why)\b",
    re.IGNORECASE,
)
_REPORTED = re.compile(
    r"\b(?:some (?:people|students|sources|folks)|people (?:often )?(?:say|think|claim|believe)|"
    r"(?:it is|it's) (?:often |commonly |sometimes )?(?:said|claimed|believed|thought)|"
    r"(?:common )?misconception|\bmyth\b|(?:it is|it's|is) (?:not true|false|wrong|incorrect) "
    r"(?:to (?:say|think|claim) )?that|you (?:might|may|could) (?:think|say|hear|assume)|"
    r"one (?:might|may|could) (?:think|say|assume)|contrary to|(?:the|a) (?:claim|"
    r"belief) that|i used to think|naively)\b",
    re.IGNORECASE,
)
_RETRACT = re.compile(
    r"^\W*(?:no,? wait|wait,? no|scratch that|strike that|actually,? no|correction\b|"
    r"sorry,? (?:i mean|wrong|no)|no,? that'?s (?:wrong|not right|backwards)|that'?s wrong|"
    r"that'?s backwards|i take (?:that|it) back|ignore (?:that|the last)|oops|erm,? no|"
    r"hmm,? no)",
    re.IGNORECASE,
)
_RETRACT_INSIDE = re.compile(
    r"~~|\b(?:no,? wait|wait,? no|scratch that|strike that|i take (?:that|it) back)\b",
    re.IGNORECASE,
)
# Praise wording: a level text that tells the student what they did.
_PRAISE = re.compile(
    r"\byou (?:describe|state|make|name|draw|mention|touch|start|explain|say|give|identify)\b",
    re.IGNORECASE,
)
# A gap text asserting what the answer lacks instead of what was not recognised.
_ASSERTS_ABSENCE = re.compile(
    r"\b(?:you (?:do not|don't|did not|didn't|never)|(?:is|are|was|were) not (?:stated|given|"
    r"connected|mentioned|explained|said)|only one side of [^.]* is given|covers only|"
    r"the answer (?:does not|doesn't|never|omits|lacks))\b",
    re.IGNORECASE,
)
_ENGLISH = frozenset(
    """a an the and or but if of to in on at by for with from as is are was were be been it
    its this that these those they them not no can cannot would should will do does has have
    so than then when which what how why only also just all each both more into about after
    before because since""".split()
)
# function words of the other languages answers come in: many of them and few English ones
# is another language (a keyword list has neither)
_OTHER = frozenset(
    """le la les un une des du et est sont dans pour avec sans ce cette qui que il elle ne pas
    el los las y es en del por para con sin que lo su muy porque der die das und ist nicht
    mit von zu auf für auch nur sich dass wird il di della che non per come anche""".split()
)
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
_MARKER = re.compile(r"(?m)^[ \t]*(?:[-*\u2022>]+|\d{1,2}[.)])[ \t]+")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+|\n+")


@dataclass(frozen=True)
class Violation:
    """One property broken. `criterion` is "" for the overall paragraph."""

    kind: str
    criterion: str
    detail: str


def _flat(s: str) -> str:
    return " ".join(s.split())


def _pieces(quote: str) -> list[str]:
    q = quote.strip()
    if q.endswith(ELLIPSIS):
        q = q[: -len(ELLIPSIS)].rstrip()
    if q.startswith(ELLIPSIS):
        q = q[len(ELLIPSIS) :].lstrip()
    return [p.strip() for p in q.split(PIECE_SEP) if p.strip()]


@dataclass(frozen=True)
class _Answer:
    """The answer as the checker reads it: flat (spaces collapsed) visible text and its
    sentences (a plain split at sentence marks and line breaks)."""

    raw: str
    flat: str
    sentences: tuple[str, ...]

    @classmethod
    def of(cls, text: str) -> _Answer:
        raw = text if isinstance(text, str) else ""
        # list markers start a line but are no word of the sentence a quote joins
        visible = _MARKER.sub("", visible_text(clean_text(raw)))
        sents = tuple(_flat(s) for s in _SENTENCE_END.split(visible) if s.strip())
        return cls(raw, _flat(visible), sents)

    def locate(self, piece: str) -> str | None:
        """ "exact", "normalised" (only after the scorer's character normalisation: the quote
        shows the scorer's characters, not the student's) or None (not in the answer)."""
        if piece in self.flat or piece in _flat(self.raw):
            return "exact"
        if normalize(piece) in normalize(self.flat):
            return "normalised"
        return None

    def sentence_of(self, piece: str) -> tuple[int, int] | None:
        """Indices (first, last) of the checker's sentences that the piece overlaps."""
        at = self.flat.find(piece)
        if at < 0:
            return None
        pos, first, last = 0, None, None
        for i, s in enumerate(self.sentences):
            j = self.flat.find(s, pos)
            if j < 0:
                continue
            if j + len(s) > at and j < at + len(piece):
                first = i if first is None else first
                last = i
            pos = j + len(s)
        return (first, last) if first is not None else None


_DENIAL = re.compile(
    r"\b(?:(?:it is|it's|is) (?:not true|false|wrong|incorrect)|misconception|myth)\b", re.I
)


def _unasserted(ans: _Answer, piece: str, denial: bool = True) -> str:
    """Why the quoted piece is not the student's own assertion, or "". With `denial` False
    a denied view ("it is false that GPT sees ...") is read as what it asserts: its
    negation, which praise may quote."""
    span = ans.sentence_of(piece)
    sents = [piece]
    after = ""
    if span is not None:
        sents = list(ans.sentences[span[0] : span[1] + 1])
        after = ans.sentences[span[1] + 1] if span[1] + 1 < len(ans.sentences) else ""
    body = " ".join(sents)
    if all(_QUESTION.search(s) for s in sents):
        return "a question"
    if _SUPPOSE.search(body) and not _OWN_VOICE.search(body):
        return "a supposition"
    rep = _REPORTED.search(body)
    if rep and (denial or not _DENIAL.search(rep.group(0))):
        if not _OWN_VOICE.search(body, rep.end()):
            return "a reported or denied view"
    stripped = body.strip()
    if (
        len(stripped) > 2
        and stripped[0] in "\"\u201c'"
        and stripped.rstrip(".")[-1:] in "\"\u201d'"
    ):
        return "a quotation"
    if _RETRACT_INSIDE.search(body) or _RETRACT.search(after):
        return "retracted"
    return ""


def _about(ans: _Answer, rubric: Rubric, pieces: list[str], key: str) -> bool:
    """The quote, or one of the two sentences before it (a pronoun's antecedent), names model
    `key`."""
    window = list(pieces)
    span = ans.sentence_of(pieces[0]) if pieces else None
    if span is not None:
        window.extend(ans.sentences[max(0, span[0] - 2) : span[0]])
    if pieces and pieces[0].startswith("|"):  # a table row: its header names the models
        window.extend(s for s in ans.sentences if s.startswith("|"))
    return any(rubric.says(w, key) for w in window)


# words that point to a family where the lexicon's names are not used ("Masked = both
# sides", "(b) r(x_t | x_<t)", "torch.tril"): enough to say the answer is about it somewhere
_FAMILY_WORDS = {
    "masked_model": re.compile(r"\b(?:mask(?:ed)?|bert|mlm|cloze|blanks?|gaps?)\b", re.I),
    "causal_model": re.compile(
        r"\b(?:causal|gpt|clm|autoregressive|tril|triangular|next (?:word|token))\b|x_<t", re.I
    ),
}


def _names_model(rubric: Rubric, pieces: list[str], key: str) -> bool:
    return any(rubric.says(p, key) for p in pieces)


def _english_ratio(text: str) -> float:
    ws = [w.lower() for w in _WORD.findall(text)]
    return sum(w in _ENGLISH for w in ws) / len(ws) if ws else 0.0


def _other_ratio(text: str) -> float:
    ws = [w.lower() for w in _WORD.findall(text)]
    letters = [c for c in text if c.isalpha()]
    if letters and sum(not c.isascii() for c in letters) / len(letters) > 0.5:
        return 1.0  # another script
    return sum(w in _OTHER for w in ws) / len(ws) if ws else 0.0


@lru_cache(maxsize=1)
def _course_grams() -> frozenset[tuple[str, ...]]:
    """Word 6-grams of the shipped texts an answer may not pass off as its own: the exercise
    prompt and the model answers (`guards.shipped_text_paths` names the same texts; the
    published course notes are quotable there, so a quote of them is not checked here)."""
    from grader.resources import data_path

    grams: set[tuple[str, ...]] = set()
    for pkg in ("exercises", "solutions"):
        try:
            paths = sorted(data_path(pkg).rglob("*.md"))
        except (ModuleNotFoundError, RuntimeError):
            continue
        for path in paths:
            ws = [w.lower() for w in _WORD.findall(path.read_text("utf-8"))]
            grams.update(tuple(ws[i : i + 6]) for i in range(len(ws) - 5))
    return frozenset(grams)


def _copied_share(text: str) -> float:
    ws = [w.lower() for w in _WORD.findall(text)]
    grams = [tuple(ws[i : i + 6]) for i in range(len(ws) - 5)]
    return sum(g in _course_grams() for g in grams) / len(grams) if grams else 0.0


def must_decline(text: str, rubric: Rubric) -> str:
    """Why an answer gives the scorer nothing to judge (then every criterion must be declined),
    or "": no words; not English (few English function words); mostly pasted course material;
    nothing left once the sentences addressed to the grader are removed."""
    ans = _Answer.of(text)
    ws = _WORD.findall(ans.flat)
    if not ws:
        return "empty"
    if len(ws) >= 8 and _other_ratio(ans.flat) >= 0.12 > _english_ratio(ans.flat):
        return "not English"
    if _copied_share(ans.flat) >= 0.8:
        return "course material"
    own = [s for s in ans.sentences if not any(p.search(normalize(s)) for p in rubric.injection)]
    if len(_WORD.findall(" ".join(own))) < 3 and len(own) < len(ans.sentences):
        return "addressed to the grader"
    return ""


def check(text: str, result: WrittenResult, rubric: Rubric | None = None) -> list[Violation]:
    """Every violation of the module's properties by `result`'s feedback on `text`."""
    rubric = rubric or load_rubric()
    ans = _Answer.of(text)
    out: list[Violation] = []
    rows = context(result, rubric)["criteria"]
    declined_all = bool(rows) and all(
        r["sections"] and r["sections"][0]["label"] == NOT_JUDGED for r in rows
    )
    why = must_decline(text, rubric)
    if why and not declined_all:
        out.append(Violation("not-declined", "", f"answer is {why} but was judged"))
    messages = set(rubric.claims.values())
    for row in rows:
        out.extend(_check_row(ans, rubric, row, messages))
    out.extend(_check_summary(result, rows, declined_all))
    return out


def _check_row(ans: _Answer, rubric: Rubric, row: dict, messages: set[str]) -> list[Violation]:
    cid, verdict = row["id"], row["verdict"]
    secs = row["sections"]
    labels = [s["label"] for s in secs]
    out: list[Violation] = []

    def bad(kind: str, detail: str = "") -> None:
        out.append(Violation(kind, cid, detail))

    quotes = [s["quote"] for s in secs if s["quote"]]
    for q in quotes:
        for p in _pieces(q):
            where = ans.locate(p)
            if where is None:
                bad("quote-not-verbatim", p[:80])
            elif where == "normalised":
                bad("quote-normalised", p[:80])
            elif any(pat.search(normalize(p)) for pat in rubric.injection):
                bad("quotes-injection", p[:80])
    if NOT_JUDGED in labels:
        if any(lab not in (NOT_JUDGED, NOTE) for lab in labels) or quotes:
            bad("declined-asserts", " | ".join(labels))
        reason = secs[labels.index(NOT_JUDGED)]["text"]
        if len(reason.split(".")[0].split()) < 4:
            bad("declined-no-reason", reason[:80])
        if row["verdict_label"] != "not judged":
            bad("declined-label", row["verdict_label"])
        return out
    if (
        verdict in ("partial", "missing", "contradicted")
        and labels
        and labels[0]
        not in (
            WRONG,
            MISSING,
        )
    ):
        bad("fix-not-first", labels[0])
    good = [s for s in secs if s["label"] == GOOD]
    if verdict == "contradicted":
        if good:
            bad("contradicted-praises")
        wrong = [s for s in secs if s["label"] == WRONG]
        if not wrong:
            bad("contradicted-no-wrong")
        elif wrong[0]["text"] not in messages:
            bad("contradicted-generic", wrong[0]["text"][:80])
        if not quotes:
            bad("contradicted-no-quote")
        else:
            pieces = _pieces(quotes[0])
            model = CLAIM_MODEL.get(wrong[0]["text"] and _claim_key(rubric, wrong[0]["text"]))
            if (
                model
                and pieces
                and not _about(ans, rubric, pieces, model)
                and not re.search(r"\bboth\b", " ".join(pieces), re.I)
            ):
                bad("contradicted-wrong-model", pieces[0][:80])
            why = next((w for p in pieces if (w := _unasserted(ans, p))), "")
            if why:
                bad("contradicted-unasserted", f"{why}: {pieces[0][:80]}")
        return out
    if verdict == "missing":
        if good or quotes:
            bad("missing-asserts", " | ".join(labels))
    for s in secs:
        if s["label"] == MISSING and _ASSERTS_ABSENCE.search(s["text"]):
            bad("gap-asserts-absence", s["text"][:80])
        if s["label"] in (MISSING, IMPROVE) and _PRAISE.search(s["text"]) and verdict == "missing":
            bad("missing-asserts", s["text"][:80])
    for s in good:
        if not s["quote"] and s["text"].startswith(WITHHELD):
            continue  # credit from a sentence quoted as wrong elsewhere: says where, not what
        if not s["quote"]:
            bad("praise-without-quote", s["text"][:60])
            continue
        pieces = _pieces(s["quote"])
        model = CRITERION_MODEL.get(cid)
        if model and not _about(ans, rubric, pieces, model):
            other = OTHER_MODEL[model]
            if _names_model(rubric, pieces, other):
                bad("praise-wrong-model", pieces[0][:80])
            elif not _FAMILY_WORDS[model].search(ans.flat):  # an analogy may be mapped anywhere
                bad("praise-no-model", pieces[0][:80])
        why = next((w for p in pieces if (w := _unasserted(ans, p, denial=False))), "")
        if why:
            bad("praise-unasserted", f"{why}: {pieces[0][:80]}")
    return out


def _claim_key(rubric: Rubric, message: str) -> str:
    key = next((k for k, v in rubric.claims.items() if v == message), "")
    return key.split("_", 1)[0]


_FIX = re.compile(r"needs correcting|biggest gain|not yet engage|nothing to give", re.IGNORECASE)
_STRONG = re.compile(r"strongest part", re.IGNORECASE)


def _check_summary(result: WrittenResult, rows: list[dict], declined_all: bool) -> list[Violation]:
    s = result.summary
    out: list[Violation] = []
    if declined_all:
        if re.search(r"strongest part|biggest gain|needs correcting|covers every part", s):
            out.append(Violation("declined-summary-judges", "", s[:80]))
        return out
    fix = _FIX.search(s)
    strong = _STRONG.search(s)
    if fix and strong and strong.start() < fix.start():
        out.append(Violation("summary-fix-not-first", "", s[:80]))
    judged = {
        r["id"]: r for r in rows if not (r["sections"] and r["sections"][0]["label"] == NOT_JUDGED)
    }
    for cid in re.findall(r"\((C\d)\b", s):
        if cid not in judged:
            out.append(Violation("summary-names-unjudged", cid, s[:80]))
    return out


def check_split(split: str, rubric: Rubric | None = None) -> list[tuple[str, Violation]]:
    """(answer id, violation) for every answer of a labelled set (never a frozen one)."""
    from grader.rubric.scorer import score_explanation
    from tools.rubric.agreement import FROZEN, load_split

    if split in FROZEN:
        raise ValueError(f"{split} is a frozen held-out set: it is never checked")
    rubric = rubric or load_rubric()
    out = []
    for row in load_split(split):
        res = score_explanation(row["text"], rubric)
        out.extend((row["id"], v) for v in check(row["text"], res, rubric))
    return out


def counts(found: Iterable[tuple[str, Violation]]) -> Counter[str]:
    return Counter(v.kind for _, v in found)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("splits", nargs="+")
    ap.add_argument("--details", action="store_true", help="one line per violation")
    args = ap.parse_args(argv)
    total = 0
    for split in args.splits:
        found = check_split(split)
        total += len(found)
        c = counts(found)
        print(
            f"{split:<10} {len(found):>3}  " + ", ".join(f"{k} {n}" for k, n in sorted(c.items()))
        )
        if args.details:
            for aid, v in found:
                print(f"  {aid} {v.criterion or '-'} {v.kind}: {v.detail}")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
