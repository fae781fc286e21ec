"""Wall-clock limits that hold on a busy machine (loadlimits1).

A wall-clock limit on a child process is there to catch one that is blocked (reading a FIFO, waiting on a network)
and uses no CPU; the guard against a hostile input that works without end is a CPU limit (``RLIMIT_CPU``), which the
machine's load does not move. On a runner whose cores are shared, a process that has the CPU a third of the time
takes three times as long, and a fixed wall limit turns a good input into a false error. So each wall limit here is
its base figure times the load per core (the one-minute load average over the cores), where that is above 1: a
blocked process is still found, later.
"""

from __future__ import annotations

import os


def load_per_core() -> float:
    """The one-minute load average over the cores this process may run on; 1.0 where the system says neither."""
    try:
        load = os.getloadavg()[0]
    except (OSError, AttributeError):  # no load average (not Unix)
        return 1.0
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return load / max(1, cores)


def wall_limit(base_s: float) -> int:
    """``base_s`` seconds, times the load per core where it is above 1, in whole seconds (rounded up)."""
    scaled = base_s * max(1.0, load_per_core())
    return int(-(-scaled // 1))
