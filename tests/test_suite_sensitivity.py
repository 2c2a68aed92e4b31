"""The hidden suite's seeded sampling cases can tell a dropped setting from a correct one.

`sample_generate_seeded` compares a student's tokens with the reference's for fixed seeds. A
case only tests a setting (temperature, top_k, top_p) if leaving that setting out changes the
reference's tokens for the case's seed; otherwise a `sample_generate` that never passes the
setting on would pass by luck. This proves it for every case and every setting it passes.
"""

from __future__ import annotations

import pytest
import torch

from grader.suites.hidden import test_generation as hidden
from grader.trusted_tinylm import shared_standard_model
from solutions import generation

DEFAULTS = {"temperature": 1.0, "top_k": None, "top_p": None}


def _run(prompt, n, settings, seed):
    return generation.sample_generate(
        shared_standard_model("causal"), prompt, n,
        generator=torch.Generator().manual_seed(seed), **settings,
    )  # fmt: skip


CASES = [
    (case, name)
    for case, (_, _, settings, _) in hidden.SAMPLE_CASES.items()
    for name in DEFAULTS
    if name in settings
    and settings[name] != DEFAULTS[name]
    # temperature 0 and top_k 1 are greedy whatever the rest: checked below
    and settings.get("temperature") != 0.0
    and settings.get("top_k") != 1
]


@pytest.mark.parametrize("case,setting", CASES)
def test_each_setting_changes_the_tokens(case, setting):
    prompt, n, settings, seed = hidden.SAMPLE_CASES[case]
    want = _run(prompt, n, settings, seed)
    without = _run(prompt, n, {**settings, setting: DEFAULTS[setting]}, seed)
    assert not torch.equal(want, without), (
        f"{case}: seed {seed} gives the same tokens without {setting}; pick another seed"
    )


def test_greedy_cases_differ_from_plain_sampling():
    """The two greedy-equivalent cases differ from sampling at temperature 1 with no filter."""
    for case in ("temperature_zero_is_greedy", "top_k_1_is_greedy"):
        prompt, n, settings, seed = hidden.SAMPLE_CASES[case]
        assert not torch.equal(_run(prompt, n, settings, seed), _run(prompt, n, {}, seed)), case


def test_cases_cover_every_setting_and_a_single_row():
    passed = {name for case, name in CASES}
    assert passed == set(DEFAULTS)
    assert any(p.shape[0] == 1 for p, *_ in hidden.SAMPLE_CASES.values())
