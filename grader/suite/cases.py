"""Per-submission test inputs: one report cannot be replayed by a later submission.

A failure message may show the expected value, so a student could hand in a lookup table
from (a hash of) the inputs to the values a report printed. Every hidden test whose message
can show an expected value therefore draws its inputs from the `cases` fixture, a `Cases`
seeded with ``HMAC(instructor secret, content hash of the submission's code)``: a changed
submission gets new inputs, so last report's answers no longer apply, while grading the same
submission with the same secret twice gives the same inputs (and a byte-identical report).
The cases with fixed, pinned inputs (the golden values of ``golden.json``, the designed seeds
of the seeded sampling tests) never print their expected values (``reveal=False`` in
`grader.suite.checks`).

The secret comes from `GradeOptions.case_secret`, else the file named by
``$GRADER_CASE_SECRET_FILE``, else ``$GRADER_CASE_SECRET``, else `DEFAULT_CASE_SECRET`
(public: fine for `grader check`, the demo and practice runs; set your own for official
grading, or a student who knows it can search offline for a submission whose inputs repeat).
Neither the secret nor a seed is ever written to a report or sent to the sandbox: the worker
only sees the inputs themselves.

    cases.generator("losses.vs_reference/0")   # a torch.Generator for this case
    cases.integer("masks.causal_mask/5x5", 4, 9)  # an int in [4, 9)
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Mapping

import torch

DEFAULT_CASE_SECRET = "objectives-grader public default case secret"
SECRET_ENV = "GRADER_CASE_SECRET"
SECRET_FILE_ENV = "GRADER_CASE_SECRET_FILE"
_MAX_SECRET_FILE = 1 << 16


def resolve_secret(explicit: str | None = None, environ: Mapping[str, str] | None = None) -> bytes:
    """The instructor secret as bytes (see the module docstring for the order)."""
    env = os.environ if environ is None else environ
    if explicit is not None:
        return explicit.encode()
    path = env.get(SECRET_FILE_ENV)
    if path:
        with open(path, "rb") as fh:
            data = fh.read(_MAX_SECRET_FILE).strip()
        if not data:
            raise ValueError(f"${SECRET_FILE_ENV} names an empty file: {path}")
        return data
    value = env.get(SECRET_ENV)
    return (value or DEFAULT_CASE_SECRET).encode()


def secret_id(secret: bytes) -> str:
    """A public name of a secret (for cache keys): it changes with the secret, reveals nothing."""
    return hmac.new(secret, b"objectives-grader/secret-id", hashlib.sha256).hexdigest()[:16]


def code_digest(sources: Mapping[str, str]) -> bytes:
    """Content hash of a submission's code modules (name and text of each)."""
    h = hashlib.sha256()
    for name in sorted(sources):
        h.update(name.encode())
        h.update(b"\0")
        h.update(sources[name].encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.digest()


class Cases:
    """Deterministic draws for one submission, each named by a tag (test and case)."""

    def __init__(self, seed: bytes) -> None:
        self.__seed = seed

    @classmethod
    def for_submission(cls, secret: bytes, sources: Mapping[str, str]) -> Cases:
        """The draws of a submission: seeded with HMAC(secret, code digest)."""
        return cls(hmac.new(secret, b"cases/1\0" + code_digest(sources), hashlib.sha256).digest())

    def seed(self, tag: str) -> int:
        """A 63-bit seed for `tag`."""
        mac = hmac.new(self.__seed, tag.encode(), hashlib.sha256).digest()
        return int.from_bytes(mac[:8], "big") >> 1

    def generator(self, tag: str) -> torch.Generator:
        """A fresh CPU generator seeded for `tag`."""
        return torch.Generator().manual_seed(self.seed(tag))

    def integer(self, tag: str, low: int, high: int) -> int:
        """An int in ``[low, high)``."""
        if high <= low:
            raise ValueError(f"empty range [{low}, {high})")
        return low + self.seed(tag) % (high - low)

    def permutation(self, tag: str, n: int) -> torch.Tensor:
        """A permutation of ``range(n)`` (int64)."""
        return torch.randperm(n, generator=self.generator(tag))

    def __repr__(self) -> str:  # the seed never shows up in a message or a log
        return "Cases(<per-submission>)"


FIXED_CASES = Cases(b"objectives-grader fixed cases")
"""The draws of a proxy graded outside the pipeline (in-process reference runs, benchmarks)."""
