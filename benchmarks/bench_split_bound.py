"""A floor for the structural step of ``--jobs 2`` (issue 30): each process checks the groups it read.

``--rounds N FOLDER`` alternates N times, each in a fresh process on the same build: ``shardwise lint FOLDER
--format json`` in process (``real``), and a **bound** of the step, and prints each run's wall time, this process's
CPU and its children's (every child reaped first), the load, and the medians.

The bound is NOT the linter and its report is not the linter's: each reading batch is checked, by the process that
read it, against the facts of that batch alone (no exchange of the other process's Services, pools or
NetworkPolicies, no cross-file join); only the facts come back (no serving group crosses a pipe, no second fork); the
parent runs the rules that look at the whole inventory (SW001, SW301, SW305, SW306, SW308 on the generated files) over
no groups at all, and the report counts placeholders for the groups it never received. Every shortcut makes it
cheaper than a correct implementation of the step would be, so what it saves is the most the step can save
(benchmarks/README.md, "The structural step, bounded before it is built").
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator

_MARK = "bench_split_bound: "


def _cpu() -> tuple[float, float, float, float]:
    """User and system CPU of this process, then of its children."""
    from shardwise.rules.engine import forked

    forked.reap()  # a child left to exit on its own (lintspeed14) is reaped, so its CPU is counted
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime, me.ru_stime, kids.ru_utime, kids.ru_stime


def _real(folder: str, out: str) -> str:
    from shardwise.rules.app.cli import main

    main(["lint", folder, "--format", "json", "--output", out])
    return "real"


def _bound(folder: str, out: str) -> str:
    from shardwise.rules.adapters import _load_chunk
    from shardwise.rules.adapters.config import load_config
    from shardwise.rules.adapters.k8s.nodes import resolve_pools
    from shardwise.rules.adapters.select import select_inputs
    from shardwise.rules.app.run import render
    from shardwise.rules.checks.index import CODES, Metas, rules_for
    from shardwise.rules.engine import merge_undecided, run_rules
    from shardwise.rules.engine.findings import Finding
    from shardwise.rules.engine.forked import Tickets, batches, map_pieces
    from shardwise.rules.engine.rule import GroupRule
    from shardwise.rules.model import Inventory
    from shardwise.rules.report import Report
    from shardwise.rules.report.summary import workload_summary_text

    settings = load_config(None, known_codes=set(CODES))
    lint = settings.lint
    gc.disable()
    files = select_inputs([folder], None).files
    bounds = batches(len(files), 2, 25, 4)  # the reading's batches (adapters._BATCH_FILES, _LEAST_FILES)
    Piece = tuple[Inventory, list[Finding], list[str], int]

    def batch(k: int) -> Piece:
        start, stop = bounds[k]
        inv = _load_chunk(files[start:stop])
        resolve_pools(inv)  # with this batch's facts only: the shortcut that makes this a bound
        found = run_rules([r for r in rules_for(inv) if isinstance(r, GroupRule)], inv, lint)
        texts = [workload_summary_text(g, lint) for g in inv.groups]
        n = len(inv.groups)
        inv.groups = []  # only the facts cross
        return inv, found, texts, n

    with Tickets(len(bounds)) as tickets:

        def share(_: int) -> Iterator[tuple[int, Piece]]:
            for k in tickets:
                yield k, batch(k)

        done = {k: piece for pieces in map_pieces(share, 2) for k, piece in pieces}
    inv = Inventory()
    findings: list[Finding] = []
    texts: list[str] = []
    n = 0
    for k in range(len(bounds)):
        facts, found, made, count = done[k] if k in done else batch(k)
        inv.extend(facts)
        findings.extend(found)
        texts.extend(made)
        n += count
    findings.extend(run_rules([r for r in rules_for(inv) if not isinstance(r, GroupRule)], inv, lint))
    findings.sort(key=lambda f: (f.location.file or "", f.location.line or 0, f.code, f.subject))
    inv.groups = [None] * n  # type: ignore[list-item]  # the count the report prints, nothing else read
    report = Report(findings, inv, settings, Metas(), [folder], workloads_text=texts)
    report.findings = merge_undecided(report.findings)
    with open(out, "w", encoding="utf-8") as f:
        f.write(render(report, "json"))
    return f"bound ({len(report.findings)} findings)"


def _probe(mode: str, folder: str, out: str) -> int:
    start = time.perf_counter()
    label = _real(folder, out) if mode == "real" else _bound(folder, out)
    wall = time.perf_counter() - start
    cpu = " ".join(f"{x:.3f}" for x in _cpu())
    print(f"{_MARK}{mode} {wall:.3f} {cpu} {label}", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--probe"]:
        return _probe(argv[1], argv[2], argv[3])
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("folder", help="the manifests (bench_lint.py writes 2,000 to bench-out/manifests)")
    ap.add_argument("--rounds", type=int, default=5, help="real and bound runs, alternating (default 5)")
    ap.add_argument("--out", default=os.devnull, help="where each run writes its JSON report (default: discarded)")
    args = ap.parse_args(argv)
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    seen: dict[str, list[tuple[float, float, float, float, float]]] = {"real": [], "bound": []}
    for r in range(args.rounds):
        for mode in ("real", "bound"):
            done = subprocess.run([sys.executable, os.path.abspath(__file__), "--probe", mode, args.folder, args.out],
                                  capture_output=True, text=True, check=False, env=env)
            line = next((x for x in done.stderr.splitlines() if x.startswith(_MARK)), None)
            if line is None:
                raise SystemExit(f"bench_split_bound: the {mode} run did not report:\n{done.stderr[-2000:]}")
            _, *numbers, label = line[len(_MARK):].split(maxsplit=6)
            wall, user, sys_, kid_user, kid_sys = (float(x) for x in numbers)
            fig = (wall, user + sys_, kid_user + kid_sys, user + kid_user, sys_ + kid_sys)
            seen[mode].append(fig)
            print(f"round {r + 1} {mode:5s} wall {wall:.3f} s, CPU this process {fig[1]:.3f} s, children {fig[2]:.3f} "
                  f"s, all {fig[1] + fig[2]:.3f} s (user {fig[3]:.3f}, system {fig[4]:.3f}), load "
                  f"{os.getloadavg()[0]:.1f}, {label}")
    for mode, figs in seen.items():
        med = [statistics.median(f[i] for f in figs) for i in range(5)]
        print(f"median {mode:5s} wall {med[0]:.3f} s, CPU this process {med[1]:.3f} s, children {med[2]:.3f} s, "
              f"all {statistics.median(f[1] + f[2] for f in figs):.3f} s (user {med[3]:.3f}, system {med[4]:.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
