"""Load untrusted entries in a forked child with a wall-clock deadline and a memory cap.

Every loader parses student bytes (zip members, notebook JSON, cells through `ast.parse`,
Markdown): a bug or a pathological input there must cost only its own entry. So the loaders
run in one forked child process per run of entries (not one per entry: a fork costs
milliseconds, a frame ~0.1 ms), with `RLIMIT_AS` raised by at most `LoadLimits.max_memory_mb`
over what the parent had mapped; the parent gives each entry `LoadLimits.max_seconds` of wall
clock and SIGKILLs the child when it overruns, reports that entry, and forks a fresh child for
the rest. Results come back as JSON of plain strings (a `Submission` is only text), never
pickle. Any failure - `SubmissionError`, `MemoryError`, `RecursionError`, any other
exception, a crash of the child - becomes "could not be read: <reason>" for that entry.

`grader grade` (`load_one`) and `grader batch` (`load_entries`) both load through here.
"""

from __future__ import annotations

import json
import os
import resource
import select
import signal
import struct
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from grader.loading.model import LoadLimits, Submission, SubmissionError
from grader.textsafe import clean_text

UNREADABLE = "could not be read"
_HEADER = struct.Struct("!Q")
_FIELDS = ("sources", "missing", "written", "files")


@dataclass(frozen=True)
class Loaded:
    """The outcome of loading entry `index`: a Submission, or the message saying why not."""

    index: int
    submission: Submission | None
    error: str = ""


def load_one(loader: Callable[[], Submission], limits: LoadLimits | None = None) -> Submission:
    """Run `loader` under the guard; raise SubmissionError("could not be read: ...")."""
    (result,) = load_entries([loader], limits)
    if result.submission is None:
        raise SubmissionError(result.error)
    return result.submission


def load_entries(
    loaders: Sequence[Callable[[], Submission]], limits: LoadLimits | None = None
) -> Iterator[Loaded]:
    """Yield one `Loaded` per loader, in order. Never raises for a bad entry."""
    limits = limits or LoadLimits()
    i = 0
    while i < len(loaders):
        child = _Child(loaders, i, limits.max_memory_mb)
        try:
            while i < len(loaders):
                frame = child.next_frame(limits.max_seconds)
                if isinstance(frame, str):  # the child is gone or stuck: this entry failed
                    yield Loaded(i, None, f"{UNREADABLE}: {frame}")
                    i += 1
                    break
                yield _decode(i, frame)
                i += 1
        finally:
            child.close()


def _decode(index: int, frame: dict) -> Loaded:
    if "error" in frame:
        return Loaded(index, None, f"{UNREADABLE}: {clean_text(frame['error'], 1000)}")
    d = frame["submission"]
    return Loaded(
        index,
        Submission(
            name=str(d["name"]),
            origin=str(d["origin"]),
            **{k: {str(a): str(b) for a, b in d[k].items()} for k in _FIELDS},
            problems=tuple(str(p) for p in d["problems"]),
            notebook=str(d.get("notebook", "")),
            cell_lines={
                str(f): tuple(tuple(int(x) for x in run[:4]) for run in runs)
                for f, runs in d.get("cell_lines", {}).items()
            },
        ),
    )


