"""Which extractor reads an object: the one place that picks it by ``apiVersion`` group and ``kind``.

:data:`EXTRACTORS` maps (group, kind) to the extractor of that family (see the package's docstring for the
families); :func:`add_object` reads one object with it, falls back to the generic reader
(:mod:`.generic`) for serving resources whose shape the specific adapter does not know and for kinds no
adapter claims, and counts the rest in ``Inventory.skipped``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ...model import Inventory, Location
from ..yamlsrc import LineDict
from .autoscaling import add_hpa, add_scaled_object
from .claims import add_device_claim
from .configmaps import add_config_map
from .fields import as_list
from .generic import add_generic
from .kserve import RUNTIME_KINDS, add_inference_service, add_llm_inference_service
from .kthena import add_model_booster, add_model_serving
from .network import add_http_route, add_ingress, add_network_policy, add_service
from .nodes import add_ec2_node_class, add_karpenter_pool, add_node
from .ome import GROUP as OME_GROUP
from .ome import KINDS as OME_KINDS
from .ome import add_ome_object
from .operators import (
    add_dynamo_graph,
    add_kaito_workspace,
    add_kubeai_model,
    add_model_service,
    add_storm_service,
)
from .parse import Lines
from .policies import (
    add_admin_policy,
    add_baseline_admin_policy,
    add_calico_global_policy,
    add_calico_policy,
    add_cilium_clusterwide_policy,
    add_cilium_policy,
)
from .ray import add_ray_cluster_object
from .workloads import SIMPLE_WORKLOADS, add_workload


class Context:
    """What the extractors of one input share: its text's lines and the objects others refer to."""

    __slots__ = ("lines", "runtimes", "used_runtimes")

    def __init__(self, lines: Lines | None, runtimes: list[Mapping[str, Any]]) -> None:
        self.lines = lines
        self.runtimes = runtimes  # KServe ServingRuntimes / ClusterServingRuntimes of the input
        self.used_runtimes: set[int] = set()  # ids of those an InferenceService of the input runs on


#: An extractor adds what one object says to the inventory.
Extractor = Callable[[str, Mapping[str, Any], Location, Inventory, Context], Any]


def _plain(add: Callable[[Mapping[str, Any], Location, Inventory], Any]) -> Extractor:
    return lambda kind, obj, loc, inv, ctx: add(obj, loc, inv)


def _with_lines(add: Callable[[Mapping[str, Any], Location, Inventory, Lines | None], Any]) -> Extractor:
    return lambda kind, obj, loc, inv, ctx: add(obj, loc, inv, ctx.lines)


def _ray(kind: str, obj: Mapping[str, Any], loc: Location, inv: Inventory, ctx: Context) -> Any:
    return add_ray_cluster_object(kind, obj, loc, inv, ctx.lines)


def _ome(kind: str, obj: Mapping[str, Any], loc: Location, inv: Inventory, ctx: Context) -> None:
    add_ome_object(kind, obj, loc, inv, ctx.lines.get(loc.file) if ctx.lines is not None and loc.file else None)


def _none(kind: str, obj: Mapping[str, Any], loc: Location, inv: Inventory, ctx: Context) -> None:
    """Recognised; no rule needs the object's content (or another object reads it)."""


#: (apiVersion group, kind) -> extractor; group ``None`` accepts any group.
EXTRACTORS: dict[tuple[str | None, str], Extractor] = {
    **{(None, kind): (lambda kind, obj, loc, inv, ctx: add_workload(kind, obj, loc, inv, ctx.lines))
       for kind in SIMPLE_WORKLOADS},
    ("serving.kserve.io", "InferenceService"):
        lambda kind, obj, loc, inv, ctx: add_inference_service(obj, loc, inv, ctx.lines, ctx.runtimes),
    **{("serving.kserve.io", kind): _none for kind in RUNTIME_KINDS},
    ("serving.kserve.io", "LLMInferenceService"): _with_lines(add_llm_inference_service),
    ("serving.kserve.io", "LLMInferenceServiceConfig"): _none,
    **{(OME_GROUP, kind): _ome for kind in OME_KINDS},
    ("kubeai.org", "Model"): _with_lines(add_kubeai_model),
    ("ray.io", "RayCluster"): _ray,
    ("ray.io", "RayService"): _ray,
    ("orchestration.aibrix.ai", "RayClusterFleet"): _ray,
    ("orchestration.aibrix.ai", "StormService"): _with_lines(add_storm_service),
    ("nvidia.com", "DynamoGraphDeployment"): _with_lines(add_dynamo_graph),
    ("llm-d.ai", "ModelService"): _with_lines(add_model_service),
    ("kaito.sh", "Workspace"): _with_lines(add_kaito_workspace),
    ("workload.serving.volcano.sh", "ModelBooster"): _with_lines(add_model_booster),
    ("workload.serving.volcano.sh", "ModelServing"): _with_lines(add_model_serving),
    (None, "Service"): _plain(add_service),
    (None, "Ingress"): _plain(add_ingress),
    (None, "HTTPRoute"): _plain(add_http_route),
    ("", "NetworkPolicy"): _plain(add_network_policy),
    ("networking.k8s.io", "NetworkPolicy"): _plain(add_network_policy),
    ("cilium.io", "CiliumNetworkPolicy"): _plain(add_cilium_policy),
    ("cilium.io", "CiliumClusterwideNetworkPolicy"): _plain(add_cilium_clusterwide_policy),
    ("projectcalico.org", "NetworkPolicy"): _plain(add_calico_policy),
    ("crd.projectcalico.org", "NetworkPolicy"): _plain(add_calico_policy),
    ("projectcalico.org", "GlobalNetworkPolicy"): _plain(add_calico_global_policy),
    ("crd.projectcalico.org", "GlobalNetworkPolicy"): _plain(add_calico_global_policy),
    ("policy.networking.k8s.io", "AdminNetworkPolicy"): _plain(add_admin_policy),
    ("policy.networking.k8s.io", "BaselineAdminNetworkPolicy"): _plain(add_baseline_admin_policy),
    ("", "ConfigMap"): _plain(add_config_map),
    (None, "HorizontalPodAutoscaler"): _plain(add_hpa),
    ("keda.sh", "ScaledObject"): _plain(add_scaled_object),
    (None, "Node"): _plain(add_node),
    ("karpenter.sh", "NodePool"): _plain(add_karpenter_pool),
    ("karpenter.k8s.aws", "EC2NodeClass"): _plain(add_ec2_node_class),
    **{("resource.k8s.io", kind): (lambda kind, obj, loc, inv, ctx: add_device_claim(kind, obj, loc, inv))
       for kind in ("ResourceClaim", "ResourceClaimTemplate", "DeviceClass")},
    (None, "Namespace"): _none,
    (None, "PodDisruptionBudget"): _none,
}


