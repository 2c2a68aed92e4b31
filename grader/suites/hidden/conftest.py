"""Hidden-suite configuration. Tracebacks are off and torch is single-threaded for every
suite run (see grader/suite/runner.py and grader/pipeline.py), so nothing is needed here."""
