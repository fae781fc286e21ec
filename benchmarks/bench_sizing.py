#!/usr/bin/env python3
"""How often one lint sizes, and how many of those sizings are distinct: the capacity model's memo at work.

    .venv/bin/python benchmarks/bench_sizing.py [--n 1000] [--seed 0] [--runs 3]

Generates ``--n`` manifests (``gen_manifests.py``), lints them in this process with ``--jobs 1`` (so every
sizing happens here) under cProfile, and prints the calls of the capacity model's entry
(``size_deployment``), of the sizing itself (``_size_deployment``, what the memo saves), the run's CPU time,
and the best of ``--runs`` unprofiled runs in a fresh memo each.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import os
import pstats
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_manifests  # noqa: E402  (a sibling script, not a package)


def _lint(folder: str) -> int:
    from shardwise.rules.app.cli import main

    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        try:
            return main(["lint", "--jobs", "1", folder, "--format", "json", "--output", os.devnull])
        except SystemExit as e:
            return int(e.code or 0)


def _forget() -> None:
    """Empty the sizing memo (whichever the code has), so that each run sizes from scratch."""
    from shardwise.rules.capacity import sizing

    for name in ("_SIZED",):
        memo = getattr(sizing, name, None)
        if isinstance(memo, dict):
            memo.clear()
    clear = getattr(sizing, "forget_sizings", None)
    if callable(clear):
        clear()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        gen_manifests.generate(tmp, args.n, args.seed)
        _lint(tmp)  # imports and catalogs loaded; the memo is emptied below
        _forget()
        prof = cProfile.Profile()
        cpu = time.process_time()
        prof.enable()
        rc = _lint(tmp)
        prof.disable()
        cpu = time.process_time() - cpu
        stats = pstats.Stats(prof)
        calls = {func[2]: (cc[1], cc[3]) for func, cc in stats.stats.items()  # type: ignore[attr-defined]
                 if func[0].endswith(os.path.join("capacity", "sizing.py"))
                 and func[2] in ("size_deployment", "_size_deployment")}
        best = None
        for _ in range(args.runs):
            _forget()
            t0 = time.process_time()
            _lint(tmp)
            t = time.process_time() - t0
            best = t if best is None else min(best, t)
    print(f"{args.n} manifests (seed {args.seed}), exit {rc}: size_deployment called "
          f"{calls.get('size_deployment', (0, 0))[0]:,} times, _size_deployment (a sizing made) "
          f"{calls.get('_size_deployment', (0, 0))[0]:,} times ({calls.get('_size_deployment', (0, 0))[1]:.2f} s "
          f"of the profiled {cpu:.2f} s CPU); best of {args.runs} unprofiled runs {best:.2f} s CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
