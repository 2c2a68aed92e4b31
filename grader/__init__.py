"""Autograder for the causal / masked / encoder objectives course unit."""

__version__ = "0.1.0"
