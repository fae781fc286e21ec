"""Work split over forked processes, the calling process doing one share itself.

A lint of thousands of files spends its time in Python code that one interpreter runs on one core.
:func:`map_parts` runs ``fn(0)`` here and ``fn(1)`` … ``fn(n-1)`` each in a process forked from
this one, so the children see everything this process has built (the inventory, the catalog, the
memos) without it being copied to them; only their results come back, pickled into an unnamed
temporary file (:func:`map_pieces` sends a share in pieces, each as soon as it is made). The lint's two
parallel steps (the read, the rules) hand their work out in batches through :class:`Tickets`, each process
taking the next batch when it is done with one, so that a process the machine gives less CPU does less.

A child that fails in any way (an exception, a signal, a result that cannot be pickled, a full
disk) is not an error: its share is computed again here, where an exception takes the caller's usual path. On
platforms without ``fork`` every share is computed here, one after the other.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from typing import IO, TypeVar

T = TypeVar("T")


def can_fork() -> bool:
    return sys.platform == "linux" and hasattr(os, "fork")


_DONE = "shardwise.forked: complete"  # the last record of a child's file: everything before it arrived


def _child(fn: Callable[[int], Iterable[object]], index: int, out: IO[bytes]) -> None:
    """In the child: write each piece of share ``index`` to ``out`` pickled as soon as it is made (the
    parent reads the file when the child is gone), then the end record; leave without running the
    parent's exit handlers or flushing its buffers (they belong to the parent)."""
    try:
        pickler = pickle.Pickler(out, protocol=pickle.HIGHEST_PROTOCOL)
        for piece in fn(index):
            pickler.dump(piece)  # one memo for the whole stream: what two pieces share is written once
        pickler.dump(_DONE)
        out.flush()
    except BaseException:  # noqa: BLE001 - no end record: the parent computes this share again itself
        pass
    finally:
        os._exit(0)


def _collect(pid: int, out: IO[bytes]) -> list[object] | None:
    """Wait for a child and read its pieces; None when it did not finish (no end record)."""
    try:
        os.waitpid(pid, 0)
        out.seek(0)
        pieces: list[object] = []
        unpickler = pickle.Unpickler(out)
        while True:
            try:
                piece = unpickler.load()
            except Exception:  # noqa: BLE001 - EOF or a torn record: the child did not finish
                return None
            if isinstance(piece, str) and piece == _DONE:
                return pieces
            pieces.append(piece)
    finally:
        out.close()


def map_parts(fn: Callable[[int], T], parts: int) -> list[T]:
    """``[fn(0), …, fn(parts - 1)]``, the shares from 1 on computed in forked processes."""
    return [pieces[0] for pieces in map_pieces(lambda i: (fn(i),), parts)]


def map_pieces(fn: Callable[[int], Iterable[T]], parts: int) -> list[list[T]]:
    """``[list(fn(0)), …, list(fn(parts - 1))]``, the shares from 1 on computed in forked processes that
    send each piece back as soon as it is made: a share of many pieces costs the parent only the time
    to read them, since the child pickled them while the parent was busy with its own share."""
    if parts <= 1 or not can_fork():
        return [list(fn(i)) for i in range(parts)]
    for stream in (sys.stdout, sys.stderr):  # nothing buffered may be written twice
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    children: list[tuple[int, int, IO[bytes]]] = []
    here: list[int] = []  # shares no process could be started for (no temporary file, no fork)
    try:
        for i in range(1, parts):
            try:
                out: IO[bytes] = tempfile.TemporaryFile()
            except OSError:
                here.append(i)
                continue
            try:
                pid = os.fork()
            except OSError:
                out.close()
                here.append(i)
                continue
            if pid == 0:
                _child(fn, i, out)  # never returns
            children.append((i, pid, out))
        results: dict[int, list[T]] = {0: list(fn(0))}
        for i in here:
            results[i] = list(fn(i))
    except BaseException:
        _abandon(children)
        raise
    pending = list(children)
    while pending:
        i, pid, result = pending.pop(0)
        try:
            got = _collect(pid, result)
        except BaseException:
            _abandon(pending)
            raise
        results[i] = list(fn(i)) if got is None else got  # type: ignore[assignment]
    return [results[i] for i in range(parts)]


def _abandon(children: list[tuple[int, int, IO[bytes]]]) -> None:
    """Stop and reap children whose work is no longer wanted."""
    for _, pid, out in children:
        out.close()
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except OSError:
            pass


class Tickets:
    """The numbers ``0 … count - 1`` handed out one at a time to whichever process asks first: this one and the
    processes forked from it after the tickets were made (:func:`map_pieces`). A share that takes its batches
    from the tickets rather than a fixed range balances itself: a process that gets less CPU (a loaded machine)
    takes fewer batches, and the others are not left waiting for it.

    The numbers lie in a pipe, written before any process reads and its writing end then closed: each read of
    one 4-byte record takes one number (a read from a Linux pipe is made whole under the pipe's lock, and every
    record is there before the first read), and the end of the pipe says that none is left. A process that dies
    holding numbers takes them with it: the caller finds which batches never came back and computes them."""

    #: every pipe holds at least one page (4 KiB), also where the system has cut new pipes down to that (a user
    #: over ``fs.pipe-user-pages-soft``): more records than fit in it could block the writer, which no one reads
    MOST = 1024

    def __init__(self, count: int) -> None:
        if not 0 <= count <= self.MOST:
            raise ValueError(f"{count} tickets: at most {self.MOST}")
        self._read, write = os.pipe()
        try:
            data = memoryview(b"".join(k.to_bytes(4, "little") for k in range(count)))
            while data:
                data = data[os.write(write, data):]
        finally:
            os.close(write)

    def __iter__(self) -> Iterator[int]:
        while True:
            record = os.read(self._read, 4)
            if len(record) != 4:
                return
            yield int.from_bytes(record, "little")

    def close(self) -> None:
        if self._read >= 0:
            os.close(self._read)
            self._read = -1

    def __enter__(self) -> Tickets:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def spans(weights: list[int], parts: int, first: float = 1.0) -> list[tuple[int, int]]:
    """``parts`` contiguous ``(start, stop)`` ranges over ``weights`` with about equal sums, the first
    ``first`` times as heavy as each other one (none empty unless there are fewer items than parts);
    together they cover every index once, in order."""
    n = len(weights)
    parts = max(1, min(parts, n))
    if not any(weights):  # nothing weighs anything: count the items instead
        weights = [1] * n
    total = sum(weights)
    bounds = [0]
    acc = 0
    i = 0
    for k in range(1, parts):
        target = total * (first + k - 1) / (first + parts - 1)
        while i < n - (parts - k) and (acc + weights[i] <= target or i < bounds[-1] + 1):
            acc += weights[i]
            i += 1
        bounds.append(i)
    bounds.append(n)
    return [(bounds[k], bounds[k + 1]) for k in range(parts)] if n else [(0, 0)]
