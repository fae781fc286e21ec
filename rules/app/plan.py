"""``shardwise plan``: size one model on one GPU pool and recommend the layout the rules accept.

The search (which layouts, in which order) is :mod:`.layout`'s; each layout is turned into the same
serving group a manifest of it would be (the model, the vLLM settings, the node pool) and every rule
runs on it, so a layout the plan recommends has no mandatory finding in ``shardwise lint`` either.

The node comes from ``--instance-type`` (the instance catalog: GPU, GPUs per node, NVLink), else
``--gpus-per-node`` with the GPU's usual interconnect, else the largest instance type the catalog has
with that GPU; only a GPU the instance catalog lacks, without ``--gpus-per-node``, is assumed to sit
8 to a node, and the output says so.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import Any

from ..capacity.layout import Node, Parallel, Sizer, gpu_counts, judge, layouts_for, plural
from ..capacity.sizing import ReplicaSizing
from ..model import NodePool, ServingGroup
from ..model.errors import InputError, ShardwiseError
from ..model.shapes import GpuInfo, ModelShape


class PlanError(ShardwiseError):
    """Options that do not make a plan (the CLI reports it and exits 2)."""


@dataclass(frozen=True)
class PlanRequest:
    """What ``shardwise plan`` was asked: the model, the GPU pool and the vLLM settings."""

    model: str
    base_model: str | None = None
    gpu: str | None = None
    gpu_memory_gib: float | None = None
    instance_type: str | None = None
    gpus_per_node: int | None = None
    tp: int | None = None  # None: search
    pp: int | None = None  # None: search (1 with --tp)
    dp: int = 1
    enable_expert_parallel: bool = False
    gpu_memory_utilization: float | None = None  # None: the release's default
    vllm_version: str | None = None
    max_model_len: int | str | None = None
    max_num_seqs: int | None = None
    max_num_batched_tokens: int | None = None
    p95_context: int | None = None
    dtype: str = "auto"
    quantization: str | None = None
    kv_cache_dtype: str = "auto"
    weights_gib: float | None = None
    kv_reserve: float = 1.4

    @property
    def searching(self) -> bool:
        return self.tp is None


@dataclass
class Candidate:
    """One layout the plan sized and ran the rules on."""

    parallel: Parallel
    sizing: ReplicaSizing
    findings: list[dict[str, str]]
    blocked: bool  # a mandatory finding
    sound: bool  # nothing blocks, it starts beyond the error band and holds the batch width asked
    requested_max_num_seqs: int
    lowered: bool = False  # max_num_seqs lowered to what the KV cache holds
    requested_findings: list[dict[str, str]] = field(default_factory=list)

    @property
    def seqs_per_gpu(self) -> float:
        return self.sizing.max_num_seqs * self.parallel.dp / self.parallel.world

    def as_dict(self) -> dict[str, Any]:
        s = self.sizing
        return {
            "tensor_parallel_size": s.tensor_parallel_size,
            "pipeline_parallel_size": s.pipeline_parallel_size,
            "data_parallel_size": s.data_parallel_size,
            "expert_parallel": s.expert_parallel,
            "gpus": self.parallel.world,
            "weights_gib_per_gpu": round(s.weights_gib_per_gpu, 3),
            "kv_cache_gib_per_gpu": round(s.kv_cache_gib_per_gpu, 3),
            "kv_cache_tokens": s.kv_cache_tokens,
            "max_concurrency": round(s.max_concurrency, 3),
            "starts": s.starts,
            "verdict": s.verdict,
            "max_num_seqs": s.max_num_seqs,
            "max_num_seqs_lowered": self.lowered,
            "mandatory": [f["code"] for f in self.findings if f["level"] == "mandatory"],
            "findings": self.findings,
        }


@dataclass(frozen=True)
class NodeInfo:
    """The node a replica runs on, and where that came from."""

    node: Node
    pool: NodePool | None  # None: a custom GPU (no topology rule can run)
    source: str  # "p5.48xlarge", "--gpus-per-node", "assumed: ..."
    interconnect: str | None

    def text(self, gpu_name: str) -> str:
        link = {"nvswitch": "NVSwitch", "nvlink": "NVLink", "pcie": "PCIe only", "fabric": "the vendor's fabric"}.get(
            self.interconnect or "", "interconnect not known")
        if self.interconnect == "nvlink" and self.node.nvlink_domain < self.node.gpus:
            link = f"NVLink in groups of {self.node.nvlink_domain}, PCIe between them"
        return f"{self.node.gpus} × {gpu_name} per node ({self.source}; {link})"


@dataclass
class Plan:
    request: PlanRequest
    model: ModelShape
    gpu: GpuInfo | None
    memory_gib: float
    node: NodeInfo
    candidates: list[Candidate]
    chosen: Candidate | None
    gpus_needed: dict[str, Any]
    params: int  # the model's parameters (as --weights-gib implies them)

    @property
    def shown(self) -> Candidate:
        return self.chosen or self.candidates[-1]

    @property
    def gpu_name(self) -> str:
        return self.gpu.name if self.gpu else "a custom GPU"

    @property
    def ok(self) -> bool:
        return self.chosen is not None

    def recommended(self) -> dict[str, Any] | None:
        c = self.chosen
        if c is None or not self.request.searching:
            return None
        s = c.sizing
        text = f"recommended: {layout_text(c.parallel, self.node.node)}"
        if c.lowered:
            asked = (f"--max-num-seqs {self.request.max_num_seqs}" if self.request.max_num_seqs else
                     f"vLLM's default of {c.requested_max_num_seqs}")
            text += (f", --max-num-seqs {s.max_num_seqs} (the KV cache holds {plural(s.max_num_seqs, 'sequence')} of "
                     f"{s.expected_context:,} tokens; {asked} does not fit: add replicas for the rest of the load)")
        world = c.parallel.world
        return {
            "tensor_parallel_size": c.parallel.tp,
            "pipeline_parallel_size": c.parallel.pp,
            "data_parallel_size": c.parallel.dp,
            "enable_expert_parallel": c.parallel.expert_parallel,
            "replicas_per_node": self.node.node.gpus // world if world <= self.node.node.gpus else None,
            "nodes_per_replica": -(-world // self.node.node.gpus),
            "gpus_per_node": self.node.node.gpus,
            "max_num_seqs": s.max_num_seqs,
            "max_num_seqs_lowered": c.lowered,
            "text": text,
        }

    def failure(self) -> str | None:
        """The line for stderr when no layout is free of mandatory findings."""
        if self.ok or not self.request.searching:
            return None
        tried = ", ".join(c.parallel.text() for c in self.candidates)
        return (f"no layout of {tried} is free of mandatory findings; try a GPU with more memory, "
                "--quantization or a shorter --max-model-len")


def layout_text(p: Parallel, node: Node) -> str:
    """``TP4 × 2 replicas per 8-GPU node``; ``TP8 × PP2 = 16 GPUs: one replica spans 2 8-GPU nodes``."""
    parts = [f"TP{p.tp}"] + ([f"PP{p.pp}"] if p.pp > 1 else []) + ([f"DP{p.dp}"] if p.dp > 1 else [])
    name = " × ".join(parts) + (" with expert parallelism" if p.expert_parallel else "")
    if p.world <= node.gpus:
        n = node.gpus // p.world
        left = node.gpus - n * p.world
        spare = f" ({plural(left, 'GPU')} left over)" if left else ""
        return f"{name} × {plural(n, 'replica')} per {node.gpus}-GPU node{spare}"
    nodes = -(-p.world // node.gpus)
    return f"{name} = {p.world} GPUs: one replica spans {nodes} {node.gpus}-GPU nodes"


# --------------------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------------------


def load_model(spec: str, base_model: str | None) -> ModelShape:
    from ..catalog import find_model, load_local_model

    if os.path.exists(spec):
        return load_local_model(spec)
    if spec.startswith(("/", "./", "../", "~")) or spec.endswith(".json"):
        raise InputError("no such file or directory", spec)
    return find_model(spec, base_model)


def with_weights(model: ModelShape, weights_gib: float, precision: str) -> ModelShape:
    """A copy of ``model`` whose parameter count gives ``weights_gib`` at ``precision``, so that the rules,
    which size a layout from the parameters, agree with ``--weights-gib`` (embeddings stay 16-bit when the
    linear layers are quantised)."""
    from ..capacity.sizing import BYTES_PER_PARAM, GIB

    total = weights_gib * GIB
    bpp = BYTES_PER_PARAM[precision]
    if bpp >= 2.0:
        params = total / bpp
    else:
        embed = model.embedding_params
        params = (total - 2.0 * embed) / bpp + embed
        if params < embed:
            params = total / 2.0
    return replace(model, params=max(1, round(params)))


def resolve_node(req: PlanRequest) -> tuple[GpuInfo | None, NodeInfo]:
    """The GPU and the node, from ``--instance-type``, ``--gpu`` and ``--gpus-per-node``."""
    from .. import catalog
    from ..adapters.k8s.pools import pool_from_labels
    from ..model import Location
    from ..model.vocab import INSTANCE_TYPE, LABEL_GPU_COUNT, LABEL_GPU_PRODUCT

    gpu = catalog.find_gpu(req.gpu) if req.gpu else None
    where = Location("plan")
    if req.instance_type:
        inst = catalog.find_instance(req.instance_type)
        if gpu is not None and gpu.name != inst.gpu:
            raise PlanError(f"--gpu {req.gpu} is {gpu.name}, but {inst.name} carries {inst.gpu}")
        labels = {INSTANCE_TYPE: inst.name}
        if req.gpus_per_node:
            labels[LABEL_GPU_COUNT] = str(req.gpus_per_node)
        pool = pool_from_labels(inst.name, labels, where)
        return pool.gpu, _node_info(pool, inst.name + (", --gpus-per-node" if req.gpus_per_node else ""))
    if gpu is None:
        n = req.gpus_per_node or 8
        source = "--gpus-per-node" if req.gpus_per_node else "assumed; give --gpus-per-node"
        return None, NodeInfo(Node(n, n), None, source, None)
    if req.gpus_per_node:
        labels = {LABEL_GPU_PRODUCT: gpu.name, LABEL_GPU_COUNT: str(req.gpus_per_node)}
        return gpu, _node_info(pool_from_labels(gpu.name, labels, where), "--gpus-per-node")
    instances = catalog.instances_for_gpu(gpu.name)
    if instances:
        inst = instances[-1]
        pool = pool_from_labels(inst.name, {INSTANCE_TYPE: inst.name}, where)
        return gpu, _node_info(pool, f"{inst.name}, the largest instance type with this GPU; --instance-type or "
                                     "--gpus-per-node for another")
    labels = {LABEL_GPU_PRODUCT: gpu.name, LABEL_GPU_COUNT: "8"}
    return gpu, _node_info(pool_from_labels(gpu.name, labels, where), "assumed: no instance type with this GPU "
                                                                       "in the catalog; give --gpus-per-node")


def _node_info(pool: NodePool, source: str) -> NodeInfo:
    gpus = pool.gpus_per_node if isinstance(pool.gpus_per_node, int) and pool.gpus_per_node > 0 else 8
    if pool.interconnect == "pcie":
        domain = 1
    elif pool.interconnect == "nvlink" and pool.nvlink_domain_size:
        domain = int(pool.nvlink_domain_size)
    else:
        domain = gpus if gpus > 1 or pool.interconnect else 1
    return NodeInfo(Node(gpus, domain), pool, source, pool.interconnect)


# --------------------------------------------------------------------------------------------------
# The plan
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Context:
    req: PlanRequest
    model: ModelShape
    rules_model: ModelShape
    gpu: GpuInfo | None
    memory_gib: float
    node: NodeInfo
    sizer: Sizer


def make_plan(req: PlanRequest) -> Plan:
    """Size the layouts, run the rules on each and pick the one to recommend."""
    from ..capacity.sizing import (
        BYTES_PER_PARAM,
        GB,
        GIB,
        QUANTIZATION_PRECISION,
        Device,
        EngineSettings,
        min_gpus,
        weight_precision,
    )
    from ..vllm.versions import parse_version, resolve

    if req.gpu is None and req.gpu_memory_gib is None and req.instance_type is None:
        raise PlanError("plan needs --gpu NAME (e.g. H100), --instance-type TYPE (e.g. p5.48xlarge) or "
                        "--gpu-memory-gib GIB (memory of one GPU as CUDA reports it)")
    if req.quantization and req.quantization.lower() not in QUANTIZATION_PRECISION:
        raise PlanError(f"unknown --quantization '{req.quantization}'; expected one of: "
                        f"{', '.join(sorted(QUANTIZATION_PRECISION))}")
    if req.vllm_version is not None and parse_version(req.vllm_version) is None:
        raise PlanError(f"--vllm-version '{req.vllm_version}' is not a vLLM release number (e.g. 0.11.0)")
    if req.tp is not None and req.tp * (req.pp or 1) > 1024:
        raise PlanError(f"--tp {req.tp} × --pp {req.pp} = {req.tp * (req.pp or 1)} GPUs per replica is absurd")
    model = load_model(req.model, req.base_model)
    gpu, node = resolve_node(req)
    if gpu is not None:
        gpu_gb = gpu.memory_gb
        mem = float(req.gpu_memory_gib or gpu.memory_gib)
    else:
        assert req.gpu_memory_gib is not None
        gpu_gb = req.gpu_memory_gib * GIB / GB
        mem = float(req.gpu_memory_gib)
    precision = weight_precision(model, req.dtype, req.quantization)
    if precision not in BYTES_PER_PARAM:
        raise InputError(f"no bytes-per-parameter figure for precision {precision}", req.model)
    rules_model = with_weights(model, req.weights_gib, precision) if req.weights_gib else model
    settings = EngineSettings(
        gpu_memory_utilization=req.gpu_memory_utilization, max_model_len=req.max_model_len,
        max_num_seqs=req.max_num_seqs, max_num_batched_tokens=req.max_num_batched_tokens, dtype=req.dtype,
        quantization=req.quantization, kv_cache_dtype=req.kv_cache_dtype,
    )
    version = resolve(req.vllm_version, None, missing="--vllm-version not given")
    sizer = Sizer(model, Device.of(gpu, mem), settings, version, req.p95_context, req.weights_gib)
    ctx = _Context(req, model, rules_model, gpu, mem, node, sizer)
    need = min_gpus(model, gpu_gb, precision, req.kv_reserve, 0.90, weights_gib=req.weights_gib)

    if not req.searching:
        only = _evaluate(ctx, Parallel(req.tp or 1, req.pp or 1, req.dp, req.enable_expert_parallel),
                         req.max_num_seqs)
        chosen = only if not only.blocked else None
        return Plan(req, model, gpu, mem, node, [only], chosen, need, rules_model.params)

    inside, across = gpu_counts(node.node)
    candidates: list[Candidate] = []
    chosen = None
    for counts in (inside, across):
        for gpus in counts:
            for p in layouts_for(model, gpus, node.node, pp=req.pp):
                if req.dp > 1 or req.enable_expert_parallel:  # the data parallelism asked, on every layout
                    if p.dp > 1:
                        continue
                    p = replace(p, dp=req.dp, expert_parallel=req.enable_expert_parallel)
                candidates.append(_evaluate(ctx, p, req.max_num_seqs))
        chosen = _pick([c for c in candidates if c.sound])
        if chosen is not None:
            break
    if chosen is None:
        # No layout holds the batch width as asked. The layout is what is being chosen and the batch width
        # is a setting of it: lower max_num_seqs to what each KV cache holds (more replicas carry the rest of
        # the load). Shard only as much as the rule of thumb asks (the weights × the KV reserve fit), so a
        # replica keeps room for a KV cache; when no layout has that room, take the one holding the most
        # sequences per GPU.
        lowered = []
        for i, c in enumerate(candidates):
            low = _lowered(ctx, c)
            if low is not None:
                candidates[i] = low
                lowered.append(low)
        roomy = [c for c in lowered if c.sizing.weights_gib_per_gpu * req.kv_reserve <= c.sizing.usable_gib_per_gpu]
        chosen = _pick(roomy) if roomy else max(lowered, key=lambda c: c.seqs_per_gpu, default=None)
    return Plan(req, model, gpu, mem, node, candidates, chosen, need, rules_model.params)


def _pick(sound: list[Candidate]) -> Candidate | None:
    """The sound layout on the fewest GPUs; among those, the one holding the most sequences per GPU."""
    if not sound:
        return None
    fewest = min(c.parallel.world for c in sound)
    same = [c for c in sound if c.parallel.world == fewest]
    return max(same, key=lambda c: c.sizing.concurrency_at_expected_context * c.parallel.dp / c.parallel.world)


def _group(ctx: _Context, p: Parallel, max_num_seqs: int | None) -> ServingGroup:
    """The serving group a manifest of layout ``p`` on the plan's node would be."""
    from ..model import EngineArgs

    req = ctx.req
    engine = EngineArgs(
        model=ctx.model.id, tensor_parallel_size=p.tp, pipeline_parallel_size=p.pp, data_parallel_size=p.dp,
        enable_expert_parallel=p.expert_parallel, gpu_memory_utilization=req.gpu_memory_utilization,
        max_model_len=None if req.max_model_len == "auto" else req.max_model_len,
        max_num_seqs=max_num_seqs, max_num_batched_tokens=req.max_num_batched_tokens,
        dtype=req.dtype, quantization=req.quantization, kv_cache_dtype=req.kv_cache_dtype,
        extra={"max_model_len": "auto"} if req.max_model_len == "auto" else {},
    )
    per_node = ctx.node.node.gpus
    pods = -(-p.world // per_node) if p.world > per_node else 1
    return ServingGroup(
        name=ctx.model.id, kind="plan", namespace="", engine=engine, model=ctx.rules_model, replicas=1,
        pods_per_group=pods, gpus_per_pod=p.world if pods == 1 else per_node,
        pool=ctx.node.pool, placement_known=ctx.node.pool is not None, gpu_override=ctx.gpu,
        gpu_memory_gib_override=ctx.memory_gib if req.gpu_memory_gib else None, p95_context=req.p95_context,
        vllm_version=req.vllm_version,
    )


def _evaluate(ctx: _Context, p: Parallel, max_num_seqs: int | None) -> Candidate:
    from ..checks.registry import ALL_RULES
    from ..engine import LintConfig, run_rules
    from ..model import Inventory

    s = ctx.sizer.size(p, max_num_seqs=max_num_seqs)
    config = LintConfig(kv_reserve=ctx.req.kv_reserve, p95_context_tokens=ctx.req.p95_context)
    findings = [f for f in run_rules(ALL_RULES, Inventory(groups=[_group(ctx, p, max_num_seqs)]), config)
                if not f.suppressed]
    blocked = any(f.blocking for f in findings)
    fit = judge(s, p, s.max_num_seqs)
    return Candidate(
        parallel=p, sizing=s,
        findings=[{"code": f.code, "name": f.name, "level": f.level, "message": f.message} for f in findings],
        blocked=blocked,
        sound=not blocked and fit.starts == "starts" and fit.holds >= s.max_num_seqs,
        requested_max_num_seqs=s.max_num_seqs,
    )


def _lowered(ctx: _Context, c: Candidate) -> Candidate | None:
    """``c`` with max_num_seqs lowered to what its KV cache holds at the expected context, when that clears
    every mandatory finding; else None."""
    fits = c.sizing.concurrency_at_expected_context
    if not 1 <= fits < c.sizing.max_num_seqs:
        return None
    low = _evaluate(ctx, c.parallel, fits)
    if not low.sound:
        return None
    low.lowered = True
    low.requested_max_num_seqs = c.requested_max_num_seqs
    low.requested_findings = c.findings
    return low


# --------------------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------------------


def plan_json(plan: Plan) -> dict[str, Any]:
    s = plan.shown.sizing
    out: dict[str, Any] = {
        "model": plan.model.id,
        "base_model": plan.model.base_model,
        "params": plan.params,
        "gpu": plan.gpu.name if plan.gpu else "custom",
        "gpus_per_node": plan.node.node.gpus,
        "node": {"gpus": plan.node.node.gpus, "nvlink_domain": plan.node.node.nvlink_domain,
                 "interconnect": plan.node.interconnect, "source": plan.node.source},
    }
    out.update(s.as_dict())
    out["findings"] = plan.shown.findings
    out["gpus_needed"] = plan.gpus_needed
    out["recommended"] = plan.recommended()
    if plan.request.searching:
        out["candidates"] = [c.as_dict() for c in plan.candidates]
    return out


def _table(rows: list[tuple[str, str]]) -> list[str]:
    w = max(len(k) for k, _ in rows)
    return [f"  {k:<{w}}  {v}".rstrip() for k, v in rows]


def _starts_text(s: ReplicaSizing) -> str:
    if s.verdict == "starts":
        return "yes"
    if s.verdict == "may-refuse":
        return "maybe: within the estimate's error band" + (f" ({s.refusal})" if s.refusal else "")
    return f"no: {s.refusal}" if s.refusal else "no"


def _candidates_table(plan: Plan) -> list[str]:
    header = ("TP", "PP", "DP", "GPUs", "weights GiB/GPU", "KV GiB/GPU", "KV tokens", "max conc", "starts",
              "max_num_seqs", "mandatory findings")
    body = []
    for c in plan.candidates:
        s = c.sizing
        body.append((
            str(c.parallel.tp), str(c.parallel.pp),
            f"{c.parallel.dp}{' EP' if c.parallel.expert_parallel else ''}", str(c.parallel.world),
            f"{s.weights_gib_per_gpu:.2f}", f"{s.kv_cache_gib_per_gpu:.2f}", f"{s.kv_cache_tokens:,}",
            f"{s.max_concurrency:,.2f}", {"starts": "yes", "may-refuse": "maybe"}.get(s.verdict, "no"),
            f"{s.max_num_seqs}{'*' if c.lowered else ''}",
            ", ".join(f["code"] for f in c.findings if f["level"] == "mandatory") or "–",
        ))
    widths = [max(len(h), *(len(row[i]) for row in body)) for i, h in enumerate(header)]
    fmt = "  ".join(f"{{:>{w}}}" if i < len(header) - 1 else f"{{:<{w}}}" for i, w in enumerate(widths))
    lines = [fmt.format(*header).rstrip(), *(fmt.format(*row).rstrip() for row in body)]
    if any(c.lowered for c in plan.candidates):
        asked = plan.request.max_num_seqs or plan.candidates[0].requested_max_num_seqs
        lines.append(f"* max_num_seqs lowered from {asked} to what the KV cache holds at "
                     f"{plan.candidates[0].sizing.expected_context:,} tokens per sequence")
    rec = plan.recommended()
    return [*lines, "", rec["text"] if rec else "recommended: none of these layouts (see findings)", ""]


def plan_text(plan: Plan) -> str:
    """The plan as people read it: the layouts tried (when searching), then the one shown, sized."""
    req = plan.request
    shown = plan.shown
    s = shown.sizing
    lines: list[str] = _candidates_table(plan) if req.searching else []
    dp = f" × DP{s.data_parallel_size}" if s.data_parallel_size > 1 else ""
    ep = " with expert parallelism" if s.expert_parallel else ""
    lines.append(f"{plan.model.id} on {plan.gpu_name} ({plan.memory_gib:.1f} GiB), TP{s.tensor_parallel_size} × "
                 f"PP{s.pipeline_parallel_size}{dp} = {plural(s.gpus, 'GPU')} per engine{ep}; "
                 f"{s.vllm_version_note} ({s.engine.upper()} engine)")
    graphs = ("taken from the KV budget" if s.cudagraphs_in_budget else
              "captured after the KV cache is sized: not in the budget" if s.cudagraph_gib_per_gpu else "none")
    kv = (f"{s.available_kv_gib:.2f} GiB ± {s.error_band_gib:.2f} (vLLM logs it as 'Available KV cache memory')"
          if s.available_kv_gib > 0 else
          f"none: the weights, activations and the rest take {-s.available_kv_gib:.2f} GiB more than the usable "
          "memory")
    need = plan.gpus_needed
    rows = [
        ("node", plan.node.text(plan.gpu.name if plan.gpu else "custom GPU")),
        ("weights", f"{s.weights_gb_total:.1f} GB {s.weight_precision} in total, "
                    f"{s.weights_gib_per_gpu:.2f} GiB per GPU"),
        ("usable per GPU", f"{s.usable_gib_per_gpu:.2f} GiB ({s.gpu_memory_utilization:g} × {plan.memory_gib:.2f})"),
        ("activation peak per GPU", f"{s.activation_gib_per_gpu:.2f} GiB (estimate: {s.max_num_batched_tokens:,} "
                                    f"batched tokens; sampler {s.sampler_gib_per_gpu:.2f}"
                                    + (f", vision encoder {s.encoder_gib_per_gpu:.2f}" if s.encoder_gib_per_gpu else "")
                                    + ")"),
        ("non-torch per GPU", f"{s.non_torch_gib_per_gpu:.2f} GiB (estimate)"),
        ("CUDA graphs per GPU", f"{s.cudagraph_gib_per_gpu:.2f} GiB (estimate, {graphs})"),
        ("KV cache per GPU", kv),
        ("KV bytes per token per GPU", f"{s.kv_bytes_per_token_per_gpu:,}"
                                       + (" (hybrid layers: the KV cache groups hold less)" if s.hybrid_kv else "")),
        ("KV cache tokens", f"{s.kv_cache_tokens:,} ('GPU KV cache size')"),
        ("max_model_len", f"{s.max_model_len:,} (the model allows {s.model_max_len:,})"),
        ("max concurrency", f"{s.max_concurrency:.2f}x at {s.max_model_len:,} tokens" if s.kv_cache_tokens > 0 else
         "none: no KV cache"),
    ]
    if req.p95_context:
        rows.append(("", f"{plural(s.concurrency_at_expected_context, 'sequence')} at the p95 context of "
                         f"{s.expected_context:,} tokens"))
    seqs_how = "vLLM default" if s.max_num_seqs_default else "--max-num-seqs"
    rows += [
        ("load", f"{plural(s.max_num_seqs, 'sequence')} ({seqs_how}) × {s.expected_context:,} tokens = "
                 f"{s.load_tokens:,} tokens"),
        ("KV left after that load", f"{s.headroom_gib_per_gpu:.2f} GiB per GPU" if s.headroom_gib_per_gpu >= 0 else
         f"none: {-s.headroom_gib_per_gpu:.2f} GiB per GPU short" if s.available_kv_gib > 0 else
         "none: no KV cache"),
        ("starts", _starts_text(s)),
        (f"GPUs for weights × {req.kv_reserve:g}",
         f"{plural(need['tensor_parallel_size'], 'GPU')}: the weights × {req.kv_reserve:g} (room for a KV cache) are "
         f"{need['need_gb']} GB against {need['per_gpu_gb']} GB usable per GPU, rounded up to a power of two "
         "(a rule of thumb; the sizing above decides)"),
    ]
    if not req.searching:
        rows.append(("layout", layout_text(shown.parallel, plan.node.node)))
    lines.extend(_table(rows))
    for note in s.notes:
        lines.append(f"  note: {note}")
    lines.append("")
    if shown.findings:
        lines.append("findings:")
        for f in shown.findings:
            lines.append(f"  {f['code']} [{f['level']}] {f['message'].removeprefix(f['code'] + ': ')}")
    else:
        lines.append("findings: none")
    return "\n".join(lines) + "\n"
