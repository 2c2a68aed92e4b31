"""Training and evaluation of the Exercise 2 scorer (not needed to grade).

    python -m tools.rubric.fit_reader [--write] [--curve]  # leave-one-set-out CV; refit weights
    python benchmarks/rubric_agreement.py [--split S]  # agreement with the labelled sets

`devset/` holds the labelled answers (see its README.md); `agreement.py` scores them and
computes kappa; `fit_reader.py` fits the second reader's weights into the runtime package's
`grader/rubric/reader_weights.json`, the only output the grader reads.
"""
