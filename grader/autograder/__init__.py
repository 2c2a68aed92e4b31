"""Autograder-platform bundles: the Gradescope zip (`bundle.py`, `grader gradescope`)."""
