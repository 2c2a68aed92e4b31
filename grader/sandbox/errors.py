"""The kinds of student failure the trusted side reports, and how a worker's error reply
becomes one (`_reply_error`). Every field of a reply is student-controlled text: it is cleaned
(`clean_text`) and capped before it can reach a report. `grader.sandbox.client` raises these
and re-exports them.
"""

from __future__ import annotations

import re
from typing import Any

from grader.parts import FUNCTIONS
from grader.report import NOT_DEFINED
from grader.textsafe import clean_text


class StudentError(Exception):
    """A student-side failure during a call. `status` is the report status it maps to;
    `at_import`: it happened while the module was being imported, not in the call itself."""

    status = "error"
    at_import = False

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotAttempted(StudentError):
    """A call stopped at a NotImplementedError. `stub`: the handout function whose stub raised
    it ("mask_tokens"), when the student's frames show one; "" otherwise (the drill's own
    scaffold TODOs, or no frames)."""

    status = "missing"

    def __init__(self, message: str, *, stub: str = "") -> None:
        super().__init__(message)
        self.stub = stub


class MissingPart(StudentError):
    status = "missing"


class NotDefined(StudentError):
    """The submission does not define `function` ("losses.causal_lm_loss"), one of the
    handout's functions: not attempted, like a stub. The check may have called it or a
    function that calls it (`caller`, e.g. "masks.build_attention_mask"; "" for itself)."""

    status = "missing"

    def __init__(self, message: str, *, function: str, caller: str = "") -> None:
        super().__init__(message)
        self.function = function
        self.caller = caller


def not_defined(
    function: str, origin: tuple[str, str] | None = None, caller: str = ""
) -> NotDefined:
    """The NotDefined for `function` ("module.name"). `origin`: where the grader looked, as
    the student knows it ("losses.py", "your notebook"), and a hint of what to check there
    (default: the module's file, no hint)."""
    module, _, name = function.rpartition(".")
    where, hint = origin or (f"{module}.py", "")
    via = ""
    if caller == "model_forward":
        via = " (this check runs the grader's TinyLM on your masks, which needs it)"
    elif caller:
        via = f" (this check calls {caller.rpartition('.')[2]}(), which needs it)"
    return NotDefined(
        f"{NOT_DEFINED}{where} does not define {name}(){via}\n"
        f"  What to do: define a function named {name} at the top level, with the handout's "
        "signature (one under another name, inside another function or in another file is "
        f"not found){hint}",
        function=function,
        caller=caller,
    )


class StudentException(StudentError):
    """The student's code raised. `exc_type`: the exception's class name; `exc_bases`: the
    built-in exception classes it derives from (empty when unknown, e.g. a syntax error)."""

    status = "error"

    def __init__(
        self, message: str, *, exc_type: str = "", exc_bases: tuple[str, ...] = ()
    ) -> None:
        super().__init__(message)
        self.exc_type = exc_type
        self.exc_bases = exc_bases

    def raised(self, name: str) -> bool:
        """Whether the student's exception is a ``name`` (a built-in class, e.g. "ValueError")."""
        return name in self.exc_bases or name == self.exc_type


class StudentTimeout(StudentError):
    status = "timeout"


class StudentCrash(StudentError):
    status = "error"


_KIND_TEXT = {
    "exit": "called sys.exit() / raised SystemExit",
    "memory": "ran out of memory",
    "recursion": "recursed too deeply (RecursionError)",
}


_HANDOUT = frozenset(f for names in FUNCTIONS.values() for f in names)
_FRAME = re.compile(r'^  File "\w+\.py", line \d+, in (\w+)$', re.MULTILINE)


def _last_stub(tb: str) -> str:
    """The innermost handout function among the student's frames `tb` ("" if none): where a
    NotImplementedError came from when a stub raised it."""
    reached = [name for name in _FRAME.findall(tb) if name in _HANDOUT]
    return reached[-1] if reached else ""


def _stub_reached(where: str, tb: str) -> str:
    """`where` ("calling model_forward()"), or when the grader's own code (the TinyLM) stopped
    at a student's stub, the stub it reached: "calling build_attention_mask() (through the
    grader's model_forward())", so the report lists the check under the function to write
    rather than under a name the handout never asked for. `tb` holds the student's frames."""
    called = where[len("calling ") : -2] if where.startswith("calling ") else ""
    if not called or called in _HANDOUT:
        return where
    reached = _last_stub(tb)
    if not reached:
        return where
    return f"calling {reached}() (through the grader's {called}())"


def _reply_error(reply: dict[str, Any], where: str) -> StudentError:
    """The StudentError for a worker's error reply. Every field is student-controlled text:
    it is cleaned and capped before it can reach a report."""
    kind = clean_text(reply.get("kind", "exception"), 40)
    message = clean_text(reply.get("message", ""), 2000)
    tb = clean_text(reply.get("traceback", ""), 4000)
    exc_type = clean_text(reply.get("exc_type", "Exception"), 100)
    if kind == "syntax_error":
        return StudentException(f"syntax error in {message}")
    if kind == "not_implemented":
        detail = f" ({message})" if message else ""
        return NotAttempted(
            f"not attempted: {_stub_reached(where, tb)} raised NotImplementedError{detail}",
            stub=_last_stub(tb),
        )
    if kind in _KIND_TEXT:
        text = f"{where}: your code {_KIND_TEXT[kind]}"
        return StudentException(text + (f"\n{tb}" if tb else ""))
    if kind == "unsendable":
        return StudentException(message)
    if kind == "protocol":
        return StudentException(f"{where}: the call could not be made ({message})")
    bases = reply.get("exc_bases")
    exc_bases = tuple(
        clean_text(b, 60) for b in (bases[:8] if isinstance(bases, list) else ()) if type(b) is str
    )
    text = f"{where} raised {exc_type}: {message}"
    if tb:
        text += f"\n{tb}"
    return StudentException(text, exc_type=exc_type, exc_bases=exc_bases)
