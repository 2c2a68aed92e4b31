"""Per-submission state lives on the submission's context, caches on their Grader."""

from __future__ import annotations

import gc
import weakref

import pytest


@pytest.mark.filterwarnings("ignore::pytest.PytestUnknownMarkWarning")
def test_no_module_keeps_a_submission_after_it_is_graded():
    """The hidden tests' shared results live on the submission's context: once graded, the
    submission's student proxy is garbage (the module caches used to hold it until the next
    submission replaced it)."""
    from grader.pipeline import GradeOptions, Grader
    from grader.sandbox.limits import SandboxLimits
    from grader.suite import proxy
    from grader.testing import reference_submission

    options = GradeOptions(limits=SandboxLimits(call_timeout=3, submission_timeout=60),
                           grade_written=False, grade_drill=False)  # fmt: skip
    made: list[weakref.ref] = []
    init = proxy.StudentProxy.__init__

    def remember(self, *args, **kwargs):
        init(self, *args, **kwargs)
        made.append(weakref.ref(self))

    proxy.StudentProxy.__init__ = remember  # type: ignore[method-assign]
    try:
        with Grader(options) as grader:
            report = grader.grade(reference_submission("ref"))
            assert all(t.status == "passed" for t in report.tests)
            gc.collect()
            assert made and all(r() is None for r in made)
    finally:
        proxy.StudentProxy.__init__ = init  # type: ignore[method-assign]


def test_a_graders_caches_are_its_own():
    from grader.pipeline import GradeOptions, Grader

    first, second = Grader(GradeOptions()), Grader(GradeOptions())
    try:
        assert first._suite_caches() is not second._suite_caches()
        assert first._suite_caches() is first._suite_caches()
        assert Grader(GradeOptions(suite="public"))._suite_caches() is None
    finally:
        first.close()
        second.close()


def test_model_templates_belong_to_their_owner_not_to_a_module():
    """The structural copies trusted models are rebuilt from are kept by a Grader's caches (and
    by each ReferenceProxy), never by a module: two owners never share one."""
    from exercises.tinylm import TinyLM
    from grader import trusted_tinylm
    from grader.sandbox import models
    from grader.suite.context import SuiteCaches
    from grader.suite.proxy import ReferenceProxy

    assert not [n for n, v in vars(models).items() if isinstance(v, models.Templates)]
    one, two = SuiteCaches(), SuiteCaches()
    assert one.models.templates is not two.models.templates
    assert trusted_tinylm.templates_in_use() is None
    config = trusted_tinylm.STANDARD_CONFIGS["causal"]
    with trusted_tinylm.using(one.models):
        assert trusted_tinylm.templates_in_use() is one.models.templates
        built = trusted_tinylm.build_trusted_model(config, 7)
        again = trusted_tinylm.build_trusted_model(config, 7)
    assert one.models.templates.known(config) and not two.models.templates.known(config)
    assert type(again) is TinyLM and again is not built
    assert all(
        torch_equal(a, b)
        for a, b in zip(built.state_dict().values(), again.state_dict().values(), strict=True)
    )
    assert ReferenceProxy()._templates is not ReferenceProxy()._templates


def torch_equal(a, b) -> bool:
    import torch

    return torch.equal(a, b)
