"""JSON: ``{"version", "findings", "workloads", "summary"}`` for scripts and dashboards."""

from __future__ import annotations

import json

from . import Report


def as_object(report: Report) -> dict:
    from shardwise import __version__

    return {
        "version": __version__,
        "findings": [f.as_dict() for f in report.findings],
        "workloads": report.workloads,
        "summary": report.summary(),
    }


def render(report: Report, color: bool = False) -> str:
    return json.dumps(as_object(report), indent=2, ensure_ascii=False) + "\n"
