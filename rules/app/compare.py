"""``shardwise plan --gpu H100,H200,L40S,A100`` (or ``--instance-type p5.48xlarge,p4de.24xlarge``): one plan per
piece of hardware, the layouts each recommends side by side, and which is cheapest for the declared load.

Each plan is :func:`.plan.make_plan` with one GPU (or instance type) put in the request, so every row is what
``shardwise plan`` with that hardware alone recommends. Prices are as billed: whole instances of the named instance
type, or, for a GPU, of the smallest priced instance type with that GPU that holds one replica
(:func:`.plan.billed_instance`). With ``--concurrency`` the cost is the replicas the load needs (with the headroom
replica); without it, one replica's instances, and the line says so.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ..capacity.layout import plural
from .plan import (
    Plan,
    PlanError,
    PlanRequest,
    billed_instance,
    engine_text,
    make_plan,
    plan_json,
    replica_estimate,
)


def hardware_list(text: str | None) -> list[str]:
    """``H100,H200, L40S`` → ``["H100", "H200", "L40S"]`` (each once, in the order given)."""
    if text is None:
        return []
    names = [n.strip() for n in text.split(",")]
    if any(not n for n in names):
        raise PlanError(f"an empty name in the list '{text}': give names separated by commas, e.g. H100,H200,L40S")
    return list(dict.fromkeys(names))


@dataclass(frozen=True)
class Row:
    """One piece of hardware: what was asked, its plan and the recommended layout's price as billed."""

    asked: str
    plan: Plan
    usd_per_hour: float | None = None
    instance_type: str | None = None
    instances: int | None = None  # instances billed
    billed_as: str | None = None
    no_price: str | None = None  # why there is no price (or no layout)

    @property
    def tokens_per_second(self) -> float | None:
        """One replica's output tokens per second: measured, else the decode estimate (at its share of the load,
        or at the most sequences it runs)."""
        c = self.plan.chosen
        if c is None:
            return None
        if self.plan.request.output_tokens_per_second:
            return self.plan.request.output_tokens_per_second
        est = replica_estimate(self.plan, c)
        return round(est.tokens_per_second, 1) if est is not None else None

    @property
    def usd_per_million_output_tokens(self) -> float | None:
        """The load's cost per million output tokens; without a load, one replica's instances over its tokens."""
        c = self.plan.chosen
        if c is not None and c.load is not None:
            return c.load.usd_per_million_output_tokens
        tps = self.tokens_per_second
        if self.usd_per_hour is None or not tps:
            return None
        return round(self.usd_per_hour / (tps * 3600) * 1e6, 2)

    def per_million_text(self) -> str:
        cost = self.usd_per_million_output_tokens
        return "–" if cost is None else f"${cost:,.2f}" + (" (est.)" if self.tokens_estimated else "")

    @property
    def tokens_estimated(self) -> bool:
        return self.tokens_per_second is not None and not self.plan.request.output_tokens_per_second

    @property
    def layout(self) -> str | None:
        c = self.plan.chosen
        return engine_text(c.parallel) if c is not None else None

    def as_dict(self) -> dict[str, Any]:
        c = self.plan.chosen
        load = c.load if c is not None else None
        return {
            "hardware": self.asked, "gpu": self.plan.gpu.name if self.plan.gpu else "custom",
            "layout": self.layout, "gpus_per_replica": c.parallel.world if c is not None else None,
            "sequences_per_replica": c.holds if c is not None else None,
            "replicas": load.replicas if load is not None else None,
            "gpus": load.gpus if load is not None else None,
            "instance_type": self.instance_type, "instances": self.instances, "billed_as": self.billed_as,
            "usd_per_hour": self.usd_per_hour,
            "usd_per_million_output_tokens": self.usd_per_million_output_tokens,
            "output_tokens_per_second": self.tokens_per_second,
            "output_tokens_per_second_estimated": self.tokens_estimated,
            "no_price": self.no_price,
        }


@dataclass(frozen=True)
class Comparison:
    request: PlanRequest
    rows: list[Row]

    @property
    def ok(self) -> bool:
        return any(r.plan.chosen is not None for r in self.rows)

    @property
    def cheapest(self) -> Row | None:
        priced = [r for r in self.rows if r.usd_per_hour is not None]
        return min(priced, key=lambda r: r.usd_per_hour or 0.0, default=None)

    def cheapest_text(self) -> str:
        req = self.request
        best = self.cheapest
        what = ("for the declared load" if req.concurrency is not None else
                "for one replica (no load declared: --concurrency C prices the replicas a load needs)")
        if best is None:
            return f"cheapest {what}: none of these has a price (see above)"
        c = best.plan.chosen
        assert c is not None and best.instances is not None
        if c.load is not None:
            held = f"{plural(c.load.replicas, 'replica')} of {engine_text(c.parallel)}"
        else:
            held = f"one {engine_text(c.parallel)} replica"
        per_m = (f", {best.per_million_text()} per million output tokens"
                 if best.usd_per_million_output_tokens is not None else "")
        return (f"cheapest {what}: {best.asked} — {held} on {best.instances:,} × {best.instance_type} "
                f"({best.billed_as}), ${best.usd_per_hour:,.2f}/hour on demand{per_m}")


