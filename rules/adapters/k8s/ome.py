"""OME (sgl-project/ome, API group ``ome.io``): an InferenceService deployed on the runtime it names.

An ``InferenceService`` holds no pod of its own. It names its model, a ``BaseModel`` (in its namespace) or a
``ClusterBaseModel`` (``spec.model.name``), and its runtime, a ``ServingRuntime`` or ``ClusterServingRuntime``
(``spec.runtime.name``; the deprecated ``spec.predictor.model.baseModel`` and ``.runtime`` name the same); OME
looks for the namespaced kind first, then the cluster one, unless the reference gives its ``kind``. The
runtime holds the pod: ``engineConfig`` (and ``decoderConfig`` for prefill/decode disaggregation), each a pod
spec with a ``runner`` container, ``minReplicas``, and for a multi-node engine a ``leader`` and a ``worker``
(``size`` worker pods, 1 when a leader and a worker give none), deployed as a LeaderWorkerSet; runtimes of the
older shape hold the pod at the top of their spec (``containers``, the ``ome-container`` being the engine) and
``workers.size``. OME merges the service's ``engine`` (``decoder``) over the runtime's component field by
field, the service winning (a strategic merge patch: maps key by key, containers, volumes and env by name,
other lists replaced; utils.MergeEngineSpec), sets ``MODEL_PATH`` to where it mounts the base model's
weights, and adds what its accelerator classes, RDMA profiles and model cache need.

So each InferenceService whose runtime is in the inputs is read as the pod OME deploys: one group per
component (``NAME``, or ``NAME/engine`` and ``NAME/decoder``), in the service's namespace, with its
``minReplicas`` (default 1; 0 scales to zero and is sized as one replica; ``maxReplicas`` bounds OME's
autoscaler, which no rule reads), the model of the base model's ``spec.storage.storageUri`` (``hf://org/name``;
another storage names no model shardwise can size) where the runtime's command serves ``$MODEL_PATH``, and the
rules about what an operator adds (GPU request, /dev/shm, probes) advisory. The runtime, once used, is not
linted alone as a template. The objects may be in different files: :func:`link_services` joins them after
every input is read (it runs in ``resolve_pools``). A service whose runtime is not in the inputs, or that names
none (OME then picks one by the model's format, architecture and size), is recorded for SW005, which says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...model import UNKNOWN, CrossRef, Inventory, LaunchIssue, Location
from ...model.errors import InputError
from ...model.vocab import ANN_BASE_MODEL
from ..yamlsrc import LineDict
from .fields import as_list, as_map, int_field, line_of, read_annotations, suppressions_from
from .groups import OME_MODEL_KINDS as MODEL_KINDS
from .groups import OME_RUNTIME_KINDS as RUNTIME_KINDS
from .groups import OME_SERVICE as SERVICE
from .serving import MODEL_MOUNTS, Implied, crd_group, model_field, model_from_uri, unplaced

#: The engine container of a runtime of the older shape, and the name OME gives a runner that has none.
MAIN = "ome-container"

#: Pod fields at the top of a runtime's spec (its ServingRuntimePodSpec): the base of each component's pod.
_POD_FIELDS = ("volumes", "nodeSelector", "affinity", "tolerations", "imagePullSecrets", "schedulerName",
               "hostIPC", "dnsPolicy", "hostNetwork")
#: Fields of an engine or decoder spec that are not fields of its pod.
_NOT_POD = frozenset({"runner", "leader", "worker", "size", "minReplicas", "maxReplicas", "scaleTarget",
                      "scaleMetric", "containerConcurrency", "timeoutSeconds", "canaryTrafficPercent", "logger",
                      "labels", "annotations", "deploymentStrategy", "kedaConfig", "lifecycle"})
#: Lists a strategic merge patch merges item by item, and the field that names an item.
_MERGE_KEYS = {"containers": "name", "initContainers": "name", "volumes": "name", "env": "name",
               "volumeMounts": "mountPath", "ports": "containerPort", "imagePullSecrets": "name"}
#: Fields of a service's component that a finding may point at: (path in the component, ServingGroup.locations key).
_FIELD_LOCATIONS = ((("runner", "resources"), "resources"), (("runner", "env"), "env"), (("runner", "image"), "image"),
                    (("runner", "volumeMounts"), "volumeMounts"), (("nodeSelector",), "nodeSelector"),
                    (("affinity",), "affinity"), (("tolerations",), "tolerations"), (("volumes",), "volumes"),
                    (("minReplicas",), "replicas"))


def add_ome_object(kind: str, obj: Mapping[str, Any], loc: Location, inv: Inventory,
                   lines: Sequence[str] | None) -> None:
    """Keep an OME object for :func:`link_services`; a service is recorded as not read until its runtime is found."""
    ref = CrossRef(kind, obj, loc, lines)
    inv.cross_refs.append(ref)
    if kind == SERVICE:
        inv.launch_issues.append(_not_linked(obj, loc))


def _refs(obj: Mapping[str, Any]) -> tuple[str | None, str | None, str | None, str | None]:
    """(model kind, model name, runtime kind, runtime name) a service names; a kind None when not given."""
    spec = as_map(obj.get("spec"))
    model, runtime = as_map(spec.get("model")), as_map(spec.get("runtime"))
    legacy = as_map(as_map(spec.get("predictor")).get("model"))

    def text(value: Any) -> str | None:
        return value.strip() if isinstance(value, str) and value.strip() else None

    return (text(model.get("kind")), text(model.get("name")) or text(legacy.get("baseModel")),
            text(runtime.get("kind")), text(runtime.get("name")) or text(legacy.get("runtime")))


def _subject(obj: Mapping[str, Any]) -> str:
    meta = as_map(obj.get("metadata"))
    return f"{SERVICE} {meta.get('namespace') or 'default'}/{meta.get('name') or 'unnamed'}"


def _not_linked(obj: Mapping[str, Any], loc: Location) -> LaunchIssue:
    model_kind, model_name, runtime_kind, runtime_name = _refs(obj)
    spec = as_map(obj.get("spec"))
    if runtime_name:
        holder = as_map(spec.get("runtime")) or as_map(as_map(spec.get("predictor")).get("model"))
        line = line_of(holder, "name") or line_of(holder, "runtime")
        what = runtime_kind or "ServingRuntime or ClusterServingRuntime"
        reason = (f"OME deploys it on the {what} `{runtime_name}`, which is not in the inputs, so what it runs (the "
                  "vLLM command, its layout, GPUs and image) is not known: lint it together with that runtime")
    else:
        line = line_of(spec, "model") or line_of(spec, "predictor")
        model = f"the {model_kind or 'BaseModel or ClusterBaseModel'} `{model_name}`" if model_name else "its model"
        reason = ("it names no runtime (spec.runtime), so OME picks one when it deploys it: a runtime whose "
                  f"supportedModelFormats (with autoSelect) match the format and architecture of {model} and whose "
                  "modelSizeRange holds its size; shardwise does not guess that pick: set spec.runtime.name and lint "
                  "the service together with that runtime")
    meta = as_map(obj.get("metadata"))
    ann, ann_lines = read_annotations(meta)
    return LaunchIssue(_subject(obj), "", reason, Location(loc.file, line or loc.line), mentioned=True,
                       suppressions=suppressions_from(ann, ann_lines, loc.file, loc.line))


# --- joining services to their runtimes ----------------------------------------------------------------


def link_services(inv: Inventory) -> None:
    """Read each OME service of ``inv`` whose runtime is now in it as the pods OME deploys (see the module
    docstring); run again after inventories are merged, it joins what is in different files."""
    if not inv.cross_refs:
        return
    services = [r for r in inv.cross_refs if r.kind == SERVICE and not r.done]
    runtimes = [r for r in inv.cross_refs if r.kind in RUNTIME_KINDS]
    models = [r for r in inv.cross_refs if r.kind in MODEL_KINDS]
    for svc in services:
        model_kind, model_name, runtime_kind, runtime_name = _refs(svc.obj)
        namespace = str(as_map(svc.obj.get("metadata")).get("namespace") or "default")
        runtime = _lookup(runtimes, RUNTIME_KINDS, runtime_kind, runtime_name, namespace)
        if runtime is None:
            continue  # its SW005 record stays
        model = _lookup(models, MODEL_KINDS, model_kind, model_name, namespace)
        svc.done = True
        _drop(inv.launch_issues, svc.issues)
        _drop(inv.groups, runtime.groups)  # read through the service, not alone as a template
        _drop(inv.launch_issues, runtime.issues)
        marks = len(inv.groups), len(inv.launch_issues)
        try:
            _deploy(inv, svc, runtime, model)
        except InputError as e:  # a field of the wrong type: an input error, the other objects still read
            del inv.groups[marks[0]:]
            del inv.launch_issues[marks[1]:]
            inv.errors.append(e)


def _lookup(refs: list[CrossRef], kinds: tuple[str, str], kind: str | None, name: str | None,
            namespace: str) -> CrossRef | None:
    """The object ``name`` refers to: of ``kind`` when given, else the namespaced kind in ``namespace`` first, then
    the cluster-scoped one (OME's GetServingRuntime and GetBaseModel)."""
    if not name:
        return None
    for k in ([kind] if kind else list(kinds)):
        for r in refs:
            meta = as_map(r.obj.get("metadata"))
            if r.kind != k or meta.get("name") != name:
                continue
            if k == kinds[0] and str(meta.get("namespace") or "default") != namespace:
                continue
            return r
    return None


def _drop(items: list[Any], gone: list[Any]) -> None:
    if gone:
        ids = {id(x) for x in gone}
        items[:] = [x for x in items if id(x) not in ids]


# --- the pods OME deploys ------------------------------------------------------------------------------


def _copy(d: Mapping[str, Any]) -> LineDict:
    out = LineDict(d)
    if isinstance(d, LineDict):
        out.line, out.key_lines = d.line, dict(d.key_lines)
    return out


def merge(base: Any, over: Any, key: str = "") -> Any:
    """``over`` merged onto ``base`` as a strategic merge patch of pod fields: mappings key by key, the lists of
    :data:`_MERGE_KEYS` item by item (an item of ``over`` merged onto the item of ``base`` it names, new items
    appended), anything else replaced by ``over``. Keys keep the lines of the side they came from, a mapping the
    line of ``over`` where it has one."""
    if isinstance(base, Mapping) and isinstance(over, Mapping):
        out = _copy(base)
        if isinstance(over, LineDict) and over.line is not None:
            out.line = over.line
        for k, v in over.items():
            out[k] = merge(base[k], v, str(k)) if k in base else v
            out.key_lines.pop(str(k), None)
            if isinstance(over, LineDict) and k in over.key_lines:
                out.key_lines[str(k)] = over.key_lines[k]
        return out
    name = _MERGE_KEYS.get(key)
    if name is not None and isinstance(base, list) and isinstance(over, list):
        items = list(base)
        for item in over:
            at = next((i for i, b in enumerate(items) if isinstance(b, Mapping) and isinstance(item, Mapping)
                       and b.get(name) is not None and b.get(name) == item.get(name)), None)
            if at is None:
                items.append(item)
            else:
                items[at] = merge(items[at], item)
        return items
    return over


def _runtime_components(spec: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """The runtime's engine (and decoder) as engine specs: ``engineConfig`` over the pod fields at the top of its
    spec, or, for the older shape, the top pod itself with its ``ome-container`` as the runner and ``workers``."""
    top = LineDict({k: spec[k] for k in _POD_FIELDS if k in spec})
    if isinstance(spec, LineDict):
        top.line, top.key_lines = spec.line, {k: v for k, v in spec.key_lines.items() if k in top}
    out: dict[str, Mapping[str, Any]] = {}
    if isinstance(spec.get("engineConfig"), Mapping):
        out["engine"] = merge(top, spec["engineConfig"])
    elif as_list(spec.get("containers")):
        engine = _copy(top)
        main, others = _main_container(spec)
        engine["runner"], engine["containers"] = main, others
        workers = as_map(spec.get("workers"))
        if workers:
            worker_main, worker_others = _main_container(workers)
            worker = LineDict({k: v for k, v in workers.items() if k != "containers"})
            if isinstance(workers, LineDict):
                worker.line, worker.key_lines = workers.line, dict(workers.key_lines)
            worker["runner"], worker["containers"] = worker_main, worker_others
            engine["leader"], engine["worker"] = LineDict(), worker
        out["engine"] = engine
    if isinstance(spec.get("decoderConfig"), Mapping):
        out["decoder"] = merge(top, spec["decoderConfig"])
    return out


def _main_container(spec: Mapping[str, Any]) -> tuple[Any, list[Any]]:
    containers = [c for c in as_list(spec.get("containers")) if isinstance(c, Mapping)]
    main = next((c for c in containers if c.get("name") == MAIN), containers[0] if containers else None)
    return main, [c for c in containers if c is not main]


def _pod(component: Mapping[str, Any], role: Mapping[str, Any] | None) -> LineDict:
    """The pod spec of a component (or of its leader or worker): its pod fields, the role's over them, and the
    runner (the role's merged onto the component's) first among the containers."""
    pod = LineDict({k: v for k, v in component.items() if k not in _NOT_POD})
    if isinstance(component, LineDict):
        pod.line, pod.key_lines = component.line, {k: v for k, v in component.key_lines.items() if k in pod}
    runner = component.get("runner")
    if role is not None:
        pod = merge(pod, LineDict({k: v for k, v in role.items() if k not in _NOT_POD}))
        if isinstance(role.get("runner"), Mapping):
            runner = merge(runner, role["runner"]) if isinstance(runner, Mapping) else role["runner"]
    containers = [c for c in as_list(pod.get("containers")) if isinstance(c, Mapping)]
    if isinstance(runner, Mapping):
        runner = _copy(runner)
        runner.setdefault("name", MAIN)
        containers = [runner, *[c for c in containers if c.get("name") != runner.get("name")]]
    pod["containers"] = containers
    return pod


def _deploy(inv: Inventory, svc: CrossRef, runtime: CrossRef, model: CrossRef | None) -> None:
    spec = as_map(svc.obj.get("spec"))
    here = svc.location.file == runtime.location.file
    components = _runtime_components(as_map(runtime.obj.get("spec")))
    parts: list[tuple[str, Mapping[str, Any], Mapping[str, Any]]] = []
    for key in ("engine", "decoder"):
        own = as_map(spec.get(key))
        base = components.get(key) or LineDict()
        if base or own:
            parts.append((key, merge(base, own if here else unplaced(own)) if own else base, own))
    name = str(as_map(svc.obj.get("metadata")).get("name") or "unnamed")
    for key, component, own in parts:
        _add_component(inv, svc, runtime, model, key, component, own, name if len(parts) == 1 else f"{name}/{key}",
                       here)


def _add_component(inv: Inventory, svc: CrossRef, runtime: CrossRef, model: CrossRef | None, key: str,
                   component: Mapping[str, Any], own: Mapping[str, Any], name: str, here: bool) -> None:
    """The group of one component (engine or decoder); ``here``: the service and its runtime share a file."""
    file = svc.location.file
    spec = as_map(svc.obj.get("spec"))
    where = Location(file, line_of(spec, key) or svc.location.line) if own else svc.location
    minimum = int_field(component, "minReplicas", 1, where, f"spec.{key}.minReplicas")
    replicas = max(1, minimum) if isinstance(minimum, int) else UNKNOWN
    injected = {"MODEL_PATH": MODEL_MOUNTS[0]}  # where OME mounts the base model's weights
    pods: Any = 1
    pod, others = _pod(component, None), []
    worker = component.get("worker")
    if isinstance(worker, Mapping):
        size = int_field(worker, "size", 1, where, f"spec.{key}.worker.size")
        pods = 1 + size if isinstance(size, int) else UNKNOWN
        pod = _pod(component, as_map(component.get("leader")))
        others = [_pod(component, worker)]
        injected.update({"LWS_GROUP_SIZE": str(pods), "LWS_WORKER_INDEX": "0"})
    implied = Implied()
    uri = _storage_uri(model)
    if model is not None and uri.startswith("hf://"):
        storage = as_map(as_map(model.obj.get("spec")).get("storage"))
        implied.model = (model_from_uri(uri) or uri,
                         Location(model.location.file, line_of(storage, "storageUri") or model.location.line))
    own_args = isinstance(own.get("runner"), Mapping) and "args" in own["runner"]
    lines = runtime.lines if here or not own_args else None  # flags written in another file are not looked up there
    group = crd_group(inv, SERVICE, svc.obj, where, {file: svc.lines} if file is not None else None,
                      pod_meta=None, pod_spec=pod, replicas=replicas, implied=implied, name=name, others=others,
                      pods_per_group=pods, injected=injected, pod_at=(runtime.location.file, lines))
    if group is None:
        return
    group.unknown_operator = True  # OME adds accelerator-class resources, RDMA devices and model volumes
    _point_at_service(group, own, file, where, own_args)
    if group.engine.model == MODEL_MOUNTS[0] and ANN_BASE_MODEL not in group.annotations:
        group.engine.model, group.model, group.model_assumed, group.model_error = UNKNOWN, None, None, None
        group.model_unknown = _model_unknown(svc, model)


def _storage_uri(model: CrossRef | None) -> str:
    """The base model's ``spec.storage.storageUri`` (``hf://org/name``, ``oci://…``, ``pvc://…``), or ""."""
    if model is None:
        return ""
    storage = as_map(as_map(model.obj.get("spec")).get("storage"))
    uri = model_field(storage, "storageUri", "spec.storage.storageUri", model.location.file, model.location)
    return uri.strip() if isinstance(uri, str) else ""


def _model_unknown(svc: CrossRef, model: CrossRef | None) -> str:
    """Why the model a runtime serves as $MODEL_PATH is not known."""
    kind, ref = _refs(svc.obj)[:2]
    if not ref:
        return "it is the weights OME mounts at $MODEL_PATH, and the service names no base model (spec.model.name)"
    named = f"the {model.kind if model is not None else kind or 'BaseModel or ClusterBaseModel'} `{ref}`"
    uri = _storage_uri(model)
    why = ("which is not in the inputs" if model is None else
           f"whose spec.storage.storageUri ({uri}) is not a Hugging Face repository (hf://org/name)" if uri else
           "which names no spec.storage.storageUri")
    return (f"it is the weights of {named} that OME mounts at $MODEL_PATH, {why}: lint them together, or name the "
            f"model with the annotation {ANN_BASE_MODEL}")


def _point_at_service(group: Any, own: Mapping[str, Any], file: str | None, where: Location, own_args: bool) -> None:
    """Fields the service sets in its own file: findings about them point there, not at the runtime's lines."""
    for path, name in _FIELD_LOCATIONS:
        holder: Any = own
        for step in path[:-1]:
            holder = as_map(holder.get(step))
        if path[-1] in holder:
            group.locations[name] = Location(file, line_of(holder, path[-1]) or where.line)
    if own_args:
        runner = as_map(own.get("runner"))
        at = Location(file, line_of(runner, "args") or where.line)
        group.engine.locations = {k: (at if v.file != file else v) for k, v in group.engine.locations.items()}
