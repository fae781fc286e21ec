"""Kubernetes manifests (plain, Helm-rendered, multi-document, ``kind: List``) -> :class:`Inventory`.

One extractor per family of objects, and this module is the one place that picks the extractor by
``apiVersion`` group and ``kind`` (:data:`EXTRACTORS`):

- :mod:`.workloads`: any object with a pod template (Deployment, StatefulSet, DaemonSet, ReplicaSet,
  Job, CronJob, Pod, Argo Rollout, LeaderWorkerSet, and unknown custom resources with
  ``spec.template``) whose containers run a vLLM server -> :class:`ServingGroup` (pod templates are
  read by :mod:`.pods`);
- serving operators' resources that start vLLM (:mod:`.serving` holds what they share):
  :mod:`.kserve` (InferenceService, ServingRuntime, ClusterServingRuntime, LLMInferenceService),
  :mod:`.ome` (OME's InferenceService on the ServingRuntime or ClusterServingRuntime it names, in any input),
  :mod:`.ray` (RayCluster, RayService with Ray Serve LLM's ``serveConfigV2``, AIBrix RayClusterFleet),
  :mod:`.operators` (KubeAI Model, Dynamo DynamoGraphDeployment, AIBrix StormService, llm-d ModelService,
  Kaito Workspace), :mod:`.kthena` (ModelServing, ModelBooster);
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

from ...model import Inventory, LaunchIssue, Location, Suppression
from ...model.errors import InputError
from ..yamlsrc import LineDict, load_documents, read_text
from .autoscaling import add_hpa, add_scaled_object
from .claims import add_device_claim
from .configmaps import add_config_map
from .fields import as_list, as_map, parse_ignore, read_annotations, suppressions_from
from .generic import add_generic, find_pods, vllm_mentions
from .kserve import RUNTIME_KINDS, add_inference_service, add_llm_inference_service, runtimes_used
from .kthena import add_model_booster, add_model_serving
from .mentions import operator_mention
from .network import add_http_route, add_ingress, add_network_policy, add_service
from .nodes import SELECTOR_POOL_KIND, add_ec2_node_class, add_karpenter_pool, add_node, resolve_pools
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


def _note_unread(kind: str, obj: Mapping[str, Any], loc: Location, inv: Inventory,
                 errors: list[InputError] | None) -> bool:
    """SW005's record: an object that mentions vLLM but gave no workload; True when one was added (or its
    suppression annotation is an input error, added to ``errors`` when given)."""
    mention = vllm_mentions(obj)
    special = None
    if mention is None:  # an operator's fields that name vLLM (runtime: vllm, backendName: vllm, vllmArgs: ...)
        found = operator_mention(kind, obj, loc)
        if found is None:
            return False
        mention, special = found[:2], found[2]
    try:
        suppressions = _object_suppressions(obj, loc)
    except InputError as e:
        if errors is None:
            raise
        errors.append(e)
        return True
    what, at = mention
    meta = as_map(obj.get("metadata"))
    subject = f"{kind or '(no kind)'} {meta.get('namespace') or 'default'}/{meta.get('name') or 'unnamed'}"
    if kind in DATA_KINDS:
        why = ("it holds data a workload reads, and no workload in this file was read: lint it together with "
               "the workload that mounts it")
    elif kind == "LLMInferenceServiceConfig" or kind in RUNTIME_KINDS:
        why = ("it is a template its services merge, and none in the inputs uses it: lint it together with "
               "the services that run on it")
    elif find_pods(obj):
        why = ("none of its pod specs starts a vLLM server shardwise can read: the server is started "
               "elsewhere (a script, a job's entrypoint, the operator's own command)")
    else:
        why = ("shardwise found no pod spec in it whose container starts a vLLM server it can read (no "
               "`containers` list or container with image and command at any depth); the operator builds "
               "the pod from fields shardwise does not know")
    why = special or why
    where = Location(loc.file, at.line if at is not None and at.line is not None else loc.line)
    inv.launch_issues.append(LaunchIssue(subject, "", f"it mentions vLLM ({what}) but {why}", where,
                                         mentioned=True, suppressions=suppressions))
    return True


def _object_suppressions(obj: Mapping[str, Any], loc: Location) -> list[Suppression]:
    meta = as_map(obj.get("metadata"))
    ann, ann_lines = read_annotations(meta, {})
    return suppressions_from(ann, ann_lines, loc.file, loc.line)


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
    if runtimes:
        ctx.used_runtimes = runtimes_used([obj for obj, _ in objs if obj.get("kind") == "InferenceService"
                                           and str(obj.get("apiVersion", "")).startswith("serving.kserve.io/")],
                                          runtimes)
    inv = Inventory()
    lists = [getattr(inv, name) for name in _LISTS]
    data: list[tuple[Mapping[str, Any], Location]] = []  # ConfigMaps and Secrets
    read_files: set[str | None] = set()  # files of which a workload (or an unread vLLM pod) was recorded
    for i, (obj, loc) in enumerate(objs):
        file = loc.file
        if lines is not None and file is not None and file in lines:  # words are looked up in their object only
            nxt = objs[i + 1][1] if i + 1 < len(objs) else None
            end = nxt.line - 1 if nxt is not None and nxt.file == file and nxt.line else None
            ctx.lines = {file: _Upto(lines[file], end)} if end is not None else lines
        marks = [len(x) for x in lists]
        if errors is None:
            _add(obj, loc, inv, ctx)
        else:
            try:
                _add(obj, loc, inv, ctx)
            except InputError as e:
                errors.append(e)
                for x, mark in zip(lists, marks, strict=True):  # nothing of the object stays
                    del x[mark:]
                read_files.add(loc.file)  # reported: not silent
                continue
        if len(inv.groups) > marks[0] or len(inv.launch_issues) > marks[_ISSUES] or id(obj) in ctx.used_runtimes:
            read_files.add(loc.file)
        else:
            kind = str(obj.get("kind", ""))
            if kind in DATA_KINDS:
                data.append((obj, loc))
            elif kind not in NOT_WORKLOADS and _note_unread(kind, obj, loc, inv, errors):
                read_files.add(loc.file)
        for ref in inv.cross_refs[marks[_REFS]:]:  # what was read from it alone goes when it is joined
            ref.groups, ref.issues = inv.groups[marks[0]:], inv.launch_issues[marks[_ISSUES]:]
    for obj, loc in data:
        if loc.file not in read_files:
            _note_unread(str(obj.get("kind", "")), obj, loc, inv, errors)
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
          "network_policies", "autoscalers", "launch_issues", "config_maps", "pod_ports", "device_claims",
          "cross_refs")
_ISSUES = _LISTS.index("launch_issues")
_REFS = _LISTS.index("cross_refs")


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
