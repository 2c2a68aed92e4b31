"""The attack corpus in basic mode (no namespaces): what docs/security.md says still holds.

Basic mode is what runs without root. Deliberate attacks on secrets, the file system or the
network are *not* contained there (those attacks say `requires_jail = true` and are skipped);
everything else - loops, exits, crashes, memory, fork and thread bombs, floods, huge or lying
or pickled return values, monkeypatching, socket tampering, hostile archives and folders -
must be contained exactly as in jail mode. Run as root this uses `GradeOptions(jail=False)`,
whose workers still drop to a sandbox uid.

Marked slow: it grades the corpus a second time (about a minute). The same checks as
tests/test_attacks.py (tests/attacks/checks.py).
"""

from __future__ import annotations

import os
import sys
import uuid
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from attacks import checks, harness  # noqa: E402

from grader.loading import load_submission  # noqa: E402
from grader.pipeline import GradeOptions, Grader  # noqa: E402

pytestmark = pytest.mark.slow

LIMITS = harness.attack_limits()
BASIC_ATTACKS = [n for n in harness.discover() if not harness.load(n).requires_jail]
SECRET_ENV = "GRADER_SECRET_TOKEN"


@pytest.fixture(scope="module")
def secret_token():
    token = f"CANARY-ENV-{uuid.uuid4().hex}"
    old = os.environ.get(SECRET_ENV)
    os.environ[SECRET_ENV] = token
    yield token
    if old is None:
        os.environ.pop(SECRET_ENV, None)
    else:
        os.environ[SECRET_ENV] = old


@pytest.fixture(scope="module")
def grader(secret_token):
    with Grader(GradeOptions(limits=LIMITS, grade_written=False, jail=False)) as g:
        yield g


@pytest.fixture(scope="module")
def reference_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("reference") / "reference"
    harness.write_reference(folder)
    return folder


@pytest.fixture(scope="module")
def baseline(grader, reference_dir):
    return grader.grade(load_submission(reference_dir)).to_dict()


@pytest.fixture
def ctx(tmp_path, secret_token):
    c = checks.make_context(tmp_path, secret_token)
    yield c
    for s in c.listeners:
        s.close()


def test_most_of_the_corpus_applies_to_basic_mode():
    assert len(BASIC_ATTACKS) >= 20


@pytest.mark.skipif(os.geteuid() != 0, reason="the leftover-process check needs sandbox uids")
@pytest.mark.parametrize("name", BASIC_ATTACKS)
def test_attack_is_contained_in_basic_mode(name, grader, baseline, reference_dir, ctx):
    checks.check_attack(name, grader, baseline, reference_dir, ctx)
