"""VllmService: one model served by independent replicas, each TP GPUs of one node."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pulumi
from shardwise.rules.model.inventory import world_size
from shardwise.rules.model.spec import AutoscalingSpec, VllmServiceSpec
from shardwise.rules.render.vllm import render_vllm_service

from ._k8s import metadata_name
from ._workload import COMMON_OUTPUTS, WorkloadArgs, build_spec, declare_workload
from .validation import service_findings


@dataclass(kw_only=True)
class VllmServiceArgs(WorkloadArgs):
    """Arguments of :class:`VllmService` (the fields of :class:`~shardwise.rules.model.spec.VllmServiceSpec`)."""

    replicas: int = 1
    autoscaling: AutoscalingSpec | dict[str, Any] | None = AutoscalingSpec()


class VllmService(pulumi.ComponentResource):
    """A Deployment of vLLM replicas with its Service, PodDisruptionBudget, queue-depth autoscaler and
    Prometheus monitor, and (when asked) its ServiceAccount, Pod Identity association, cache claim and the
    Secret with the Hugging Face token (``hf_token``; a gated model needs it or ``hf_token_secret_exists``).

    Every Kubernetes object comes from :func:`shardwise.rules.render.vllm.render_vllm_service`. The arguments
    are validated with the shardwise rules against the pool before anything is declared; all problems
    raise one :class:`~shardwise.components.ArgumentsError` (a ``pulumi.InputPropertyError``) whose paths
    are relative to the arguments (``engine.tensor_parallel_size``, ``pool.instance_type``, ``image``).
    Outputs in the arguments are checked again when they resolve.

    Outputs: ``deployment``, ``service``, ``pod_disruption_budget``, ``autoscaler``, ``monitor``,
    ``service_account``, ``pod_identity_association``, ``cache_claim``, ``token_secret`` (resources or None);
    ``deployment_name``, ``service_name``, ``namespace``, ``endpoint`` (Outputs); ``gpus_per_replica``,
    ``sizing`` (weights, KV cache, concurrency, startup budget), ``startup_budget``, ``validation``.
    """

    spec: VllmServiceSpec
    deployment: pulumi.CustomResource
    service: pulumi.CustomResource
    pod_disruption_budget: pulumi.CustomResource
    autoscaler: pulumi.CustomResource | None
    monitor: pulumi.CustomResource | None
    service_account: pulumi.CustomResource | None
    cache_claim: pulumi.CustomResource | None
    pod_identity_association: pulumi.CustomResource | None
    token_secret: pulumi.CustomResource | None
    deployment_name: pulumi.Output[str]
    service_name: pulumi.Output[str]
    namespace: pulumi.Output[str]
    endpoint: pulumi.Output[str]
    gpus_per_replica: int
    sizing: dict[str, Any]
    startup_budget: dict[str, Any]
    validation: dict[str, Any]

    def __init__(self, name: str, args: VllmServiceArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        spec, pool, unknowns, notes = build_spec("VllmService", args, VllmServiceSpec, service_findings)
        super().__init__("shardwise:vllm:VllmService", name, None, opts)
        assert isinstance(spec, VllmServiceSpec)
        objs = render_vllm_service(spec, pool)
        if spec.autoscaling is not None:
            for obj in objs:
                if obj["kind"] == "Deployment" and obj["spec"]["replicas"] == 0:
                    # scale-to-zero: `up` first proves one replica serves; the autoscaler, declared after it,
                    # then scales it to zero (a Deployment declared at 0 would pass the provider's await idle)
                    obj["spec"]["replicas"] = 1
        made = declare_workload(
            self, name, args, spec, pool, unknowns, notes, objs, "Deployment", opts,
            # the autoscaler owns the replica count once it exists
            ignore_changes=["spec.replicas"] if spec.autoscaling is not None else None)
        self.deployment = made["Deployment"]
        if spec.autoscaling is None and spec.replicas == 0:
            pulumi.log.warn(f"VllmService `{spec.name}` has replicas 0 and no autoscaling: `pulumi up` succeeds "
                            "with no pod serving, and its endpoint answers only once replicas is raised.",
                            resource=self)
        self.pod_disruption_budget = made["PodDisruptionBudget"]
        self.autoscaler = made.get("ScaledObject") or made.get("HorizontalPodAutoscaler")
        self.deployment_name = metadata_name(self.deployment)
        e = spec.engine
        self.gpus_per_replica = world_size(e.tensor_parallel_size, e.pipeline_parallel_size,
                                           e.prefill_context_parallel_size)
        self.register_outputs({
            "deployment": self.deployment, "pod_disruption_budget": self.pod_disruption_budget,
            "autoscaler": self.autoscaler, "deployment_name": self.deployment_name,
            "gpus_per_replica": self.gpus_per_replica, **{k: getattr(self, k) for k in COMMON_OUTPUTS},
        })