#: Kinds whose objects hold no pod an operator runs: no generic reading, and a mention of vLLM in them
#: (a routing rule naming the engine, a CRD's schema) is no workload that went unread.
NOT_WORKLOADS = frozenset({
    "Service", "Ingress", "HTTPRoute", "GRPCRoute", "Gateway", "GatewayClass", "NetworkPolicy",
    "CiliumNetworkPolicy", "CiliumClusterwideNetworkPolicy", "GlobalNetworkPolicy", "AdminNetworkPolicy",
    "BaselineAdminNetworkPolicy", "HorizontalPodAutoscaler", "ScaledObject", "Node", "NodePool", "EC2NodeClass",
    "Namespace", "PodDisruptionBudget", "CustomResourceDefinition", "ServiceAccount", "Role", "ClusterRole",
    "RoleBinding", "ClusterRoleBinding", "PersistentVolumeClaim", "PersistentVolume", "StorageClass",
    "ServiceMonitor", "PodMonitor", "PrometheusRule", "InferencePool", "InferenceModel", "InferenceObjective",
    "ModelRoute", "ModelServer", "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration",
    "Event", "EndpointSlice", "Endpoints",
})
#: Kinds that hold data a workload reads (a launch script): a vLLM launch in them is unread only when
#: nothing else in their file was read.
DATA_KINDS = frozenset({"ConfigMap", "Secret"})
#: Serving resources a specific adapter reads; when it reads no workload from one, the generic reader
#: still looks (a shape the adapter does not know). LLMInferenceServiceConfig is a preset its services
#: merge, not a workload.
_FALLBACK = frozenset({"InferenceService", "LLMInferenceService", "Model", "RayCluster", "RayService",
                       "RayClusterFleet", "StormService", "DynamoGraphDeployment", "ModelService", "Workspace",
                       "ModelBooster", "ModelServing", *RUNTIME_KINDS})


def add_object(obj: Mapping[str, Any], loc: Location, inv: Inventory, ctx: Context) -> None:
    kind = str(obj.get("kind", ""))
    api = str(obj.get("apiVersion", ""))
    group = api.split("/", 1)[0] if "/" in api else ""
    if kind == "List" or (kind.endswith("List") and isinstance(obj.get("items"), list)):
        for item in as_list(obj.get("items")):
            if isinstance(item, dict):
                add_object(item, Location(loc.file, item.line if isinstance(item, LineDict) else loc.line), inv, ctx)
        return
    extract = EXTRACTORS.get((group, kind)) or EXTRACTORS.get((None, kind))
    if extract is not None:
        marks = len(inv.groups), len(inv.launch_issues)
        extract(kind, obj, loc, inv, ctx)
        if (kind in _FALLBACK and marks == (len(inv.groups), len(inv.launch_issues))
                and id(obj) not in ctx.used_runtimes):  # a runtime an InferenceService here runs is read there
            add_generic(kind, obj, loc, inv, ctx.lines)
            if kind in RUNTIME_KINDS and len(inv.groups) == marks[0]:
                del inv.launch_issues[marks[1]:]  # a template's missing args come from its services: SW005 says so
    elif kind in NOT_WORKLOADS or kind in DATA_KINDS:
        inv.skipped[kind] += 1
    elif not (add_workload(kind, obj, loc, inv, ctx.lines)  # a custom resource with spec.template
              or add_generic(kind, obj, loc, inv, ctx.lines)):  # or a pod spec anywhere
        inv.skipped[kind or "(no kind)"] += 1
