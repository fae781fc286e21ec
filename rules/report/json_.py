"""JSON: ``{"version", "findings", "input_errors", "workloads", "skipped_files", "excluded", "summary"}``
for scripts and dashboards."""

from __future__ import annotations

import json

from . import Report


def as_object(report: Report) -> dict:
    from shardwise import __version__

    return {
        "version": __version__,
        "findings": [f.as_dict() for f in report.findings],
        "input_errors": report.input_errors(),
        "workloads": report.workloads,
        "skipped_files": [{"file": f, "reason": why} for f, why in report.inventory.skipped_files],
        "excluded": list(report.inventory.excluded),
        "summary": report.summary(),
    }


def render(report: Report, color: bool = False) -> str:
    return json.dumps(as_object(report), indent=2, ensure_ascii=False) + "\n"
