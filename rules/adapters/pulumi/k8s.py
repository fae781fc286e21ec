"""Kubernetes resources of a Pulumi program (``kubernetes:<group>/<version>:<Kind>``) -> the model.

Part of the Pulumi adapter (:mod:`shardwise.rules.adapters.pulumi`). A resource's properties are
its manifest (``apiVersion``/``kind``/``metadata``/``spec``), read by the Kubernetes adapter
(:func:`~shardwise.rules.adapters.k8s.inventory_from_objects`); ``metadata.name`` defaults to the
resource name.

At preview a manifest may hold unknown values. An unknown never reads as absent for a field a rule
reads:

- the fields the Kubernetes readers take as unknown are handed to them as such: a container's
  ``image``, an env ``value``, a ``command``/``args`` word (an unresolved ``$(VAR)``), the pod's
  ``nodeSelector``, resource quantities, ``envFrom`` sources, ``securityContext.privileged``, a
  container's ``ports`` (the list, an entry, its ``name`` or ``containerPort``: a Service's named
  ``targetPort`` may resolve to it), a Service's ``type``, ``port`` and ``targetPort``, ConfigMap data, an
  HTTPRoute backendRef's ``namespace`` (a namespace not known, never the route's own), ``kind`` and ``group``
  (never read as a Service), any value of a
  ReferenceGrant's ``spec``, of that kind only (a ``to`` entry's name not known never covers every object;
  an OpenShift Route's ``spec.to.name`` is left to the rule below), and a grant's namespace not known is
  ``<unknown>``, never ``default``;
- every other unknown is left out for the readers, and the model field it would have filled is set
  to UNKNOWN afterwards (:func:`_restore_unknowns`): replica counts, LeaderWorkerSet size and restart
  policy, autoscaler bounds, probe timings (a whole probe: a probe of unknown timings and port, never no
  probe), a container's volume mounts and the pod's volumes (never no mount at /dev/shm, never a disk
  emptyDir: a name, path, kind or medium not known is :data:`UNKNOWN_TOKEN`), a Karpenter NodePool's
  instance-type requirements (a kind of unknown hardware, never a pool that names no GPU), a container's GPU
  request (never the other pod template's count), the namespace (read
  as ``<unknown>``), a Service's selector and ports, the pods' labels, a container's whole ``env`` (every
  variable unknown), a NetworkPolicy (never read as selecting every pod); and a workload whose pod template, spec,
  containers or one container is unknown is reported as a workload that cannot be checked. A serving resource's
  inline pod spec (an InferenceService's predictor, an LLMInferenceService's template and worker) is read as a pod
  template's ``spec`` is.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal

from ...model import (
    UNKNOWN,
    UNKNOWN_NAMESPACE,
    UNKNOWN_TOKEN,
    EnvSource,
    Inventory,
    LaunchIssue,
    Location,
    Probe,
    Suppression,
    UnknownEnv,
    UnknownWord,
    Volume,
)
from ...model.errors import InputError
from ...model.vocab import (
    ANN_TARGET_CONCURRENCY,
    AWS_LB_SCHEME,
    EKS_PREFIX,
    INSTANCE_TYPE,
    INSTANCE_TYPE_BETA,
    KARPENTER_AWS_PREFIX,
)
from ...vllm.args import takes_value
from ..k8s import inventory_from_objects
from ..k8s.fields import read_annotations, suppressions_from
from ..k8s.generic import vllm_mentions
from .values import json_type

if TYPE_CHECKING:
    from .resource import PulumiResource

_K8S_SKIP_MODULES = ("yaml", "yaml/v2", "kustomize", "kustomize/v2", "helm.sh/v3", "helm.sh/v4")
_PROBES: dict[str, Literal["startup", "liveness", "readiness"]] = {
    "startupProbe": "startup", "livenessProbe": "liveness", "readinessProbe": "readiness"}
_PROBE_FIELDS = {"initialDelaySeconds": "initial_delay_seconds", "periodSeconds": "period_seconds",
                 "failureThreshold": "failure_threshold", "timeoutSeconds": "timeout_seconds"}
_PROBE_HANDLERS = ("httpGet", "tcpSocket", "grpc", "exec")
#: Keys under which a pod template sits (Deployment and friends, LeaderWorkerSet, Job in CronJob).
_TEMPLATES = ("template", "leaderTemplate", "workerTemplate", "jobTemplate")
#: Paths that hold all of a kind's pod templates (their unknown hides every pod of the workload).
_TEMPLATE_HOLDERS: dict[str, tuple[Path, ...]] = {
    "LeaderWorkerSet": (("spec", "leaderWorkerTemplate"),),
    "RayCluster": (("spec", "headGroupSpec"), ("spec", "workerGroupSpecs")),
    "RayService": (("spec", "rayClusterConfig"),),
}
#: Serving resources whose pod spec is written inline, a PodSpec where the built-in workloads hold a PodTemplateSpec
#: (``metadata`` and ``spec``), as the Kubernetes adapter reads them (``adapters/k8s/kserve.py``): an InferenceService's
#: predictor and its ``workerSpec`` (KServe's ``PredictorSpec`` and ``WorkerSpec`` embed ``corev1.PodSpec``), and an
#: LLMInferenceService's ``template`` and ``worker``, of its decode and of its prefill workload (``WorkloadSpec``'s
#: ``Template`` and ``Worker`` are ``*corev1.PodSpec``). An unknown below one is read as one below a template's ``spec``
#: (review34: a container, its securityContext or env, or the pod's hostNetwork not known there was dropped, and the
#: workload passed SW306, SW308, SW309 and SW310 silently). Longer paths first.
_INLINE_POD_SPECS: dict[str, tuple[Path, ...]] = {
    "InferenceService": (("spec", "predictor", "workerSpec"), ("spec", "predictor")),
    "LLMInferenceService": (("spec", "prefill", "template"), ("spec", "prefill", "worker"), ("spec", "template"),
                            ("spec", "worker")),
}
#: An InferenceService predictor's ``model``: the container KServe runs (``ModelSpec`` embeds ``corev1.Container``),
#: named as the Kubernetes adapter names it (``kserve._model_pod``)
_ISVC_MODEL = ("spec", "predictor", "model")
_ISVC_MODEL_CONTAINER = "kserve-container"
#: A pod spec's node namespaces, and the :class:`~shardwise.rules.model.HostAccess` field each sets
_HOST_KEYS = {"hostNetwork": "network", "hostIPC": "ipc", "hostPID": "pid"}
#: Kinds whose one serving group runs over several pods (SW305 is mandatory for them).
_MULTI_NODE_KINDS = ("LeaderWorkerSet", "RayCluster", "RayService")


#: :func:`kubernetes_api` of each type token met (a stack has a few dozen; at most 4,096 kept)
_APIS: dict[str, tuple[str, str] | None] = {}


def kubernetes_api(type_token: str) -> tuple[str, str] | None:
    """``kubernetes:apps/v1:Deployment`` -> (``apps/v1``, ``Deployment``); None for non-objects.

    Remembered by token: the policy pack asks three times for each resource of each request (packspeed21)."""
    if type(type_token) is not str:
        return _kubernetes_api(type_token)
    try:
        return _APIS[type_token]
    except KeyError:
        pass
    api = _kubernetes_api(type_token)
    if len(_APIS) < 4096:
        _APIS[type_token] = api
    return api


def _kubernetes_api(type_token: str) -> tuple[str, str] | None:
    parts = type_token.split(":")
    if len(parts) != 3 or parts[0] != "kubernetes":
        return None
    module, kind = parts[1], parts[2]
    if module in _K8S_SKIP_MODULES or module.startswith(("yaml", "helm.sh", "kustomize")):
        return None
    if kind.endswith(("Patch", "List")) or "/" not in module:
        return None
    api_version = module[len("core/"):] if module.startswith("core/") else module
    return api_version, kind


# ---------------------------------------------------------------------------------------------
# Unknown values
# ---------------------------------------------------------------------------------------------

Path = tuple[Any, ...]


def _read_as_unknown(path: Path, kind: Any = None) -> bool:
    """Whether the Kubernetes readers take an unknown at ``path`` of an object of ``kind`` as unknown (see the module
    doc)."""
    n = len(path)
    if kind == "ReferenceGrant" and path[:1] == ("spec",):
        return True  # which routes it lets send where (mend18): a dropped to[].name would read as "every object"
    if n >= 3 and path[-3] == "containers" and path[-1] == "image":
        return True
    if n >= 3 and path[-3] == "env" and path[-1] == "value":
        return True
    if "nodeSelector" in path and path.index("nodeSelector") >= n - 2:
        return True
    if n >= 3 and path[-3] == "resources" and path[-2] in ("limits", "requests") \
            and path[-1] != "vpc.amazonaws.com/efa":
        return True
    if n >= 3 and path[-3] == "envFrom" and path[-1] in ("configMapRef", "secretRef", "prefix"):
        return True
    if n >= 2 and path[-2] in ("configMapRef", "secretRef") and path[-1] == "name":
        return True
    if n >= 3 and path[-3] == "containers" and path[-1] == "ports":  # a container's ports, one of them, its
        return True                                                     # name or number: a named targetPort
    if n >= 4 and path[-4] == "containers" and path[-2] == "ports":    # may resolve to any port
        return True
    if n >= 5 and path[-5] == "containers" and path[-3] == "ports" and path[-1] in ("name", "containerPort"):
        return True
    if n >= 2 and path[-2:] == ("securityContext", "privileged"):
        return True
    if n >= 2 and path[-2] == "spec" and path[-1] in ("hostNetwork", "hostIPC", "hostPID"):
        return True
    if path == ("spec", "type"):
        return True
    if (n >= 1 and path[-1] == "rayStartParams") or (n >= 2 and path[-2] == "rayStartParams"):
        return True  # a KubeRay group's ray start flags (mend25): a port pinned there, never read as absent
    if path in (("spec", "gatewayClassName"), ("spec", "controllerName"), ("spec", "scheme")):
        return True  # what decides a Gateway's reach (SW306): a Gateway's class, its controller, an ALB's scheme
    if n >= 2 and path[:2] == ("spec", "listeners"):
        return True  # a Gateway's listeners: which routes it admits (SW306), never read as admitting none
    if n == 4 and path[:2] == ("spec", "ports") and path[3] == "targetPort":
        return True
    if n == 6 and path[:2] == ("spec", "rules") and path[3] == "backendRefs" and path[5] == "namespace":
        return True  # an HTTPRoute's backendRef namespace: never read as the route's own (mend16)
    if n == 6 and path[:2] == ("spec", "rules") and path[3] == "backendRefs" and path[5] in ("kind", "group"):
        return True  # its kind or group: never read as a Service (mend29)
    return n == 2 and path[0] in ("data", "stringData")


_DROP = object()

#: The keys of a Service port entry no rule reads (the readers keep ``port``, ``targetPort`` and ``name``): one not
#: known at preview leaves the entry's port and targetPort as written. A nodePort is the node's port (30000-32767
#: unless the API server's --service-node-port-range says otherwise), never the container port traffic reaches.
_PORT_UNREAD = ("nodePort", "protocol", "appProtocol")


def prepare_manifest(props: Mapping[str, Any]) -> tuple[dict[str, Any], list[Path]]:
    """The manifest for the Kubernetes readers (see the module doc) and the paths of its unknowns."""
    unknown: list[Path] = []
    top = {k: v for k, v in props.items() if not str(k).startswith("__")}
    try:
        return _known_copy(top), unknown
    except _Unknown:
        pass
    manifest = _walk(top, (), unknown, top.get("kind"))
    return manifest, unknown


def _walk(v: Any, path: Path, unknown: list[Path], kind: Any) -> Any:
    """What :func:`prepare_manifest` makes of ``v`` at ``path``, each unknown's path added to ``unknown``.

    A function of the module, not a closure of ``prepare_manifest`` calling itself: such a closure is a reference
    cycle (the function, its cell), left to the garbage collector at each object holding an unknown, and the pack
    serves without the collector's young collections (``rules/__main__.py``'s ``SERVING_GC_THRESHOLD``)."""
    if v is UNKNOWN:
        unknown.append(path)
        return UNKNOWN if _read_as_unknown(path, kind) else _DROP
    if isinstance(v, dict):
        out: dict[str, Any] = {}
        for k, x in v.items():
            y = _walk(x, (*path, k), unknown, kind)
            if y is _DROP and k in ("args", "command") and len(path) >= 2 and path[-2] == "containers":
                y = [UNKNOWN_TOKEN]  # a whole command line not known: a word that may carry anything
            if y is not _DROP:
                out[k] = y
        return out
    if isinstance(v, list):
        items = []
        for i, x in enumerate(v):
            y = _walk(x, (*path, i), unknown, kind)
            if y is _DROP:
                if path and path[-1] in ("args", "command"):
                    items.append(UNKNOWN_TOKEN)  # an unresolved reference: the flag parser's unknown
                elif path and path[-1] in ("containers", "initContainers"):
                    items.append(UNKNOWN)  # the readers skip it; the list is not empty
                continue
            items.append(y)
        return items
    return v


class _Unknown(Exception):
    """An unknown met by :func:`_known_copy`."""


def _known_copy(v: Any) -> Any:
    """What :func:`prepare_manifest`'s walk makes of a value holding no unknown: a copy of its dicts and lists
    (the readers change the manifest; the properties may be the pack's memo of them), without the walk's paths.
    Raises :class:`_Unknown` at the first unknown, where the walk must decide what each becomes. Most objects hold
    none (972 of the 973 Kubernetes objects of a real preview): 0.020 ms an object with the walk, 0.015 ms so."""
    if v is UNKNOWN:
        raise _Unknown
    if isinstance(v, dict):
        return {k: _known_copy(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_known_copy(x) for x in v]
    return v


def _at(props: Mapping[str, Any], path: Path) -> Any:
    node: Any = props
    for key in path:
        try:
            node = node[key]
        except (KeyError, IndexError, TypeError):
            return None
    return node


def _pod_template(path: Path, kind: Any) -> tuple[Path, Path] | None:
    """The path of the pod template ``path`` lies in (``()`` for a Pod) and ``path`` below it, or None. Below an inline
    pod spec (:data:`_INLINE_POD_SPECS`) the spec is the template's ``spec``: ``spec.predictor.hostNetwork`` is
    ``spec.hostNetwork`` of the template ``spec.predictor``, and a predictor's ``model`` is one of its containers."""
    for holder in _INLINE_POD_SPECS.get(kind, ()):
        if path[:len(holder)] == holder:
            below = path[len(holder):]
            if path[:3] == _ISVC_MODEL:
                below = ("containers", _ISVC_MODEL_CONTAINER, *path[3:])
            return holder, ("spec", *below)
    for i in range(len(path) - 1, -1, -1):
        if path[i] in _TEMPLATES:
            return path[:i + 1], path[i + 1:]
    return ((), path) if kind == "Pod" else None


def _restore_unknowns(inv: Inventory, props: Mapping[str, Any], kind: Any, unknown: list[Path],
                      subject: Callable[[], str], loc: Location) -> None:
    """Put UNKNOWN on the model fields of the unknowns the readers did not see (see the module doc)."""
    for path in unknown:
        if _read_as_unknown(path, kind):
            continue
        if kind == "Ingress" and _hides_ingress_class(path):
            for ing in inv.ingresses:  # which controller serves it, so its exposure (SW306) and algorithm (SW406)
                if path[:1] == ("spec",) or ing.class_name is None:  # the field, else the annotation names it
                    ing.class_name = UNKNOWN
        tail = path[-3:]
        in_pod = _pod_template(path, kind)
        template, rel = in_pod if in_pod is not None else (None, ())
        if path == ("spec", "replicas"):
            for g in inv.groups:
                g.replicas = UNKNOWN
        elif path == ("spec", "leaderWorkerTemplate", "restartPolicy"):
            for g in inv.groups:
                g.restart_policy = UNKNOWN
        elif path == ("spec", "leaderWorkerTemplate", "size"):
            for g in inv.groups:
                g.pods_per_group = UNKNOWN
        elif path in (("spec", "minReplicas"), ("spec", "minReplicaCount")):
            for a in inv.autoscalers:
                a.min_replicas = UNKNOWN
        elif path in (("spec", "maxReplicas"), ("spec", "maxReplicaCount")):
            for a in inv.autoscalers:
                a.max_replicas = UNKNOWN
        elif path in (("metadata",), ("metadata", "namespace")):
            namespaced: list[Any] = [*inv.groups, *inv.services, *inv.ingresses, *inv.routers,
                                     *inv.network_policies, *inv.autoscalers, *inv.config_maps, *inv.pod_ports]
            for obj in namespaced:
                obj.namespace = UNKNOWN_NAMESPACE
            if kind == "Pod" and path == ("metadata",):
                _unknown_labels(inv)
        elif kind == "NetworkPolicy" and path[:1] == ("spec",):
            for np in inv.network_policies:  # never mistaken for a policy that selects every pod
                np.pod_selector = {**np.pod_selector, UNKNOWN_NAMESPACE: UNKNOWN_NAMESPACE}
                np.unknown_part = np.unknown_part or _dotted(path)
        elif kind == "Service" and path[:2] == ("spec", "selector"):
            for s in inv.services:
                s.selector = UNKNOWN
        elif kind == "Service" and path == ("spec", "loadBalancerClass"):
            for s in inv.services:  # which controller provisions the load balancer, and so its scheme
                s.load_balancer_class = UNKNOWN
        elif kind == "Ingress" and path[:2] == ("metadata", "annotations"):
            for ing in inv.ingresses:  # one annotation, or the whole map: the ALB's scheme and algorithm may be there
                keys = [path[2]] if len(path) == 3 and isinstance(path[2], str) else list(_INGRESS_ANNOTATIONS)
                ing.annotations = {**ing.annotations, **dict.fromkeys(keys, UNKNOWN)}
        elif kind == "Service" and path[:2] == ("metadata", "annotations"):
            for s in inv.services:  # one annotation, or the whole map: an internal or scheme annotation may be there
                keys = [path[2]] if len(path) == 3 and isinstance(path[2], str) else [AWS_LB_SCHEME]
                s.annotations = {**s.annotations, **dict.fromkeys(keys, UNKNOWN)}
        elif kind == "Service" and len(path) == 4 and path[:2] == ("spec", "ports") and path[3] == "port":
            entry = _at(props, path[:3])
            for s in inv.services:  # the reader left the port out (and took no targetPort from it)
                s.ports.append(UNKNOWN)
                if not isinstance(entry, Mapping) or "targetPort" not in entry:
                    s.target_ports.append(UNKNOWN)
        elif kind == "Service" and len(path) == 4 and path[:2] == ("spec", "ports") and path[3] in _PORT_UNREAD:
            pass  # review34: no rule reads a Service port's nodePort or protocol; the entry's port and targetPort stand
        elif kind == "Service" and path[:2] == ("spec", "ports"):  # the whole list, one entry, or its name
            for s in inv.services:
                s.ports.append(UNKNOWN)
                s.target_ports.append(UNKNOWN)
        elif kind == "NodePool" and (path == _CLASS_REF[:len(path)] or _hides_instance_types(props, path)):
            if path == _CLASS_REF[:len(path)]:
                for pool in inv.pools:  # which EC2NodeClass (and so which metadata options) is not known
                    pool.launch_template = UNKNOWN
            if _hides_instance_types(props, path):
                _unknown_instance_types(inv)
        elif kind == "EC2NodeClass" and path in (("spec",), ("spec", "metadataOptions"),
                                                 ("spec", "metadataOptions", "httpTokens"),
                                                 ("spec", "metadataOptions", "httpPutResponseHopLimit")):
            for lt in inv.launch_templates:
                if path[-1] != "httpPutResponseHopLimit":
                    lt.http_tokens = UNKNOWN
                if path[-1] != "httpTokens":
                    lt.http_put_response_hop_limit = UNKNOWN
        elif kind in ("Ingress", "HTTPRoute") and _routes_to(path):
            for ing in inv.ingresses:  # a backend not known: it may route to any port of any Service
                if UNKNOWN not in ing.ports:
                    ing.ports.append(UNKNOWN)
        elif kind == "Service" and path == ("spec",):
            for s in inv.services:
                s.type, s.selector = UNKNOWN, UNKNOWN
                s.target_ports.append(UNKNOWN)
        elif template is not None and (rel[:2] == ("metadata", "labels") or (template and rel == ("metadata",))):
            _unknown_labels(inv)
        elif template and rel == ():  # the whole pod template
            _unknown_labels(inv)
            _cannot_read(inv, subject(), f"its pod template ({_dotted(path)})", loc, pod=True,
                         load=_declares_load(props, template))
        elif template is not None and (rel in (("spec",), ("spec", "containers"))
                                       or (len(rel) == 3 and rel[:2] == ("spec", "containers"))):
            what = "one of its containers" if len(rel) == 3 else "its container list" if rel[-1] == "containers" \
                else "its pod spec"
            _cannot_read(inv, subject(), f"{what} ({_dotted(path)})", loc, pod=True,
                         load=_declares_load(props, template))
        elif kind in _AUTOSCALERS and path[:1] == ("spec",) and (
                len(path) == 1 or path[1] in ("scaleTargetRef", _AUTOSCALERS[kind])):
            _unknown_scaling(inv, props, kind, path)
        elif path in (("spec",),) and kind not in ("Service", "NetworkPolicy"):
            _cannot_read(inv, subject(), "its spec", loc, pod=True, load=True)
        elif path in _TEMPLATE_HOLDERS.get(kind, ()):  # every pod template below it
            _cannot_read(inv, subject(), f"its pod templates ({_dotted(path)})", loc, pod=True, load=True)
        elif template is not None and len(rel) == 4 and rel[:2] == ("spec", "tolerations") and isinstance(rel[2], int):
            for g in inv.groups:  # the reader kept the entry without the field: make the field unknown
                if rel[2] < len(g.tolerations) and rel[3] in ("key", "operator", "value", "effect"):
                    g.tolerations[rel[2]] = dataclasses.replace(g.tolerations[rel[2]], **{rel[3]: UNKNOWN})
        elif template is not None and rel[:2] == ("spec", "affinity"):
            for g in inv.groups:  # which pools the pods may land on is not known
                g.node_selector, g.pool = UNKNOWN, None
        elif template is not None and len(rel) == 2 and rel[0] == "spec" and rel[1] in _HOST_KEYS:
            # an inline pod spec's (a template's are read as unknown, _read_as_unknown): never "not shared"
            for g in _groups_of(inv, kind, template):
                setattr(g.host, _HOST_KEYS[rel[1]], UNKNOWN)
                g.host.locations[_HOST_KEYS[rel[1]]] = loc
        elif template is not None and (rel == ("spec", "securityContext")
                                       or (len(rel) >= 4 and rel[1] == "containers" and rel[3] == "securityContext")):
            containers = ([c for g in inv.groups for c in g.containers] if len(rel) == 2
                          else _containers_at(inv, props, path[:path.index("securityContext")]))
            for c in containers:  # every setting the rules read is unknown
                sc = c.security
                if len(rel) > 2:
                    sc.privileged = UNKNOWN
                    if len(rel) == 4 or rel[4] == "capabilities":
                        sc.capabilities_add.append("<unknown>")
                sc.seccomp = UNKNOWN
        elif (len(path) >= 3 and path[-3] == "containers" and path[-1] == "resources") or (
                len(path) >= 4 and path[-4] == "containers" and path[-2:] == ("resources", "limits")):
            at = path[:-1] if path[-1] == "resources" else path[:-2]
            unknown_gpus = _containers_at(inv, props, at)
            for c in unknown_gpus:  # the accelerators it requests are not known: not "none"
                if not isinstance(c.gpus, int) or c.gpus == 0:
                    c.gpus = UNKNOWN
            for g in inv.groups:
                # the serving container's own request not known: never the other pod template's count (a
                # LeaderWorkerSet's leader takes its workers' where it requests none, workloads.fill_placement)
                if any(c.gpus is UNKNOWN for c in g.containers) and (
                        not isinstance(g.gpus_per_pod, int) or any(c is g.main_container for c in unknown_gpus)):
                    g.gpus_per_pod = UNKNOWN
        elif len(path) >= 3 and (path[-1] == "envFrom" or path[-2] == "envFrom"):
            at = path[:-1] if path[-1] == "envFrom" else path[:-2]
            for c in _containers_at(inv, props, at):  # sources not known: any variable may come from them
                c.env_from.append(EnvSource("configMap", UNKNOWN, "", c.location))
        elif kind == "ConfigMap" and path in (("data",), ("stringData",)):
            for cm in inv.config_maps:
                cm.data = UnknownEnv(cm.data)
        elif template is not None and rel[:2] == ("spec", "volumes"):
            _unknown_volume(inv, props, path, rel)
        elif "volumeMounts" in path[2:] and path[path.index("volumeMounts") - 2] == "containers":
            _unknown_mount(inv, props, path)
        elif len(path) >= 3 and path[-3] == "containers" and path[-1] == "name":
            _cannot_read(inv, subject(), f"the name of a container ({_dotted(path)})", loc)
        elif len(path) >= 2 and (path[-1] == "env" or path[-2] == "env" or tail[0] == "env"):
            env_path = path[:path.index("env", len(path) - 3) + 1] if "env" in tail else path
            kept = _env_kept(props, env_path, path)
            for c in _containers_at(inv, props, env_path[:-1]):
                c.env = UnknownEnv(c.env if kept is None else {k: v for k, v in c.env.items() if k in kept})
        elif len(path) >= 3 and path[-3] == "containers" and path[-1] in _PROBES:
            for c in _containers_at(inv, props, path[:-1]):  # a whole probe not known: never read as absent
                c.probes[_PROBES[path[-1]]] = Probe(
                    _PROBES[path[-1]], port=UNKNOWN, initial_delay_seconds=UNKNOWN, period_seconds=UNKNOWN,
                    failure_threshold=UNKNOWN, timeout_seconds=UNKNOWN)
        elif len(path) >= 4 and path[-4] == "containers" and path[-2] in _PROBES and path[-1] in _PROBE_HANDLERS:
            for c in _containers_at(inv, props, path[:-2]):  # what it probes (and on which port) is not known
                probe = c.probes.get(_PROBES[path[-2]])
                if probe is not None:
                    probe.port = UNKNOWN
        elif len(path) >= 4 and path[-4] == "containers" and path[-2] in _PROBES and path[-1] in _PROBE_FIELDS:
            for c in _containers_at(inv, props, path[:-2]):
                probe = c.probes.get(_PROBES[path[-2]])
                if probe is not None:
                    setattr(probe, _PROBE_FIELDS[path[-1]], UNKNOWN)


#: The annotations of an Ingress that a whole annotations map not known at preview may hold: the AWS Load Balancer
#: Controller's scheme (SW306: internet-facing) and target group attributes (SW406: the balancing algorithm).
_INGRESS_ANNOTATIONS = ("alb.ingress.kubernetes.io/scheme", "alb.ingress.kubernetes.io/target-group-attributes")
#: The autoscalers of the Kubernetes adapter, and the list that holds what each scales on.
_AUTOSCALERS = {"HorizontalPodAutoscaler": "metrics", "ScaledObject": "triggers"}


def _holds_unknown(v: Any) -> bool:
    if v is UNKNOWN:
        return True
    if isinstance(v, Mapping):
        return any(_holds_unknown(x) for x in v.values())
    return isinstance(v, list) and any(_holds_unknown(x) for x in v)


def _unknown_scaling(inv: Inventory, props: Mapping[str, Any], kind: str, path: Path) -> None:
    """An autoscaler's spec, its target or what it scales on not known at preview (SW403, SW404, SW406 read them).
    Never the default the reader gives a spec that names none (an HPA without metrics scales on 80 % CPU), never no
    target: the target's name is UNKNOWN, and each metric or trigger not known is one more metric, UNKNOWN, beside
    those the known entries name. A whole spec is an autoscaler of unknown target, metrics and bounds (not a workload
    whose pods cannot be read: it has none)."""
    from ..k8s.autoscaling import add_hpa, add_scaled_object  # only where an autoscaler holds an unknown

    field = _AUTOSCALERS[kind]
    for a in inv.autoscalers:
        if len(path) == 1:
            a.target_name, a.metrics, a.min_replicas, a.max_replicas = UNKNOWN, [UNKNOWN], UNKNOWN, UNKNOWN
        elif path[1] == "scaleTargetRef":
            if len(path) == 2 or path[2] in ("name", "deployment"):
                a.target_name = UNKNOWN
        else:
            entries = _at(props, ("spec", field))
            known_entries = [e for e in entries if not _holds_unknown(e)] if isinstance(entries, list) else []
            metrics: list[Any] = []
            if known_entries:
                read = Inventory()
                add = add_hpa if kind == "HorizontalPodAutoscaler" else add_scaled_object
                add({"apiVersion": props.get("apiVersion", ""), "spec": {field: known_entries}}, a.location, read)
                metrics = list(read.autoscalers[0].metrics)
            a.metrics = [*metrics, UNKNOWN]


_BACKENDS = ("backend", "defaultBackend", "backendRefs")
#: Where a Karpenter NodePool names its EC2NodeClass.
_CLASS_REF = ("spec", "template", "spec", "nodeClassRef", "name")


#: Where a Karpenter NodePool lists the requirements that pick its instance types.
_REQUIREMENTS = ("spec", "template", "spec", "requirements")


def _hardware_key(key: Any) -> bool:
    """Whether a NodePool requirement on ``key`` may pick which instance types (and so which GPUs) it launches: the
    instance type, or one of the well-known labels Karpenter and EKS Auto Mode give an instance type (family, GPU
    name, count and memory, category, size...); a key not known yet may be any of them."""
    return not isinstance(key, str) or key in (INSTANCE_TYPE, INSTANCE_TYPE_BETA) or key.startswith(
        (KARPENTER_AWS_PREFIX, EKS_PREFIX))


def _hides_instance_types(props: Mapping[str, Any], path: Path) -> bool:
    """Whether an unknown at ``path`` of a Karpenter NodePool hides which instance types it may launch: the
    requirements list or a holder of it, one requirement, or the key, operator or a value of one on a key
    :func:`_hardware_key` (``minValues`` picks none)."""
    if path == _REQUIREMENTS[:len(path)] or (len(path) == 5 and path[:4] == _REQUIREMENTS):
        return True
    if path[:4] != _REQUIREMENTS or path[5] not in ("key", "operator", "values"):
        return False
    entry = _at(props, path[:5])
    return path[5] == "key" or not isinstance(entry, Mapping) or _hardware_key(entry.get("key"))


def _unknown_instance_types(inv: Inventory) -> None:
    """A Karpenter NodePool whose instance types are not all known: never read as a pool that names no GPU (SW206's
    "label the pool's nodes"), nor as only the kinds it names. Its hardware is unknown where it names none, as an
    EKS node group's unknown ``instanceTypes`` (:func:`~shardwise.rules.adapters.pulumi.aws.node_group`); where it
    names kinds, one more kind of unknown hardware stands for the types not known (as an unknown entry of an
    ``instanceTypes`` list does)."""
    pools = list(inv.pools)
    if not pools or any(p.instance_type is UNKNOWN for p in pools):  # one unknown of it made them so already
        return
    if all(p.gpu is None and p.gpus_per_node is None for p in pools):
        for pool in pools:
            pool.instance_type = UNKNOWN
            pool.gpus_per_node = UNKNOWN
            pool.gpu_memory_gib = UNKNOWN
        return
    name = pools[0].variant_of or pools[0].name
    extra = dataclasses.replace(pools[0], name=f"{name}/<unknown>", gpu=None, instance_type=UNKNOWN,
                                gpus_per_node=UNKNOWN, gpu_memory_gib=UNKNOWN, max_gpus_per_node=None,
                                interconnect=None, nvlink_domain_size=None, clique=None, efa=UNKNOWN, fabric=None,
                                accelerator=None, accelerator_families=None, gpu_memory_why="", gpu_assumed="",
                                catalog_listed=False,
                                labels={k: v for k, v in pools[0].labels.items() if not _hardware_key(k)},
                                suppressions=list(pools[0].suppressions))
    if len(pools) == 1 and pools[0].variant_of is None and isinstance(pools[0].instance_type, str):
        pools[0].name = f"{name}/{pools[0].instance_type}"  # one kind of several now, named as the others are
    for pool in (*pools, extra):
        pool.variant_of = name
    inv.pools.append(extra)


def _hides_ingress_class(path: Path) -> bool:
    """Whether an unknown at ``path`` of an Ingress hides its class: ``spec.ingressClassName`` (or the whole spec), or
    the older ``kubernetes.io/ingress.class`` annotation (or the whole annotation map) where the field is not set."""
    return path in (("spec",), ("spec", "ingressClassName"), ("metadata", "annotations"),
                    ("metadata", "annotations", "kubernetes.io/ingress.class"))


def _routes_to(path: Path) -> bool:
    """Whether an unknown at ``path`` of an Ingress or HTTPRoute hides where (which Service, which port) it
    routes: a backend or a part of one, or a list or object that holds backends."""
    if path[-1:] in (("host",), ("hostnames",), ("path",), ("pathType",), ("matches",), ("ingressClassName",)):
        return False
    if any(k in path for k in _BACKENDS):
        return True
    return path[-1] in ("spec", "rules", "http", "paths", "defaultBackend") or (
        len(path) >= 2 and isinstance(path[-1], int) and path[-2] in ("rules", "paths"))


def _unknown_labels(inv: Inventory) -> None:
    for g in inv.groups:
        g.pod_labels = UNKNOWN
    for p in inv.pod_ports:
        p.labels = UNKNOWN


def _dotted(path: Path) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


def _cannot_read(inv: Inventory, subject: str, what: str, loc: Location, pod: bool = False,
                 load: bool = False) -> None:
    reason = (f"{what} is not known until the preview's unknown values are (a computed value); lint the "
              "`pulumi up` state, or pass the value as a literal")
    if not any(i.subject == subject and i.reason == reason for i in inv.launch_issues):
        inv.launch_issues.append(LaunchIssue(subject, "", reason, loc, unknown_part=what, pod_unknown=pod,
                                             declares_load=load))


def _declares_load(props: Mapping[str, Any], template: Path | None) -> bool:
    """Whether the workload declares the load SW103 weighs (annotation shardwise.dev/target-concurrency on the object
    or its pod template, as adapters.k8s.workloads reads them; the components write it from the stack's
    ``target_concurrency``), or may: the metadata or annotations that would hold it are not known at preview."""
    for meta_path in (("metadata",), (*template, "metadata") if template else None):
        if meta_path is None:
            continue
        holder = _at(props, meta_path[:-1]) if len(meta_path) > 1 else props
        if holder is UNKNOWN:
            return True
        meta = _at(props, meta_path)
        if meta is UNKNOWN:
            return True
        ann = meta.get("annotations") if isinstance(meta, Mapping) else None
        if ann is UNKNOWN or (isinstance(ann, Mapping) and ANN_TARGET_CONCURRENCY in ann):
            return True
    return False


def _env_kept(props: Mapping[str, Any], env_path: Path, path: Path) -> set[str] | None:
    """The variables whose known values an unknown at ``path`` of the ``env`` list at ``env_path`` leaves decided:
    None (all of them) where the unknown is a value of an entry whose name is known; else the names of the entries
    after it. An entry (or its name) not known yet may be any variable, and Kubernetes keeps the last entry of a
    name, so it may override any entry before it (fuzz19: seed 7405, `VLLM_SERVER_DEV_MODE: "0"` followed by an
    unknown entry passed SW306)."""
    i = path[len(env_path)] if len(path) > len(env_path) else None
    if isinstance(i, int) and len(path) > len(env_path) + 1 and path[-1] != "name":
        return None
    raw = _at(props, env_path)
    if not isinstance(i, int) or not isinstance(raw, list):
        return set()
    return {e["name"] for e in raw[i + 1:] if isinstance(e, Mapping) and isinstance(e.get("name"), str)}


def _unknown_volume(inv: Inventory, props: Mapping[str, Any], path: Path, rel: Path) -> None:
    """A pod volume not known at preview (the list, an entry, its name or its source): never no volume and never a
    disk emptyDir (SW401 reads which volume is at /dev/shm and whether it is memory-backed). A volume whose name is
    not known is one more volume named :data:`UNKNOWN_TOKEN` of unknown kind; a source of a named one not known
    gives it an unknown medium (``emptyDir``, or its ``medium``) or keeps the kind its key names; an emptyDir's
    ``sizeLimit`` not known leaves the medium it writes (review25: it made a ``medium: Memory`` one undecided)."""
    entry = _at(props, path[:len(path) - len(rel) + 3]) if len(rel) >= 3 else None
    name = entry.get("name") if isinstance(entry, Mapping) and len(rel) >= 4 and rel[3] != "name" else None
    for g in inv.groups:  # the object's pod templates: the unknown one among them
        volume = next((v for v in g.volumes if v.name == name), None) if isinstance(name, str) else None
        if volume is None:
            if not any(v.name == UNKNOWN_TOKEN for v in g.volumes):
                g.volumes.append(Volume(UNKNOWN_TOKEN, UNKNOWN_TOKEN))
        elif rel[3] == "emptyDir" and (len(rel) == 4 or rel[4] == "medium"):  # an emptyDir whose medium is not known
            volume.kind, volume.medium = "emptyDir", UNKNOWN_TOKEN
        elif rel[3] == "emptyDir":  # its sizeLimit: the medium written (or left out: node disk) stands
            volume.kind = "emptyDir"
            if rel[4] == "sizeLimit":
                volume.size_limit = UNKNOWN_TOKEN
        elif len(rel) == 4 and rel[3] in ("persistentVolumeClaim", "secret", "hostPath", "configMap"):
            volume.kind = str(rel[3])  # the reader saw no source key: the key is the kind


def _unknown_mount(inv: Inventory, props: Mapping[str, Any], path: Path) -> None:
    """A volume mount of a container not known at preview (the list, an entry, its name or ``mountPath``): never no
    mount (SW401's "mounts nothing at /dev/shm"). A mount path not known is :data:`UNKNOWN_TOKEN`; a mount whose
    volume is not known is one more mount of the volume :data:`UNKNOWN_TOKEN`, at its path where that is known."""
    at = path.index("volumeMounts")
    entry = _at(props, path[:at + 2]) if len(path) > at + 1 else None
    field = path[at + 2] if len(path) > at + 2 else None
    name = entry.get("name") if isinstance(entry, Mapping) else None
    mount_path = entry.get("mountPath") if isinstance(entry, Mapping) else None
    for c in _containers_at(inv, props, path[:at]):
        if field == "mountPath" and isinstance(name, str):
            c.volume_mounts[name] = UNKNOWN_TOKEN
        elif field in (None, "name", "mountPath"):
            known_path = mount_path if isinstance(mount_path, str) and field != "mountPath" else UNKNOWN_TOKEN
            if c.volume_mounts.get(UNKNOWN_TOKEN, UNKNOWN_TOKEN) == UNKNOWN_TOKEN:
                c.volume_mounts[UNKNOWN_TOKEN] = known_path


def _unknown_words(inv: Inventory, props: Mapping[str, Any], unknown: list[Path]) -> None:
    """The words of a vLLM container's ``command`` or ``args`` not known at preview that may stand where a flag does,
    on its group (:class:`~shardwise.rules.model.UnknownWord`, SW003): the whole list, or a word that is not the value
    of the flag vLLM defines before it on the command line (``--tensor-parallel-size``, then the word: a value,
    whatever it is; the word before the first of the args is the last of the command). Only where vLLM's parser read
    an unknown word as a carrier of flags (``flag_carriers``): a word it took as a value is one."""
    for path in unknown:
        if len(path) >= 3 and path[-1] in ("args", "command") and path[-3] == "containers":
            at, field, word = path[:-1], path[-1], None
        elif len(path) >= 4 and isinstance(path[-1], int) and path[-2] in ("args", "command") \
                and path[-4] == "containers":
            at, field, word = path[:-2], path[-2], path[-1]
        else:
            continue
        raw = _at(props, at)
        if not isinstance(raw, Mapping):
            continue
        words = raw.get(field)
        command = raw.get("command")
        if isinstance(word, int) and isinstance(words, list) and word <= len(words):
            before = words[word - 1] if word else (command[-1] if field == "args" and isinstance(command, list)
                                                   and command else None)
            if isinstance(before, str) and takes_value(before):
                continue  # the value of a flag vLLM defines: never a flag
        for g in inv.groups:
            c = g.main_container
            carriers = g.engine.extra.get("flag_carriers")
            if c is not None and c.name == raw.get("name") and isinstance(carriers, list) and UNKNOWN_TOKEN in carriers:
                inv.unknown_words.append(UnknownWord(g, _dotted(path)))


def _containers_at(inv: Inventory, props: Mapping[str, Any], path: Path) -> list[Any]:
    """The model containers of the container the (original) ``path`` points at (an InferenceService predictor's
    ``model``: the container the adapter names ``kserve-container``)."""
    raw = _at(props, path)
    if not isinstance(raw, Mapping):
        return []
    name = raw.get("name", _ISVC_MODEL_CONTAINER if path == _ISVC_MODEL else None)
    return [c for g in inv.groups for c in g.containers if c.name == name]


def _groups_of(inv: Inventory, kind: Any, template: Path) -> list[Any]:
    """The serving groups the pods of ``template`` run in: an LLMInferenceService's prefill workload is its own group
    (named ``<name>/prefill``, ``kserve.add_llm_inference_service``); every other object's groups are its one."""
    if kind != "LLMInferenceService":
        return list(inv.groups)
    prefill = template[:2] == ("spec", "prefill")
    return [g for g in inv.groups if str(g.name).endswith("/prefill") == prefill]


def _fill_locations(inv: Inventory, loc: Location) -> None:
    """Give every location the object's URN (and its file/line where the adapter had none)."""
    def fix(x: Location) -> Location:
        if x.urn == loc.urn and (x.file or not loc.file):
            return x
        return Location(x.file or loc.file, x.line or loc.line, loc.urn)

    def fix_supp(items: list[Suppression]) -> list[Suppression]:
        return [dataclasses.replace(s, location=fix(s.location)) for s in items]

    for g in inv.groups:
        g.location = fix(g.location)
        g.suppressions = fix_supp(g.suppressions)
        g.engine.locations = {k: fix(v) for k, v in g.engine.locations.items()}
        g.locations = {k: fix(v) for k, v in g.locations.items()}
        for c in g.containers:
            c.location = fix(c.location)
    located: list[Any] = [*inv.services, *inv.ingresses, *inv.routers, *inv.autoscalers, *inv.pools,
                          *inv.launch_templates, *inv.network_policies, *inv.launch_issues, *inv.config_maps]
    for obj in located:
        obj.location = fix(obj.location)
        if hasattr(obj, "suppressions"):
            obj.suppressions = fix_supp(obj.suppressions)


def kubernetes(res: PulumiResource, props: Mapping[str, Any], api: tuple[str, str],
               manifest: dict[str, Any] | None = None) -> Inventory:
    """One Kubernetes resource -> its inventory (see the module docstring). ``manifest``, where given, is what
    :func:`prepare_manifest` makes of ``props`` holding no unknown (a new copy of them without their top-level
    ``__`` keys, which the readers change), made by the caller: the policy pack's, in its one walk of the engine's
    message (``rules/__main__.py`` ``kubernetes_properties``)."""
    manifest, unknown = prepare_manifest(props) if manifest is None else (manifest, [])
    manifest.setdefault("apiVersion", api[0])
    manifest.setdefault("kind", api[1])
    meta = manifest.get("metadata")
    loc = res.location
    if meta is not None and not isinstance(meta, dict):  # the provider refuses it; never read as an empty one (fuzz16)
        raise InputError(f"metadata: expected an object, found {json_type(meta)}; Kubernetes refuses the object as "
                         "written", loc.file, loc.line)
    if not isinstance(meta, dict):
        meta = manifest["metadata"] = {}
    for key in ("name", "namespace"):  # they name it in every finding: strings, or refused as the YAML reader does
        value = meta.get(key)
        if value is not None and value is not UNKNOWN and not isinstance(value, str):
            raise InputError(f"metadata.{key}: expected a string, found {json_type(value)}; Kubernetes refuses the "
                             "object as written", loc.file, loc.line)
    if ("metadata",) in unknown or ("metadata", "name") in unknown:
        meta["name"] = UNKNOWN_NAMESPACE  # "<unknown>": matches no reference by name
    elif not meta.get("name"):
        meta["name"] = res.name
    if api[1] == "ReferenceGrant" and ("metadata", "namespace") in unknown:
        meta["namespace"] = UNKNOWN_NAMESPACE  # a grant of a namespace not known yet: never of `default` (mend18)
    inv = inventory_from_objects([(manifest, loc)])

    def subject() -> str:
        ns = meta.get("namespace") if isinstance(meta.get("namespace"), str) else None
        if ("metadata", "namespace") in unknown:
            ns = UNKNOWN_NAMESPACE
        return f"{api[1]} {ns or 'default'}/{meta['name']}"

    _restore_unknowns(inv, props, api[1], unknown, subject, loc)
    _unknown_commands(inv, props, unknown, subject, loc)
    _unknown_words(inv, props, unknown)
    parts = [i for i in inv.launch_issues if i.unknown_part]
    if parts:
        ann, lines = read_annotations(meta)
        suppressions = suppressions_from(ann, lines, loc.file, loc.line)
        ns = meta.get("namespace") if isinstance(meta.get("namespace"), str) else "default"
        for issue in parts:
            issue.namespace = UNKNOWN_NAMESPACE if ("metadata", "namespace") in unknown else (ns or "default")
            issue.multi_node = api[1] in _MULTI_NODE_KINDS
            issue.suppressions = [*issue.suppressions, *(x for x in suppressions if x not in issue.suppressions)]
    _fill_locations(inv, loc)
    return inv


def _hidden(words: Any) -> bool:
    return words is UNKNOWN or (isinstance(words, list) and any(w is UNKNOWN for w in words))


def _is_command(path: Path) -> bool:
    """Whether ``path`` is a container's command or args, or one word of them."""
    for i in (-1, -2):
        if len(path) >= 2 - i and path[i] in ("command", "args") and path[i - 2] == "containers":
            return i == -1 or isinstance(path[-1], int)
    return False


def _unknown_commands(inv: Inventory, props: Mapping[str, Any], unknown: list[Path],
                      subject: Callable[[], str], loc: Location) -> None:
    """A command line that is not known hides whether and how a container runs vLLM.

    The launch issues of an object whose command or args hold an unknown name it as the unknown part
    (the vLLM image was seen, the launch could not be read); a container whose image and command are
    both unknown may run vLLM though nothing of it says so: it is reported as not known unless a serving
    group was read from it."""
    commands = [p for p in unknown if _is_command(p)]
    for issue in inv.launch_issues:
        if commands and not issue.crash and not issue.unknown_part and not issue.mentioned:
            issue.unknown_part = f"the command line of a container ({_dotted(commands[0])})"
    read = {c.name for g in inv.groups for c in g.containers}
    for path in unknown:
        if path[-1:] != ("image",) or len(path) < 3 or path[-3] != "containers":
            continue
        raw = _at(props, path[:-1])
        if not isinstance(raw, Mapping) or raw.get("name") in read:
            continue
        cmd, args = raw.get("command"), raw.get("args")
        if _hidden(cmd) or (cmd is None and _hidden(args)):
            _cannot_read(inv, subject(), f"the image and command of container `{raw.get('name')}` "
                                         f"({_dotted(path[:-1])})", loc)


# ---------------------------------------------------------------------------------------------
# Helm releases
# ---------------------------------------------------------------------------------------------

#: The Pulumi Kubernetes provider's Helm release: a custom resource whose chart the provider renders and installs at
#: ``pulumi up``; a preview holds its inputs (``chart``, ``repositoryOpts``, ``version``, ``values``...), never the
#: objects it renders (pulumi-kubernetes ``provider/pkg/provider/helm_release.go``)
HELM_RELEASE = "kubernetes:helm.sh/v3:Release"
#: Charts that run vLLM's server whatever their values say: vLLM's own (``vllm``), its production-stack
#: (``vllm-stack``) and llm-d's ``llm-d-modelservice`` (the charts adapters/k8s/helmrelease.py models)
_VLLM_CHARTS = frozenset({"vllm", "vllm-stack", "llm-d-modelservice"})


def helm_release_mention(props: Mapping[str, Any]) -> str | None:
    """What says a Helm Release (its cleaned properties) runs vLLM, in words for SW005, or None: a chart of
    :data:`_VLLM_CHARTS`, a vLLM image in Helm's ``image.repository`` convention or under an ``image`` key of its
    values, llm-d-modelservice's ``modelCommand``, a vLLM launch command. A release of any other chart (KEDA, the LWS
    controller) says nothing."""
    from ..k8s.mentions import helm_values_mention  # only a Helm release (start-up time)

    chart, values = props.get("chart"), props.get("values")
    if isinstance(values, Mapping):
        generic = vllm_mentions(values)
        found = helm_values_mention(values) or (generic[0] if generic is not None else None)
        if found is not None:
            return found
    name = chart.strip().rstrip("/").rsplit("/", 1)[-1].split(":", 1)[0] if isinstance(chart, str) else ""
    return f"the Helm chart `{chart}`" if name in _VLLM_CHARTS else None


def helm_release_unread(res: PulumiResource, props: Mapping[str, Any], inv: Inventory) -> bool:
    """SW005's record for a Helm Release whose chart or values say it runs vLLM (:func:`helm_release_mention`): its
    pods are not in the preview, so no rule read them; True when it was added (review34: the vLLM production-stack's
    release with VLLM_SERVER_DEV_MODE=1 in its values passed every rule, saying only "skipped 1 object of unknown
    kinds", where the same release as a Flux HelmRelease is read or says why)."""
    what = helm_release_mention(props)
    if what is None:
        return False
    namespace = props.get("namespace")
    subject = f"Release {namespace if isinstance(namespace, str) and namespace else 'default'}/{res.name}"
    inv.launch_issues.append(LaunchIssue(
        subject, "", f"it mentions vLLM ({what}) but the Pulumi Kubernetes provider renders the Helm chart it names at "
        "`pulumi up`, so its pods are not in the preview: lint the chart rendered with these values (helm template, "
        "with the values set here) together with the preview", res.location, mentioned=True))
    return True


#: The Pulumi Kubernetes provider's components that apply objects they read or render while the program runs, and
#: the inputs each awaits before it does (pulumi-kubernetes provider/pkg/provider: yaml/v2 configfile.go and
#: configgroup.go, ``pulumi.All(file, resourcePrefix, skipAwait).ApplyT``; kustomize/v2 directory.go and helm/v4
#: chart.go, ``UnsafeAwaitOutput(pulumi.All(...))``, which on ``!result.Known`` logs "Input properties have unknown
#: values. Preview is incomplete." and registers no child): one input not known at preview, whichever (a
#: resourcePrefix or a Chart's values too, review37), and none of its objects is in the preview. The v1 YAML
#: components (the SDKs' own) by the inputs that name what they apply. A secret is no unknown to the provider: the
#: preview only masks it in what it writes (``[secret]``), and the objects are the component's children.
CONFIG_FILES: dict[str, tuple[str, ...]] = {
    "kubernetes:yaml:ConfigFile": ("file",),
    "kubernetes:yaml/v2:ConfigFile": ("file", "resourcePrefix", "skipAwait"),
    "kubernetes:yaml:ConfigGroup": ("files", "yaml", "objs"),
    "kubernetes:yaml/v2:ConfigGroup": ("files", "yaml", "objs", "resourcePrefix", "skipAwait"),
    "kubernetes:kustomize/v2:Directory": ("directory", "namespace", "resourcePrefix", "skipAwait"),
    "kubernetes:helm.sh/v4:Chart": ("name", "namespace", "chart", "version", "devel", "repositoryOpts",
                                    "dependencyUpdate", "verify", "keyring", "values", "valueYamlFiles", "skipCrds",
                                    "postRenderer", "resourcePrefix", "skipAwait"),
}


#: The SDKs' own components that render their objects in the program (pulumi-kubernetes sdk: helm/v3 and v2
#: ``Chart`` run ``helm template`` in an ``Output.apply`` of their values, kustomize ``Directory`` in one of its
#: directory): a local component registers no input, and in a preview the apply does not run while a value it awaits
#: is not known, so none of its objects is there (a known Pulumi behaviour: a Chart whose values are computed at preview
#: shows its objects as deleted, or none, and applies them at `pulumi up`).
SDK_RENDERERS = frozenset({"kubernetes:helm.sh/v3:Chart", "kubernetes:helm.sh/v2:Chart",
                           "kubernetes:kustomize:Directory"})


def sdk_renderer_unread(res: PulumiResource, inv: Inventory, children: bool) -> bool:
    """SW005's record for a component of :data:`SDK_RENDERERS` that the preview creates with no child of it in the
    preview: its values (or directory) were not known while the program ran, or it renders nothing; either way no
    rule judged what it applies (review42: counted among the skipped objects, the run passed). True when added. Not
    for one the preview updates or leaves (its unchanged children are not shown) nor for a state export."""
    if res.op != "create" or children:
        return False
    kind = res.type.rsplit(":", 1)[-1]
    inv.launch_issues.append(LaunchIssue(
        f"{kind} {res.name}", "",
        "none of the objects it applies is in the preview: the SDK's component renders them in the program only once "
        "its values are known, so a value computed at preview leaves them all out, and none of them, which may run "
        "vLLM, was checked: lint the `pulumi up` state, or write the values as literals", res.location,
        mentioned=True))
    return True


def config_file_unread(res: PulumiResource, props: Mapping[str, Any], inv: Inventory, children: bool = False) -> bool:
    """SW005's record for a component of :data:`CONFIG_FILES` (a YAML ConfigFile or ConfigGroup, a kustomize
    Directory, a Helm v4 Chart) one of whose inputs is not known at preview: the objects it applies (a vLLM
    Deployment among them, or not) are not in the preview, so no rule judged them; True when it was added (review34:
    it had no children and was only counted, "passed"). Not where the preview's only unknowns are the secrets it masks
    (``res.masked``) and the preview holds its objects (``children``: a resource of the preview is its child): the
    provider knew those secrets. A masked secret may hide a value computed at preview too (pulumi/pulumi
    pkg/backend/display/json.go ``massagePropertyValue`` writes any secret, a computed one included, as ``[secret]``:
    a Chart's password from a RandomPassword this preview creates), and then the provider registers no child: where
    the preview creates the component and holds none, the record stays (review42: it passed silently). A component
    the preview updates may have children it leaves out (unchanged: ``same`` steps are not shown), so there a
    masked-only one is not said."""
    if res.masked is True and (children or res.op != "create"):
        return False
    unknown = [key for key in CONFIG_FILES[res.type] if _holds_unknown(props.get(key))]
    if not unknown:
        return False
    kind = res.type.rsplit(":", 1)[-1]
    named = " and ".join(f"`{key}`" for key in unknown)
    if res.masked is True:  # only secrets, and no child of it in the preview
        why = (f"its {named} {'holds' if len(unknown) == 1 else 'hold'} a secret the preview writes as `[secret]` and "
               "none of the objects it applies is in the preview: the provider renders them only once every input "
               "is known, so a secret computed at preview (a password or key that a resource of this preview "
               "creates) leaves them out, and none of them, which may run vLLM, was checked: lint the state "
               "`pulumi up` writes, where they are its children")
    else:
        why = (f"its {named} {'is' if len(unknown) == 1 else 'are'} not known at preview (a computed value), so the "
               "objects it applies, which may run vLLM, are not in the preview and none was checked: lint the "
               "`pulumi up` state, or write the value as a literal")
    inv.launch_issues.append(LaunchIssue(f"{kind} {res.name}", "", why, res.location, mentioned=True))
    return True