class _Child:
    """A forked loader working through `loaders[start:]`, one frame per entry."""

    def __init__(
        self,
        loaders: Sequence[Callable[[], object]],
        start: int,
        memory_mb: int,
        run: Callable[[Callable[[], object], int], dict] | None = None,
    ) -> None:
        rfd, wfd = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child (coverage does not follow a fork)
            os.close(rfd)
            _child_main(loaders, start, wfd, memory_mb, run or _run)
        os.close(wfd)
        self.pid, self.fd = pid, rfd
        self.buf = bytearray()
        self.waited = False

    def next_frame(self, seconds: float) -> dict | str:
        """The next frame, or why there is none (a timeout, the child's end)."""
        deadline = time.monotonic() + seconds
        while True:
            frame = self.take()
            if frame is not None:
                return frame
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                return _overran(seconds)
            if not self.fill():
                return self._death()

    def take(self) -> dict | None:
        """A complete frame already read, or None."""
        if len(self.buf) >= _HEADER.size:
            (size,) = _HEADER.unpack_from(self.buf)
            if len(self.buf) >= _HEADER.size + size:
                body = bytes(self.buf[_HEADER.size : _HEADER.size + size])
                del self.buf[: _HEADER.size + size]
                return json.loads(body)
        return None

    def fill(self) -> bool:
        """Read what the child has written (the caller saw the pipe readable); False at its
        end."""
        chunk = os.read(self.fd, 1 << 20)
        self.buf += chunk
        return bool(chunk)

    def _death(self) -> str:
        _, status = os.waitpid(self.pid, 0)
        self.waited = True
        if os.WIFSIGNALED(status):
            return f"the reader stopped ({signal.Signals(os.WTERMSIG(status)).name})"
        return "the reader stopped before it finished"

    def close(self) -> None:
        os.close(self.fd)
        if not self.waited:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(self.pid, 0)
            self.waited = True


def _child_main(
    loaders: Sequence[Callable[[], object]],
    start: int,
    wfd: int,
    memory_mb: int,
    run: Callable[[Callable[[], object], int], dict],
) -> None:  # pragma: no cover - runs in the forked child
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides; it kills us
        _die_with_parent()
        _cap_memory(memory_mb)
        for loader in loaders[start:]:
            frame = run(loader, memory_mb)
            try:
                body = json.dumps(frame).encode("ascii")
            except (MemoryError, RecursionError, ValueError) as exc:
                body = json.dumps({"error": _reason(exc, memory_mb)}).encode("ascii")
            _write_all(wfd, _HEADER.pack(len(body)) + body)
    finally:
        os._exit(0)  # never run the parent's atexit handlers or flush its buffers


def _run(loader: Callable[[], Submission], memory_mb: int) -> dict:
    try:
        sub = loader()
        if not isinstance(sub, Submission):
            raise TypeError(f"a loader returned {type(sub).__name__}")
        return {
            "submission": {
                "name": sub.name,
                "origin": sub.origin,
                **{k: getattr(sub, k) for k in _FIELDS},
                "problems": list(sub.problems),
                "notebook": sub.notebook,
                "cell_lines": sub.cell_lines,
            }
        }
    except BaseException as exc:  # noqa: BLE001 - every failure is this entry's, with a reason
        return {"error": _reason(exc, memory_mb)}


def bounded_text(make: Callable[[], str], *, seconds: float, memory_mb: int) -> str:
    """`make()` computed in a forked child with a wall clock and a memory cap, for work on
    student bytes outside the loaders (nbconvert's Markdown parser on a student's notebook
    can backtrack for minutes). Raises `SubmissionError` with the reason when it fails."""
    (text,) = bounded_texts([make], seconds=seconds, memory_mb=memory_mb)
    if isinstance(text, SubmissionError):
        raise text
    return text


