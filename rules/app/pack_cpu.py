"""Where the policy pack's CPU time goes in a real preview, written down for ``benchmarks/bench_engine.py``.

With ``SHARDWISE_PACK_CPU_LOG=FILE`` in its environment the pack notes its process's CPU time at three points of its
start (when its entry begins: the interpreter and the Pulumi SDK ``pulumi.policy`` imported; when its own modules
and pulumi-policy's are imported; when its policies are made, before the SDK makes the server), counts the CPU
time of its serving thread in each request handler by method, and writes them, with the process's CPU time then,
to FILE (JSON, replaced whole) after each ``AnalyzeStack``. What the process spends after the last write is its
shutdown; what its serving threads spend outside the handlers is the transport's. At its exit (the exit handlers,
which the pack runs before it ends: ``rules/__main__.py``'s ``exit_served``) it writes the record again with the
process's and its main thread's CPU then (``exit``), which a reader of ``/proc`` every 20 ms misses. Without the
variable nothing is noted and no handler is wrapped. Pure Python: it imports nothing of Pulumi's.
"""

from __future__ import annotations

import atexit
import json
import os
import time
from collections.abc import Callable, Mapping
from typing import Any

ENV = "SHARDWISE_PACK_CPU_LOG"
#: the analyzer protocol's methods a servicer serves (pulumi's ``proto/analyzer.proto``)
METHODS = ("Handshake", "ConfigureStack", "GetAnalyzerInfo", "GetPluginInfo", "Configure", "Remediate", "Analyze",
           "AnalyzeStack", "Cancel")
WRITE_AFTER = "AnalyzeStack"


class CpuLog:
    """The marks of the pack's start and its handlers' CPU time by method, written to :attr:`path`."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.marks: dict[str, float] = {}
        self.methods: dict[str, list[float]] = {}  # method -> [calls, CPU seconds of the serving thread]
        self.last: dict[str, Any] | None = None  # the record written last (after an ``AnalyzeStack``)

    def mark(self, name: str, cpu: float | None = None) -> None:
        """The process's CPU time (``cpu``, else now) at the point ``name`` of the start."""
        self.marks[name] = time.process_time() if cpu is None else cpu

    def wrap(self, servicer: type) -> None:
        """Count each analyzer method the servicer class has (its handlers, as installed) in :attr:`methods`."""
        for name in METHODS:
            handler = getattr(servicer, name, None)
            if handler is not None:
                setattr(servicer, name, self._counted(name, handler))

    def _counted(self, name: str, handler: Callable[..., Any]) -> Callable[..., Any]:
        totals = self.methods.setdefault(name, [0, 0.0])
        write = name == WRITE_AFTER

        def counted(servicer: Any, request: Any, context: Any) -> Any:
            t0 = time.thread_time()
            try:
                return handler(servicer, request, context)
            finally:
                totals[0] += 1
                totals[1] += time.thread_time() - t0
                if write:
                    self.write()

        return counted

    def write(self) -> None:
        record = {"marks": self.marks, "methods": self.methods, "process_cpu": time.process_time()}
        self.last = record
        self._dump(record)

    def at_exit(self) -> None:
        """Write the last record again at the process's exit (:meth:`write_exit`), from the main thread's exit
        handlers."""
        atexit.register(self.write_exit)

    def write_exit(self) -> None:
        """The last record with ``exit``: the process's CPU and the calling (main) thread's now; nothing before an
        ``AnalyzeStack`` was written."""
        if self.last is not None:
            at_exit = {"process_cpu": time.process_time(), "main_thread_cpu": time.thread_time()}
            self._dump({**self.last, "exit": at_exit})

    def _dump(self, record: dict[str, Any]) -> None:
        tmp = f"{self.path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(record, fh)
        os.replace(tmp, self.path)


def from_environment(environ: Mapping[str, str] = os.environ) -> CpuLog | None:
    """The log ``SHARDWISE_PACK_CPU_LOG`` asks for, or ``None``."""
    path = environ.get(ENV)
    return CpuLog(path) if path else None
