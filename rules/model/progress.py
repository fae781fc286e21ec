"""Progress of a long read, written to standard error (fuzz17: 100,000 files took 16.3 s with nothing printed, which
a CI log shows as a silent wait). Off unless the command line turns it on (:func:`start`): ``--progress``, or
standard error is a terminal. Nothing is written to standard output, so a JSON or SARIF report there stays whole.

The readers call :func:`files` and :func:`step`; each is a test of one global when progress is off. No thread is
started (a process that forks must not hold one), so a line is written only when the reader comes back to say
where it is: at most one every :data:`EVERY` seconds, the first after :data:`FIRST` seconds (a short run prints
nothing)."""

from __future__ import annotations

import time
from typing import TextIO

#: seconds before the first line, and between two lines
FIRST = 1.0
EVERY = 2.0


class _Progress:
    def __init__(self, stream: TextIO, first: float, every: float) -> None:
        self.stream, self.first, self.every = stream, first, every
        self.start = time.monotonic()
        self.last: float | None = None  # when a line was last written

    def due(self) -> float | None:
        """Seconds since the start when a line is due, else None."""
        now = time.monotonic()
        if now - self.start < self.first or (self.last is not None and now - self.last < self.every):
            return None
        self.last = now
        return now - self.start

    def write(self, line: str) -> None:
        try:
            self.stream.write(f"shardwise: {line}\n")
            self.stream.flush()
        except (OSError, ValueError):  # a closed or broken standard error ends the progress, not the run
            stop()


_current: _Progress | None = None


def start(stream: TextIO) -> None:
    """Write progress lines to ``stream`` from now on (the clock starts now)."""
    global _current
    _current = _Progress(stream, FIRST, EVERY)


def stop() -> None:
    global _current
    _current = None


def files(done: int, total: int) -> None:
    """``done`` of ``total`` files are read (a line when one is due)."""
    p = _current
    if p is None:
        return
    elapsed = p.due()
    if elapsed is not None:
        p.write(f"reading inputs: {done:,} of {total:,} files read ({elapsed:.0f} s)")


def step(what: str) -> None:
    """The run goes on to ``what`` (``rendering chart with helm``): a line once the run is :data:`FIRST` seconds
    old, however recent the last, so that a step that may take long (helm, kustomize) is named before it starts."""
    p = _current
    if p is None:
        return
    elapsed = time.monotonic() - p.start
    if elapsed >= p.first:
        p.last = time.monotonic()
        p.write(f"{what} ({elapsed:.0f} s)")
