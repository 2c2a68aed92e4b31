"""Progress while grading: a bar with an ETA on a terminal, plain lines otherwise (CI, logs)."""

from __future__ import annotations

import sys
import time
from typing import IO, Any

from grader.textsafe import clean_name


def _fmt_seconds(s: float) -> str:
    s = max(0, int(round(s)))
    return f"{s // 60}:{s % 60:02d}"


class Progress:
    """`advance(label, detail)` once per finished submission. Writes to stderr by default."""

    def __init__(
        self,
        total: int,
        *,
        stream: IO[str] | None = None,
        tty: bool | None = None,
        enabled: bool = True,
        label: str = "Grading",
    ) -> None:
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.enabled = enabled and total > 0
        self.label = label
        self.done = 0
        self.started = time.monotonic()
        self._bar: Any = None

    def __enter__(self) -> Progress:
        self.started = time.monotonic()
        if self.enabled and self.tty:
            import click

            self._bar = click.progressbar(
                length=self.total,
                label=self.label,
                file=self.stream,
                show_eta=True,
                show_pos=True,
                item_show_func=lambda item: item,
                width=30,
            )
            self._bar.__enter__()
        elif self.enabled:
            self._line(f"{self.label} {self.total} submission{'s' if self.total != 1 else ''}")
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.__exit__(*exc)
            self._bar = None

    def rate(self) -> float:
        elapsed = time.monotonic() - self.started
        return self.done / elapsed if elapsed > 0 else 0.0

    def advance(self, label: str, detail: str = "") -> None:
        """Count one submission done and show it: the progress bar when there is one, else one line
        with the rate and ETA (nothing when disabled)."""
        self.done += 1
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.update(1, clean_name(label, 30))
            return
        rate = self.rate()
        eta = (self.total - self.done) / rate if rate > 0 else 0.0
        width = len(str(self.total))
        self._line(
            f"[{self.done:>{width}}/{self.total}] {label}: {detail} "
            f"({rate:.1f}/s, ETA {_fmt_seconds(eta)})"
        )

    def note(self, text: str) -> None:
        """A message that must not be lost in the bar (printed on its own line)."""
        if self._bar is not None:
            self.stream.write("\n")
        self._line(text)

    def _line(self, text: str) -> None:
        # a terminal: a student-chosen name in `text` must not move the cursor or forge lines
        self.stream.write(clean_name(text) + "\n")
        self.stream.flush()
