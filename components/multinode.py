"""VllmMultiNode: one model sharded across nodes (TP inside a node, PP across nodes) as a LeaderWorkerSet."""

from __future__ import annotations

import pulumi
from shardwise.rules import render
from shardwise.rules.spec import NodePoolSpec, VllmMultiNodeSpec

from ._k8s import declare, depends_on, metadata_name
from .validation import validate_multinode


class VllmMultiNode(pulumi.ComponentResource):
    """A LeaderWorkerSet of ``groups`` groups, each PP pods of TP GPUs, and a leader-only Service.

    From :func:`shardwise.rules.render.render_vllm_multinode`: ``leaderWorkerTemplate.size`` = PP,
    ``restartPolicy: RecreateGroupOnPodRestart`` (one lost rank breaks the whole group), the
    exclusive-topology annotation, ``vpc.amazonaws.com/efa`` devices, ``hugepages-2Mi`` and
    ``FI_PROVIDER=efa`` on EFA pools, ``NCCL_SOCKET_IFNAME``/``GLOO_SOCKET_IFNAME``/``VLLM_HOST_IP``,
    and vLLM's multi-node launch (``--distributed-executor-backend mp --nnodes $(LWS_GROUP_SIZE)
    --node-rank $(LWS_WORKER_INDEX) --master-addr $(LWS_LEADER_ADDRESS)``, workers ``--headless``;
    or a Ray cluster with ``launcher: ray``).
    The API is served by the leader only.
    """

    leaderworkerset_name: pulumi.Output[str]
    service_name: pulumi.Output[str]
    namespace: str
    endpoint: str
    group_size: int
    gpus_per_group: int

    def __init__(
        self,
        name: str,
        spec: VllmMultiNodeSpec,
        pool: NodePoolSpec,
        *,
        production: bool = False,
        validate: bool = True,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        if validate:
            validate_multinode(spec, pool, production)
        super().__init__("shardwise:multinode:VllmMultiNode", name, None, opts)
        deps = depends_on(opts)
        efa = render.efa_interface_count(pool)
        lws, svc = render.render_vllm_multinode(spec, efa, spec.exclusive_topology)
        child = pulumi.ResourceOptions(parent=self, depends_on=deps)
        lws_res = declare(f"{name}-leaderworkerset", lws, child)
        svc_res = declare(f"{name}-service", svc, child)

        self.leaderworkerset_name = metadata_name(lws_res)
        self.service_name = metadata_name(svc_res)
        self.namespace = spec.namespace
        self.endpoint = f"http://{spec.name}.{spec.namespace}.svc.cluster.local:{spec.engine.port}"
        self.group_size = spec.engine.pipeline_parallel_size
        self.gpus_per_group = spec.engine.tensor_parallel_size * spec.engine.pipeline_parallel_size
        self.register_outputs({
            "leaderworkerset_name": self.leaderworkerset_name,
            "service_name": self.service_name,
            "namespace": self.namespace,
            "endpoint": self.endpoint,
            "group_size": self.group_size,
            "gpus_per_group": self.gpus_per_group,
        })
