"""A pull-request comment in Markdown, rendered from ``templates/report.md.j2`` and its partials.

Per workload a table row: GPUs = replicas × TP × PP (× DP where not 1), GPU type, weights / KV cache / headroom GiB
per GPU, KV tokens, the concurrency ceiling at max_model_len and at the p95 context, nodes and the
on-demand cost per hour and month (:mod:`shardwise.rules.capacity.cost`); then the per-GPU memory as a Mermaid
chart (:mod:`.charts`) and the prices used, with their source and date. Then the
findings: blocking first, then the rest, then suppressed ones with their reasons. Autoescape is off
(this is Markdown, not HTML); table cells escape ``|``. Every value the template writes goes through
:func:`.text.visible` (the environment's ``finalize``): a control character a repository wrote (a newline in
a file name) is an escape, so no value starts a line of its own (a GitHub Actions workflow command on stdout).
The chart is the one value written as it is: :class:`Lines`, built here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2

from .charts import memory_chart
from .result import Report
from .text import visible

TEMPLATES = Path(__file__).resolve().parent / "templates"


def cell(value: Any) -> str:
    """A Markdown table cell: ``|`` escaped, newlines as ``<br>``, None as an en dash."""
    if value is None or value == "":
        return "–"
    return str(value).replace("\\", "\\\\").replace("|", "\\|").replace("\r\n", "<br>").replace("\n", "<br>")


def num(value: Any, digits: int = 1) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def int_or_dash(value: Any) -> str:
    return "–" if value is None else f"{value:,}"


def at(value: Any, context: Any) -> str:
    if value is None or context is None:
        return "–"
    return f"{value:,} @ {context:,}"


def gpus(w: dict[str, Any]) -> str:
    r, tp, pp, total = w["replicas"], w["tensor_parallel_size"], w["pipeline_parallel_size"], w["gpus_total"]
    dp = w.get("data_parallel_size")
    factors = (r, tp, pp) if dp == 1 else (r, tp, pp, dp)  # DP shown where it is not 1 (or is not known)
    if total is None:
        return cell(" × ".join("?" if x is None else str(x) for x in factors))
    return f"{total} = {' × '.join(str(x) for x in factors)}"


def money(value: Any) -> str:
    return "–" if value is None else f"${value:,.2f}"


def nodes(cost: dict[str, Any]) -> str:
    """``2 × p5.48xlarge`` (``*`` when the instance type is assumed from the GPU)."""
    if cost.get("nodes") is None:
        return "–"
    return f"{cost['nodes']} × {cost['instance_type']}{'*' if cost.get('instance_assumed') else ''}"


def counts(by: dict[str, int]) -> str:
    """``{"ConfigMap": 2, "Secret": 1}`` as ``ConfigMap×2, Secret×1``."""
    return ", ".join(f"{k}×{n}" for k, n in by.items())


class Lines(str):
    """Text this module built, line breaks included (the Mermaid chart): written as it is."""

    __slots__ = ()


def _finalize(value: Any) -> Any:
    return visible(value) if isinstance(value, str) and not isinstance(value, Lines) else value


def environment(loader_dir: Path = TEMPLATES) -> Any:
    env = jinja2.Environment(
        finalize=_finalize,
        loader=jinja2.FileSystemLoader(str(loader_dir)),
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters.update(cell=cell, num=num, int_or_dash=int_or_dash, at=at, gpus=gpus, counts=counts, money=money,
                       nodes=nodes)
    return env


def render(report: Report, color: bool = False) -> str:
    env = environment()

    def rule_link(code: str) -> str:
        meta = report.meta_for(code)
        url = meta.doc_url if meta else None  # SHARDWISE_DOCS_URL; else `shardwise explain CODE` says it
        return f"[{code}]({url})" if url else f"**{code}**"

    env.filters["rule_link"] = rule_link
    ordered = report.ordered()
    blocking = [f for f in ordered if report.is_blocking(f)]
    advisory = [f for f in ordered if not f.suppressed and not report.is_blocking(f)]
    suppressed = [f for f in ordered if f.suppressed]
    priced = {w["cost"]["instance_type"]: w["cost"] for w in report.workloads
              if w["cost"]["instance_type"] and w["cost"]["price_per_hour_usd"] is not None}
    prices = [{"instance_type": k, "price_per_hour_usd": c["price_per_hour_usd"], "source": c["price_source"],
               "date": c["price_date"]} for k, c in sorted(priced.items())]
    text = env.get_template("report.md.j2").render(
        chart=Lines(memory_chart(report.workloads).rstrip("\n")),
        prices=prices,
        assumed=any(w["cost"]["instance_assumed"] for w in report.workloads),
        spot=[w["subject"] for w in report.workloads
              if w["cost"].get("spot_only") and w["cost"]["price_per_hour_usd"] is not None],
        summary=report.summary(),
        input_errors=report.input_errors(),
        workloads=report.workloads,
        findings=report.findings,
        blocking=blocking,
        advisory=advisory,
        suppressed=suppressed,
    )
    while "\n\n\n" in text:
        text = text.replace("\n\n\n", "\n\n")
    return text.rstrip("\n") + "\n"
