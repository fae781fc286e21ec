"""JSON: ``{"version", "findings", "input_errors", "workloads", "skipped_files", "excluded", "summary"}``
for scripts and dashboards. With a baseline (``--baseline``), ``findings`` are the new findings, ``baselined``
those the baseline holds, and ``summary.baseline`` counts them and the baseline's stale entries."""

from __future__ import annotations

import json
from typing import Any

from shardwise import __version__

from .result import Report


def as_object(report: Report) -> dict:
    out: dict[str, Any] = {
        "version": __version__,
        "findings": [f.as_dict() for f in report.findings],
        "input_errors": report.input_errors(),
        "workloads": report.workloads,
        "skipped_files": [{"file": f, "reason": why} for f, why in report.inventory.skipped_files],
        "excluded": list(report.inventory.excluded),
        "summary": report.summary(),
    }
    if report.baseline_file is not None:  # with a baseline, "findings" are the new ones
        out["baselined"] = [f.as_dict() for f in report.baselined]
    return out


_ONE_LINE = json.JSONEncoder(ensure_ascii=False)  # no indent: the C encoder


def layout(obj: dict[str, Any]) -> str:
    """``obj`` as JSON with one top-level key per line, each item of a list (a finding, a workload) on
    a line of its own, and small objects (the summary) indented: readable and diffable, and written by
    the C encoder (``indent=2`` on every level takes the pure-Python one: 3x slower on 2,000 workloads)."""
    lines = ["{"]
    last = len(obj) - 1
    for i, (key, value) in enumerate(obj.items()):
        comma = "," if i < last else ""
        name = _ONE_LINE.encode(key)
        if isinstance(value, list) and value:
            items = ",\n    ".join(_ONE_LINE.encode(v) for v in value)
            lines.append(f"  {name}: [\n    {items}\n  ]{comma}")
        elif isinstance(value, dict) and value:
            inner = json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n  ")
            lines.append(f"  {name}: {inner}{comma}")
        else:
            lines.append(f"  {name}: {_ONE_LINE.encode(value)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def render(report: Report, color: bool = False) -> str:
    return layout(as_object(report))
