"""VllmMultiNode: one model sharded across nodes (TP inside a node, PP across nodes, or data-parallel engines spread
over them) as a LeaderWorkerSet."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pulumi
from shardwise.rules.model.inventory import world_size
from shardwise.rules.model.spec import VllmMultiNodeSpec
from shardwise.rules.render.multinode import group_shape, render_vllm_multinode
from shardwise.rules.vllm import images

from ._k8s import metadata_name
from ._workload import COMMON_OUTPUTS, WorkloadArgs, build_spec, declare_workload
from .validation import multinode_findings


@dataclass(kw_only=True)
class VllmMultiNodeArgs(WorkloadArgs):
    """Arguments of :class:`VllmMultiNode` (the fields of :class:`~shardwise.rules.model.spec.VllmMultiNodeSpec`)."""

    groups: int = 1
    launcher: str = "auto"
    image_efa: bool | None = None
    model_cache_gib: int = 1000
    network_interface: str = "eth0"
    exclusive_topology: str | None = None


class VllmMultiNode(pulumi.ComponentResource):
    """A LeaderWorkerSet of ``groups`` groups, each PP pods of TP GPUs, a leader-only Service and a monitor.

    From :func:`shardwise.rules.render.multinode.render_vllm_multinode`: ``leaderWorkerTemplate.size`` = PP (or
    TP × PP ÷ a node's GPUs where TP spans the trays of one NVLink domain, :func:`~shardwise.rules.render.multinode.
    group_shape`),
    ``restartPolicy: RecreateGroupOnPodRestart`` (one lost rank breaks the whole group), on EFA pools
    every ``vpc.amazonaws.com/efa`` device, ``hugepages-2Mi`` and ``FI_PROVIDER=efa`` (the image must carry
    libfabric and aws-ofi-nccl: an AWS DLC vLLM image), ``NCCL_SOCKET_IFNAME``/``GLOO_SOCKET_IFNAME``/
    ``VLLM_HOST_IP``; the launch (``launcher``): vLLM's own ``--nnodes/--node-rank/--master-addr`` when the
    image's vLLM has it (>= 0.11.1), else a Ray cluster per group. The LWS exclusive-topology annotation
    only with ``exclusive_topology``. With ``data_parallel_size`` > 1 a group is DP ÷ (a node's engines) pods,
    each running a node's data-parallel engines (``--data-parallel-size-local``, the workers ``--headless`` from
    their start rank), the leader's front end serving the API. A group restarts as a whole, so the model cache
    must outlive a pod (pvc, node-nvme or s3). The API is served by the leader only.

    Outputs: ``leader_worker_set``, ``service``, ``monitor``, ``service_account``,
    ``pod_identity_association``, ``cache_claim``, ``token_secret``; ``leaderworkerset_name``, ``service_name``,
    ``namespace``, ``endpoint``; ``group_size``, ``gpus_per_group``, ``launcher`` (``{launcher, why}``), ``sizing``,
    ``startup_budget``, ``validation``.
    """

    spec: VllmMultiNodeSpec
    leader_worker_set: pulumi.CustomResource
    service: pulumi.CustomResource
    monitor: pulumi.CustomResource | None
    service_account: pulumi.CustomResource | None
    cache_claim: pulumi.CustomResource | None
    pod_identity_association: pulumi.CustomResource | None
    token_secret: pulumi.CustomResource | None
    leaderworkerset_name: pulumi.Output[str]
    service_name: pulumi.Output[str]
    namespace: pulumi.Output[str]
    endpoint: pulumi.Output[str]
    group_size: int
    gpus_per_group: int
    launcher: dict[str, str]
    sizing: dict[str, Any]
    startup_budget: dict[str, Any]
    validation: dict[str, Any]

    def __init__(self, name: str, args: VllmMultiNodeArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        spec, pool, unknowns, notes = build_spec("VllmMultiNode", args, VllmMultiNodeSpec, multinode_findings)
        super().__init__("shardwise:multinode:VllmMultiNode", name, None, opts)
        assert isinstance(spec, VllmMultiNodeSpec)
        made = declare_workload(self, name, args, spec, pool, unknowns, notes,
                                render_vllm_multinode(spec, pool), "LeaderWorkerSet", opts)
        self.leader_worker_set = made["LeaderWorkerSet"]
        self.leaderworkerset_name = metadata_name(self.leader_worker_set)
        self.group_size = group_shape(spec, pool)[0]
        e = spec.engine
        self.gpus_per_group = world_size(e.tensor_parallel_size, e.pipeline_parallel_size,
                                         e.prefill_context_parallel_size) * e.data_parallel_size
        chosen, why = images.choose_launcher(spec.launcher, spec.image, spec.vllm_version)
        if e.data_parallel_size > 1:  # the renderer writes vLLM's own data-parallel launch, on every release
            chosen, why = "native", "data-parallel engines over nodes: vLLM's --data-parallel-size-local launch"
        self.launcher = {"launcher": chosen, "why": why}
        self.register_outputs({
            "leader_worker_set": self.leader_worker_set, "leaderworkerset_name": self.leaderworkerset_name,
            "group_size": self.group_size, "gpus_per_group": self.gpus_per_group, "launcher": self.launcher,
            **{k: getattr(self, k) for k in COMMON_OUTPUTS},
        })
