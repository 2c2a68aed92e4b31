"""JUnit XML from a GradeReport (`grader grade --format junit`), for any CI's test report view.

    <testsuites name="objectives-grader" tests=".." failures=".." errors="..">
      <properties><property name="score" value="92"/><property name="max_score" .../></properties>
      <testsuite name="masks" tests=".." failures=".." errors=".." skipped="0">
        <testcase classname="masks" name="no_future_leak[mask]">
          <properties><property name="score" value="0"/><property name="max_score" value="1.5"/>
            <property name="status" value="failed"/></properties>
          <failure type="failed" message="a one-line summary">the whole message</failure>
        </testcase> ...

One testcase per hidden test (classname = its part, name = the id without the part) and one per
written answer (classname = its part, name = "written answer"). A failed or missing check gets
`<failure>`, code that raised or timed out gets `<error>`; points are properties. The tree is
built with xml.etree and every string is stripped of characters XML 1.0 cannot hold (student
text may contain anything), so any XML parser reads the file. No timings: the output is
deterministic, like the JSON report.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from grader.diagnosis import explain_ids, strip_explanations
from grader.render.view import summary_line
from grader.report import GradeReport

# Everything outside XML 1.0's Char production (controls other than tab/LF/CR, surrogates,
# U+FFFE/U+FFFF) makes the document unparseable.
_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
ERROR_STATUSES = frozenset({"error", "timeout"})
WRITTEN_NAME = "written answer"


def xml_text(value: object) -> str:
    """`value` as a string XML 1.0 can hold (invalid characters removed)."""
    return _NOT_XML.sub("", str(value))


def _num(x: float) -> str:
    return f"{x:g}"


def _properties(parent: ET.Element, values: dict[str, str]) -> None:
    props = ET.SubElement(parent, "properties")
    for name, value in values.items():
        ET.SubElement(props, "property", name=name, value=xml_text(value))


MESSAGE_CHARS = 300
# a sentence ends at . ! or ? followed by a space and a capital (not "e.g. the", "0.15", "(7,)")
_SENTENCE_END = re.compile(r"[.!?](?=\s+[A-Z])")


def failure_message(text: str) -> str:
    """The `message` attribute of a failure: a one-line summary a CI list can show alone.

    The first line of the message, joined with the next one when it ends with a colon (it
    introduces it: "expected ...:" then the value), cut after its first sentence and to at
    most `MESSAGE_CHARS` characters (at a word, with "..."). The element's text keeps the
    whole message."""
    line = summary_line(text.strip())
    end = _SENTENCE_END.search(line)
    if end is not None:
        line = line[: end.start() + 1]
    if len(line) <= MESSAGE_CHARS:
        return line
    cut = line[: MESSAGE_CHARS - 3]
    if " " in cut[MESSAGE_CHARS // 2 :]:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;:") + "..."


def junit_tree(report: GradeReport) -> ET.Element:
    """The `<testsuites>` element for `report` (see the module docstring)."""
    root = ET.Element("testsuites", name="objectives-grader")
    _properties(
        root,
        {
            "submission": report.submission,
            "grader_version": report.grader_version,
            "score": _num(report.score),
            "max_score": _num(report.max_score),
            **({"notes": "\n".join(report.errors)} if report.errors else {}),
        },
    )
    totals = {"tests": 0, "failures": 0, "errors": 0}
    for part, ps in report.parts.items():
        suite = ET.SubElement(root, "testsuite", name=xml_text(part))
        _properties(suite, {"score": _num(ps.score), "max_score": _num(ps.max_score)})
        counts = {"tests": 0, "failures": 0, "errors": 0}
        for t in report.tests:
            if t.part != part:
                continue
            name = t.id.split(".", 1)[1] if "." in t.id else t.id
            case = ET.SubElement(suite, "testcase", classname=xml_text(part), name=xml_text(name))
            props = {"score": _num(t.score), "max_score": _num(t.max_score), "status": t.status}
            if t.diagnoses:
                props["diagnoses"] = ",".join(t.diagnoses)
            _properties(case, props)
            counts["tests"] += 1
            if t.status == "passed":
                continue
            kind = "error" if t.status in ERROR_STATUSES else "failure"
            counts["errors" if kind == "error" else "failures"] += 1
            body = strip_explanations(t.message) + explain_ids(t.diagnoses)
            el = ET.SubElement(case, kind, type=t.status, message=xml_text(failure_message(body)))
            el.text = xml_text(body)
        written = report.written.get(part)
        if written is not None:
            case = ET.SubElement(suite, "testcase", classname=xml_text(part), name=WRITTEN_NAME)
            _properties(
                case,
                {
                    "score": _num(written.score),
                    "max_score": _num(written.max_score),
                    "needs_review": str(written.needs_review).lower(),
                },
            )
            counts["tests"] += 1
            if written.score < written.max_score:
                counts["failures"] += 1
                el = ET.SubElement(
                    case,
                    "failure",
                    type="partial",
                    message=xml_text(f"{_num(written.score)}/{_num(written.max_score)} points"),
                )
                el.text = xml_text(written.summary)
        for key, n in counts.items():
            suite.set(key, str(n))
            totals[key] += n
        suite.set("skipped", "0")
    for key, n in totals.items():
        root.set(key, str(n))
    return root


def render_junit(report: GradeReport) -> str:
    """The JUnit XML document (UTF-8, with an XML declaration) as text."""
    root = junit_tree(report)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
