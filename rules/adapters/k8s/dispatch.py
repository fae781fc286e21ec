"""Which extractor reads an object: the one place that picks it, by ``apiVersion`` group and ``kind``.

A kind alone says little: a Knative ``Service`` (serving.knative.dev) runs a pod, a core ``Service``
routes to one; OME and KServe both have an ``InferenceService``. :data:`EXTRACTORS` maps (group, kind) to
the extractor of that family (see the package's docstring for the families), and
:data:`NOT_WORKLOADS` and :data:`DATA_KINDS` name by (group, kind) what holds no pod. :func:`add_object`
reads one object with its extractor, falls back to the generic reader (:mod:`.generic`) for serving
resources whose shape the specific adapter does not know and for every (group, kind) no adapter claims,
and counts the rest in ``Inventory.skipped``. A Helm hook that runs to completion, or a Helm test, is not
a serving workload (:func:`helm_hook`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

from ...model import Inventory, Location
from ...model.vocab import HELM_HOOK
from ..yamlsrc import LineDict
from .claims import add_device_claim
from .fields import api_group, as_list, as_map
from .groups import KNATIVE_GROUP, KNATIVE_KINDS, OME_GROUP, OME_KINDS, RBG_GROUP, RBG_KINDS, RUNTIME_KINDS
from .network import (
    add_http_route,
    add_inference_pool,
    add_ingress,
    add_ingress_class,
    add_network_policy,
    add_reference_grant,
    add_route,
    add_service,
)
from .nodes import add_ec2_node_class, add_karpenter_pool, add_node
from .parse import Lines
from .workloads import WORKLOAD_GROUPS, add_pytorch_job_pods, add_workload


class Context:
    """What the extractors of one input share: its text's lines and the objects others refer to."""

    __slots__ = ("lines", "runtimes", "used_runtimes")

    def __init__(self, lines: Lines | None, runtimes: list[Mapping[str, Any]]) -> None:
        self.lines = lines
        self.runtimes = runtimes  # KServe ServingRuntimes / ClusterServingRuntimes of the input
        self.used_runtimes: set[int] = set()  # ids of those an InferenceService of the input runs on


#: An extractor adds what one object says to the inventory.
Extractor = Callable[[str, Mapping[str, Any], Location, Inventory, Context], Any]


class Later:
    """The function ``name`` of the extractor module ``module`` (of this package), imported when the first object
    of its family is read: a run over plain manifests never loads the readers of Knative, Ray, KServe, the serving
    operators, Kthena, OME, the policy engines, ConfigMaps and Secrets, autoscalers, nor the generic pod finder
    (start-up time)."""

    __slots__ = ("fn", "module", "name")

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name
        self.fn: Callable[..., Any] | None = None

    def __call__(self, *args: Any) -> Any:
        fn = self.fn
        if fn is None:
            fn = self.fn = getattr(importlib.import_module(f"{__package__}.{self.module}"), self.name)
        return fn(*args)


def _plain(add: Callable[[Mapping[str, Any], Location, Inventory], Any]) -> Extractor:
    return lambda kind, obj, loc, inv, ctx: add(obj, loc, inv)


def _with_lines(add: Callable[[Mapping[str, Any], Location, Inventory, Lines | None], Any]) -> Extractor:
    return lambda kind, obj, loc, inv, ctx: add(obj, loc, inv, ctx.lines)


_add_ray_cluster_object = Later("ray", "add_ray_cluster_object")
_add_inference_service = Later("kserve", "add_inference_service")
#: the reader of a pod spec anywhere in an object (:mod:`.generic`): for kinds no adapter claims and for serving
#: resources whose shape their adapter does not know, neither of which a plain Deployment or StatefulSet is
add_generic = Later("generic", "add_generic")
_add_ome_object = Later("ome", "add_ome_object")


_add_gateway_object = Later("gateway", "add_gateway_object")


def _gateway(kind: str, obj: Mapping[str, Any], loc: Location, inv: Inventory, ctx: Context) -> None:
    """A Gateway API Gateway or GatewayClass, a policy attached to one, a Namespace: kept for SW306's reach of an
    HTTPRoute (:mod:`.gateway`)."""
    _add_gateway_object(kind, obj, loc, inv)


def _ray(kind: str, obj: Mapping[str, Any], loc: Location, inv: Inventory, ctx: Context) -> Any:
    return _add_ray_cluster_object(kind, obj, loc, inv, ctx.lines)


