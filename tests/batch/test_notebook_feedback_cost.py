"""Feedback cells are built without a schema check each (nbformat.writes validates the whole
notebook once): the same notebook bytes as with nbformat's own cell constructor."""

from __future__ import annotations

import nbformat

from grader.batch.sampleclass import correct_files, notebook_bytes
from grader.render import ipynb

from .test_notebook_feedback import report


def _nbformat_cell(text, **meta):
    return nbformat.v4.new_markdown_cell(
        text, metadata={"tags": [ipynb.FEEDBACK_TAG], "grader": meta}
    )


def test_feedback_notebook_bytes_are_those_of_nbformats_own_cells(monkeypatch):
    original = notebook_bytes(correct_files("nb")).decode()
    ours = ipynb.feedback_notebook(original, report())
    monkeypatch.setattr(ipynb, "_cell", _nbformat_cell)
    assert ipynb.feedback_notebook(original, report()) == ours
    nbformat.validate(nbformat.reads(ours, as_version=4))


def test_a_feedback_notebook_is_validated_once_not_once_per_cell(monkeypatch):
    import nbformat.v4.nbbase as nbbase

    checked: list[object] = []
    validate = nbbase.validate

    def counting(node, ref=None, *args, **kwargs):
        checked.append(ref)
        return validate(node, ref, *args, **kwargs)

    monkeypatch.setattr(nbbase, "validate", counting)
    original = notebook_bytes(correct_files("nb")).decode()
    text = ipynb.feedback_notebook(original, report())
    added = [c for c in nbformat.reads(text, as_version=4).cells if ipynb.FEEDBACK_TAG in
             c.metadata.get("tags", [])]  # fmt: skip
    assert len(added) >= 5 and checked.count("markdown_cell") == 0


def test_pages_made_with_the_remembered_sanitiser_are_nbconverts_own():
    """The exporter remembers `clean_html`'s answers: the same page bytes as nbconvert's own
    filter, for notebooks sharing cells (the handout's, an all-passed function's feedback)."""
    from nbconvert.filters.strings import clean_html

    notebooks = [
        ipynb.feedback_notebook(notebook_bytes(correct_files(tag)).decode(), report(tag))
        for tag in ("ann", "bea")
    ]
    remembered = ipynb.html_exporter()
    plain = ipynb.html_exporter()
    plain.register_filter("clean_html", clean_html)
    for nb in notebooks:
        assert ipynb.notebook_html(nb, remembered) == ipynb.notebook_html(nb, plain)
    memo = remembered.environment.filters["clean_html"]
    assert isinstance(memo, ipynb._CleanHtml) and memo._known  # it did remember


def test_the_remembered_sanitiser_is_bounded_and_one_exporters_own():
    from nbconvert.filters.strings import clean_html

    memo = ipynb._CleanHtml(max_chars=40, max_entries=2)
    texts = ["<b>a</b><script>x</script>", "<i>b</i>", "<u>c</u>", "<p>" + "d" * 50 + "</p>"]
    for t in texts + texts:
        assert memo(t) == clean_html(t)
    assert list(memo._known) == texts[:2]  # two entries at most, none over 40 characters
    assert ipynb.html_exporter().environment.filters["clean_html"]._known == {}
