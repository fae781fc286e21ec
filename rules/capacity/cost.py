"""What a serving group costs: nodes, the instance type they run on, on-demand price per hour and month,
and the price of a million output tokens where the team declared a throughput.

- **Nodes.** Pods = replicas × pods per group (a LeaderWorkerSet group or a multi-node replica has
  several); one node holds ⌊GPUs per node ÷ GPUs per pod⌋ pods; nodes = ⌈pods ÷ pods per node⌉. A pod
  that asks for more GPUs than a node has cannot be placed: no node count, and the note says why.
- **Instance type and price.** The node pool's instance type from the catalog (an EKS node group's, a
  stack pool's, the ``node.kubernetes.io/instance-type`` label a workload selects). When the pool names
  only a GPU, the catalog's instance type of that GPU with the pool's GPUs per node (else the smallest
  that holds one pod) is *assumed*, and the result says so. Prices are the catalog's us-east-1 on-demand
  Linux prices, with their source and the date they were published; an instance type without a public
  on-demand price (Capacity Blocks only) has no cost, and the note says so.
- **Spot.** A pool that launches spot capacity only (a Karpenter NodePool with ``karpenter.sh/capacity-type``
  ``In [spot]``, an EKS node group or stack pool with capacity type spot) is billed at the spot price, which
  moves with the zone and the hour and which the catalog does not hold: its cost is still the on-demand
  price, marked ``spot_only`` (the report says so: spot is cheaper, the figure an upper bound).
- **Month.** 730 hours (365 × 24 ÷ 12), the figure AWS's pricing pages use.
- **Cost per million output tokens** = hourly cost ÷ (replicas × declared output tokens per second of one
  replica × 3,600) × 10⁶. The throughput is declared with the annotation
  ``shardwise.dev/output-tokens-per-second`` (Kubernetes) or ``output_tokens_per_second`` (stack
  services): the output tokens one replica (one engine, or one data-parallel group) generates per second
  at the declared load, as measured by a benchmark. Without it there is no such figure: shardwise does
  not guess throughput.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from ..catalog import CatalogError, find_instance, instances_for_gpu
from ..model import ServingGroup, is_unknown, world_size
from ..model import int_or_none as _int
from .layout import plural

HOURS_PER_MONTH = 730


@dataclass(frozen=True)
class WorkloadCost:
    """The nodes and on-demand cost of one serving group (None where it cannot be known)."""

    gpus: int | None  # pods × GPUs per pod
    nodes: int | None
    gpus_per_node: int | None
    instance_type: str | None
    instance_assumed: bool  # the pool names no instance type: the catalog's type for its GPU
    price_per_hour_usd: float | None  # one node
    price_source: str | None
    price_date: str | None
    hourly_usd: float | None
    monthly_usd: float | None
    output_tokens_per_second: float | None  # declared, per replica
    usd_per_million_output_tokens: float | None
    note: str | None
    #: The pool launches spot capacity only: billed at spot prices, below the on-demand price shown (the catalog
    #: holds no spot price)
    spot_only: bool = False

    def as_dict(self) -> dict[str, Any]:
        d = {name: getattr(self, name) for name in _COST_FIELDS}  # every field is a plain value
        for k in ("hourly_usd", "monthly_usd", "usd_per_million_output_tokens"):
            if d[k] is not None:
                d[k] = round(d[k], 4)
        return d


_COST_FIELDS = tuple(f.name for f in fields(WorkloadCost))


def _gpus_per_pod(g: ServingGroup) -> int | None:
    """GPUs one pod asks for: its resources, else the engine's layout spread over the group's pods."""
    asked = _int(g.gpus_per_pod)
    if asked:
        return asked
    engine, dp = _int_world(g), _int(g.engine.data_parallel_size)
    pods = _int(g.pods_per_group) or 1
    if engine and dp:
        return max(1, -(-engine * dp // pods))
    return None


def _int_world(g: ServingGroup) -> int | None:
    """The group's vLLM world size (``model.world_size``) where its TP, PP and PCP read as numbers, else None."""
    tp, pp = _int(g.engine.tensor_parallel_size), _int(g.engine.pipeline_parallel_size)
    pcp = _int(g.prefill_context_parallel)
    return world_size(tp, pp, pcp) if tp and pp and pcp else None


