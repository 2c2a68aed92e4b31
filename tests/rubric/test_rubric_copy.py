"""The copy check: an answer that pastes any text the course ships earns nothing for it."""

from __future__ import annotations

import pytest

from grader.batch.sampleclass import GOOD_EXPLANATION, WEAK_EXPLANATION
from grader.loading.model import extract_answer
from grader.resources import data_path
from grader.rubric.guards import copy_match, shipped_text_paths
from grader.rubric.scorer import score_explanation

MODEL_ANSWER = extract_answer(data_path("solutions", "explanation.md").read_text())
WEAK = extract_answer(WEAK_EXPLANATION)


def test_the_model_answer_pasted_whole_scores_nothing_and_is_reviewed():
    res = score_explanation(MODEL_ANSWER)
    assert res.score == 0
    assert res.needs_review
    assert any("model answer" in r and "solutions/explanation.md" in r for r in res.review_reasons)
    assert any("copies course material" in r for r in res.review_reasons)


@pytest.mark.parametrize("paragraph", range(5))
def test_a_pasted_paragraph_of_the_model_answer_adds_nothing(paragraph):
    own = score_explanation(WEAK)
    pasted = MODEL_ANSWER.split("\n\n")[paragraph]
    res = score_explanation(WEAK + "\n\n" + pasted)
    assert res.score == own.score
    assert [c.verdict for c in res.criteria] == [c.verdict for c in own.criteria]
    assert res.needs_review and any("copies course material" in r for r in res.review_reasons)


def test_a_table_copied_from_a_shipped_text_earns_nothing():
    """A table is read one cell at a time (each cell said of its row and column), but what a
    row copies is judged as written: the model answer's own table of criteria, pasted, must
    not slip past the copy check (it earned C1, C4 and C5 credit that way)."""
    whole = data_path("solutions", "explanation.md").read_text()
    table = "\n".join(line for line in whole.splitlines() if line.startswith("|"))
    assert table.count("\n") >= 4
    res = score_explanation(table)
    assert res.score == 0, [(c.id, c.verdict, c.evidence) for c in res.criteria]
    assert any("copies course material" in r for r in res.review_reasons)
    own = score_explanation(WEAK)
    assert score_explanation(WEAK + "\n\n" + table).score == own.score


def test_an_own_table_still_earns_its_credit():
    table = (
        "| model | in training | when generating |\n| --- | --- | --- |\n"
        "| BERT | sees the words on both sides of each blank | the words to the right do not "
        "exist yet |\n"
        "| GPT | predicts the next word from only the earlier words | the same: only the "
        "earlier words |"
    )
    assert score_explanation(table).score > 0


@pytest.mark.parametrize(
    "source, cut",
    [("exercises/README.md", "## Exercise 3"), ("exercises/masks.py", "def causal_mask")],
)
def test_pasted_exercise_text_earns_nothing(source, cut):
    package, name = source.split("/")
    text = data_path(package, name).read_text().split(cut, 1)[1][:700]
    res = score_explanation(WEAK + "\n\n" + text)
    assert res.score <= score_explanation(WEAK).score
    assert res.needs_review
    assert copy_match(text).source.endswith(f"({source})")


def test_every_kind_of_shipped_text_is_compared():
    labels = {label for label, _, _ in shipped_text_paths()}
    for expected in (
        "the published solution",
        "the model answer (solutions/explanation.md)",
        "the exercises (exercises/explanation.md)",
        "the handout README",
    ):
        assert expected in labels  # fmt: skip


def test_quoting_the_course_notes_is_flagged_but_keeps_its_verdicts():
    published = data_path("grader.rubric", "published_solution.txt").read_text()
    res = score_explanation(published)
    assert res.needs_review and res.score > 0
    assert not any("copies course material" in r for r in res.review_reasons)


def test_an_own_answer_is_not_flagged_as_a_copy():
    res = score_explanation(extract_answer(GOOD_EXPLANATION))
    assert res.score == res.max_score
    assert not any("copy" in r or "copies" in r for r in res.review_reasons)


def test_an_invisible_character_in_every_other_word_does_not_hide_a_copy(tmp_path):
    """A zero-width space after the first letter of every other word of the published
    solution broke every 4-gram the copy check compares, and the answer (9.5/10) went
    unflagged; invisible characters are removed when the answer is loaded."""
    import shutil

    from grader.loading import load_submission
    from grader.rubric.guards import PUBLISHED_SOLUTION_PATH

    words = PUBLISHED_SOLUTION_PATH.read_text(encoding="utf-8").split(" ")
    hidden = " ".join(w[:1] + "\u200b" + w[1:] if i % 2 == 0 else w for i, w in enumerate(words))
    folder = tmp_path / "s"
    shutil.copytree(data_path("solutions"), folder, ignore=shutil.ignore_patterns("drill", "*.md"))
    (folder / "explanation.md").write_text("## Your answer\n\n" + hidden, encoding="utf-8")
    res = score_explanation(load_submission(folder).written["explanation"])
    assert res.needs_review
    assert any("near-copy of the published solution" in r for r in res.review_reasons)
