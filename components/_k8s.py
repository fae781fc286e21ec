"""Declare rendered Kubernetes objects (manifest dictionaries) as Pulumi resources."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

PROVIDER_DOC = "Kubernetes provider of the children (default: the one in `opts`)."
KUBECONFIG_DOC = "A kubeconfig (an Output of a cluster built in the program) to make the provider from."
INSTALLS_DOC = ("Per prerequisite (keda, prometheus-operator, lws, aws-load-balancer-controller), the resource that "
                "installs it (a Helm release): the custom resources of its CRDs wait for it.")


def doc(text: str) -> dict[str, str]:
    """``dataclasses.field`` metadata: the field's documentation (docs/components.md is made from it)."""
    return {"doc": text}


_TYPED: dict[tuple[str, str], Any] = {
    ("apps/v1", "Deployment"): k8s.apps.v1.Deployment,
    ("v1", "Service"): k8s.core.v1.Service,
    ("v1", "Namespace"): k8s.core.v1.Namespace,
    ("v1", "ServiceAccount"): k8s.core.v1.ServiceAccount,
    ("v1", "PersistentVolumeClaim"): k8s.core.v1.PersistentVolumeClaim,
    ("policy/v1", "PodDisruptionBudget"): k8s.policy.v1.PodDisruptionBudget,
    ("autoscaling/v2", "HorizontalPodAutoscaler"): k8s.autoscaling.v2.HorizontalPodAutoscaler,
    ("networking.k8s.io/v1", "NetworkPolicy"): k8s.networking.v1.NetworkPolicy,
    ("networking.k8s.io/v1", "Ingress"): k8s.networking.v1.Ingress,
}


_BINARY = ("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")
_DECIMAL = {"m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}


def canonical_quantity(value: Any) -> Any:
    """A resource quantity as Kubernetes writes it back (``resource.Quantity``'s canonical form): a whole number
    of a binary suffix takes the largest suffix it is a whole multiple of (``5120Mi`` -> ``5Gi``), a decimal one
    the largest power of 1000 (``8`` -> ``"8"``, ``1000m`` -> ``"1"``). Other forms (fractions, exponents) are
    returned as given."""
    import re

    m = re.fullmatch(r"(\d+)(Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E)?", str(value)) if not isinstance(value, bool) else None
    if m is None:
        return value
    number, suffix = int(m.group(1)), m.group(2) or ""
    if suffix and suffix in _BINARY:
        amount = number * 1024 ** _BINARY.index(suffix)
        if amount >= 1024:
            k = max(k for k in range(len(_BINARY)) if amount % 1024 ** k == 0)
            return f"{amount // 1024 ** k}{_BINARY[k]}"
        suffix = ""  # below 1Ki Kubernetes writes a binary quantity in decimal form
    milli = number * 10 ** (_DECIMAL[suffix] + 3)
    if milli == 0:
        return "0"
    exp = max(e for e in _DECIMAL.values() if milli % 10 ** (e + 3) == 0)
    return f"{milli // 10 ** (exp + 3)}{next(s for s, e in _DECIMAL.items() if e == exp)}"


def canonical_pod_quantities(obj: dict[str, Any]) -> dict[str, Any]:
    """A LeaderWorkerSet with the resource quantities of its leader and worker templates in canonical form.

    The LWS admission webhook decodes the object into Go types and encodes it again, so the API server stores
    every quantity canonicalised; the Kubernetes provider compares a custom resource's fields as declared
    (it has no schema that says they are quantities), so ``5120Mi`` against the stored ``5Gi`` and ``8``
    against ``"8"`` was a change on every ``up`` (found on the local control plane with the real controller).
    Built-in kinds need none of this: the provider knows their schema."""
    import copy

    out = copy.deepcopy(obj)
    lwt = out.get("spec", {}).get("leaderWorkerTemplate", {})
    for template in (lwt.get("leaderTemplate"), lwt.get("workerTemplate")):
        pod = (template or {}).get("spec") or {}
        for container in [*pod.get("initContainers", []), *pod.get("containers", [])]:
            for kind in ("requests", "limits"):
                amounts = container.get("resources", {}).get(kind)
                if isinstance(amounts, dict):
                    container["resources"][kind] = {k: canonical_quantity(v) for k, v in amounts.items()}
    return out


def declare(resource_name: str, obj: dict[str, Any], opts: pulumi.ResourceOptions) -> pulumi.CustomResource:
    """The typed resource for built-in kinds; a ``CustomResource`` for CRDs (LWS, KEDA, Karpenter...)."""
    cls = _TYPED.get((obj["apiVersion"], obj["kind"]))
    body = {k: v for k, v in obj.items() if k not in ("apiVersion", "kind", "metadata")}
    if cls is not None:
        return cls(resource_name, metadata=obj["metadata"], opts=opts, **body)
    return k8s.apiextensions.CustomResource(
        resource_name, api_version=obj["apiVersion"], kind=obj["kind"], metadata=obj["metadata"], opts=opts, **body,
    )


def depends_on(opts: pulumi.ResourceOptions | None) -> list[pulumi.Resource]:
    """The resources a component was told to wait for, to pass on to its Kubernetes children."""
    deps = opts.depends_on if opts is not None else None
    if isinstance(deps, pulumi.Resource):
        return [deps]
    return [d for d in deps if isinstance(d, pulumi.Resource)] if isinstance(deps, list) else []


def installed_by(kind: str, installs: Mapping[str, pulumi.Resource]) -> list[pulumi.Resource]:
    """What an object of ``kind`` waits for: the resource that installs its CRD (or, for an Ingress, the
    controller that serves it), when ``installs`` has it."""
    from shardwise.rules.render.environment import PREREQUISITE_OF_KIND

    found = installs.get(PREREQUISITE_OF_KIND.get(kind, ""))
    return [found] if found is not None else []


def child_opts(parent: pulumi.Resource, provider: pulumi.ProviderResource | None,
               deps: Sequence[pulumi.Resource] = (), **more: Any) -> pulumi.ResourceOptions:
    """Options of a Kubernetes child: the parent, the Kubernetes provider when one was given, dependencies."""
    return pulumi.ResourceOptions(parent=parent, provider=provider, depends_on=list(deps) or None, **more)


def provider_for(name: str, parent: pulumi.Resource, provider: pulumi.ProviderResource | None,
                 kubeconfig: pulumi.Input[str] | None) -> pulumi.ProviderResource | None:
    """The provider given, else one made from ``kubeconfig``, else None (children inherit the parent's)."""
    if provider is not None or kubeconfig is None:
        return provider
    return k8s.Provider(f"{name}-k8s", kubeconfig=kubeconfig, enable_server_side_apply=True,
                        opts=pulumi.ResourceOptions(parent=parent))


def metadata_name(resource: pulumi.CustomResource) -> pulumi.Output[str]:
    """``metadata.name`` of a typed resource (an ObjectMeta) or a CustomResource (a plain mapping)."""
    def pick(meta: Any) -> str:
        return str(meta.get("name") if isinstance(meta, dict) else meta.name)

    return resource.metadata.apply(pick)  # type: ignore[attr-defined]
