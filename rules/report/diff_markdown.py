"""``shardwise diff`` as a pull-request comment in Markdown.

A totals table (base, head, change), a table per workload where a changed figure reads
``before → after``, the findings the change adds and fixes, the per-GPU memory chart of the head
(:mod:`.charts`) and the prices used, with their source and date. The first line is an HTML
comment the GitHub Action finds to update its one comment instead of adding another.
"""

from __future__ import annotations

from typing import Any

from ..engine import Finding
from .charts import memory_chart
from .markdown import cell, code, prose, where

MARKER = "<!-- shardwise-diff -->"


def money(x: float | None) -> str:
    return "–" if x is None else f"${x:,.2f}"


def _delta(x: float | int | None, unit: str = "") -> str:
    if x is None:  # a side's cost not priced (mend24: it read ±$0.00)
        return "–"
    if unit == "$":
        return "±$0.00" if x == 0 else f"{'+' if x > 0 else '−'}${abs(x):,.2f}"
    return "±0" if x == 0 else f"{x:+,}"


def _gpus_text(by_type: dict[str, int]) -> str:
    return ", ".join(f"{n} × {gpu}" for gpu, n in by_type.items()) or "0"


def _findings_text(t: dict[str, Any]) -> str:
    return f"{t['mandatory']} mandatory, {t['advisory']} advisory"


def _value(key: str, row: dict[str, Any] | None) -> str:
    if row is None:
        return "–"
    v = row.get(key)
    if key == "gpus":
        return "–" if v is None else f"{v} × {row.get('gpu') or '?'}"
    if key == "nodes":
        if v is None:
            return "–"
        assumed = "*" if row.get("instance_assumed") else ""
        return f"{v} × {row.get('instance_type')}{assumed}"
    if key in ("hourly_usd", "monthly_usd", "usd_per_million_output_tokens"):
        return money(v)
    if key == "concurrency_at_p95":
        return "–" if v is None else f"{v:,} @ {row.get('p95_context'):,}"
    if isinstance(v, int):
        return f"{v:,}"
    return "–" if v is None else str(v)


def _pair(key: str, w: dict[str, Any]) -> str:
    before, after = _value(key, w["base"]), _value(key, w["head"])
    if w["status"] == "added":
        return after
    if w["status"] == "removed":
        return f"~~{before}~~"
    return after if before == after else f"{before} → {after}"


_COLUMNS = (
    ("GPUs", "gpus"), ("Nodes", "nodes"), ("Replicas", "replicas"), ("Layout", "layout"),
    ("KV tokens / replica", "kv_cache_tokens"), ("Concurrency @ p95 / replica", "concurrency_at_p95"),
    ("$/hour", "hourly_usd"), ("$/month", "monthly_usd"), ("$/M output tokens", "usd_per_million_output_tokens"),
)


def _finding_line(f: Finding) -> str:
    file, line = f.location.file, f.location.line
    at = f"{file}:{line}" if line else (file or "")
    return f"- **{f.code}** `{f.name}` {f.level} — {prose(f'{f.subject}: {f.message}')} ({code(at)})"


def render(result: Any) -> str:
    d = result.as_object()
    tb, th, ch = d["totals"]["base"], d["totals"]["head"], d["totals"]["change"]
    commit = (d["base"]["commit"] or "")[:12]
    added, fixed = result.finding_changes()
    out = [
        MARKER,
        f"## shardwise diff: {code(d['base']['ref'])} → {prose(d['head']['ref'])}",
        "",
        f"Base {code(d['base']['ref'])} ({commit}), head: {prose(d['head']['ref'])}; paths: "
        + ", ".join(code(p) for p in d["paths"]) + ".",
        "",
        "| | Base | Head | Change |",
        "|---|---:|---:|---:|",
        f"| GPUs | {_gpus_text(tb['gpus'])} | {_gpus_text(th['gpus'])} | "
        f"{', '.join(f'{v:+,} {k}' for k, v in ch['gpus'].items()) or '±0'} |",
        f"| Nodes | {tb['nodes']:,} | {th['nodes']:,} | {_delta(ch['nodes'])} |",
        f"| Replicas | {tb['replicas']:,} | {th['replicas']:,} | {_delta(ch['replicas'])} |",
        f"| On-demand $/hour | {money(tb['hourly_usd'])} | {money(th['hourly_usd'])} | "
        f"{_delta(ch['hourly_usd'], '$')} |",
        f"| On-demand $/month ({d['hours_per_month']} h) | {money(tb['monthly_usd'])} | {money(th['monthly_usd'])} | "
        f"{_delta(ch['monthly_usd'], '$')} |",
        f"| Findings | {_findings_text(tb)} | {_findings_text(th)} | {len(added)} added, {len(fixed)} fixed |",
    ]
    unpriced = sorted({*tb["not_priced"], *th["not_priced"]})
    if unpriced:
        out += ["", "Not in the cost totals (no price or no node count): " + ", ".join(unpriced) + "."]
    workloads = d["workloads"]
    out += ["", "### Workloads", ""]
    if workloads:
        out.append("| Workload | Change | " + " | ".join(c for c, _ in _COLUMNS) + " |")
        out.append("|---|---|" + "---:|" * len(_COLUMNS))
        for w in workloads:
            out.append(f"| {cell(w['subject'])} | {w['status']} | "
                       + " | ".join(cell(_pair(k, w)) for _, k in _COLUMNS) + " |")
        notes = [(w["subject"], (w["head"] or w["base"])["note"]) for w in workloads
                 if (w["head"] or w["base"])["note"]]
        if notes:
            out.append("")
            out += [prose(f"- {s}: {n}") for s, n in notes]
    else:
        out.append("No vLLM workloads on either side.")
    out += ["", "### Findings", ""]
    if not added and not fixed:
        out.append("No finding added or fixed.")
    if added:
        out += [f"#### Added ({len(added)})", "",
                *(_finding_line(f) + (" — in the baseline" if result.in_baseline(f) else "") for f in added), ""]
    if fixed:
        out += [f"#### Fixed ({len(fixed)})", "", *map(_finding_line, fixed), ""]
    chart = memory_chart(result.head.workloads, "Per-GPU memory of one replica, head (GiB)")
    if chart:
        out += ["", "### Per-GPU memory (head)", "", chart.rstrip("\n")]
    if d["base_input_errors"] or d["head_input_errors"]:
        out += ["", "### Input errors", ""]
        for side, errors in (("base", d["base_input_errors"]), ("head", d["head_input_errors"])):
            for e in errors:
                out.append(f"- {side}: {where(e['file'], e['line'])} — {prose(e['message'])}")
    prices = d["prices"]
    out += ["", "### Prices", ""]
    if prices:
        assumed = any((w[side] or {}).get("instance_assumed") for w in workloads for side in ("base", "head"))
        out.append(f"On-demand Linux, us-east-1, per node-hour; a month is {d['hours_per_month']} hours."
                   + (" \\* instance type assumed from the GPU (the node pool names none)." if assumed else ""))
        out.append("")
        for p in prices:
            out.append(f"- {p['instance_type']}: {money(p['price_per_hour_usd'])} — {p['source']} "
                       f"(published {p['date'] or 'on an unrecorded date'})")
    else:
        out.append("No workload ran on a priced instance type.")
    text = "\n".join(out)
    while "\n\n\n" in text:
        text = text.replace("\n\n\n", "\n\n")
    return text.rstrip("\n") + "\n"
