"""VllmService: one model served by independent replicas, each TP GPUs of one node."""

from __future__ import annotations

import pulumi
from shardwise.rules import render
from shardwise.rules.spec import NodePoolSpec, VllmServiceSpec

from ._k8s import declare, depends_on, metadata_name
from .validation import validate_service


class VllmService(pulumi.ComponentResource):
    """A Deployment of vLLM replicas with its Service, PodDisruptionBudget and queue-depth autoscaler.

    Every Kubernetes object comes from :func:`shardwise.rules.render.render_vllm_service`: container
    args from the engine spec, ``nvidia.com/gpu`` = tensor_parallel_size, the pool's node selector and
    the GPU toleration, a memory-backed ``/dev/shm``, a startup probe covering the model load, and a
    KEDA ScaledObject (or HPA) on ``vllm:num_requests_waiting`` with a scale-down window.

    The spec is validated with the shardwise rules against ``pool`` before anything is declared; a
    problem raises ``pulumi.InputPropertyError`` whose path is relative to these arguments
    (``engine.tensor_parallel_size``, ``pool.instance_type``, ``image``).

    Kubernetes resources use the provider given through ``opts`` (``providers=[k8s_provider]``).
    """

    deployment_name: pulumi.Output[str]
    service_name: pulumi.Output[str]
    namespace: str
    endpoint: str
    gpus_per_replica: int

    def __init__(
        self,
        name: str,
        spec: VllmServiceSpec,
        pool: NodePoolSpec,
        *,
        production: bool = False,
        validate: bool = True,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        if validate:
            validate_service(spec, pool, production)
        super().__init__("shardwise:vllm:VllmService", name, None, opts)
        deps = depends_on(opts)
        objs = render.render_vllm_service(spec)
        load_minutes = spec.model_load_seconds // 60 + 10
        resources: dict[str, pulumi.CustomResource] = {}
        for obj in objs:
            kind = obj["kind"]
            child = pulumi.ResourceOptions(parent=self, depends_on=deps)
            if kind == "Deployment":
                child = pulumi.ResourceOptions.merge(child, pulumi.ResourceOptions(
                    # pulumi waits for the rollout; weights take minutes to download and load
                    custom_timeouts=pulumi.CustomTimeouts(create=f"{load_minutes}m", update=f"{load_minutes}m"),
                    # the autoscaler owns the replica count once it exists
                    ignore_changes=["spec.replicas"] if spec.autoscaling is not None else None,
                ))
            resources[kind] = declare(f"{name}-{kind.lower()}", obj, child)

        self.deployment_name = metadata_name(resources["Deployment"])
        self.service_name = metadata_name(resources["Service"])
        self.namespace = spec.namespace
        self.endpoint = f"http://{spec.name}.{spec.namespace}.svc.cluster.local:{spec.engine.port}"
        self.gpus_per_replica = spec.engine.tensor_parallel_size * spec.engine.pipeline_parallel_size
        self.register_outputs({
            "deployment_name": self.deployment_name,
            "service_name": self.service_name,
            "namespace": self.namespace,
            "endpoint": self.endpoint,
            "gpus_per_replica": self.gpus_per_replica,
        })
