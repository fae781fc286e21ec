"""Kubernetes manifests (plain, Helm-rendered, multi-document, ``kind: List``) -> :class:`Inventory`.

One extractor per family of objects, and this module is the one place that picks the extractor by
``apiVersion`` group and ``kind`` (:data:`EXTRACTORS`):

- :mod:`.workloads`: any object with a pod template (Deployment, StatefulSet, DaemonSet, ReplicaSet,
  Job, CronJob, Pod, Argo Rollout, LeaderWorkerSet, and unknown custom resources with
  ``spec.template``) whose containers run a vLLM server -> :class:`ServingGroup` (pod templates are
  read by :mod:`.pods`);
- serving operators' resources that start vLLM (:mod:`.serving` holds what they share):
  :mod:`.kserve` (InferenceService, ServingRuntime, ClusterServingRuntime, LLMInferenceService),
  :mod:`.ray` (RayCluster, RayService with Ray Serve LLM's ``serveConfigV2``, AIBrix RayClusterFleet),
  :mod:`.operators` (KubeAI Model, Dynamo DynamoGraphDeployment, AIBrix StormService, llm-d ModelService);
- :mod:`.network`: Service, Ingress, Gateway API HTTPRoute, NetworkPolicy;
- :mod:`.policies`: Cilium, Calico, AdminNetworkPolicy and BaselineAdminNetworkPolicy objects;
- :mod:`.configmaps`: ConfigMap (its literal data);
- :mod:`.autoscaling`: HorizontalPodAutoscaler (v1, v2) and KEDA ScaledObject;
- :mod:`.nodes`: Node and Karpenter NodePool -> :class:`NodePool` (through :mod:`.pools`), Karpenter
  EC2NodeClass -> :class:`LaunchTemplate`, and :func:`resolve_pools`;
- Namespace and PodDisruptionBudget are known and need no object; every other kind is counted in
  ``Inventory.skipped``.

``shardwise.dev/ignore`` (``"SW104: reason; SW106: reason"``) is read on workloads, Services,
Ingresses, autoscalers and node pools. Every object keeps its file and line. Engine flags point at
the line where the flag is written when the manifest text is available (:func:`load_kubernetes_text`),
else at the container's ``args``/``command`` key.

After building, :func:`resolve_pools` matches each serving group to a node pool. Call it again
after merging inventories from several inputs: it re-resolves groups whose pool was only
synthesised from their own selector.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ...model import Inventory, Location
from ...model.errors import InputError
from ..yamlsrc import LineDict, load_documents, read_text
from .autoscaling import add_hpa, add_scaled_object
from .claims import add_device_claim
from .configmaps import add_config_map
from .fields import as_list, parse_ignore
from .kserve import RUNTIME_KINDS, add_inference_service, add_llm_inference_service
from .network import add_http_route, add_ingress, add_network_policy, add_service
from .nodes import SELECTOR_POOL_KIND, add_ec2_node_class, add_karpenter_pool, add_node, resolve_pools
from .operators import add_dynamo_graph, add_kubeai_model, add_model_service, add_storm_service
from .parse import Lines, objects_from_documents, parse_manifests
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

__all__ = [
    "SELECTOR_POOL_KIND", "inventory_from_documents", "inventory_from_objects", "load_kubernetes_file",
    "load_kubernetes_text",
    "parse_ignore", "parse_manifests", "resolve_pools",
]

class Context:
    """What the extractors of one input share: its text's lines and the objects others refer to."""

    __slots__ = ("lines", "runtimes")

    def __init__(self, lines: Lines | None, runtimes: list[Mapping[str, Any]]) -> None:
        self.lines = lines
        self.runtimes = runtimes  # KServe ServingRuntimes / ClusterServingRuntimes of the input


#: An extractor adds what one object says to the inventory.
Extractor = Callable[[str, Mapping[str, Any], Location, Inventory, Context], Any]


def _plain(add: Callable[[Mapping[str, Any], Location, Inventory], Any]) -> Extractor:
    return lambda kind, obj, loc, inv, ctx: add(obj, loc, inv)


def _with_lines(add: Callable[[Mapping[str, Any], Location, Inventory, Lines | None], Any]) -> Extractor:
    return lambda kind, obj, loc, inv, ctx: add(obj, loc, inv, ctx.lines)


def _ray(kind: str, obj: Mapping[str, Any], loc: Location, inv: Inventory, ctx: Context) -> Any:
    return add_ray_cluster_object(kind, obj, loc, inv, ctx.lines)


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
    ("kubeai.org", "Model"): _with_lines(add_kubeai_model),
    ("ray.io", "RayCluster"): _ray,
    ("ray.io", "RayService"): _ray,
    ("orchestration.aibrix.ai", "RayClusterFleet"): _ray,
    ("orchestration.aibrix.ai", "StormService"): _with_lines(add_storm_service),
    ("nvidia.com", "DynamoGraphDeployment"): _with_lines(add_dynamo_graph),
    ("llm-d.ai", "ModelService"): _with_lines(add_model_service),
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


