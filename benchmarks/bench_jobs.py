#!/usr/bin/env python3
"""What a lint over two processes costs beside one: each process's CPU, and the CPU of each step.

    .venv/bin/python benchmarks/bench_jobs.py [--n 2000] [--seed 0] [--pairs 3]

Generates ``--n`` manifests (``gen_manifests.py``), then runs ``shardwise lint DIR --format json --output
/dev/null`` as a new process, ``--jobs 1`` and ``--jobs 2`` alternately (``--pairs`` times each, so that each
``--jobs 2`` run has a ``--jobs 1`` run made just before it at about the same load). In every process of a run
(the parent and the forked children of ``engine.forked``) it measures, with ``time.process_time()``, the reading
(``adapters._load_chunk``), the rules (``engine.run_rules``, in one process or per batch), the workload summaries,
and what ``pickle`` writes and reads between the processes, and at each process's end its user and system time
and minor page faults (``getrusage``). It prints one line per process and the totals of each run. The figures are
CPU: on a loaded machine wall time says little (benchmarks/README.md).

``--trip`` measures instead what the reading's inventory weighs on its trip between two processes, and what a trip
of only the cross-file facts would weigh (every list but the serving groups: what workers that ran the per-workload
rules themselves would still send for the joins): the files read in this process, then the pickled bytes of each of
the inventory's lists and of the groups' largest fields, and the least CPU of ``--repeat`` pickles and unpickles of
the whole inventory and of it without its groups.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import pickle
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

_STEPS: dict[str, float] = {}
_MARK = "bench_jobs: "


def _timed(owner: Any, name: str, step: str) -> None:
    """Replace ``owner.name`` by the same callable that adds its CPU time to ``_STEPS[step]``."""
    fn: Callable[..., Any] = getattr(owner, name)

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            _STEPS[step] = _STEPS.get(step, 0.0) + time.process_time() - start

    setattr(owner, name, wrapper)


def _report(role: str, since: resource.struct_rusage | None = None) -> None:
    now = resource.getrusage(resource.RUSAGE_SELF)
    base = since or resource.struct_rusage((0,) * 16)
    line = {"role": role, "pid": os.getpid(), "user": now.ru_utime - base.ru_utime,
            "sys": now.ru_stime - base.ru_stime, "minflt": now.ru_minflt - base.ru_minflt, **_STEPS}
    sys.stderr.write(_MARK + json.dumps(line) + "\n")
    sys.stderr.flush()


def _probe(argv: list[str]) -> int:
    """In the linting process: the lint with every step timed; each process reports at its end."""
    import shardwise.rules.adapters as adapters
    import shardwise.rules.engine as engine
    import shardwise.rules.engine.forked as forked
    import shardwise.rules.engine.split as split
    import shardwise.rules.report.summary as summary
    from shardwise.rules.app import cli

    _timed(adapters, "_load_chunk", "read")
    _timed(engine, "run_rules", "rules")
    _timed(split, "run_rules", "rules")
    _timed(summary, "workload_summary", "summaries")
    pickler = type("Pickler", (pickle.Pickler,), {})  # the C types take no new attributes; subclasses do
    unpickler = type("Unpickler", (pickle.Unpickler,), {})
    _timed(pickler, "dump", "pickle")
    _timed(unpickler, "load", "unpickle")
    setattr(pickle, "Pickler", pickler)  # noqa: B010 - engine.forked looks them up in pickle at each use
    setattr(pickle, "Unpickler", unpickler)  # noqa: B010
    child: Callable[..., None] = forked._child  # noqa: SLF001 - a benchmark's probe, not the project's code

    def timed_child(fn: Any, index: int, out: Any, done: int) -> None:
        _STEPS.clear()
        start = resource.getrusage(resource.RUSAGE_SELF)
        leave = os._exit

        def report_and_leave(code: int) -> None:
            _report("child", start)
            leave(code)

        os._exit = report_and_leave  # type: ignore[assignment]
        child(fn, index, out, done)

    setattr(forked, "_child", timed_child)  # noqa: B010
    sink = open(os.devnull, "w")  # noqa: SIM115 - the summary line the lint prints
    sys.stdout = sink
    try:
        cli.main(argv)
    except SystemExit:
        pass
    _report("parent")
    return 0


def _trip(folder: str, repeat: int) -> None:
    """``--trip``: the inventory of ``folder`` pickled whole, list by list, and without its serving groups (the
    cyclic collector paused, as ``shardwise lint`` pauses it)."""
    import dataclasses
    import gc

    gc.disable()

    from shardwise.rules.adapters import load_file
    from shardwise.rules.model import Inventory

    inv = Inventory()
    for name in sorted(os.listdir(folder)):
        inv.extend(load_file(os.path.join(folder, name)))
    facts = dataclasses.replace(inv, groups=[])

    def least(fn: Callable[[], object]) -> float:
        best = float("inf")
        for _ in range(repeat):
            start = time.process_time()
            fn()
            best = min(best, time.process_time() - start)
        return best

    for label, what in (("whole inventory", inv), ("without the serving groups", facts)):
        data = pickle.dumps(what, protocol=pickle.HIGHEST_PROTOCOL)
        dump = least(lambda: pickle.dumps(what, protocol=pickle.HIGHEST_PROTOCOL))  # noqa: B023 - called here
        load = least(lambda: pickle.loads(data))  # noqa: B023 - called here
        print(f"{label}: {len(data):,} bytes, pickle {dump:.3f} s, unpickle {load:.3f} s (least of {repeat})")
    print("bytes pickled, list by list:")
    for f in dataclasses.fields(inv):
        value = getattr(inv, f.name)
        if isinstance(value, list) and value:
            print(f"  {f.name:20s} {len(value):6d} {len(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)):>11,}")
    if inv.groups:
        sizes = {f.name: len(pickle.dumps([getattr(g, f.name) for g in inv.groups], protocol=pickle.HIGHEST_PROTOCOL))
                 for f in dataclasses.fields(inv.groups[0])}
        print("the serving groups' largest fields (each pickled alone: what they share is counted in each):")
        for name, size in sorted(sizes.items(), key=lambda kv: -kv[1])[:8]:
            print(f"  {name:20s} {size:>11,}")


def _run(folder: str, jobs: int) -> list[dict[str, Any]]:
    cmd = [sys.executable, os.path.abspath(__file__), "--probe", "lint", folder, "--format", "json",
           "--output", os.devnull, "--jobs", str(jobs)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    lines = [json.loads(x[len(_MARK):]) for x in done.stderr.splitlines() if x.startswith(_MARK)]
    if not any(x["role"] == "parent" for x in lines):
        raise SystemExit(f"bench_jobs: the lint did not report:\n{done.stderr}")
    return lines


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--probe"]:
        return _probe(argv[1:])
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--n", type=int, default=2000, help="manifest files to generate (default 2000)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--pairs", type=int, default=3, help="--jobs 1 / --jobs 2 runs, alternating (default 3)")
    ap.add_argument("--trip", action="store_true",
                    help="measure the inventory's pickled size and pickling CPU instead, whole and without its groups")
    ap.add_argument("--repeat", type=int, default=5, help="with --trip: pickles and unpickles timed (default 5)")
    args = ap.parse_args(argv)
    import gen_manifests

    with tempfile.TemporaryDirectory() as tmp:
        gen_manifests.generate(tmp, n=args.n, seed=args.seed)
        if args.trip:
            _trip(tmp, args.repeat)
            return 0
        for pair in range(args.pairs):
            for jobs in (1, 2):
                procs = _run(tmp, jobs)
                print(f"pair {pair + 1}, --jobs {jobs}, load {os.getloadavg()[0]:.1f}")
                total: dict[str, float] = {}
                for p in procs:
                    steps = {k: v for k, v in p.items() if k not in ("role", "pid")}
                    print(f"  {p['role']:6s} " + "  ".join(
                        f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}" for k, v in steps.items()))
                    for k, v in steps.items():
                        total[k] = total.get(k, 0) + v
                cpu = total.get("user", 0.0) + total.get("sys", 0.0)
                print(f"  all    CPU {cpu:.3f}  " + "  ".join(
                    f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}" for k, v in total.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
