"""``shardwise plan --emit manifest|stack-config|vllm-args``: the recommended layout as something a team deploys.

One typed spec (:class:`VllmServiceSpec` for replicas inside one node, :class:`VllmMultiNodeSpec` for a replica over
several nodes) is made from the plan, and every form comes from it:

- ``manifest``: what the components render for it (:mod:`..render`), so the probes on /health, the memory-backed
  /dev/shm, the GPU requests and the preStop drain are the components' own: a Deployment (TP inside a node) or a
  LeaderWorkerSet (PP across nodes, or data-parallel engines spread over nodes with vLLM's
  ``--data-parallel-size-local`` launch; EFA where the instance has it), its ClusterIP Service, for a Deployment its
  PodDisruptionBudget, and RuntimeNetwork's NetworkPolicies for the namespace (default deny; DNS and HTTPS out;
  all traffic inside the serving group; the API port from the gateway and monitoring namespaces). The pods select
  their nodes by the well-known ``node.kubernetes.io/instance-type`` label (not the components'
  ``shardwise.dev/pool``, which only a shardwise node pool carries), or, for a GPU no cloud instance type in the
  catalog carries (RTX 3090, H800), by GPU Feature Discovery's ``nvidia.com/gpu.product`` (and ``gpu.count``);
  the workload carries the ``shardwise.dev/`` annotations of the load it was planned for (target concurrency and
  p95 context), so ``shardwise lint`` judges it against that load.
- ``stack-config``: the node pool and the service (or multi-node group) entries of ``stacks/Pulumi.<env>.yaml``,
  under ``config: shardwise:environment:``, to merge into a stack that has the environment's name and cluster.
- ``vllm-args``: the ``vllm serve`` command line of one replica (multi-node: the leader's, with the LWS variables).

The engine environment ``plan --env`` was given (what the capacity model reads, e.g. ``VLLM_USE_FLASHINFER_SAMPLER``)
goes with every form: the vLLM container's env (``pod.env``) of the manifest and the stack config, and the variables
before ``vllm serve`` on the command line. ``plan --install pip`` (vLLM from PyPI, sized without the FlashInfer the
release's wheel may lack) is written as ``pip install vllm==RELEASE && exec vllm serve ...`` in a Python image in
the manifest and before the command line; the stack config's components deploy only the official image.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from ..capacity.layout import plural
from .plan import Candidate, Plan, PlanError, engine_text, engine_words

EMITS = ("manifest", "stack-config", "vllm-args")
INSTANCE_LABEL = "node.kubernetes.io/instance-type"


def workload_name(model_id: str) -> str:
    """``meta-llama/Llama-3.1-70B-Instruct`` → ``llama-3-1-70b-instruct``: a DNS label for the objects."""
    base = model_id.rstrip("/").rsplit("/", 1)[-1].lower()
    name = re.sub(r"[^a-z0-9]+", "-", base).strip("-")[:63].strip("-")
    return name or "vllm"


def _chosen(plan: Plan) -> Candidate:
    c = plan.chosen
    if c is None:
        raise PlanError("nothing to emit: " + (plan.failure() or "the layout has a mandatory finding"))
    return c


def _instance_type(plan: Plan, c: Candidate) -> str | None:
    """The instance type the layout runs (and is billed) on (None: the catalog has none with the GPU)."""
    if c.load is not None and c.load.instance_type:
        return c.load.instance_type
    if plan.node.instance is not None:
        from .plan import billed_instance

        inst, _, _ = billed_instance(plan.request, plan.node, plan.gpu, c.parallel.world)
        return str((inst or plan.node.instance).name)
    return None


def gpu_product(plan: Plan) -> str:
    """The GPU as GPU Feature Discovery labels its nodes (``nvidia.com/gpu.product``: the driver's name, spaces as
    dashes, ``NVIDIA-GeForce-RTX-3090``): the catalog's first alias of that form; a GPU with none (a custom one)
    cannot be selected, and says so."""
    gpu = plan.gpu
    names = [a for a in (gpu.aliases if gpu is not None else ()) if a.startswith("NVIDIA-")]
    if not names:
        raise PlanError(f"--emit needs a node to select: the catalog has no instance type and no GPU Feature "
                        f"Discovery name for {plan.gpu_name} (give --instance-type)")
    return str(names[0])


def node_selector(plan: Plan, pool: Any | None) -> dict[str, str]:
    """The nodes the pods select: the instance type where the catalog has one with the GPU; else (a GPU no cloud
    instance type carries, RTX 3090, H800) GPU Feature Discovery's product label and, for a layout of several GPUs,
    its ``nvidia.com/gpu.count`` of the node plan sized (the GPUs the NVLink or PCIe verdict is about)."""
    from ..model.vocab import GFD_COUNT, GFD_PRODUCT

    if pool is not None:
        return {INSTANCE_LABEL: pool.instance_type}
    c = _chosen(plan)
    out = {GFD_PRODUCT: gpu_product(plan)}
    if c.parallel.world > 1:
        out[GFD_COUNT] = str(plan.node.node.gpus)
    return out


def _node_gpus(plan: Plan, pool: Any | None) -> int | None:
    """GPUs of one node where no instance type says them (the node plan sized; None: the pool's instance type)."""
    return plan.node.node.gpus if pool is None else None


def specs(plan: Plan) -> tuple[Any, Any]:
    """The node pool spec and the workload spec (service or multi-node group) of the recommended layout."""
    from ..catalog import find_instance
    from ..model.spec import (
        EngineArgsSpec,
        EnvVarSpec,
        NodePoolSpec,
        PodSpec,
        VllmMultiNodeSpec,
        VllmServiceSpec,
    )
    from ..model.vocab import GFD_CLIQUE
    from .plan import plan_release

    c = _chosen(plan)
    req, s, p = plan.request, c.sizing, c.parallel
    itype = _instance_type(plan, c)
    inst = find_instance(itype) if itype is not None else None
    if inst is None:
        gpu_product(plan)  # a node to select, or why there is none, before anything else is written
    per_node = inst.gpus if inst is not None else plan.node.node.gpus
    nodes_per_replica = -(-p.world // per_node)
    replicas = c.load.replicas if c.load is not None else 1
    nodes = c.load.nodes if c.load is not None else nodes_per_replica
    name = workload_name(plan.model.id)
    multi = nodes_per_replica > 1
    if multi and p.dp > 1 and p.gpus > per_node:
        # VllmMultiNode spreads data-parallel engines over nodes only where each engine fits one node
        raise PlanError(f"--emit writes data-parallel engines over nodes one or more a node; {engine_text(p)} "
                        f"has engines of {p.gpus} GPUs, wider than a node's {per_node}")
    version = str(plan_release(req).version)
    typed, passed = _engine_arg_specs(req.engine_args)
    engine = EngineArgsSpec(
        model=plan.model.id, tensor_parallel_size=p.tp,
        pipeline_parallel_size=p.pp, prefill_context_parallel_size=p.pcp, data_parallel_size=p.dp,
        enable_expert_parallel=p.expert_parallel,
        gpu_memory_utilization=_utilization(req.gpu_memory_utilization, s.gpu_memory_utilization),
        max_model_len=s.max_model_len,
        # the cap plan lowered so the layout serves (Candidate.max_num_seqs_lowered) is written, as a lowered length is
        max_num_seqs=s.max_num_seqs if c.max_num_seqs_lowered else req.max_num_seqs,
        max_num_batched_tokens=req.max_num_batched_tokens, dtype=req.dtype,
        quantization=req.quantization, kv_cache_dtype=req.kv_cache_dtype,
        extra_args=(*(("--speculative-config", req.speculative_config) if req.speculative_config else ()), *passed),
        **typed,
    )
    # a GPU no instance type carries: no node pool the components provision (None), the manifest selects GPU
    # Feature Discovery's labels instead (node_selector)
    pool_name = re.sub(r"[^a-z0-9]+", "-", (inst.name if inst else plan.gpu_name).lower()).strip("-")
    pool = NodePoolSpec(name=pool_name, instance_type=inst.name, min_size=nodes, desired_size=nodes,
                        max_size=nodes + nodes_per_replica, multi_node=multi) if inst is not None else None
    common: dict[str, Any] = {
        "name": name, "namespace": "serving", "pool": pool_name, "engine": engine,
        "image": f"vllm/vllm-openai:v{version}", "vllm_version": version,
        "p95_context_tokens": s.expected_context, "target_concurrency": req.concurrency,
        "output_tokens_per_second": req.output_tokens_per_second,
        "base_model": plan.model.base_model if plan.model.base_model and plan.model.base_model != plan.model.id
        else None,
        "weights_gib": req.weights_gib,
    }
    if req.env:  # what the plan was sized with: the pod runs with it, so lint reads the same
        common["pod"] = PodSpec(env=tuple(EnvVarSpec(name=k, value=v) for k, v in req.env))
    if multi:
        # an NVLink domain wider than a node (GB200 NVL72): each group's pods stay inside one nvidia.com/gpu.clique
        clique = GFD_CLIQUE if plan.node.node.nvlink_domain > per_node else None
        return pool, VllmMultiNodeSpec(**common, groups=replicas, exclusive_topology=clique)
    return pool, VllmServiceSpec(**common, replicas=replicas, autoscaling=None)


def _utilization(asked: float | None, sized: float) -> float | None:
    """The --gpu-memory-utilization the emitted engine writes: the one plan was asked for, always (0.9 too: from vLLM
    0.20 the release's default is 0.92, so leaving 0.9 off would size another budget); without one, the release's
    default plan sized with, said where it is not vLLM's long-standing 0.9 (nor 1.0, the extensible KV cache's
    default from 0.34: written out, it would hold where vLLM falls back to estimate-based sizing)."""
    if asked is not None:
        return asked
    return None if sized in (0.9, 1.0) else sized


def _engine_arg_specs(pairs: tuple[tuple[str, str], ...]) -> tuple[dict[str, Any], tuple[str, ...]]:
    """``plan --engine-arg`` flags for the engine spec: those it has a field for (``block_size``, ``enforce_eager``,
    ...), and the ``vllm serve`` words of the rest (``extra_args``: ``--compilation-config``, ``--runner``, ...)."""
    from ..model import Location
    from ..model.spec import EngineArgsSpec
    from ..vllm.args import parse_serve_args

    words = engine_words(pairs)
    typed: dict[str, Any] = {}
    passed: list[str] = []
    i = 0
    while i < len(words):  # one flag, and its value unless it is a switch
        n = 1 if i + 1 == len(words) or words[i + 1].startswith("--") else 2
        flag = words[i : i + n]
        given = parse_serve_args(flag, form="api", location=Location())
        (key,) = given.locations
        if key in EngineArgsSpec.model_fields:
            typed[key] = given.extra[key] if key in given.extra else getattr(given, key)
        else:
            passed.extend(flag)
        i += n
    if typed.get("block_size", 16) not in (8, 16, 32, 64, 128):
        raise PlanError(f"--emit writes --block-size as one of 8, 16, 32, 64, 128 (the spec's), not "
                        f"{typed['block_size']}")
    return typed, tuple(passed)


def manifest_objects(plan: Plan) -> list[dict[str, Any]]:
    """The Kubernetes objects of the recommended layout, selecting nodes by instance type."""
    from ..model.spec import NetworkSpec, VllmMultiNodeSpec
    from ..model.vocab import LABEL_POOL
    from ..render.multinode import render_vllm_multinode
    from ..render.network import render_network_policies
    from ..render.vllm import render_vllm_service

    pool, spec = specs(plan)
    selector = node_selector(plan, pool)
    multi = isinstance(spec, VllmMultiNodeSpec)
    objs = (render_vllm_multinode(spec, pool, _node_gpus(plan, pool)) if multi
            else render_vllm_service(spec, pool))
    # the Prometheus Operator's PodMonitor only where the cluster has its CRD: the stack config keeps it
    objs = [o for o in objs if o["kind"] not in ("PodMonitor", "ServiceMonitor")]
    objs += render_network_policies(NetworkSpec(), multi_node=[spec]) if multi else render_network_policies(
        NetworkSpec(), services=[spec])
    for obj in objs:
        for template in _templates(obj):
            written = template["spec"]["nodeSelector"]
            written.pop(LABEL_POOL, None)
            written.update(selector)
            if plan.request.install == "pip":
                _pip_install(template["spec"], str(spec.vllm_version))
    return objs


#: The image ``plan --install pip`` runs vLLM in: CPython's Debian image (gcc for Triton's launcher, python3 for the
#: preStop drain); the vLLM wheel brings PyTorch and its CUDA libraries, the node the driver.
PIP_IMAGE = "python:3.12"


def _pip_install(pod: dict[str, Any], version: str) -> None:
    """``plan --install pip``: the serving container installs ``vllm==RELEASE`` from PyPI, then runs ``vllm serve``
    with the same arguments, in :data:`PIP_IMAGE` (what lint reads as a pip-pinned release: ``versions.pip_pin``)."""
    for c in pod["containers"]:
        if c["command"] == ["/bin/sh", "-c"] and c["args"][0].startswith("exec vllm serve "):
            # a data-parallel worker's script (its start rank from LWS_WORKER_INDEX)
            c["image"] = PIP_IMAGE
            c["args"] = [f"pip install vllm=={version} && {c['args'][0]}"]
            continue
        if c["command"] != ["vllm", "serve"]:
            raise PlanError("--emit --install pip writes the vLLM container of a single-node replica or a native "
                            "multi-node launch, not a Ray cluster's")
        c["image"] = PIP_IMAGE
        c["command"] = ["/bin/sh", "-c"]
        c["args"] = [f"pip install vllm=={version} && exec vllm serve {shlex.join(c['args'])}"]


def _templates(obj: dict[str, Any]) -> list[dict[str, Any]]:
    spec = obj.get("spec") or {}
    if obj["kind"] == "LeaderWorkerSet":
        lwt = spec["leaderWorkerTemplate"]
        return [lwt["leaderTemplate"], lwt["workerTemplate"]]
    return [spec["template"]] if "template" in spec else []


def header(plan: Plan) -> str:
    """The comment that says what was planned, for which load."""
    c = _chosen(plan)
    req = plan.request
    load = (f"{plural(req.concurrency, 'sequence')} of {c.sizing.expected_context:,} tokens at once"
            if req.concurrency is not None else
            f"no load declared (one replica; --concurrency C sizes replicas); sequences of "
            f"{c.sizing.expected_context:,} tokens")
    return (f"# shardwise plan: {plan.model.id} as {engine_text(c.parallel)} on {plan.gpu_name}, for {load}; "
            f"{c.sizing.vllm_version_note}")


def dump_documents(docs: list[dict[str, Any]], ascii_only: bool = False) -> str:
    """YAML documents, keys in the order given, multi-line strings as literal blocks, every object written out
    where it is used: no anchors and aliases (``&id001`` / ``*id001``) for objects the documents share, which a
    reader of the manifest would have to resolve by hand."""
    import yaml

    class _Dumper(yaml.SafeDumper):
        def ignore_aliases(self, data: Any) -> bool:
            return True

    def _str(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
        style = "|" if "\n" in text else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)

    _Dumper.add_representer(str, _str)
    # ascii_only: a character that is not ASCII is YAML's own escape (``"TP1\\xD7PP1"``, a double-quoted scalar)
    return yaml.dump_all(docs, Dumper=_Dumper, sort_keys=False, default_flow_style=False, allow_unicode=not ascii_only,
                         explicit_start=True, width=120)


def emit_manifest(plan: Plan, ascii_only: bool = False) -> str:
    return header(plan) + "\n" + dump_documents(manifest_objects(plan), ascii_only)


def emit_stack_config(plan: Plan, ascii_only: bool = False) -> str:
    from ..model.spec import VllmMultiNodeSpec
    if plan.request.install == "pip":
        raise PlanError("--emit stack-config deploys the official vllm/vllm-openai image (the components have no pip "
                        "install): emit a manifest, or plan without --install pip")
    pool, spec = specs(plan)
    if pool is None:
        raise PlanError(f"--emit stack-config provisions an EKS node pool of an instance type; the catalog has none "
                        f"with {plan.gpu_name}: emit a manifest (it selects the nodes by GPU Feature Discovery's "
                        "labels), or give --instance-type")
    multi = isinstance(spec, VllmMultiNodeSpec)
    kept = ("name", "namespace", "pool", "image", "groups" if multi else "replicas")
    entry = {k: v for k, v in spec.model_dump(mode="json").items() if k in kept}
    entry.update(spec.model_dump(mode="json", exclude_defaults=True))
    body = {"config": {"shardwise:environment": {
        "pools": [pool.model_dump(mode="json", exclude_defaults=True)],
        "multi_node" if multi else "services": [entry],
    }}}
    return (header(plan) + "\n# merge under config: shardwise:environment: of stacks/Pulumi.<env>.yaml (which names "
            "the environment and its cluster)\n" + dump_documents([body], ascii_only))


def emit_vllm_args(plan: Plan) -> str:
    from ..model.spec import VllmMultiNodeSpec
    from ..render.workload import vllm_args

    pool, spec = specs(plan)
    env = [f"{k}={v}" for k, v in plan.request.env]  # the environment it was sized with, before the command
    line = shlex.join([*env, "vllm", "serve", *vllm_args(spec)])
    if plan.request.install == "pip":
        line = f"pip install vllm=={spec.vllm_version} && {line}"
    if not isinstance(spec, VllmMultiNodeSpec):
        return f"{header(plan)}\n{line}\n"
    # vLLM's own multi-node launch (the components' LeaderWorkerSet passes the LWS variables instead)
    if spec.engine.data_parallel_size > 1:
        from ..render.multinode import DP_RPC_PORT, data_parallel_local

        local = data_parallel_local(spec, pool, _node_gpus(plan, pool))
        nodes = spec.engine.data_parallel_size // local
        launch = (f"{line} --data-parallel-size-local {local} --data-parallel-address \"$LEADER_ADDR\" "
                  f"--data-parallel-rpc-port {DP_RPC_PORT}")
        lines = [header(plan), "# on the leader node (its address in LEADER_ADDR; it serves the API):", launch]
        for n in range(1, nodes):  # node n runs ranks from n × local
            lines += ["# on the other node:" if nodes == 2 else f"# on node {n}:",
                      f"{launch} --headless --data-parallel-start-rank {local * n}"]
        return "\n".join(lines) + "\n"
    nodes = spec.engine.pipeline_parallel_size
    launch = f"{line} --distributed-executor-backend mp --nnodes {nodes} --master-addr \"$LEADER_ADDR\""
    others = "the other node" if nodes == 2 else f"each other node, with its --node-rank from 1 to {nodes - 1}"
    return (f"{header(plan)}\n# on the leader node (its address in LEADER_ADDR):\n{launch} --node-rank 0\n"
            f"# on {others}:\n{launch} --node-rank 1 --headless\n")


def emit(plan: Plan, what: str, ascii_only: bool = False) -> str:
    """What ``plan --emit WHAT`` writes. ``ascii_only`` (a standard output that cannot encode every character,
    ``PYTHONIOENCODING=ascii``): YAML writes what is not ASCII as its own escapes in double-quoted scalars, and each
    comment line is written in the nearest ASCII (``TP1xPP1``), where Python's ``\\xd7`` made the YAML invalid
    (tiny13). A command line of ``vllm-args`` keeps the stream's escapes (only its comments are changed)."""
    if what == "vllm-args":
        text = emit_vllm_args(plan)
    else:
        text = (emit_manifest if what == "manifest" else emit_stack_config)(plan, ascii_only)
    if not ascii_only or text.isascii():
        return text
    from ..report.formats import ascii_near

    return "".join(ascii_near(line) if line.lstrip().startswith("#") else line for line in text.splitlines(True))