def bounded_texts(
    makes: Sequence[Callable[[], str]], *, seconds: float, memory_mb: int, children: int = 1
) -> list[str | SubmissionError]:
    """`bounded_text` for many: ``[make() for make in makes]``, each result a text or the
    `SubmissionError` saying why it failed, in order. Each `make` gets `seconds` of wall clock
    from the end of the one before it in its child; the `makes` are dealt to at most `children`
    forked children working side by side (one fork per child, not per text: a fork of a
    parent that holds torch costs more than a small page takes). A child that overruns or
    dies costs only its current text; a fresh child takes the rest of its share."""
    results: list[str | SubmissionError | None] = [None] * len(makes)
    lanes = [_Lane(list(range(k, len(makes), max(1, children)))) for k in range(max(1, children))]
    lanes = [lane for lane in lanes if lane.todo]
    try:
        for lane in lanes:
            lane.start(makes, memory_mb, seconds)
        while any(lane.child is not None for lane in lanes):
            live = [lane for lane in lanes if lane.child is not None]
            left = max(0.0, min(lane.deadline for lane in live) - time.monotonic())
            ready = select.select([lane.child.fd for lane in live], [], [], left)[0]
            for lane in live:
                if lane.child.fd in ready:
                    alive = lane.child.fill()
                    while (frame := lane.child.take()) is not None:
                        results[lane.todo[lane.pos]] = _text_of(frame)
                        lane.advance(makes, memory_mb, seconds, restart=False)
                        if lane.child is None:
                            break
                    if lane.child is not None and not alive:
                        reason = lane.child._death()
                        results[lane.todo[lane.pos]] = SubmissionError(reason)
                        lane.advance(makes, memory_mb, seconds, restart=True)
                elif time.monotonic() >= lane.deadline:
                    results[lane.todo[lane.pos]] = SubmissionError(
                        _overran(seconds).replace("reading it", "it")
                    )
                    lane.advance(makes, memory_mb, seconds, restart=True)
    finally:
        for lane in lanes:
            lane.stop()
    return [r if r is not None else SubmissionError("it was not made") for r in results]


class _Lane:
    """One child's share of `bounded_texts`: the indices it makes and how far it got."""

    def __init__(self, todo: list[int]) -> None:
        self.todo = todo
        self.pos = 0
        self.child: _Child | None = None
        self.deadline = 0.0

    def start(self, makes: Sequence[Callable[[], str]], memory_mb: int, seconds: float) -> None:
        self.child = _Child([makes[i] for i in self.todo], self.pos, memory_mb, run=_run_text)
        self.deadline = time.monotonic() + seconds

    def advance(
        self, makes: Sequence[Callable[[], str]], memory_mb: int, seconds: float, *, restart: bool
    ) -> None:
        """The current text is done; a `restart` replaces the child (it overran or died)."""
        self.pos += 1
        if restart or self.pos >= len(self.todo):
            self.stop()
        if self.pos < len(self.todo):
            if self.child is None:
                self.start(makes, memory_mb, seconds)
            else:
                self.deadline = time.monotonic() + seconds

    def stop(self) -> None:
        if self.child is not None:
            self.child.close()
            self.child = None


def _text_of(frame: dict) -> str | SubmissionError:
    if "error" in frame:
        return SubmissionError(frame["error"])
    return frame["text"]


def _overran(seconds: float) -> str:
    return f"reading it took longer than {seconds:g} s"


def _run_text(make: Callable[[], object], memory_mb: int) -> dict:
    try:
        text = make()
        if not isinstance(text, str):
            raise TypeError(f"expected text, got {type(text).__name__}")
        return {"text": text}
    except BaseException as exc:  # noqa: BLE001 - reported to the parent with a reason
        return {"error": _reason(exc, memory_mb)}


def _reason(exc: BaseException, memory_mb: int) -> str:
    if isinstance(exc, SubmissionError):
        return str(exc) or "it is not a submission"
    if isinstance(exc, MemoryError):
        return f"reading it needs more than {memory_mb} MB of memory"
    if isinstance(exc, RecursionError):
        return "it is nested too deeply to read"
    return clean_text(f"{type(exc).__name__}: {exc}", 300)


def _write_all(fd: int, data: bytes) -> None:  # pragma: no cover - runs in the child
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _die_with_parent() -> None:  # pragma: no cover - runs in the child
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _cap_memory(memory_mb: int) -> None:  # pragma: no cover - runs in the child
    """Allow `memory_mb` of address space on top of what the fork inherited."""
    try:
        with open("/proc/self/status") as f:
            mapped = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))
    except (OSError, StopIteration, ValueError):
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    want = mapped + memory_mb * 1024 * 1024
    if hard != resource.RLIM_INFINITY:
        want = min(want, hard)
    if soft == resource.RLIM_INFINITY or want < soft:
        resource.setrlimit(resource.RLIMIT_AS, (want, hard))
