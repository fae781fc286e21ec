"""JSON: ``{"version", "findings", "input_errors", "workloads", "skipped_files", "excluded", "summary"}``
for scripts and dashboards. With a baseline (``--baseline``), ``findings`` are the new findings, ``baselined``
those the baseline holds, and ``summary.baseline`` counts them and the baseline's stale entries."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from shardwise import __version__

from .result import Report


def as_object(report: Report) -> dict:
    out: dict[str, Any] = {
        "version": __version__,
        "findings": [f.as_dict() for f in report.findings],
        "input_errors": report.input_errors(),
        "workloads": EncodedItems(report.workloads_text) if report.workloads_text is not None else report.workloads,
        "skipped_files": [{"file": f, "reason": why} for f, why in report.inventory.skipped_files],
        "excluded": list(report.inventory.excluded),
        "summary": report.summary(),
    }
    if report.baseline_file is not None:  # with a baseline, "findings" are the new ones
        out["baselined"] = [f.as_dict() for f in report.baselined]
    return out


#: What ``summary.note`` says in the report of a run that stopped before it read any input (:func:`stopped_object`).
STOPPED_NOTE = "the run stopped before reading its inputs: nothing was linted"


def stopped_object(errors: list[dict[str, Any]], fail_on: str | None) -> dict[str, Any]:
    """The JSON report of a ``lint`` that stopped before it read any input (a setup error: ``--config``,
    ``--baseline`` or ``--model-dir`` that cannot be read): the keys of :func:`as_object`, its error under
    ``input_errors`` as an input error is named there (``file``, ``line``, ``message``), nothing linted, not
    passed, and :data:`STOPPED_NOTE` in ``summary.note``."""
    return {
        "version": __version__,
        "findings": [],
        "input_errors": errors,
        "workloads": [],
        "skipped_files": [],
        "excluded": [],
        "summary": {
            "files": 0, "workloads": 0, "findings": {"mandatory": 0, "advisory": 0}, "suppressed": 0, "blocking": 0,
            "fail_on": fail_on or "mandatory", "passed": False, "skipped": {}, "skipped_files": {}, "excluded": 0,
            "input_errors": len(errors), "note": STOPPED_NOTE,
        },
    }


_ONE_LINE = json.JSONEncoder(ensure_ascii=False)  # no indent: the C encoder


class EncodedItems(list):  # type: ignore[type-arg]
    """A list whose items are JSON text already, each as :func:`item_encoder` writes it (the workload summaries a
    split run encoded where it made them: :func:`.summary.workload_summary_text`): :func:`layout` writes them as
    they are."""


def item_encoder() -> Callable[[Any], str]:
    """``_ONE_LINE.encode`` for a list's items, with the C encoder made once: ``JSONEncoder.encode`` makes one (and
    its markers) per call through ``iterencode``, about a third of the time of a report's 3,800 items (2,000
    workloads, their findings); the same arguments, so the same text. ``_ONE_LINE.encode`` where the C encoder is
    not built."""
    make = json.encoder.c_make_encoder  # type: ignore[attr-defined]
    if make is None:
        return _ONE_LINE.encode
    e = _ONE_LINE
    run = make({}, e.default, json.encoder.encode_basestring, e.indent, e.key_separator, e.item_separator,  # type: ignore[attr-defined]
               e.sort_keys, e.skipkeys, e.allow_nan)
    join = "".join

    def encode(value: Any) -> str:
        if isinstance(value, str):  # JSONEncoder.encode's own first case
            return json.encoder.encode_basestring(value)  # type: ignore[attr-defined,no-any-return]
        return join(run(value, 0))

    return encode


def layout(obj: dict[str, Any]) -> str:
    """``obj`` as JSON with one top-level key per line, each item of a list (a finding, a workload) on
    a line of its own, and small objects (the summary) indented: readable and diffable, and written by
    the C encoder (``indent=2`` on every level takes the pure-Python one: 3x slower on 2,000 workloads)."""
    lines = ["{"]
    last = len(obj) - 1
    encode = item_encoder()
    for i, (key, value) in enumerate(obj.items()):
        comma = "," if i < last else ""
        name = _ONE_LINE.encode(key)
        if isinstance(value, list) and value:
            items = ",\n    ".join(value if isinstance(value, EncodedItems) else map(encode, value))
            lines.append(f"  {name}: [\n    {items}\n  ]{comma}")
        elif isinstance(value, dict) and value:
            inner = json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n  ")
            lines.append(f"  {name}: {inner}{comma}")
        else:
            lines.append(f"  {name}: {_ONE_LINE.encode(value)}{comma}")
    lines.append("}\n")  # the last newline in the join, not a copy of the whole text (3.8M characters on 2,000 files)
    return "\n".join(lines)


def render(report: Report, color: bool = False) -> str:
    return layout(as_object(report))
