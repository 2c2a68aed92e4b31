"""Instructor tools that run from a checkout and never ship in the grader's wheel."""