def _ome(kind: str, obj: Mapping[str, Any], loc: Location, inv: Inventory, ctx: Context) -> None:
    _add_ome_object(kind, obj, loc, inv, ctx.lines.get(loc.file) if ctx.lines is not None and loc.file else None)


def _with_kind_lines(add: Callable[[str, Mapping[str, Any], Location, Inventory, Lines | None], Any]) -> Extractor:
    return lambda kind, obj, loc, inv, ctx: add(kind, obj, loc, inv, ctx.lines)


_add_helm_release = Later("helmrelease", "add_helm_release")
_add_application = Later("helmrelease", "add_application")
_modelled_unread = Later("helmrelease", "modelled_unread")


def _helm_release(kind: str, obj: Mapping[str, Any], loc: Location, inv: Inventory, ctx: Context) -> None:
    """A Flux HelmRelease or an Argo CD Application of a chart whose rendering is known (:mod:`.helmrelease`): the
    objects it renders; any other is read as an object no adapter claims, as before."""
    add = _add_application if kind == "Application" else _add_helm_release
    if add(kind, obj, loc, inv, ctx):
        return
    if _modelled_unread(kind, obj) or not (
            add_workload(kind, obj, loc, inv, ctx.lines, known=False) or add_generic(kind, obj, loc, inv, ctx.lines)):
        inv.skipped[kind] += 1  # a modelled chart not read: its values are no pod spec (SW005 says why)


def _none(kind: str, obj: Mapping[str, Any], loc: Location, inv: Inventory, ctx: Context) -> None:
    """Recognised; no rule needs the object's content (or another object reads it)."""


