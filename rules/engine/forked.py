"""Work split over forked processes, the calling process doing one share itself.

A lint of thousands of files spends its time in Python code that one interpreter runs on one core.
:func:`map_parts` runs ``fn(0)`` here and ``fn(1)`` … ``fn(n-1)`` each in a process forked from
this one, so the children see everything this process has built (the inventory, the catalog, the
memos) without it being copied to them; only their results come back, pickled into an unnamed
temporary file (:func:`map_pieces` sends a share in pieces, each as soon as it is made, and loads each while
its own share is still being worked on). The lint's two
parallel steps (the read, the rules) hand their work out in batches through :class:`Tickets`, each process
taking the next batch when it is done with one, so that a process the machine gives less CPU does less.

A child that fails in any way (an exception, a signal, a result that cannot be pickled, a full
disk) is not an error: its share is computed again here, where an exception takes the caller's usual path. On
platforms without ``fork`` every share is computed here, one after the other.
"""

from __future__ import annotations

import io
import os
import pickle
import signal
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any, TypeVar

T = TypeVar("T")


def can_fork() -> bool:
    return sys.platform == "linux" and hasattr(os, "fork")


_DONE = "shardwise.forked: complete"  # the last record of a child's file: everything before it arrived


def _child(fn: Callable[[int], Iterable[object]], index: int, out: IO[bytes], done: int) -> None:
    """In the child: write each piece of share ``index`` to ``out`` as soon as it is made, one record each (its
    length, then its pickle: :class:`_Stream` loads them while the parent works on its own share), then the end
    record, and then one byte to the pipe ``done`` (the parent waits for that byte, not for this process's exit:
    the kernel's release of a large process's memory at its exit takes milliseconds the parent need not wait);
    leave without running the parent's exit handlers or flushing its buffers (they belong to the parent)."""
    try:
        buf = io.BytesIO()
        pickler = pickle.Pickler(buf, protocol=pickle.HIGHEST_PROTOCOL)
        for piece in fn(index):
            _record(pickler, buf, out, piece)
        _record(pickler, buf, out, _DONE)
        os.write(done, b"\0")
    except BaseException:  # noqa: BLE001 - no end record: the parent computes this share again itself
        pass
    finally:
        os._exit(0)


_HEAD = 8  # the bytes of a record's length, before its pickle


def _record(pickler: pickle.Pickler, buf: io.BytesIO, out: IO[bytes], obj: object) -> None:
    """``obj`` pickled by ``pickler`` (one memo for the whole stream: what two pieces share is written once) and
    written to ``out`` whole, behind its length, so that the parent never loads a record the child is still
    writing."""
    pickler.dump(obj)
    data = buf.getvalue()
    buf.seek(0)
    buf.truncate()
    out.write(len(data).to_bytes(_HEAD, "little"))
    out.write(data)
    out.flush()


class _Record:
    """What the unpickler of one child's stream reads: one whole record at a time. It has no ``peek``, so the
    unpickler reads no further than the pickle it loads, which ends where the record does."""

    def __init__(self) -> None:
        self._data = b""
        self._at = 0

    def set(self, data: bytes) -> None:
        self._data, self._at = data, 0

    def left(self) -> int:
        return len(self._data) - self._at

    def read(self, n: int = -1) -> bytes:
        end = len(self._data) if n < 0 else min(self._at + n, len(self._data))
        got = self._data[self._at:end]
        self._at = end
        return got

    def readinto(self, b: Any) -> int:
        got = self.read(len(b))
        b[:len(got)] = got
        return len(got)

    def readline(self) -> bytes:
        cut = self._data.find(b"\n", self._at) + 1 or len(self._data)
        got = self._data[self._at:cut]
        self._at = cut
        return got


class _Stream:
    """One child's records, loaded as they arrive: :meth:`take` between the pieces of the parent's own share (so
    that unpickling the child's pieces is not left to the end, when the other process has nothing left to do and
    waits), then :meth:`finish` once the child is gone. The file is read with ``pread`` at this reader's own offset:
    the parent and the child share the file's position."""

    def __init__(self, index: int, pid: int, out: IO[bytes], done: int) -> None:
        self.index, self.pid, self.out, self.done_fd = index, pid, out, done
        self.pieces: list[object] = []
        self.done = False  # the end record was loaded
        self.broken = False  # a record could not be loaded: the share is computed again
        self._offset = 0
        self._record = _Record()
        self._unpickler = pickle.Unpickler(self._record)  # one memo for the whole stream, as the child's pickler

    def take(self) -> None:
        """Load every whole record the child has written so far."""
        if self.done or self.broken:
            return
        try:
            fd = self.out.fileno()
            size = os.fstat(fd).st_size
            while not self.done and size - self._offset >= _HEAD:
                length = int.from_bytes(os.pread(fd, _HEAD, self._offset), "little")
                if size - self._offset - _HEAD < length:
                    return  # the child is still writing it
                data = os.pread(fd, length, self._offset + _HEAD)
                if len(data) != length:
                    raise EOFError("a record shorter than its length")
                self._record.set(data)
                piece = self._unpickler.load()
                if self._record.left():
                    raise pickle.UnpicklingError("a record holds more than its pickle")
                self._offset += _HEAD + length
                if isinstance(piece, str) and piece == _DONE:
                    self.done = True
                else:
                    self.pieces.append(piece)
        except Exception:  # noqa: BLE001 - a torn or unreadable record: the share is computed again here
            self.broken = True

    def finish(self) -> list[object] | None:
        """Wait for the child's last record and load what is left: its pieces, or None when it did not finish (no
        end record). The wait is for the byte the child writes after its end record (or the end of the pipe, when
        the child is gone without writing it), not for the child's exit: a child that has sent everything is
        reaped without waiting where it is gone already, else at the next :func:`map_pieces` or :func:`reap`."""
        try:
            try:
                sent = os.read(self.done_fd, 1)
            except OSError:
                sent = b""
            if not sent:  # gone without its end record (or the pipe failed): wait for it, then see what it left
                os.waitpid(self.pid, 0)
            else:
                _reap_later(self.pid)
            self.take()
            return self.pieces if self.done and not self.broken else None
        finally:
            self.out.close()
            self.close_pipe()

    def close_pipe(self) -> None:
        if self.done_fd >= 0:
            os.close(self.done_fd)
            self.done_fd = -1


