"""Declare a rendered Kubernetes object (a manifest dictionary) as a Pulumi resource."""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_kubernetes as k8s

_TYPED: dict[tuple[str, str], Any] = {
    ("apps/v1", "Deployment"): k8s.apps.v1.Deployment,
    ("v1", "Service"): k8s.core.v1.Service,
    ("v1", "Namespace"): k8s.core.v1.Namespace,
    ("policy/v1", "PodDisruptionBudget"): k8s.policy.v1.PodDisruptionBudget,
    ("autoscaling/v2", "HorizontalPodAutoscaler"): k8s.autoscaling.v2.HorizontalPodAutoscaler,
    ("networking.k8s.io/v1", "NetworkPolicy"): k8s.networking.v1.NetworkPolicy,
    ("networking.k8s.io/v1", "Ingress"): k8s.networking.v1.Ingress,
}


def declare(resource_name: str, obj: dict[str, Any], opts: pulumi.ResourceOptions) -> pulumi.CustomResource:
    """The typed resource for built-in kinds; a ``CustomResource`` for CRDs (LWS, KEDA, Karpenter...)."""
    cls = _TYPED.get((obj["apiVersion"], obj["kind"]))
    if cls is not None:
        return cls(resource_name, metadata=obj["metadata"], spec=obj.get("spec"), opts=opts)
    return k8s.apiextensions.CustomResource(
        resource_name,
        api_version=obj["apiVersion"],
        kind=obj["kind"],
        metadata=obj["metadata"],
        spec=obj.get("spec"),
        opts=opts,
    )


def depends_on(opts: pulumi.ResourceOptions | None) -> list[pulumi.Resource]:
    """The resources a component was told to wait for, to pass on to its Kubernetes children."""
    deps = opts.depends_on if opts is not None else None
    if isinstance(deps, pulumi.Resource):
        return [deps]
    return [d for d in deps if isinstance(d, pulumi.Resource)] if isinstance(deps, list) else []


def metadata_name(resource: pulumi.CustomResource) -> pulumi.Output[str]:
    """``metadata.name`` of a typed resource (an ObjectMeta) or a CustomResource (a plain mapping)."""
    def pick(meta: Any) -> str:
        return str(meta.get("name") if isinstance(meta, dict) else meta.name)

    return resource.metadata.apply(pick)  # type: ignore[attr-defined]