#: (apiVersion group, kind) -> extractor.
EXTRACTORS: dict[tuple[str, str], Extractor] = {
    **{(group, kind): (lambda kind, obj, loc, inv, ctx: add_workload(kind, obj, loc, inv, ctx.lines))
       for kind, groups in WORKLOAD_GROUPS.items() for group in groups},
    **{(KNATIVE_GROUP, kind): _with_kind_lines(Later("knative", "add_knative")) for kind in KNATIVE_KINDS},
    **{(RBG_GROUP, kind): _with_kind_lines(Later("rbg", "add_role_based_group")) for kind in RBG_KINDS},
    ("serving.kserve.io", "InferenceService"):
        lambda kind, obj, loc, inv, ctx: _add_inference_service(obj, loc, inv, ctx.lines, ctx.runtimes),
    **{("serving.kserve.io", kind): _with_kind_lines(Later("kserve", "add_runtime")) for kind in RUNTIME_KINDS},
    ("serving.kserve.io", "LLMInferenceService"): _with_lines(Later("kserve", "add_llm_inference_service")),
    ("serving.kserve.io", "LLMInferenceServiceConfig"): _none,
    **{(OME_GROUP, kind): _ome for kind in OME_KINDS},
    ("kubeai.org", "Model"): _with_lines(Later("operators", "add_kubeai_model")),
    ("ray.io", "RayCluster"): _ray,
    ("ray.io", "RayService"): _ray,
    ("orchestration.aibrix.ai", "RayClusterFleet"): _ray,
    ("orchestration.aibrix.ai", "StormService"): _with_lines(Later("operators", "add_storm_service")),
    ("nvidia.com", "DynamoGraphDeployment"): _with_lines(Later("operators", "add_dynamo_graph")),
    ("apps.nvidia.com", "NIMService"): _with_lines(Later("nim", "add_nim_service")),
    ("llm-d.ai", "ModelService"): _with_lines(Later("operators", "add_model_service")),
    ("helm.toolkit.fluxcd.io", "HelmRelease"): _helm_release,
    ("argoproj.io", "Application"): _helm_release,
    ("kaito.sh", "Workspace"): _with_lines(Later("operators", "add_kaito_workspace")),
    ("inference.sagemaker.aws.amazon.com", "InferenceEndpointConfig"):
        _with_kind_lines(Later("operators", "add_hyperpod_endpoint")),
    **{("production-stack.vllm.ai", kind): _with_kind_lines(Later("psoperator", "add_prodstack_operator"))
       for kind in ("VLLMRuntime", "VLLMRouter")},
    ("arks.ai", "ArksApplication"): _with_lines(Later("operators", "add_arks_application")),
    ("arks.ai", "ArksModel"): _plain(Later("operators", "add_arks_model")),
    ("llm.nebari.dev", "LLMModel"): _with_lines(Later("nebari", "add_nebari_model")),
    ("workload.serving.volcano.sh", "ModelBooster"): _with_lines(Later("kthena", "add_model_booster")),
    ("workload.serving.volcano.sh", "ModelServing"): _with_lines(Later("kthena", "add_model_serving")),
    ("", "Service"): _plain(add_service),
    ("networking.k8s.io", "Ingress"): _plain(add_ingress),
    ("extensions", "Ingress"): _plain(add_ingress),
    ("networking.k8s.io", "IngressClass"): _plain(add_ingress_class),
    ("elbv2.k8s.aws", "IngressClassParams"): _plain(add_ingress_class),
    ("eks.amazonaws.com", "IngressClassParams"): _plain(add_ingress_class),
    ("gateway.networking.k8s.io", "HTTPRoute"): _plain(add_http_route),
    ("inference.networking.x-k8s.io", "InferencePool"): _plain(add_inference_pool),
    ("inference.networking.k8s.io", "InferencePool"): _plain(add_inference_pool),
    ("gateway.networking.k8s.io", "ReferenceGrant"): _plain(add_reference_grant),
    **{key: _gateway for key in (
        ("gateway.networking.k8s.io", "Gateway"), ("gateway.networking.k8s.io", "GatewayClass"),
        ("gateway.envoyproxy.io", "SecurityPolicy"), ("kuadrant.io", "AuthPolicy"),
        ("security.istio.io", "RequestAuthentication"), ("security.istio.io", "AuthorizationPolicy"),
        ("networking.gke.io", "GCPBackendPolicy"), ("gateway.k8s.aws", "LoadBalancerConfiguration"),
        ("gateway.k8s.aws", "ListenerRuleConfiguration"), ("", "Namespace"))},
    ("route.openshift.io", "Route"): _plain(add_route),
    ("", "NetworkPolicy"): _plain(add_network_policy),
    ("networking.k8s.io", "NetworkPolicy"): _plain(add_network_policy),
    ("extensions", "NetworkPolicy"): _plain(add_network_policy),
    ("cilium.io", "CiliumNetworkPolicy"): _plain(Later("policies", "add_cilium_policy")),
    ("cilium.io", "CiliumClusterwideNetworkPolicy"): _plain(Later("policies", "add_cilium_clusterwide_policy")),
    ("projectcalico.org", "NetworkPolicy"): _plain(Later("policies", "add_calico_policy")),
    ("crd.projectcalico.org", "NetworkPolicy"): _plain(Later("policies", "add_calico_policy")),
    ("projectcalico.org", "GlobalNetworkPolicy"): _plain(Later("policies", "add_calico_global_policy")),
    ("crd.projectcalico.org", "GlobalNetworkPolicy"): _plain(Later("policies", "add_calico_global_policy")),
    ("policy.networking.k8s.io", "AdminNetworkPolicy"): _plain(Later("policies", "add_admin_policy")),
    ("policy.networking.k8s.io", "BaselineAdminNetworkPolicy"):
        _plain(Later("policies", "add_baseline_admin_policy")),
    ("infrastructure.opendatahub.io", "HardwareProfile"): _plain(Later("hwprofiles", "add_hardware_profile")),
    ("", "LimitRange"): _plain(Later("limitranges", "add_limit_range")),
    ("", "ConfigMap"): _plain(Later("configmaps", "add_config_map")),
    ("", "Secret"): _plain(Later("configmaps", "add_secret")),
    ("autoscaling", "HorizontalPodAutoscaler"): _plain(Later("autoscaling", "add_hpa")),
    ("keda.sh", "ScaledObject"): _plain(Later("autoscaling", "add_scaled_object")),
    ("http.keda.sh", "HTTPScaledObject"): _plain(Later("autoscaling", "add_http_scaled_object")),
    ("", "Node"): _plain(add_node),
    ("karpenter.sh", "NodePool"): _plain(add_karpenter_pool),
    ("karpenter.k8s.aws", "EC2NodeClass"): _plain(add_ec2_node_class),
    **{("resource.k8s.io", kind): (lambda kind, obj, loc, inv, ctx: add_device_claim(kind, obj, loc, inv))
       for kind in ("ResourceClaim", "ResourceClaimTemplate", "DeviceClass")},
    ("policy", "PodDisruptionBudget"): _none,
}


def _pairs(by_group: dict[str, tuple[str, ...]]) -> frozenset[tuple[str, str]]:
    return frozenset((group, kind) for group, kinds in by_group.items() for kind in kinds)


