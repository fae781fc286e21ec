"""Work split over forked processes, the calling process doing one share itself.

A lint of thousands of files spends its time in Python code that one interpreter runs on one core.
:func:`map_parts` runs ``fn(0)`` here and ``fn(1)`` … ``fn(n-1)`` each in a process forked from
this one, so the children see everything this process has built (the inventory, the catalog, the
memos) without it being copied to them; only their results come back, pickled through a pipe.

A child that fails in any way (an exception, a signal, a result that cannot be pickled) is not an
error: its share is computed again here, where an exception takes the caller's usual path. On
platforms without ``fork`` every share is computed here, one after the other.
"""

from __future__ import annotations

import os
import pickle
import sys
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def can_fork() -> bool:
    return sys.platform == "linux" and hasattr(os, "fork")


def _child(fn: Callable[[int], object], index: int, fd: int) -> None:
    """In the child: compute share ``index``, write it to ``fd`` pickled, and leave without running the
    parent's exit handlers or flushing its buffers (they belong to the parent)."""
    try:
        try:
            data = pickle.dumps(fn(index), protocol=pickle.HIGHEST_PROTOCOL)
        except BaseException:  # noqa: BLE001 - the parent computes this share again and sees the error itself
            data = b""
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os._exit(0)


def _collect(pid: int, fd: int) -> tuple[bool, object]:
    """Read a child's result and wait for it: ``(True, result)``, or ``(False, None)`` when it has none."""
    chunks = []
    try:
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
    finally:
        os.close(fd)
        os.waitpid(pid, 0)
    data = b"".join(chunks)
    if not data:
        return False, None
    try:
        return True, pickle.loads(data)
    except Exception:  # noqa: BLE001 - a truncated result: computed again by the caller
        return False, None


def map_parts(fn: Callable[[int], T], parts: int) -> list[T]:
    """``[fn(0), …, fn(parts - 1)]``, the shares from 1 on computed in forked processes."""
    if parts <= 1 or not can_fork():
        return [fn(i) for i in range(parts)]
    for stream in (sys.stdout, sys.stderr):  # nothing buffered may be written twice
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    children: list[tuple[int, int, int]] = []
    try:
        for i in range(1, parts):
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(r)
                _child(fn, i, w)  # never returns
            os.close(w)
            children.append((i, pid, r))
        results: list[T] = [fn(0)]
    except BaseException:
        for _, pid, r in children:  # leave no child behind
            os.close(r)
            try:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
            except OSError:
                pass
        raise
    pending = list(children)
    while pending:
        i, pid, r = pending.pop(0)
        try:
            ok, value = _collect(pid, r)
        except BaseException:
            for _, other, fd in pending:
                os.close(fd)
                try:
                    os.kill(other, 9)
                    os.waitpid(other, 0)
                except OSError:
                    pass
            raise
        results.append(value if ok else fn(i))  # type: ignore[arg-type]
    return results


def spans(weights: list[int], parts: int) -> list[tuple[int, int]]:
    """``parts`` contiguous ``(start, stop)`` ranges over ``weights`` with about equal sums (none empty
    unless there are fewer items than parts); together they cover every index once, in order."""
    n = len(weights)
    parts = max(1, min(parts, n))
    if not any(weights):  # nothing weighs anything: count the items instead
        weights = [1] * n
    total = sum(weights)
    bounds = [0]
    acc = 0
    i = 0
    for k in range(1, parts):
        target = total * k / parts
        while i < n - (parts - k) and (acc + weights[i] <= target or i < bounds[-1] + 1):
            acc += weights[i]
            i += 1
        bounds.append(i)
    bounds.append(n)
    return [(bounds[k], bounds[k + 1]) for k in range(parts)] if n else [(0, 0)]
