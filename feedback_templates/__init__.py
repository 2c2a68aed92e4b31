"""Jinja2 templates for every report format (package data, read with importlib.resources)."""
