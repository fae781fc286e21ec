#!/usr/bin/env python3
"""``shardwise plan`` against plan cases built from public recipes: right or wrong per case, and totals.

    .venv/bin/python benchmarks/bench_plan_cases.py

Reads ``tests/capacity/data/plan_cases.json`` (each case: the recipe it comes from, the options plan is given and
the plan a reviewer accepts: layout, start verdict, findings, replicas, nodes and the instance type billed) and
prints each case right or WRONG with what differs, then totals by kind of case and in all.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "capacity"))
import plan_cases  # noqa: E402  (the test helper that reads and scores the cases)


def main() -> int:
    print(plan_cases.scoreboard(plan_cases.load()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