#: Children that sent everything but had not exited when their share was taken (:meth:`_Stream.finish`): reaped by
#: the next :func:`map_pieces`, by :func:`reap`, or at this process's exit (an exit handler: a child reaped adds its
#: CPU time to this process's children's, which is what a benchmark of the whole lint reads).
_UNREAPED: list[int] = []
_AT_EXIT: list[bool] = []  # the exit handler is registered


def _reap_later(pid: int) -> None:
    try:
        gone, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return
    if not gone:
        _UNREAPED.append(pid)
        if not _AT_EXIT:
            import atexit

            atexit.register(reap)
            _AT_EXIT.append(True)


def reap() -> None:
    """Wait for every child :func:`map_pieces` left running after it had sent everything (each is on its way out:
    it has written its last byte and calls ``os._exit``)."""
    while _UNREAPED:
        pid = _UNREAPED.pop()
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass


def map_parts(fn: Callable[[int], T], parts: int) -> list[T]:
    """``[fn(0), …, fn(parts - 1)]``, the shares from 1 on computed in forked processes."""
    return [pieces[0] for pieces in map_pieces(lambda i: (fn(i),), parts)]


def map_pieces(fn: Callable[[int], Iterable[T]], parts: int) -> list[list[T]]:
    """``[list(fn(0)), …, list(fn(parts - 1))]``, the shares from 1 on computed in forked processes that
    send each piece back as soon as it is made, and this process loads the pieces sent so far after each piece
    of its own share: the child pickles while this process works, and this process unpickles while the child
    works, rather than all of it once its own share is done, when the child has nothing left to do (0.046-0.067 s of
    CPU on the 2,000-file lint's reading, on this process alone, before; issue 30)."""
    reap()
    if parts <= 1 or not can_fork():
        return [list(fn(i)) for i in range(parts)]
    for stream in (sys.stdout, sys.stderr):  # nothing buffered may be written twice
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    children: list[_Stream] = []
    here: list[int] = []  # shares no process could be started for (no temporary file, no fork)
    try:
        for i in range(1, parts):
            try:
                out: IO[bytes] = tempfile.TemporaryFile()
            except OSError:
                here.append(i)
                continue
            try:
                done, done_w = os.pipe()
            except OSError:
                out.close()
                here.append(i)
                continue
            try:
                pid = os.fork()
            except OSError:
                out.close()
                os.close(done)
                os.close(done_w)
                here.append(i)
                continue
            if pid == 0:
                os.close(done)
                _child(fn, i, out, done_w)  # never returns
            os.close(done_w)  # the child holds the only writing end: the pipe ends when the child is gone
            children.append(_Stream(i, pid, out, done))
        mine: list[T] = []
        for piece in fn(0):
            mine.append(piece)
            for child in children:  # what the children have sent so far, loaded between this share's pieces
                child.take()
        results: dict[int, list[T]] = {0: mine}
        for i in here:
            results[i] = list(fn(i))
    except BaseException:
        _abandon(children)
        raise
    pending = list(children)
    while pending:
        child = pending.pop(0)
        try:
            got = child.finish()
        except BaseException:
            _abandon(pending)
            raise
        results[child.index] = list(fn(child.index)) if got is None else got  # type: ignore[assignment]
    return [results[i] for i in range(parts)]


def _abandon(children: list[_Stream]) -> None:
    """Stop and reap children whose work is no longer wanted."""
    for child in children:
        child.out.close()
        child.close_pipe()
        try:
            os.kill(child.pid, signal.SIGKILL)
            os.waitpid(child.pid, 0)
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


def batches(count: int, parts: int, size: int, least: int) -> list[tuple[int, int]]:
    """``(start, stop)`` batches over ``count`` items for ``parts`` processes taking :class:`Tickets`, in order and
    together covering every index once: ``size`` items each (more where ``count`` would need more batches than
    half of :data:`Tickets.MOST`), and towards the end smaller ones, each about an eighth of what is left per
    process (``least`` at the fewest; guided self-scheduling). A process that takes the last batch holds the others
    up by at most that batch, and the parent loads a reading child's last batch after its own share is done: with
    batches of ``size`` to the end both cost up to a whole batch of work on one core while the other waits
    (lintspeed14: 3-37 ms at each of the lint's two parallel steps)."""
    size = max(size, least, -(-count // (Tickets.MOST // 2)))
    bounds: list[tuple[int, int]] = []
    at = 0
    while at < count:
        step = min(size, max(least, -(-(count - at) // (4 * max(1, parts)))))
        bounds.append((at, min(at + step, count)))
        at += step
    if len(bounds) > Tickets.MOST:  # many processes: the tail's small batches would need more tickets than a pipe holds
        bounds = [(at, min(at + size, count)) for at in range(0, count, size)]
    return bounds


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
