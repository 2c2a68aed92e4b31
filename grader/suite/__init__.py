"""The suite machinery: fixtures, checks and the pytest plugin (trusted side)."""