#: Objects that hold no pod an operator runs, by (group, kind): no generic reading, and a mention of vLLM in
#: them (a routing rule naming the engine, a CRD's schema) is no workload that went unread.
NOT_WORKLOADS = _pairs({
    "": ("Service", "Node", "Namespace", "ServiceAccount", "PersistentVolumeClaim", "PersistentVolume", "Event",
         "Endpoints", "LimitRange", "ResourceQuota"),
    "networking.k8s.io": ("Ingress", "IngressClass", "NetworkPolicy"),
    "extensions": ("Ingress", "NetworkPolicy"),
    "gateway.networking.k8s.io": ("HTTPRoute", "GRPCRoute", "TLSRoute", "TCPRoute", "UDPRoute", "Gateway",
                                  "GatewayClass", "ReferenceGrant"),
    "networking.istio.io": ("Gateway", "VirtualService", "DestinationRule", "ServiceEntry"),
    "security.istio.io": ("RequestAuthentication", "AuthorizationPolicy"),
    "gateway.envoyproxy.io": ("SecurityPolicy",),
    "kuadrant.io": ("AuthPolicy",),
    "networking.gke.io": ("GCPBackendPolicy",),
    "gateway.k8s.aws": ("LoadBalancerConfiguration", "ListenerRuleConfiguration"),
    "cilium.io": ("CiliumNetworkPolicy", "CiliumClusterwideNetworkPolicy"),
    "projectcalico.org": ("NetworkPolicy", "GlobalNetworkPolicy"),
    "crd.projectcalico.org": ("NetworkPolicy", "GlobalNetworkPolicy"),
    "policy.networking.k8s.io": ("AdminNetworkPolicy", "BaselineAdminNetworkPolicy"),
    "autoscaling": ("HorizontalPodAutoscaler",),
    "keda.sh": ("ScaledObject",),
    "karpenter.sh": ("NodePool",),
    "karpenter.k8s.aws": ("EC2NodeClass",),
    "policy": ("PodDisruptionBudget",),
    "apiextensions.k8s.io": ("CustomResourceDefinition",),
    "rbac.authorization.k8s.io": ("Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"),
    "storage.k8s.io": ("StorageClass",),
    "monitoring.coreos.com": ("ServiceMonitor", "PodMonitor", "PrometheusRule"),
    "inference.networking.x-k8s.io": ("InferencePool", "InferenceModel", "InferenceObjective"),
    "inference.networking.k8s.io": ("InferencePool",),
    "networking.serving.volcano.sh": ("ModelRoute", "ModelServer"),
    "admissionregistration.k8s.io": ("ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"),
    "events.k8s.io": ("Event",),
    "discovery.k8s.io": ("EndpointSlice",),
})
#: Objects that hold data a workload reads (a launch script): a vLLM launch in them is unread only when
#: nothing else in their file was read.
DATA_KINDS = _pairs({"": ("ConfigMap", "Secret")})
#: Serving resources a specific adapter reads; when it reads no workload from one, the generic reader
#: still looks (a shape the adapter does not know). LLMInferenceServiceConfig is a preset its services
#: merge, not a workload.
_FALLBACK = _pairs({
    "serving.kserve.io": ("InferenceService", "LLMInferenceService", *RUNTIME_KINDS),
    OME_GROUP: ("InferenceService", *RUNTIME_KINDS),
    "kubeai.org": ("Model",),
    "ray.io": ("RayCluster", "RayService"),
    "orchestration.aibrix.ai": ("RayClusterFleet", "StormService"),
    "nvidia.com": ("DynamoGraphDeployment",),
    "llm-d.ai": ("ModelService",),
    "kaito.sh": ("Workspace",),
    "arks.ai": ("ArksApplication",),
    "llm.nebari.dev": ("LLMModel",),
    "workload.serving.volcano.sh": ("ModelBooster", "ModelServing"),
    RBG_GROUP: RBG_KINDS,
})


#: Templates the services that name them fill in (KServe's and OME's serving runtimes, KServe's presets).
TEMPLATES = _pairs({"serving.kserve.io": ("LLMInferenceServiceConfig", *RUNTIME_KINDS), OME_GROUP: RUNTIME_KINDS})


def key_of(obj: Mapping[str, Any]) -> tuple[str | None, str]:
    """(API group, kind) of an object; the group is None when ``apiVersion`` is not known yet."""
    return api_group(obj), str(obj.get("kind", ""))


