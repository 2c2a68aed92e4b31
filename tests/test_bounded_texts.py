"""`bounded_texts`: many texts made in a few forked children, side by side, each bounded.

A batch's notebook pages (nbconvert on student Markdown) used to fork one child each; a fork
of a parent holding torch cost a third of a page. Now a few children share the pages out, and
a page that hangs or kills its child still costs only itself."""

from __future__ import annotations

import os
import time

from grader.loading.guarded import bounded_text, bounded_texts
from grader.loading.model import SubmissionError


def _pid() -> str:
    return str(os.getpid())


def test_texts_come_back_in_order_from_a_few_children():
    makes = [(lambda i=i: f"{i}:{os.getpid()}") for i in range(7)]
    got = bounded_texts(makes, seconds=10, memory_mb=256, children=2)
    assert [g.split(":")[0] for g in got] == [str(i) for i in range(7)]
    pids = {g.split(":")[1] for g in got}
    assert len(pids) == 2  # one fork per child, not one per text
    assert str(os.getpid()) not in pids  # never made in this process


def test_children_work_side_by_side(tmp_path):
    """Each text waits (up to 8 s) until both children have started one: children that ran
    one after the other, or a single child, never see each other (a rendezvous, not a clock)."""

    def meet() -> str:
        (tmp_path / _pid()).touch()
        deadline = time.monotonic() + 8
        while len(list(tmp_path.iterdir())) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        return "met" if len(list(tmp_path.iterdir())) >= 2 else "alone"

    got = bounded_texts([meet] * 4, seconds=20, memory_mb=256, children=2)
    assert got == ["met"] * 4
    assert len(list(tmp_path.iterdir())) == 2


def test_a_stuck_or_crashing_text_costs_only_itself():
    def stuck() -> str:
        time.sleep(60)
        return "never"

    def crash() -> str:
        os._exit(3)

    def raises() -> str:
        raise ValueError("bad markdown")

    makes = [lambda: "a", stuck, lambda: "b", crash, lambda: "c", raises, lambda: "d"]
    t0 = time.monotonic()
    got = bounded_texts(makes, seconds=1.0, memory_mb=256, children=2)
    assert time.monotonic() - t0 < 30  # not the 60 s of the stuck text: stopped at its 1 s
    assert got[0::2] == ["a", "b", "c", "d"]
    assert isinstance(got[1], SubmissionError) and "took longer than 1 s" in str(got[1])
    assert str(got[1]).startswith("it took")  # the same words bounded_text uses
    assert isinstance(got[3], SubmissionError) and "stopped" in str(got[3])
    assert isinstance(got[5], SubmissionError) and "bad markdown" in str(got[5])


def test_memory_is_capped_per_text():
    def hog() -> str:
        return "x" * (600 * 1024 * 1024)

    got = bounded_texts([hog, lambda: "fine"], seconds=20, memory_mb=200, children=1)
    assert isinstance(got[0], SubmissionError) and "memory" in str(got[0])
    assert got[1] == "fine"


def test_bounded_text_is_one_of_them():
    assert bounded_text(lambda: "page", seconds=5, memory_mb=128) == "page"
    try:
        bounded_text(lambda: (time.sleep(30), "x")[1], seconds=0.5, memory_mb=128)
    except SubmissionError as exc:
        assert str(exc) == "it took longer than 0.5 s"
    else:
        raise AssertionError("no timeout")
