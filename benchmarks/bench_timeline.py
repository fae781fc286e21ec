#!/usr/bin/env python3
"""The timeline of one ``shardwise lint``: what each process does when, and how much of the wall time one process
works alone (the serial part, which a second core cannot shorten).

    .venv/bin/python benchmarks/bench_timeline.py FOLDER [--runs 5] [--jobs 2] [--json OUT] [--python PY ...]

Each run is a fresh process (``--probe``) that runs ``shardwise lint FOLDER --format json --output /dev/null
--jobs N`` through ``cli.main`` with, in every process (the parent and each forked child of ``engine.forked``), the
wall time (``time.monotonic``: one clock for every process of the machine) and the CPU time (``time.process_time``)
marked at: each reading batch (``adapters._load_chunk``), each rules batch (``engine.split.run_rules``), each
parallel step's start (``forked.map_pieces``), the end of the parent's own share of it, the parent's loads of a
child's records between its own batches (``_Stream.take``) and its wait for each child (``_Stream.finish``),
``select_inputs``, ``assign_units``, ``resolve_pools``, ``model_input_errors``, ``rules_for``, the report's
construction, ``merge_undecided``, its render and its write; and the modules the parent imported by each step. A
child writes its marks to stderr before it leaves. Nothing else is changed: the lint does the same work (the marks
add a few microseconds each, a few hundred marks a run).

``--python`` names a build's interpreter (another worktree's ``.venv/bin/python``); given twice, the builds alternate
run by run, each run a fresh process, and each build's medians are printed apart. Printed per run: the wall time
from the spawn to the reaping, the CPU of the lint and its children, the serial part and the parent's CPU outside
the two parallel steps; per build, the medians of the parent's phases (wall from the probe's first mark, the parent's
CPU in each), each child's span, batches and CPU, and for each step the parent's wait for the child and the child's
last mark against the parent's share's end (the tail). The serial part is the wall time minus the time in which two
processes did the lint's work at once (a child from its fork to its last mark; the parent from a step's start to its
own share's end, and its loads of a child's records after it), from the probe's first mark to ``main``'s return. The
interpreter's start and the imports before ``cli.main`` come before the probe's first mark: it also times
``python -c pass`` and ``python -c 'import shardwise.rules.app.cli'`` (least of five). The probe runs ``cli.main`` as
the console script does (``cli.console_main``: the collector off, the report kept to the end rather than freed when
the command returns, then the exit handlers and ``os._exit``), its last mark just before ``os._exit``: the time from
it to the reaping is the process's exit (the kernel's release of its memory). ``reap`` is the parent's wait for a
child that sent everything to be gone (before the rules' fork and at the exit).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

_MARK = "bench_timeline: "
_EVENTS: list[tuple[str, float, float, float, float]] = []  # (name, wall start, wall end, cpu start, cpu end)
_MODULES: dict[str, list[str]] = {}  # the modules imported in the parent before each mark (its name)


def _span(name: str, w0: float, c0: float) -> None:
    _EVENTS.append((name, w0, time.monotonic(), c0, time.process_time()))


def _wrap(owner: Any, attr: str, name: str) -> None:
    fn: Callable[..., Any] = getattr(owner, attr)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        w0, c0 = time.monotonic(), time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            _span(name, w0, c0)

    setattr(owner, attr, wrapper)


def _modules(mark: str) -> None:
    _MODULES[mark] = sorted(sys.modules)


def _emit(role: str) -> None:
    line = {"role": role, "pid": os.getpid(), "events": _EVENTS, "modules": _MODULES if role == "parent" else {}}
    sys.stderr.write(_MARK + json.dumps(line) + "\n")
    sys.stderr.flush()


def _probe(argv: list[str]) -> int:
    """In the linting process: the lint with its steps marked; each process writes its marks at its end."""
    begun_w, begun_c = time.monotonic(), time.process_time()
    import shardwise.rules.adapters as adapters
    import shardwise.rules.app.run as run
    import shardwise.rules.catalog.resolve as resolve
    import shardwise.rules.checks.index as index
    import shardwise.rules.engine as engine
    import shardwise.rules.engine.forked as forked
    import shardwise.rules.report as report
    from shardwise.rules.app import cli, output

    _span("imports (the probe's)", begun_w, begun_c)
    _wrap(adapters, "_load_chunk", "read batch")
    _wrap(adapters, "resolve_pools", "resolve_pools")
    _wrap(adapters, "select_inputs", "select_inputs")
    _wrap(resolve, "model_input_errors", "model_input_errors")
    _wrap(index, "rules_for", "rules_for")
    _wrap(engine, "merge_undecided", "merge_undecided")
    _wrap(run, "render_bytes", "render_bytes")
    _wrap(output, "write_atomically", "write")
    _wrap(report, "Report", "Report()")
    import shardwise.rules.adapters.units as units

    _wrap(units, "assign_units", "assign_units")
    _wrap(forked._Stream, "take", "take")  # noqa: SLF001 - a benchmark's probe, not the project's code
    _wrap(forked._Stream, "finish", "finish")  # noqa: SLF001
    _wrap(forked, "reap", "reap")  # the wait for a child that sent everything to be gone (its exit)
    map_pieces = forked.map_pieces
    step = ["read"]

    def marked_map_pieces(fn: Callable[[int], Iterable[Any]], parts: int) -> list[list[Any]]:
        kind = step[0]
        step[0] = "rules"

        def share(i: int) -> Iterator[Any]:
            w0, c0 = time.monotonic(), time.process_time()
            for piece in fn(i):
                w1, c1 = time.monotonic(), time.process_time()
                _EVENTS.append((f"{kind} piece", w0, w1, c0, c1))
                yield piece
                w0, c0 = time.monotonic(), time.process_time()
            _span(f"{kind} share end", w0, c0)

        _modules(f"{kind} step start")
        w0, c0 = time.monotonic(), time.process_time()
        try:
            return map_pieces(share, parts)
        finally:
            _span(f"{kind} step", w0, c0)
            _modules(f"{kind} step end")

    forked.map_pieces = marked_map_pieces  # split imports it by name when the rules' step first needs it
    import shardwise.rules.engine.split as split

    split.map_pieces = marked_map_pieces
    _wrap(split, "run_rules", "rules batch")
    child: Callable[..., None] = forked._child  # noqa: SLF001

    def marked_child(fn: Any, index: int, out: Any, done: int) -> None:
        _EVENTS.clear()
        _EVENTS.append(("forked", time.monotonic(), time.monotonic(), time.process_time(), time.process_time()))
        leave = os._exit

        def emit_and_leave(code: int) -> None:
            _emit("child")
            leave(code)

        os._exit = emit_and_leave  # type: ignore[assignment]
        child(fn, index, out, done)

    forked._child = marked_child  # noqa: SLF001
    import gc

    gc.disable()  # as cli.console_main, which the shardwise console script runs: the collector off, and the report
    cli._KEPT = []  # kept to the end, not freed object by object when the command returns (it ends by os._exit)
    w0, c0 = time.monotonic(), time.process_time()
    _modules("main start")
    code = cli.main(argv)
    _span("main", w0, c0)
    _modules("main end")
    # then the end the console script makes (cli.console_main): the exit handlers, the flushes, os._exit; the
    # last mark is taken just before os._exit, so that the spawner's reaping time minus it is the process's exit
    import atexit

    w0, c0 = time.monotonic(), time.process_time()
    atexit._run_exitfuncs()
    sys.stdout.flush()
    _span("exit handlers", w0, c0)
    _EVENTS.append(("os._exit", time.monotonic(), time.monotonic(), time.process_time(), time.process_time()))
    _emit("parent")
    os._exit(code)


def _run(folder: str, jobs: int, python: str) -> dict[str, Any]:
    cmd = [python, os.path.abspath(__file__), "--probe", "lint", folder, "--format", "json",
           "--output", os.devnull, "--jobs", str(jobs)]
    t0, c0 = time.monotonic(), os.times()
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    t1, c1 = time.monotonic(), os.times()
    lines = [json.loads(x[len(_MARK):]) for x in done.stderr.splitlines() if x.startswith(_MARK)]
    parents = [x for x in lines if x["role"] == "parent"]
    if not parents:
        raise SystemExit(f"bench_timeline: the lint did not report:\n{done.stderr}")
    cpu = (c1.children_user - c0.children_user) + (c1.children_system - c0.children_system)
    children = [x for x in lines if x["role"] == "child"]
    return {"spawned": t0, "reaped": t1, "cpu": cpu, "parent": parents[0], "children": children}


def _busy(events: list[list[Any]], child: bool) -> list[tuple[float, float]]:
    """The spans in which a process did the lint's work of a parallel step: a child from its fork to its last mark
    (its batches and its pickling), the parent from the step's start to its own share's end and then its loads of
    a child's records (``take``), not its wait."""
    if child:
        return [(events[0][1], max(e[2] for e in events))] if events else []
    spans = []
    for kind in ("read", "rules"):
        step = [e for e in events if e[0] == f"{kind} step"]
        end = [e for e in events if e[0] == f"{kind} share end"]
        if step and end:
            spans.append((step[0][1], end[0][2]))
    return spans + [(e[1], e[2]) for e in events if e[0] == "take"]