def _lookup(key: tuple[str | None, str], table: Mapping[tuple[str, str], Extractor]) -> Extractor | None:
    """The entry of ``table`` for ``key``; a group not known yet (a preview's unknown ``apiVersion``) takes the core
    group's entry of that kind, else the first."""
    group, kind = key
    if group is not None:
        return table.get((group, kind))
    if ("", kind) in table:  # Kubernetes' own kind before a custom resource of that name (a Knative Service)
        return table[("", kind)]
    return next((v for (_, k), v in table.items() if k == kind), None)


def _member(key: tuple[str | None, str], pairs: frozenset[tuple[str, str]]) -> bool:
    group, kind = key
    return key in pairs if group is not None else any(k == kind for _, k in pairs)


def extractor_for(obj: Mapping[str, Any]) -> Extractor | None:
    return _lookup(key_of(obj), EXTRACTORS)


def not_workload(obj: Mapping[str, Any]) -> bool:
    """The object holds no pod (a Service, a route, a policy…): a mention of vLLM in it is no unread workload."""
    return _member(key_of(obj), NOT_WORKLOADS)


def is_template(obj: Mapping[str, Any]) -> bool:
    return _member(key_of(obj), TEMPLATES)


def holds_data(obj: Mapping[str, Any]) -> bool:
    """A ConfigMap or Secret: data a workload reads."""
    return _member(key_of(obj), DATA_KINDS)


#: Helm hooks whose objects run to completion (Helm waits for a hook Pod to succeed and a hook Job to
#: complete) and Helm's tests: none of them serves.
_TEST_HOOKS = frozenset({"test", "test-success", "test-failure"})
_RUN_TO_COMPLETION = _pairs({"": ("Pod",), "batch": ("Job",)})


def helm_hook(obj: Mapping[str, Any]) -> str | None:
    """The Helm hook that makes ``obj`` no serving workload: a test (``helm test`` runs it and it is not part of
    the release), or any hook on a Pod or Job (Helm waits for it to finish). None otherwise: a Deployment or a
    serving resource created at ``post-install`` is a workload like any other, and an object that holds no pod
    is not asked."""
    if not_workload(obj) or holds_data(obj):
        return None
    value = as_map(as_map(obj.get("metadata")).get("annotations")).get(HELM_HOOK)
    if not isinstance(value, str) or not value.strip():
        return None
    hooks = [h.strip() for h in value.split(",") if h.strip()]
    tests = [h for h in hooks if h in _TEST_HOOKS]
    if tests:
        return tests[0]
    if hooks and _member(key_of(obj), _RUN_TO_COMPLETION):
        return hooks[0]
    return None


def add_object(obj: Mapping[str, Any], loc: Location, inv: Inventory, ctx: Context) -> None:
    kind = str(obj.get("kind", ""))
    if kind == "List" or (kind.endswith("List") and isinstance(obj.get("items"), list)):
        for item in as_list(obj.get("items")):
            if isinstance(item, dict):
                add_object(item, Location(loc.file, item.line if isinstance(item, LineDict) else loc.line), inv, ctx)
        return
    hook = helm_hook(obj)
    if hook is not None:
        inv.skipped[f"{kind} (Helm {hook} hook)"] += 1
        return
    key = key_of(obj)
    extract = extractor_for(obj)
    if extract is not None:
        marks = len(inv.groups), len(inv.launch_issues)
        extract(kind, obj, loc, inv, ctx)
        if (_member(key, _FALLBACK) and marks == (len(inv.groups), len(inv.launch_issues))
                and id(obj) not in ctx.used_runtimes):  # a runtime an InferenceService here runs is read there
            add_generic(kind, obj, loc, inv, ctx.lines)
            if kind in RUNTIME_KINDS and len(inv.groups) == marks[0]:
                del inv.launch_issues[marks[1]:]  # a template's missing args come from its services: SW005 says so
    elif not_workload(obj) or holds_data(obj):
        inv.skipped[kind] += 1
    else:
        if key == ("kubeflow.org", "PyTorchJob"):  # its pods run torch.distributed (SW301), vLLM or not
            add_pytorch_job_pods(obj, loc, inv)
        if not (add_workload(kind, obj, loc, inv, ctx.lines, known=False)  # a custom resource with spec.template
                or add_generic(kind, obj, loc, inv, ctx.lines)):  # or a pod spec anywhere
            inv.skipped[kind or "(no kind)"] += 1
