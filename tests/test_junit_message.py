"""The JUnit failure's `message` attribute is a one-line summary a CI list can show alone.

It used to be the bare first line of the failure text, often a fragment that ends in a colon
("expected labels for ids [[1, 7, 2]]:") whose content is on the next line.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from grader.render.junit import MESSAGE_CHARS, failure_message, render_junit
from grader.report import GradeReport
from grader.report import TestResult as Check


def test_a_first_line_ending_in_a_colon_is_joined_with_the_line_it_introduces():
    text = "expected labels for ids [[1, 7, 2]]:\n  [[-100, 7, -100]]\ngot:\n  [[-100, 3, -100]]"
    assert failure_message(text) == "expected labels for ids [[1, 7, 2]]: [[-100, 7, -100]]"
    raised = (
        "mask_tokens(mlm_probability=1.5) must raise ValueError (the contract says so); your "
        "code raised TypeError instead:\ncalling mask_tokens() raised TypeError: bad\n  File"
    )
    assert failure_message(raised).endswith("instead: calling mask_tokens() raised TypeError: bad")


def test_the_message_is_the_first_sentence_and_abbreviations_or_numbers_do_not_end_it():
    text = (
        "labels[0, 1] = 7, but the original id there is 9 (the corrupted input is 3). A label "
        "is either -100 or the original id. 4 labels are wrong.\n  (the call: mask_tokens(...))"
    )
    assert failure_message(text) == (
        "labels[0, 1] = 7, but the original id there is 9 (the corrupted input is 3)."
    )
    text = "share 0.15 of the tokens, e.g. the default, is expected. Got 0.3 instead."
    assert failure_message(text) == "share 0.15 of the tokens, e.g. the default, is expected."


def test_the_message_is_bounded_and_cut_at_a_word():
    text = "mask_tokens returned " + " ".join(f"word{i}" for i in range(400)) + "\nmore"
    got = failure_message(text)
    assert len(got) <= MESSAGE_CHARS and got.endswith("...")
    assert got[:-3].split(" ")[-1].startswith("word") and "\n" not in got
    assert failure_message("\n\n  short  \n") == "short"
    assert failure_message("") == ""


def test_render_junit_uses_the_summary_and_keeps_the_whole_text():
    message = "inputs for ids [[1, 5, 2]] at p=0:\n  [[1, 3, 2]]\nexpected no change"
    test = Check("corruption.edge_cases[p0]", "corruption", "edge_cases", 0.0, 0.5, "failed",
                 message)  # fmt: skip
    report = GradeReport("0.1.0", "alice", (test,), {}, ())
    root = ET.fromstring(render_junit(report).encode("utf-8"))
    failure = next(root.iter("failure"))
    assert failure.get("message") == "inputs for ids [[1, 5, 2]] at p=0: [[1, 3, 2]]"
    assert failure.text.startswith(message)