def _union(spans: list[tuple[float, float]]) -> list[tuple[float, float]]:
    out: list[tuple[float, float]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _overlap(x: list[tuple[float, float]], y: list[tuple[float, float]]) -> float:
    total, i, j = 0.0, 0, 0
    while i < len(x) and j < len(y):
        a, b = max(x[i][0], y[j][0]), min(x[i][1], y[j][1])
        total += max(0.0, b - a)
        if x[i][1] < y[j][1]:
            i += 1
        else:
            j += 1
    return total


_MAIN = "probe's first mark to main's return"
_SERIAL = "serial: main's wall minus both at work"
_OUTSIDE = "the parent's CPU outside the two steps"


def _analyse(run: dict[str, Any]) -> dict[str, float]:
    """One run's figures, in seconds: the parent's phases by wall and CPU, the steps' overlap and tails."""
    ev = run["parent"]["events"]
    first = ev[0][1]  # the probe's first mark (before its imports)

    def one(name: str) -> list[Any]:
        got = [e for e in ev if e[0] == name]
        return got[0] if got else [name, 0.0, 0.0, 0.0, 0.0]

    main_ = one("main")
    read, rules = one("read step"), one("rules step")
    out: dict[str, float] = {
        "process (spawn to reaped)": run["reaped"] - run["spawned"],
        "CPU of the lint and its children (user + system)": run["cpu"],
        "spawn to the probe's first mark": first - run["spawned"],
        _MAIN: main_[2] - first,
        "parent CPU, main": main_[4] - main_[3],
        "to the reading's step (wall)": read[1] - first,
        "the reading's step (wall)": read[2] - read[1],
        "between the steps (wall)": rules[1] - read[2],
        "the rules' step (wall)": rules[2] - rules[1],
        "after the rules' step (wall)": main_[2] - rules[2],
        "main's return to os._exit (the exit handlers, wall)": one("os._exit")[1] - main_[2],
        "os._exit to reaped (the kernel's exit, wall)": run["reaped"] - one("os._exit")[1],
        "to the reading's step (parent CPU)": read[3] - ev[0][3],
        "between the steps (parent CPU)": rules[3] - read[4],
        "after the rules' step (parent CPU)": main_[4] - rules[4],
    }
    out[_OUTSIDE] = (out["to the reading's step (parent CPU)"] + out["between the steps (parent CPU)"]
                     + out["after the rules' step (parent CPU)"])
    reaps = [e for e in ev if e[0] == "reap"]
    out["  reap before the rules' fork (wall)"] = sum(e[2] - e[1] for e in reaps if e[1] < rules[1])
    out["  reap at the exit (wall)"] = sum(e[2] - e[1] for e in reaps if e[1] >= main_[2])
    for name in ("select_inputs", "assign_units", "resolve_pools", "model_input_errors", "rules_for", "Report()",
                 "merge_undecided", "render_bytes", "write", "exit handlers"):
        e = one(name)
        out[f"  {name} (wall)"] = e[2] - e[1]
        out[f"  {name} (CPU)"] = e[4] - e[3]
    mine = _union(_busy(ev, False))
    theirs = _union([s for c in run["children"] for s in _busy(c["events"], True)])
    both = _overlap(mine, theirs)
    out["both processes at work (wall)"] = both
    out[_SERIAL] = (main_[2] - first) - both
    for kind, stepev in (("read", read), ("rules", rules)):
        share_end = one(f"{kind} share end")
        finishes = [e for e in ev if e[0] == "finish" and stepev[1] <= e[1] <= stepev[2]]
        out[f"{kind}: the parent's share (wall)"] = share_end[2] - stepev[1]
        out[f"{kind}: the parent's wait for the child (finish, wall)"] = sum(e[2] - e[1] for e in finishes)
        kids = [c for c in run["children"] if c["events"] and stepev[1] <= c["events"][0][1] <= stepev[2]]
        for c in kids:
            cev = c["events"]
            last = max(e[2] for e in cev)
            out[f"{kind}: the child's span (fork to last mark)"] = last - cev[0][1]
            out[f"{kind}: the child's batches"] = sum(1 for e in cev if e[0] in ("read batch", "rules batch"))
            out[f"{kind}: the child's CPU"] = max(e[4] for e in cev) - cev[0][3]
            out[f"{kind}: child's last mark minus the parent's share end"] = last - share_end[2]
        out[f"{kind}: the parent's CPU in the step"] = stepev[4] - stepev[3]
        out[f"{kind}: the parent's batches"] = sum(
            1 for e in ev if e[0] in ("read batch", "rules batch") and stepev[1] <= e[1] <= stepev[2])
    return out


def _start_costs(repeat: int) -> dict[str, float]:
    """Wall of ``python -c pass`` and of the CLI's import alone, least of ``repeat`` each."""
    got: dict[str, float] = {}
    for label, code in (("python -c pass", "pass"), ("python -c 'import shardwise.rules.app.cli'",
                                                       "import shardwise.rules.app.cli")):
        best = float("inf")
        for _ in range(repeat):
            t0 = time.monotonic()
            subprocess.run([sys.executable, "-c", code], check=True)
            best = min(best, time.monotonic() - t0)
        got[label] = best
    return got


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--probe"]:
        return _probe(argv[1:])
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("folder")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", help="write every run's marks and figures here")
    ap.add_argument("--python", action="append", default=[],
                    help="the interpreter of a build to time (its virtual environment's python); given twice or "
                         "more, the builds alternate run by run (default: this interpreter)")
    args = ap.parse_args(argv)
    pythons = args.python or [sys.executable]
    runs: dict[str, list[dict[str, Any]]] = {p: [] for p in pythons}
    figures: dict[str, list[dict[str, float]]] = {p: [] for p in pythons}
    for k in range(args.runs):
        for python in pythons:
            load = os.getloadavg()[0]
            run = _run(args.folder, args.jobs, python)
            run["load"], run["utc"] = load, time.strftime("%H:%M:%S", time.gmtime())
            runs[python].append(run)
            figures[python].append(_analyse(run))
            last = figures[python][-1]
            wall = last["process (spawn to reaped)"]
            print(f"run {k + 1} {python}: {run['utc']} UTC, load {load:.2f}, wall {wall:.3f} s, "
                  f"CPU {run['cpu']:.3f} s, serial {last[_SERIAL]:.3f} s, the parent's CPU outside the steps "
                  f"{last[_OUTSIDE]:.3f} s", flush=True)
    for python in pythons:
        got = figures[python]
        loads = [r["load"] for r in runs[python]]
        print(f"\n{python}: medians of {len(got)} runs (load {min(loads):.2f}-{max(loads):.2f}):")
        for key in dict.fromkeys(k for f in got for k in f):
            values = [f[key] for f in got if key in f]
            print(f"  {key:60s} {statistics.median(values):8.3f}   (least {min(values):.3f}, most {max(values):.3f})")
        mods = runs[python][-1]["parent"].get("modules", {})
        marks = ["main start", "read step start", "read step end", "rules step start", "rules step end", "main end"]
        if all(m in mods for m in marks):
            print("  modules imported in the parent (the last run):")
            for a, b in zip(marks, marks[1:], strict=False):
                new = sorted(set(mods[b]) - set(mods[a]))
                names = ", ".join(x.replace("shardwise.rules.", "") for x in new)
                print(f"    {a} -> {b}: {len(new)}" + (f" ({names})" if new else ""))
    starts = _start_costs(5)
    for label, v in starts.items():
        print(f"  {label:60s} {v:8.3f}   (least of 5)")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"runs": runs, "figures": figures, "starts": starts}, fh)
    return 0


if __name__ == "__main__":
    sys.exit(main())
