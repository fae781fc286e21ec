#!/usr/bin/env python3
"""The work a lint does after its rules, alone: the report made once, then ``cli.main`` run again on it.

    .venv/bin/python benchmarks/bench_report.py N [ARGS...]     # default ARGS: lint bench-out/manifests --format json
                                                                # --output /dev/null

``run.lint_report`` is answered by the report its first call made (kept), so each of the ``N`` further runs of
``cli.main(ARGS)`` is the argument parsing and everything ``_lint`` does after the report is made: the render, the
write, the blocking lines and the summary line on stderr, the exit status. Standard output and error go to
``/dev/null``. Printed: the least and the median CPU time of the ``N`` runs. Under callgrind the difference of two
counts (``N`` = 3 and ``N`` = 0) over ``N`` is one run's instructions (benchmarks/README.md, "The report after the
rules, counted and cut").
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from typing import Any


def main(argv: list[str]) -> int:
    n = int(argv[0]) if argv else 5
    args = argv[1:] or ["lint", "bench-out/manifests", "--format", "json", "--output", "/dev/null"]
    from shardwise.rules.app import cli, run

    real = run.lint_report
    kept: list[Any] = []

    def first_report(paths: Any, options: Any) -> Any:
        if not kept:
            kept.append(real(paths, options))
        return kept[0]

    run.lint_report = first_report  # type: ignore[assignment]
    null = os.open(os.devnull, os.O_WRONLY)
    saved = os.dup(1), os.dup(2)
    os.dup2(null, 1)
    os.dup2(null, 2)
    times = []
    try:
        cli.main(args)  # the lint itself: the report made and kept
        for _ in range(n):
            c0 = time.process_time()
            cli.main(args)
            sys.stdout.flush()
            sys.stderr.flush()
            times.append(time.process_time() - c0)
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        run.lint_report = real
    if times:
        print(f"{' '.join(args)}: after the rules, CPU least {min(times) * 1000:.2f} ms, median "
              f"{statistics.median(times) * 1000:.2f} ms over {n} runs")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
