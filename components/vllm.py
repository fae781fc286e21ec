"""VllmService: one model served by independent replicas, each TP GPUs of one node."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import pulumi
from shardwise.rules import cache, render
from shardwise.rules.spec import AutoscalingSpec, VllmServiceSpec

from ._k8s import depends_on, metadata_name, provider_for
from ._workload import WorkloadArgs, build_spec, declare_all, endpoint, identity_children, log_notes, safe_sizing
from .validation import service_findings


@dataclass(kw_only=True)
class VllmServiceArgs(WorkloadArgs):
    """Arguments of :class:`VllmService` (the fields of :class:`~shardwise.rules.spec.VllmServiceSpec`)."""

    replicas: int = 1
    autoscaling: AutoscalingSpec | dict[str, Any] | None = AutoscalingSpec()


class VllmService(pulumi.ComponentResource):
    """A Deployment of vLLM replicas with its Service, PodDisruptionBudget, queue-depth autoscaler and
    Prometheus monitor, and (when asked) its ServiceAccount, Pod Identity association and cache claim.

    Every Kubernetes object comes from :func:`shardwise.rules.render.render_vllm_service`. The arguments
    are validated with the shardwise rules against the pool before anything is declared; all problems
    raise one :class:`~shardwise.components.ArgumentsError` (a ``pulumi.InputPropertyError``) whose paths
    are relative to the arguments (``engine.tensor_parallel_size``, ``pool.instance_type``, ``image``).
    Outputs in the arguments are checked again when they resolve.

    Outputs: ``deployment``, ``service``, ``pod_disruption_budget``, ``autoscaler``, ``monitor``,
    ``service_account``, ``pod_identity_association``, ``cache_claim`` (resources or None);
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
        log_notes(self, notes)
        assert isinstance(spec, VllmServiceSpec)
        self.spec, self.unknowns = spec, unknowns
        provider = provider_for(name, self, args.k8s_provider, args.kubeconfig)
        rollout = f"{math.ceil(cache.rollout_seconds(spec, pool) / 60) + 10}m"

        def options(obj: dict[str, Any]) -> dict[str, Any]:
            if obj["kind"] != "Deployment":
                return {}
            # Pulumi waits for the rollout: a first download, then the load; the autoscaler owns replicas
            return {"custom_timeouts": pulumi.CustomTimeouts(create=rollout, update=rollout),
                    "ignore_changes": ["spec.replicas"] if spec.autoscaling is not None else None}

        made = declare_all(name, self, render.render_vllm_service(spec, pool), unknowns, provider,
                           depends_on(opts), options)
        self.pod_identity_association = identity_children(name, self, spec, unknowns, args.cluster_name)
        self.deployment, self.service = made["Deployment"], made["Service"]
        self.pod_disruption_budget = made["PodDisruptionBudget"]
        self.autoscaler = made.get("ScaledObject") or made.get("HorizontalPodAutoscaler")
        self.monitor = made.get("PodMonitor") or made.get("ServiceMonitor")
        self.service_account, self.cache_claim = made.get("ServiceAccount"), made.get("PersistentVolumeClaim")
        self.deployment_name = metadata_name(self.deployment)
        self.service_name = metadata_name(self.service)
        self.namespace = pulumi.Output.from_input(unknowns.substitute(spec.namespace))
        self.endpoint = endpoint(spec, unknowns)
        self.gpus_per_replica = spec.engine.tensor_parallel_size * spec.engine.pipeline_parallel_size
        self.sizing = safe_sizing(spec, pool)
        self.startup_budget = cache.startup_budget(spec, pool).as_dict()
        self.validation = {"checked_when_resolved": unknowns.deferred, "suppressed": notes}
        self.register_outputs({
            "deployment": self.deployment, "service": self.service,
            "pod_disruption_budget": self.pod_disruption_budget, "autoscaler": self.autoscaler,
            "monitor": self.monitor, "service_account": self.service_account, "cache_claim": self.cache_claim,
            "pod_identity_association": self.pod_identity_association,
            "deployment_name": self.deployment_name, "service_name": self.service_name,
            "namespace": self.namespace, "endpoint": self.endpoint, "gpus_per_replica": self.gpus_per_replica,
            "sizing": self.sizing, "startup_budget": self.startup_budget, "validation": self.validation,
        })