def _instance(g: ServingGroup, per_pod: int | None) -> tuple[Any, bool, str | None]:
    """The catalog instance type of the group's nodes, whether it was assumed, and why there is none."""
    pool = g.pool
    if pool is not None and not is_unknown(pool.instance_type) and pool.instance_type:
        try:
            return find_instance(str(pool.instance_type)), False, None
        except CatalogError:
            return None, False, f"instance type {pool.instance_type} is not in the catalog"
    gpu = pool.gpu if pool is not None and pool.gpu is not None else g.gpu_override
    if gpu is None:
        return None, False, "no GPU pool matches the workload" if pool is None else f"pool {pool.name} names no GPU"
    try:
        candidates = instances_for_gpu(gpu.name)
    except CatalogError:
        candidates = []
    per_node = _int(pool.gpus_per_node) if pool is not None else None
    fitting = [i for i in candidates if i.price_per_hour_usd is not None and i.gpus >= (per_pod or 1)]
    exact = [i for i in fitting if per_node is not None and i.gpus == per_node]
    chosen = (exact or fitting)[0] if exact or fitting else None
    if chosen is None:
        return None, False, f"the catalog has no priced instance type with {plural(per_pod or 1, gpu.name + ' GPU')}"
    return chosen, True, None


#: The largest replica count Kubernetes accepts (``replicas`` is an int32 in every workload API).
INT32_MAX = 2**31 - 1


def workload_cost(g: ServingGroup) -> WorkloadCost:
    """Nodes, instance type and on-demand cost of ``g`` (see the module docstring for the formulas)."""
    per_pod = _gpus_per_pod(g)
    inst, assumed, why = _instance(g, per_pod)
    tps = g.output_tokens_per_second
    spot_only = g.pool is not None and g.pool.capacity_type == "spot"
    replicas = _int(g.replicas)
    pods = replicas * (_int(g.pods_per_group) or 1) if replicas is not None else None
    gpus = pods * per_pod if pods is not None and per_pod is not None else None
    empty = WorkloadCost(gpus=gpus, nodes=None, gpus_per_node=None, instance_type=None, instance_assumed=False,
                         price_per_hour_usd=None, price_source=None, price_date=None, hourly_usd=None,
                         monthly_usd=None, output_tokens_per_second=tps, usd_per_million_output_tokens=None, note=why,
                         spot_only=spot_only)
    if inst is None:
        return empty
    per_node = inst.gpus if assumed or g.pool is None or _int(g.pool.gpus_per_node) is None else _int(
        g.pool.gpus_per_node)
    price = inst.price_per_hour_usd
    base = dict(gpus=gpus, gpus_per_node=per_node, instance_type=inst.name, instance_assumed=assumed,
                price_per_hour_usd=price, price_source=inst.price_source or None,
                price_date=inst.price_date or None, output_tokens_per_second=tps, spot_only=spot_only)
    if per_pod is None or pods is None or not per_node:
        missing = "replicas" if pods is None else "GPUs per pod"
        return WorkloadCost(nodes=None, hourly_usd=None, monthly_usd=None, usd_per_million_output_tokens=None,
                            note=f"unknown: {missing}", **base)
    if per_pod > per_node:
        return WorkloadCost(nodes=None, hourly_usd=None, monthly_usd=None, usd_per_million_output_tokens=None,
                            note=f"a pod asks for {plural(per_pod, 'GPU')} but a {inst.name} node has {per_node}",
                            **base)
    if pods > INT32_MAX:  # Kubernetes' replica counts are int32: no cluster runs more, and no float holds the cost
        return WorkloadCost(nodes=None, hourly_usd=None, monthly_usd=None, usd_per_million_output_tokens=None,
                            note=f"a pod count of {len(str(pods))} digits is more than Kubernetes accepts "
                                 f"({INT32_MAX:,})", **base)
    nodes = -(-pods // (per_node // per_pod))  # whole nodes, in integers
    if price is None:
        return WorkloadCost(nodes=nodes, hourly_usd=None, monthly_usd=None, usd_per_million_output_tokens=None,
                            note=f"{inst.name} has no public on-demand price", **base)
    hourly = nodes * price
    per_mtok = hourly / (replicas * tps * 3600) * 1e6 if tps and replicas else None
    return WorkloadCost(nodes=nodes, hourly_usd=hourly, monthly_usd=hourly * HOURS_PER_MONTH,
                        usd_per_million_output_tokens=per_mtok, note=None, **base)