def _add(obj: Mapping[str, Any], loc: Location, inv: Inventory, ctx: Context) -> None:
    kind = str(obj.get("kind", ""))
    api = str(obj.get("apiVersion", ""))
    group = api.split("/", 1)[0] if "/" in api else ""
    if kind == "List" or (kind.endswith("List") and isinstance(obj.get("items"), list)):
        for item in as_list(obj.get("items")):
            if isinstance(item, dict):
                _add(item, Location(loc.file, item.line if isinstance(item, LineDict) else loc.line), inv, ctx)
        return
    extract = EXTRACTORS.get((group, kind)) or EXTRACTORS.get((None, kind))
    if extract is not None:
        extract(kind, obj, loc, inv, ctx)
    elif not add_workload(kind, obj, loc, inv, ctx.lines):  # a custom resource with a pod template
        inv.skipped[kind or "(no kind)"] += 1


def inventory_from_objects(objs: Iterable[tuple[Mapping[str, Any], Location]],
                           lines: Lines | None = None, errors: list[InputError] | None = None) -> Inventory:
    """Turn Kubernetes objects into an inventory (pools are not resolved: see :func:`resolve_pools`).

    ``lines`` (file -> its text's lines) lets engine flags point at the line they are written on.
    With ``errors``, an object that is an input error adds the error there and nothing else (the other
    objects are still read); without, the error is raised.
    """
    objs = list(objs)
    runtimes = [obj for obj, _ in objs if obj.get("kind") in RUNTIME_KINDS
                and str(obj.get("apiVersion", "")).startswith("serving.kserve.io/")]
    ctx = Context(lines, runtimes)
    inv = Inventory()
    lists = [getattr(inv, name) for name in _LISTS]
    for i, (obj, loc) in enumerate(objs):
        file = loc.file
        if lines is not None and file is not None and file in lines:  # words are looked up in their object only
            nxt = objs[i + 1][1] if i + 1 < len(objs) else None
            end = nxt.line - 1 if nxt is not None and nxt.file == file and nxt.line else None
            ctx.lines = {file: _Upto(lines[file], end)} if end is not None else lines
        if errors is None:
            _add(obj, loc, inv, ctx)
            continue
        marks = [len(x) for x in lists]
        try:
            _add(obj, loc, inv, ctx)
        except InputError as e:
            errors.append(e)
            for x, mark in zip(lists, marks, strict=True):  # nothing of the object stays
                del x[mark:]
    return inv


class _Upto(Sequence[str]):
    """The first ``end`` lines of a file's lines, without copying them."""

    __slots__ = ("_lines", "_end")

    def __init__(self, lines: Sequence[str], end: int) -> None:
        self._lines, self._end = lines, min(end, len(lines))

    def __len__(self) -> int:
        return self._end

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            start, stop, step = i.indices(self._end)
            if step > 0:  # the common case, sliced in C
                return list(self._lines[start:stop:step])
            return [self._lines[j] for j in range(start, stop, step)]
        if not -self._end <= i < self._end:
            raise IndexError(i)
        return self._lines[i % self._end]


#: The inventory's lists an object's extractor may add to.
_LISTS = ("groups", "pools", "security_groups", "subnets", "launch_templates", "services", "ingresses",
          "network_policies", "autoscalers", "launch_issues", "config_maps", "pod_ports", "device_claims")


def inventory_from_documents(docs: Iterable[tuple[int | None, Any]], text: str, file: str) -> Inventory:
    """The documents of one manifest file (:func:`~shardwise.rules.adapters.yamlsrc.load_documents`) as a
    pool-resolved inventory; each document or object that is an input error is in ``errors`` (by
    line) and the others are read."""
    errors: list[InputError] = []
    objs = objects_from_documents(docs, file, errors)
    inv = inventory_from_objects(objs, {file: text.splitlines()}, errors)
    inv.errors.extend(sorted(errors, key=lambda e: e.line or 0))
    inv.sources.append(file)
    resolve_pools(inv)
    return inv


def load_kubernetes_text(text: str, file: str) -> Inventory:
    """Parse manifests from ``text`` (named ``file`` in messages) into a pool-resolved inventory; the
    first input error is raised."""
    inv = inventory_from_documents(load_documents(text, file), text, file)
    if inv.errors:
        raise inv.errors[0]
    return inv


def load_kubernetes_file(path: str) -> Inventory:
    """Read a manifest file (``-`` for stdin) into a pool-resolved inventory."""
    return load_kubernetes_text(read_text(path), path)