def make_comparison(req: PlanRequest, gpus: list[str], instance_types: list[str]) -> Comparison:
    """One plan per GPU (or instance type) of the list, and each recommended layout's price as billed."""
    if gpus and instance_types:
        raise PlanError("compare either GPUs (--gpu H100,H200) or instance types (--instance-type p5.48xlarge,"
                        "p4de.24xlarge), not both")
    asked = [(g, replace(req, gpu=g, instance_type=None)) for g in gpus] or [
        (t, replace(req, instance_type=t, gpu=None)) for t in instance_types]
    return Comparison(req, [_row(name, make_plan(r)) for name, r in asked])


def _row(asked: str, plan: Plan) -> Row:
    c = plan.chosen
    if c is None:
        return Row(asked, plan, no_price=plan.failure() or "the layout has a mandatory finding")
    if c.load is not None:
        ld = c.load
        return Row(asked, plan, ld.usd_per_hour, ld.instance_type, ld.nodes if ld.instance_type else None,
                   ld.billed_as, ld.no_price)
    inst, why, how = billed_instance(plan.request, plan.node, plan.gpu, c.parallel.world)
    if inst is None:
        return Row(asked, plan, no_price=why)
    n = -(-c.parallel.world // inst.gpus)
    if inst.price_per_hour_usd is None:
        return Row(asked, plan, None, inst.name, n, how,
                   f"{inst.name} has no public us-east-1 on-demand price in the catalog")
    return Row(asked, plan, round(n * inst.price_per_hour_usd, 2), inst.name, n, how)


def _money(x: float | None) -> str:
    return "–" if x is None else f"${x:,.2f}"


def comparison_text(cmp: Comparison) -> str:
    """The recommended layouts side by side (one table), why a row has no price, and the cheapest."""
    from .plan import _columns

    req = cmp.request
    first = cmp.rows[0].plan
    context = first.shown.sizing.expected_context
    if req.concurrency is not None:
        head = (f"{first.model.id} for {plural(req.concurrency, 'sequence')} of {context:,} tokens at once "
                f"({'--p95-context' if req.p95_context else 'max_model_len; no --p95-context'}); "
                f"{first.shown.sizing.vllm_version_note}:")
    else:
        head = f"{first.model.id}, one replica each (no --concurrency); {first.shown.sizing.vllm_version_note}:"
    header = ("hardware", "GPU", "layout", "GPUs/replica", "seqs/replica", "replicas", "GPUs", "billed on", "$/hour",
              "tokens/s/replica", "$/M output tokens")
    body = []
    for r in cmp.rows:
        c = r.plan.chosen
        load = c.load if c is not None else None
        body.append((
            r.asked, r.plan.gpu_name if r.plan.gpu is None else r.plan.gpu.name, r.layout or "none",
            str(c.parallel.world) if c else "–", f"{c.holds:,}" if c else "–",
            f"{load.replicas:,}" if load else ("1" if c else "–"),
            f"{load.gpus:,}" if load else (str(c.parallel.world) if c else "–"),
            f"{r.instances:,} × {r.instance_type}" if r.instance_type and r.instances else "–",
            _money(r.usd_per_hour),
            "–" if r.tokens_per_second is None else f"{r.tokens_per_second:,.0f}" + (
                " (est.)" if r.tokens_estimated else ""),
            r.per_million_text(),
        ))
    lines = [head, *("  " + line for line in _columns(header, body))]
    billed: dict[str, list[str]] = {}
    for r in cmp.rows:
        if r.no_price:
            lines.append(f"  {r.asked}: {'no layout: ' if r.plan.chosen is None else 'no price: '}{r.no_price}")
        elif r.billed_as:
            billed.setdefault(r.billed_as, []).append(r.asked)
    lines += [f"  $/hour of {', '.join(names)}: whole instances at the on-demand price, on {how}"
              for how, names in billed.items()]
    if any(r.tokens_estimated for r in cmp.rows):
        lines.append("  tokens/s (est.): the decode estimate of one replica from the GPU's memory bandwidth, compute "
                     "and links (docs/capacity-model.md), not a measurement; --output-tokens-per-second R for one")
    lines.append(cmp.cheapest_text())
    return "\n".join(lines) + "\n"


def comparison_json(cmp: Comparison) -> dict[str, Any]:
    best = cmp.cheapest
    return {
        "model": cmp.rows[0].plan.model.id,
        "load": {"concurrency": cmp.request.concurrency, "p95_context": cmp.request.p95_context},
        "compared": [{**r.as_dict(), "plan": plan_json(r.plan)} for r in cmp.rows],
        "cheapest": best.asked if best is not None else None,
        "cheapest_text": cmp.cheapest_text(),
    }
