"""VllmService (:mod:`shardwise.components.vllm`): a Deployment of independent replicas, its ClusterIP
Service, PodDisruptionBudget, autoscaler and Prometheus monitor."""

from __future__ import annotations

from typing import Any

from ..capacity import cache
from ..model.inventory import world_size
from ..model.spec import AutoscalingSpec, NodePoolSpec, VllmServiceSpec
from .common import fmt_num
from .workload import (
    gpu_resources,
    group_labels,
    object_meta,
    pod_template,
    render_monitor,
    render_service,
    selector_labels,
    serving_container,
    serving_env,
    vllm_args,
    workload_annotations,
    workload_extras,
)

#: Seconds a replacement pod may wait for a node and its image before it starts (the components' rollout margin).
NODE_AND_PULL_SECONDS = 600


def progress_deadline_seconds(spec: VllmServiceSpec, pool: NodePoolSpec | None = None) -> int:
    """The Deployment's ``progressDeadlineSeconds``: one replacement's first start (the download and the startup
    budget, :func:`~shardwise.rules.capacity.cache.rollout_seconds`) and :data:`NODE_AND_PULL_SECONDS`. The
    deployment controller marks a rollout ``ProgressDeadlineExceeded`` when no new pod became available for that
    long (Kubernetes' default, 600 s, is shorter than most model starts: the condition, which ``kubectl rollout
    status`` fails on and the Kubernetes provider logs as a warning, would be set while vLLM is still loading)."""
    return cache.rollout_seconds(spec, pool) + NODE_AND_PULL_SECONDS


def render_deployment(spec: VllmServiceSpec, pool: NodePoolSpec | None = None) -> dict[str, Any]:
    e = spec.engine
    # every data-parallel engine of the replica runs in this pod: vLLM starts TP × PP × PCP × DP workers
    tp = world_size(e.tensor_parallel_size, e.pipeline_parallel_size,
                    e.prefill_context_parallel_size) * e.data_parallel_size
    budget = cache.startup_budget(spec, pool).budget_seconds
    container = serving_container(spec, "vllm", ["vllm", "serve"], vllm_args(spec), serving_env(spec),
                                  gpu_resources(tp), budget)
    template = pod_template(spec, group_labels(spec.name), [container], tp)
    template["spec"]["topologySpreadConstraints"] = [{
        "maxSkew": 1,
        "topologyKey": "kubernetes.io/hostname",
        "whenUnsatisfiable": "ScheduleAnyway",
        "labelSelector": {"matchLabels": selector_labels(spec.name)},
    }]
    replicas = spec.replicas
    if spec.autoscaling is not None:
        replicas = max(spec.replicas, spec.autoscaling.min_replicas)
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": object_meta(spec.name, spec.namespace, workload_annotations(spec)),
        "spec": {
            "replicas": replicas,
            "progressDeadlineSeconds": progress_deadline_seconds(spec, pool),
            "selector": {"matchLabels": selector_labels(spec.name)},
            # GPUs are scarce: replace one replica at a time instead of asking for a spare node.
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}},
            "template": template,
        },
    }


def render_pdb(spec: VllmServiceSpec) -> dict[str, Any]:
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": object_meta(spec.name, spec.namespace),
        "spec": {"maxUnavailable": 1, "selector": {"matchLabels": selector_labels(spec.name)}},
    }


def _prometheus_query(metric: str, spec: VllmServiceSpec) -> str:
    pods = f'{spec.name}-[a-z0-9]+-[a-z0-9]+'
    if metric == "gpu":
        return f'avg(DCGM_FI_DEV_GPU_UTIL{{namespace="{spec.namespace}",pod=~"{pods}"}})'
    return f'sum({metric}{{namespace="{spec.namespace}",pod=~"{pods}"}})'


def render_autoscaler(spec: VllmServiceSpec) -> dict[str, Any] | None:
    """A KEDA ScaledObject or an autoscaling/v2 HPA on the spec's metric; None without autoscaling."""
    a: AutoscalingSpec | None = spec.autoscaling
    if a is None:
        return None
    behavior = {"scaleDown": {"stabilizationWindowSeconds": a.scale_down_window_seconds}}
    if a.kind == "keda":
        if a.metric == "cpu":
            trigger: dict[str, Any] = {
                "type": "cpu", "metricType": "Utilization", "metadata": {"value": fmt_num(a.threshold)},
            }
        else:
            trigger = {
                "type": "prometheus",
                "metadata": {
                    "serverAddress": a.prometheus_address,
                    "query": _prometheus_query(a.metric, spec),
                    "threshold": fmt_num(a.threshold),
                },
            }
        return {
            "apiVersion": "keda.sh/v1alpha1",
            "kind": "ScaledObject",
            "metadata": object_meta(spec.name, spec.namespace),
            "spec": {
                "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": spec.name},
                "minReplicaCount": a.min_replicas,
                "maxReplicaCount": a.max_replicas,
                "pollingInterval": 15,
                "advanced": {"horizontalPodAutoscalerConfig": {"behavior": behavior}},
                "triggers": [trigger],
            },
        }
    if a.metric == "cpu":
        metric: dict[str, Any] = {
            "type": "Resource",
            "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": int(a.threshold)}},
        }
    else:
        name = "DCGM_FI_DEV_GPU_UTIL" if a.metric == "gpu" else a.metric
        metric = {
            "type": "Pods",
            "pods": {"metric": {"name": name},
                     "target": {"type": "AverageValue", "averageValue": fmt_num(a.threshold)}},
        }
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": object_meta(spec.name, spec.namespace),
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": spec.name},
            "minReplicas": max(1, a.min_replicas),
            "maxReplicas": a.max_replicas,
            "metrics": [metric],
            "behavior": behavior,
        },
    }


def render_vllm_service(spec: VllmServiceSpec, pool: NodePoolSpec | None = None) -> list[dict[str, Any]]:
    """ServiceAccount and claim (when asked), Deployment, ClusterIP Service, PodDisruptionBudget, the
    autoscaler and the Prometheus monitor (when set)."""
    objs = [
        *workload_extras(spec),
        render_deployment(spec, pool),
        render_service(spec.name, spec.namespace, spec.engine.port, selector_labels(spec.name)),
        render_pdb(spec),
    ]
    for extra in (render_autoscaler(spec), render_monitor(spec)):
        if extra is not None:
            objs.append(extra)
    return objs
