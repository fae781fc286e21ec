#!/usr/bin/env python3
"""The capacity model's scoreboard against public vLLM start-up logs, by release line.

    .venv/bin/python benchmarks/bench_startup_logs.py [SET.json ...]

Reads every held-out set, ``tests/capacity/data/startup_logs*.json``, or the files named
(each case: URL, release, model, GPU, settings and what vLLM
logged) and prints, per release line and in all, how many verdicts (started / refused) the model gets right, how
many KV budgets are within max(0.6 GiB, 4 % of the usable memory), token counts within 5 % and weights within
their asymmetric band (no more than 2 % + 0.3 GiB below what vLLM loaded; above it, 0.5 % + 0.05 GiB for an
unquantised checkpoint vLLM loads whole, else 2 % + 0.3 GiB: ``sizing.weights_band``), then every row that misses,
then the KV budget's residual by the start's torch.compile state (``startup_logs.compile_table``), then the token
misses by cause with their token error and budget residual (``startup_logs.cause_table``), then the wrong verdicts and
the KV budgets outside tolerance by cause with the budget residual (``startup_logs.verdict_kv_table``).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "capacity"))
import startup_logs  # noqa: E402  (the test helper that reads the cases)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Score the capacity model against public vLLM start-up logs.")
    parser.add_argument("sets", nargs="*", type=Path, metavar="SET.json",
                        help="held-out sets to read (default: every tests/capacity/data/startup_logs*.json)")
    args = parser.parse_args(argv)
    missing = [str(p) for p in args.sets if not p.is_file()]
    if missing:
        parser.error("no such set: " + ", ".join(missing))
    logs = startup_logs.load(*args.sets)
    print(startup_logs.scoreboard(logs))
    print()
    print("KV budget residual (shardwise less logged, GiB) by torch.compile state:")
    print(startup_logs.compile_table(logs))
    print()
    print("Token counts outside 5 %, by cause (startup_logs.MISS_CAUSES):")
    print(startup_logs.cause_table(logs))
    print()
    print("Wrong verdicts and KV budgets outside tolerance, by cause (startup_logs.VERDICT_KV_ROWS):")
    print(startup_logs.verdict_kv_table(logs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
