"""Kubernetes manifests (plain, Helm-rendered, multi-document, ``kind: List``) -> :class:`Inventory`.

What becomes what:

- any object with a pod template (Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob,
  Pod, Argo Rollout, LeaderWorkerSet, and unknown custom resources with ``spec.template``) whose
  containers run a vLLM server -> :class:`ServingGroup`;
- Service, Ingress, Gateway API HTTPRoute, NetworkPolicy, HorizontalPodAutoscaler (v1, v2) and
  KEDA ScaledObject -> their domain objects;
- Node and Karpenter NodePool -> :class:`NodePool` (through :mod:`.labels`); Karpenter
  EC2NodeClass -> :class:`LaunchTemplate` (its instance-metadata options);
- Namespace and PodDisruptionBudget are known and need no object; every other kind is counted in ``Inventory.skipped``.

Annotations read on workloads (object metadata merged with the pod template's, the pod template
winning): ``shardwise.dev/p95-context-tokens``, ``shardwise.dev/base-model``,
``shardwise.dev/production`` and ``shardwise.dev/ignore`` (``"SW104: reason; SW106: reason"``;
``shardwise.dev/ignore`` is also read on Services, Ingresses, autoscalers and node pools).

Every object keeps its file and line. Engine flags point at the line where the flag is written
when the manifest text is available (:func:`load_kubernetes_text`), else at the container's
``args``/``command`` key.

After building, :func:`resolve_pools` matches each serving group to a node pool. Call it again
after merging inventories from several inputs: it re-resolves groups whose pool was only
synthesised from their own selector.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from ..errors import CatalogError, InputError
from ..model import (
    UNKNOWN,
    UNKNOWN_TOKEN,
    Autoscaler,
    Container,
    EngineArgs,
    Ingress,
    Inventory,
    LaunchTemplate,
    Location,
    MatchExpression,
    NetworkPolicy,
    NodePool,
    Probe,
    Service,
    ServingGroup,
    Suppression,
    Taint,
    Toleration,
    Volume,
)
from ..yamlsrc import LineDict, load_all, read_text
from . import labels as L
from .labels import ANN_BASE_MODEL, ANN_IGNORE, ANN_P95, ANN_PRODUCTION
from .vllm_args import is_unresolved, parse_vllm_command

LWS_EXCLUSIVE = "leaderworkerset.sigs.k8s.io/exclusive-topology"

SELECTOR_POOL_KIND = "selector"  # NodePool.kind of a pool synthesised from a workload's own selector

_SIMPLE_WORKLOADS = frozenset({
    "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController", "Job",
    "CronJob", "Pod", "Rollout", "LeaderWorkerSet",
})
_NO_OBJECT_KINDS = frozenset({"Namespace", "PodDisruptionBudget"})  # recognised; no rule needs their content
_CODE = re.compile(r"^SW\d{3}$")
_VLLM_METRIC = re.compile(r"vllm:[A-Za-z_][A-Za-z0-9_:]*")
_GPU_UTIL = re.compile(r"DCGM_FI_DEV_GPU_UTIL|gpu_util", re.IGNORECASE)
_HUMAN_INT = re.compile(r"^(\d+)([kK])$")
_CODES_THEN_REASON = re.compile(r"^((?:SW\d{3}\b[\s,]*)+)(.*)$", re.IGNORECASE | re.DOTALL)

Lines = Mapping[str, Sequence[str]]


# ---------------------------------------------------------------------------------------------
# Parsing
# ---------------------------------------------------------------------------------------------


def _doc_line(text: str, index: int) -> int | None:
    """The line where document ``index`` starts (only used on the error path)."""
    import yaml

    try:
        for i, node in enumerate(yaml.compose_all(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))):
            if i == index:
                return node.start_mark.line + 1 if node is not None else None
    except yaml.YAMLError:
        return None
    return None


def _yaml_type(value: Any) -> str:
    """How YAML names the type of ``value``: a mapping, a list, a string, a number, a boolean, null."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "a mapping" if isinstance(value, dict) else f"a {type(value).__name__}"


def parse_manifests(text: str, file: str) -> list[tuple[LineDict, Location]]:
    """Every Kubernetes object in ``text`` with its location; ``kind: List`` items are flattened.

    Empty documents (a Helm ``# Source:`` comment alone) are skipped. A document that is not a
    mapping, or lacks ``apiVersion`` or ``kind``, is an :class:`InputError` with file and line.
    """
    out: list[tuple[LineDict, Location]] = []
    for index, doc in enumerate(load_all(text, file)):
        if doc is None:
            continue
        if not isinstance(doc, LineDict):
            raise InputError(
                f"expected a Kubernetes object (a mapping), found {_yaml_type(doc)}",
                file, _doc_line(text, index),
            )
        _collect(doc, file, out)
    return out


def _collect(obj: LineDict, file: str, out: list[tuple[LineDict, Location]]) -> None:
    for key in ("apiVersion", "kind"):
        value = obj.get(key)
        if not isinstance(value, str) or not value:
            raise InputError(f"object has no {key}", file, obj.line)
    if obj["kind"] == "List" or (obj["kind"].endswith("List") and isinstance(obj.get("items"), list)):
        items = obj.get("items")
        if items is not None and not isinstance(items, list):
            raise InputError(f"items: expected a list of Kubernetes objects, found {_yaml_type(items)}", file,
                             obj.line_of("items"))
        for item in items or ():
            if not isinstance(item, LineDict):
                raise InputError("List item is not a Kubernetes object (a mapping)", file, obj.line_of("items"))
            _collect(item, file, out)
        return
    out.append((obj, Location(file, obj.line)))


# ---------------------------------------------------------------------------------------------
# Small readers
# ---------------------------------------------------------------------------------------------


_EMPTY: Mapping[str, Any] = MappingProxyType({})


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else _EMPTY  # dict, not Mapping: the ABC check is slow


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _line(d: Any, key: str) -> int | None:
    return d.line_of(key) if isinstance(d, LineDict) else None


def _str_map(value: Any) -> dict[str, str]:
    return {str(k): "" if v is None else str(v) for k, v in _map(value).items()}


def _node_selector(spec: Mapping[str, Any], loc: Location) -> Any:
    """The pod's nodeSelector; UNKNOWN when it (or a value in it) is not known yet."""
    value = spec.get("nodeSelector")
    if value is UNKNOWN or (isinstance(value, Mapping) and any(v is UNKNOWN for v in value.values())):
        return UNKNOWN
    if value is not None and not isinstance(value, Mapping):
        raise InputError(f"nodeSelector: expected a mapping of node labels, got {type(value).__name__}",
                         loc.file, _line(spec, "nodeSelector") or loc.line)
    return _str_map(value)


def _int_field(d: Mapping[str, Any], key: str, default: Any, loc: Location, what: str, minimum: int = 0) -> Any:
    value = d.get(key)
    if value is None:
        return default
    if value is UNKNOWN:
        return UNKNOWN
    if isinstance(value, bool):
        raise InputError(f"{what}: expected an integer, got {value!r}", loc.file, _line(d, key) or loc.line)
    if isinstance(value, int):
        number = value
    else:
        try:
            number = int(str(value).strip())
        except ValueError:
            raise InputError(f"{what}: expected an integer, got {value!r}", loc.file,
                             _line(d, key) or loc.line) from None
    if number < minimum:
        raise InputError(f"{what}: expected an integer of at least {minimum}, got {value!r}", loc.file,
                         _line(d, key) or loc.line)
    return number


def _annotations(*metas: Any) -> tuple[dict[str, str], dict[str, int | None]]:
    """Merged annotations (later metadata wins) and the line of each."""
    values: dict[str, str] = {}
    lines: dict[str, int | None] = {}
    for meta in metas:
        ann = _map(_map(meta).get("annotations"))
        for k, v in ann.items():
            values[str(k)] = "" if v is None else str(v)
            lines[str(k)] = _line(ann, k)
    return values, lines


def parse_ignore(value: str, location: Location) -> list[Suppression]:
    """``"SW104: reason; SW106: reason"`` -> suppressions (``;`` or newlines between entries).

    An entry without a reason (``"SW104"`` or ``"SW104:"``) is kept with ``reason=""`` so the
    engine reports it. Several codes may share a reason (``"SW104, SW106: reason"``); without a
    colon, the words after the codes are the reason. A piece that does not start with a rule code
    continues the previous entry's reason (a reason may contain ``;``); anywhere else it is an
    :class:`InputError`.
    """
    out: list[Suppression] = []
    last: list[int] = []  # indices of the previous entry's suppressions
    for raw in re.split(r"[;\n]", value):
        entry = raw.strip()
        if not entry:
            continue
        head, colon, tail = entry.partition(":")
        codes: list[str] = []
        reason = ""
        if colon:
            words = [w for w in re.split(r"[,\s]+", head) if w]
            if words and all(_CODE.match(w.upper()) for w in words):
                codes, reason = [w.upper() for w in words], tail.strip()
        else:
            m = _CODES_THEN_REASON.match(entry)
            if m:
                codes = [c.upper() for c in re.findall(r"SW\d{3}", m.group(1), re.IGNORECASE)]
                reason = m.group(2).strip()
        if not codes:
            if last and out[last[0]].reason:
                joined = f"{out[last[0]].reason}; {entry}"
                for i in last:
                    out[i] = Suppression(out[i].code, joined, out[i].location)
                continue
            raise InputError(
                f"{ANN_IGNORE}: {entry!r} does not start with a rule code (SWnnn)", location.file, location.line
            )
        last = []
        for code in codes:
            last.append(len(out))
            out.append(Suppression(code, reason, location))
    return out


def _suppressions(ann: Mapping[str, str], lines: Mapping[str, int | None], file: str | None,
                  default_line: int | None) -> list[Suppression]:
    if ANN_IGNORE not in ann:
        return []
    return parse_ignore(ann[ANN_IGNORE], Location(file, lines.get(ANN_IGNORE) or default_line))


# ---------------------------------------------------------------------------------------------
# Pods
# ---------------------------------------------------------------------------------------------


def _quantity_int(resources: Mapping[str, Any], name: str, file: str | None, line: int | None) -> Any:
    for part in ("limits", "requests"):
        section = _map(resources.get(part))
        if name in section:
            value = section[name]
            if value is UNKNOWN:
                return UNKNOWN
            try:
                n = int(str(value).strip())
            except ValueError:
                raise InputError(f"resources.{part}.{name}: expected a whole number, got {value!r}", file,
                                 _line(section, name) or line) from None
            return n
    return None


def _probe(kind: str, raw: Any) -> Probe | None:
    p = _map(raw)
    if not p:
        return None
    http = _map(p.get("httpGet"))
    tcp = _map(p.get("tcpSocket"))
    grpc = _map(p.get("grpc"))
    port = http.get("port", tcp.get("port", grpc.get("port")))

    def num(key: str, default: int) -> int:
        v = p.get(key)
        try:
            return int(v) if v is not None else default
        except (TypeError, ValueError, OverflowError):  # OverflowError: .inf
            return default

    return Probe(
        kind=kind,  # type: ignore[arg-type]
        path=str(http["path"]) if http.get("path") is not None else None,
        port=port,
        initial_delay_seconds=num("initialDelaySeconds", 0),
        period_seconds=num("periodSeconds", 10),
        failure_threshold=num("failureThreshold", 3),
        timeout_seconds=num("timeoutSeconds", 1),
    )


def _env(c: Mapping[str, Any], injected: Mapping[str, str]) -> tuple[dict[str, Any], dict[str, str]]:
    """(Container.env with UNKNOWN for valueFrom, literal env for expansion)."""
    from .vllm_args import expand_k8s

    env: dict[str, Any] = {}
    literal: dict[str, str] = dict(injected)
    for item in _list(c.get("env")):
        item = _map(item)
        name = item.get("name")
        if not isinstance(name, str):
            continue
        if "value" in item and item["value"] is UNKNOWN:
            env[name] = UNKNOWN
            literal.pop(name, None)
        elif "value" in item:
            value = "" if item["value"] is None else str(item["value"])
            value = expand_k8s(value, literal)  # env values may reference earlier variables
            env[name] = value
            literal[name] = value
        elif "valueFrom" in item:
            env[name] = UNKNOWN
            literal.pop(name, None)
        else:
            env[name] = ""
            literal[name] = ""
    for k, v in injected.items():
        env.setdefault(k, v)
    return env, literal


def _make_locate(lines: Sequence[str] | None, start: int | None, end: int | None, file: str | None):
    if not lines or start is None:
        return None
    lo = max(start - 1, 0)
    hi = min(end if end is not None else lo + 400, len(lines))

    def locate(token: str) -> Location | None:
        if not token:
            return None
        n = len(token)
        for idx in range(lo, hi):
            text = lines[idx]
            pos = text.find(token)
            while pos >= 0:
                before = text[pos - 1] if pos > 0 else " "
                after = text[pos + n] if pos + n < len(text) else " "
                if not (before.isalnum() or before in "-_") and not (after.isalnum() or after in "-_"):
                    return Location(file, idx + 1)
                pos = text.find(token, pos + 1)
        return None

    return locate




def _token(value: Any) -> str:
    return UNKNOWN_TOKEN if value is UNKNOWN else str(value)


def _tokens(c: Mapping[str, Any], key: str, container: str, file: str | None, line: int | None) -> list[str]:
    """A container's ``command`` or ``args``: words; a number or boolean reads as its text, a list or
    mapping (a nested list, or an alias to one) is an :class:`InputError`."""
    words = []
    for i, t in enumerate(_list(c.get(key))):
        if isinstance(t, dict | list):
            raise InputError(f"container {container!r}: {key}[{i}]: expected a string, found {_yaml_type(t)}",
                             file, _line(c, key) or line)
        words.append(_token(t))
    return words


class _Pod:
    """What one pod template contributes to a serving group."""

    __slots__ = ("containers", "engine", "vllm", "vllm_raw", "gpus", "spec", "meta", "volumes", "image_vllm")

    def __init__(self) -> None:
        self.containers: list[Container] = []
        self.engine: EngineArgs | None = None
        self.vllm: Container | None = None
        self.vllm_raw: Mapping[str, Any] = {}
        self.gpus: Any = None
        self.spec: Mapping[str, Any] = {}
        self.meta: Mapping[str, Any] = {}
        self.volumes: list[Volume] = []
        self.image_vllm = False


def _read_pod(template_meta: Any, pod_spec: Any, file: str | None, lines: Sequence[str] | None,
              injected: Mapping[str, str]) -> _Pod:
    pod = _Pod()
    pod.meta = _map(template_meta)
    pod.spec = spec = _map(pod_spec)
    raw_containers = [c for c in _list(spec.get("containers")) if isinstance(c, dict)]
    for idx, c in enumerate(raw_containers):
        name = str(c.get("name") or f"container-{idx}")
        cline = c.line if isinstance(c, LineDict) else None
        raw_image = c.get("image")
        image = str(raw_image) if raw_image is not None and raw_image is not UNKNOWN else None
        if image and "vllm" in image.lower():
            pod.image_vllm = True
        command = _tokens(c, "command", name, file, cline)
        args = _tokens(c, "args", name, file, cline)
        env, literal = _env(c, injected)
        resources = _map(c.get("resources"))
        container = Container(
            name=name,
            image=UNKNOWN if raw_image is UNKNOWN else image,
            command=command,
            args=args,
            env=env,
            ports=[int(p["containerPort"]) for p in _list(c.get("ports"))
                   if isinstance(p, dict) and isinstance(p.get("containerPort"), int)],
            gpus=_quantity_int(resources, L.GPU_RESOURCE, file, cline),
            efa=_quantity_int(resources, L.EFA_RESOURCE, file, cline) or 0,
            volume_mounts={str(m["name"]): str(m.get("mountPath", "")) for m in _list(c.get("volumeMounts"))
                           if isinstance(m, dict) and "name" in m},
            location=Location(file, cline),
        )
        for key, kind in (("startupProbe", "startup"), ("livenessProbe", "liveness"),
                          ("readinessProbe", "readiness")):
            probe = _probe(kind, c.get(key))
            if probe is not None:
                container.probes[kind] = probe
        pod.containers.append(container)
        if pod.engine is None and (command or args or image):
            key_lines = [x for x in (_line(c, "command") if "command" in c else None,
                                     _line(c, "args") if "args" in c else None) if x is not None]
            start = min(key_lines) if key_lines else cline
            nxt = raw_containers[idx + 1] if idx + 1 < len(raw_containers) else None
            end = nxt.line - 1 if isinstance(nxt, LineDict) and nxt.line else None
            flag_loc = Location(file, (_line(c, "args") if "args" in c else None) or start)
            engine = parse_vllm_command(command, args, literal, image, flag_loc,
                                        _make_locate(lines, start, end, file))
            if engine is not None:
                pod.engine = engine
                pod.vllm = container
                pod.vllm_raw = c
                pod.gpus = container.gpus
    for v in _list(spec.get("volumes")):
        if not isinstance(v, dict) or "name" not in v:
            continue
        vol = Volume(name=str(v["name"]), kind="other")
        for kind in ("emptyDir", "persistentVolumeClaim", "secret", "hostPath", "configMap"):
            if kind in v:
                vol.kind = kind
                break
        if vol.kind == "emptyDir":
            ed = _map(v.get("emptyDir"))
            vol.medium = str(ed["medium"]) if ed.get("medium") else None
            vol.size_limit = str(ed["sizeLimit"]) if ed.get("sizeLimit") is not None else None
        pod.volumes.append(vol)
    return pod


def _affinity(spec: Mapping[str, Any]) -> list[list[MatchExpression]]:
    node_aff = _map(_map(spec.get("affinity")).get("nodeAffinity"))
    required = _map(node_aff.get("requiredDuringSchedulingIgnoredDuringExecution"))
    terms: list[list[MatchExpression]] = []
    for term in _list(required.get("nodeSelectorTerms")):
        exprs = [
            MatchExpression(str(e.get("key")), str(e.get("operator", "In")),
                            tuple(str(x) for x in _list(e.get("values"))))
            for e in _list(_map(term).get("matchExpressions")) if isinstance(e, dict) and e.get("key")
        ]
        if exprs:  # a term of matchFields only is not modelled
            terms.append(exprs)
    return terms


def _tolerations(spec: Mapping[str, Any]) -> list[Toleration]:
    out = []
    for t in _list(spec.get("tolerations")):
        t = _map(t)
        if not t:
            continue
        out.append(Toleration(
            key=str(t["key"]) if t.get("key") else None,
            operator=str(t.get("operator") or "Equal"),
            value=str(t["value"]) if t.get("value") is not None else None,
            effect=str(t["effect"]) if t.get("effect") else None,
        ))
    return out


def _taints(raw: Any) -> list[Taint]:
    return [
        Taint(str(t.get("key")), str(t["value"]) if t.get("value") is not None else None,
              str(t.get("effect", "NoSchedule")))
        for t in _list(raw) if isinstance(t, dict) and t.get("key")
    ]


# ---------------------------------------------------------------------------------------------
# Serving groups
# ---------------------------------------------------------------------------------------------


def _production(value: str, file: str | None, line: int | None) -> bool:
    v = value.strip().lower()
    if v in ("true", "yes", "1"):
        return True
    if v in ("false", "no", "0"):
        return False
    raise InputError(f"{ANN_PRODUCTION}: expected \"true\" or \"false\", got {value!r}", file, line)


def _p95(value: str, file: str | None, line: int | None) -> int:
    v = value.strip().replace("_", "")
    m = _HUMAN_INT.match(v)
    try:
        n = int(m.group(1)) * (1000 if m.group(2) == "k" else 1024) if m else int(v)
    except ValueError:
        raise InputError(f"{ANN_P95}: expected a whole number of tokens, got {value!r}", file, line) from None
    if n <= 0:
        raise InputError(f"{ANN_P95}: expected a positive number of tokens, got {value!r}", file, line)
    return n


def _looks_like_path(model: str) -> bool:
    return model.startswith(("/", "./", "../", "~")) or model.endswith(".json")


_MODEL_CACHE: dict[tuple[str, str | None], Any] = {}  # (id, base) -> ModelShape | CatalogError


def _find_model(model: str, base: str | None) -> Any:
    """``catalog.find_model``, memoised: thousands of manifests name the same few models."""
    key = (model, base)
    found = _MODEL_CACHE.get(key)
    if found is None:
        from .. import catalog

        try:
            found = catalog.find_model(model, base)
        except CatalogError as err:
            found = err
        if len(_MODEL_CACHE) < 4096:
            _MODEL_CACHE[key] = found
    if isinstance(found, CatalogError):
        raise CatalogError(found.message, found.file, found.line)  # a fresh one: no traceback piles up
    return found


def resolve_model(group: ServingGroup, base_dir: str | None = None) -> None:
    """Set ``group.model`` from the catalog (or a local ``config.json``), or ``group.model_error``."""
    from .. import catalog

    model = group.engine.model
    loc = group.engine.locations.get("model", group.location)
    if not isinstance(model, str) or not model:
        return
    if UNKNOWN_TOKEN in model:
        group.engine.model = UNKNOWN  # a computed value: rules that need the model say they cannot decide
        return
    if is_unresolved(model):
        named = group.annotations.get(ANN_BASE_MODEL)
        if named:  # the annotation says which catalog model the reference holds
            try:
                group.model = _find_model(named, None)
            except CatalogError as err:
                group.model_error = f"{loc}: {ANN_BASE_MODEL}: {err.message}"
            return
        group.engine.model = UNKNOWN
        group.model_unknown = (
            f"it is {model}, set from a Secret, ConfigMap or the downward API; name the model in the "
            "container's env or args, or its catalog model in the annotation shardwise.dev/base-model"
        )
        return
    base = group.annotations.get(ANN_BASE_MODEL) or None
    local = _local_model_path(model, base_dir) if _looks_like_path(model) else None
    try:
        if local is not None:
            group.model = catalog.load_local_model(local)
        else:
            group.model = _find_model(model, base)
        return
    except CatalogError as err:
        first = err
    if _looks_like_path(model) and base is None:
        try:  # /models/Llama-3.1-8B-Instruct: the directory is often named after the repository
            group.model = _find_model(os.path.basename(model.rstrip("/")), None)
            return
        except CatalogError:
            pass
    where = f"{first.file}:{first.line}: " if first.file and first.file != loc.file and first.line else ""
    group.model_error = f"{loc}: {where}{first.message}"


def _local_model_path(model: str, base_dir: str | None) -> str | None:
    expanded = os.path.expanduser(model)
    candidates = [expanded] if os.path.isabs(expanded) else [os.path.join(base_dir or ".", expanded), expanded]
    for path in candidates:
        if os.path.isdir(path) and os.path.isfile(os.path.join(path, "config.json")):
            return path
        if path.endswith(".json") and os.path.isfile(path):
            return path
    return None


def _group(kind: str, obj: Mapping[str, Any], loc: Location, pod: _Pod, replicas: Any,
           file: str | None) -> ServingGroup:
    meta = _map(obj.get("metadata"))
    name = str(meta.get("name") or meta.get("generateName") or "unnamed")
    ann, ann_lines = _annotations(meta, pod.meta if pod.meta is not meta else {})
    engine = pod.engine
    assert engine is not None and pod.vllm is not None
    if loc.line is not None:  # objects without lines (rendered from a stack spec) point at their object
        engine.locations = {k: v if v.line is not None or v.file != loc.file else loc
                            for k, v in engine.locations.items()}
    g = ServingGroup(
        name=name,
        kind=kind,
        location=loc,
        namespace=str(meta.get("namespace") or "default"),
        engine=engine,
        replicas=replicas,
        gpus_per_pod=pod.gpus,
        node_selector=_node_selector(pod.spec, loc),
        affinity=_affinity(pod.spec),
        tolerations=_tolerations(pod.spec),
        annotations=ann,
        pod_labels=_str_map(pod.meta.get("labels")),
        containers=pod.containers,
        vllm_container=pod.vllm.name,
        volumes=pod.volumes,
    )
    if ANN_P95 in ann:
        g.p95_context = _p95(ann[ANN_P95], file, ann_lines.get(ANN_P95) or loc.line)
    if ANN_PRODUCTION in ann:
        g.production = _production(ann[ANN_PRODUCTION], file, ann_lines.get(ANN_PRODUCTION) or loc.line)
    g.suppressions = _suppressions(ann, ann_lines, file, loc.line)
    if engine.model is None:
        where = pod.vllm.location if pod.vllm.location.line else loc
        if "config" in engine.extra:
            g.engine.model = UNKNOWN
            g.model_unknown = (f"it is set in the --config file {engine.extra['config']!r}, which shardwise "
                               "cannot read; pass the model on the command line")
        else:
            raise InputError(
                f"container {pod.vllm.name!r} runs vLLM but names no model "
                "(give it as `vllm serve MODEL` or `--model MODEL`)",
                where.file, where.line,
            )
    else:
        resolve_model(g, os.path.dirname(file) if file else None)
    return g


def _template_of(kind: str, spec: Mapping[str, Any]) -> tuple[Any, Any] | None:
    """(template metadata, pod spec) for a workload, or None when it has no pod template."""
    if kind == "Pod":
        return None
    if kind == "CronJob":
        template = _map(_map(_map(spec.get("jobTemplate")).get("spec")).get("template"))
    else:
        template = _map(spec.get("template"))
    if not template:
        return None
    return template.get("metadata"), template.get("spec")


def _replicas(kind: str, obj: Mapping[str, Any], loc: Location) -> Any:
    spec = _map(obj.get("spec"))
    if kind == "DaemonSet":
        return UNKNOWN  # one per matching node
    if kind == "Pod":
        return 1
    if kind == "Job":
        return _int_field(spec, "parallelism", 1, loc, "spec.parallelism")
    if kind == "CronJob":
        job = _map(_map(spec.get("jobTemplate")).get("spec"))
        return _int_field(job, "parallelism", 1, loc, "spec.jobTemplate.spec.parallelism")
    return _int_field(spec, "replicas", 1, loc, "spec.replicas")


def _workload(kind: str, obj: Mapping[str, Any], loc: Location, inv: Inventory, lines: Lines | None) -> bool:
    """Add a serving group for a workload that runs vLLM; True when one was added."""
    file = loc.file
    file_lines = lines.get(file) if lines is not None and file is not None else None
    spec = _map(obj.get("spec"))
    if kind == "LeaderWorkerSet":
        return _lws(obj, loc, inv, file_lines)
    if kind == "Pod":
        meta, pod_spec = obj.get("metadata"), spec
    else:
        tpl = _template_of(kind, spec)
        if tpl is None:
            return False
        meta, pod_spec = tpl
        if not isinstance(_map(pod_spec).get("containers"), list):
            return False
    pod = _read_pod(meta, pod_spec, file, file_lines, {})
    if pod.engine is None:
        if pod.image_vllm and kind in _SIMPLE_WORKLOADS:
            inv.skipped[f"{kind} (vLLM image, command not recognised)"] += 1
        return False
    group = _group(kind, obj, loc, pod, _replicas(kind, obj, loc), file)
    if kind == "Pod":  # a bare pod's annotations and labels are its own
        group.pod_labels = _str_map(_map(obj.get("metadata")).get("labels"))
    inv.groups.append(group)
    return True


def _lws(obj: Mapping[str, Any], loc: Location, inv: Inventory, file_lines: Sequence[str] | None) -> bool:
    file = loc.file
    spec = _map(obj.get("spec"))
    lwt = _map(spec.get("leaderWorkerTemplate"))
    size = _int_field(lwt, "size", 1, loc, "spec.leaderWorkerTemplate.size", minimum=1)
    injected = {"LWS_GROUP_SIZE": str(size)}
    leader_raw = _map(lwt.get("leaderTemplate"))
    worker_raw = _map(lwt.get("workerTemplate"))
    leader = _read_pod(leader_raw.get("metadata"), leader_raw.get("spec"), file, file_lines,
                       {**injected, "LWS_WORKER_INDEX": "0"}) if leader_raw else None
    worker = _read_pod(worker_raw.get("metadata"), worker_raw.get("spec"), file, file_lines,
                       injected if leader_raw else {**injected, "LWS_WORKER_INDEX": "0"})
    chosen = leader if leader is not None and leader.engine is not None else worker
    other = worker if chosen is leader else leader
    if chosen.engine is None:
        if (leader is not None and leader.image_vllm) or worker.image_vllm:
            inv.skipped["LeaderWorkerSet (vLLM image, command not recognised)"] += 1
        return False
    if other is not None:  # placement usually lives in both templates; fill gaps from the other one
        if not chosen.spec.get("nodeSelector") and other.spec.get("nodeSelector"):
            chosen.spec = {**chosen.spec, "nodeSelector": other.spec["nodeSelector"]}
        if not _affinity(chosen.spec) and _affinity(other.spec):
            chosen.spec = {**chosen.spec, "affinity": other.spec.get("affinity")}
        if not chosen.spec.get("tolerations") and other.spec.get("tolerations"):
            chosen.spec = {**chosen.spec, "tolerations": other.spec["tolerations"]}
        if chosen.gpus is None and other.containers:
            chosen.gpus = other.containers[0].gpus
    group = _group("LeaderWorkerSet", obj, loc, chosen, _int_field(spec, "replicas", 1, loc, "spec.replicas"),
                   file)
    group.pods_per_group = size
    rp = lwt.get("restartPolicy")
    group.restart_policy = str(rp) if rp is not None else None
    meta_ann = _str_map(_map(obj.get("metadata")).get("annotations"))
    group.exclusive_topology = meta_ann.get(LWS_EXCLUSIVE) or group.annotations.get(LWS_EXCLUSIVE) or None
    inv.groups.append(group)
    return True


# ---------------------------------------------------------------------------------------------
# Networking and autoscaling
# ---------------------------------------------------------------------------------------------


def _service(obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    meta, spec = _map(obj.get("metadata")), _map(obj.get("spec"))
    ann, lines = _annotations(meta)
    ports, targets = [], []
    for p in _list(spec.get("ports")):
        p = _map(p)
        port = p.get("port")
        if isinstance(port, int):
            ports.append(port)
        targets.append(p.get("targetPort", port))
    inv.services.append(Service(
        name=str(meta.get("name") or "unnamed"),
        namespace=str(meta.get("namespace") or "default"),
        type=str(spec.get("type") or "ClusterIP"),
        ports=ports,
        target_ports=targets,
        selector=_str_map(spec.get("selector")),
        annotations=ann,
        location=loc,
        suppressions=_suppressions(ann, lines, loc.file, loc.line),
    ))


def _backend(b: Any, services: list[str], ports: list[Any]) -> None:
    b = _map(b)
    svc = _map(b.get("service"))
    name = svc.get("name") or b.get("serviceName")
    if name:
        services.append(str(name))
        port = _map(svc.get("port"))
        value = port.get("number", port.get("name")) if port else b.get("servicePort")
        if value is not None:
            ports.append(value)


def _ingress(obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    meta, spec = _map(obj.get("metadata")), _map(obj.get("spec"))
    ann, lines = _annotations(meta)
    services: list[str] = []
    ports: list[Any] = []
    _backend(spec.get("defaultBackend") or spec.get("backend"), services, ports)
    for rule in _list(spec.get("rules")):
        for path in _list(_map(_map(rule).get("http")).get("paths")):
            _backend(_map(path).get("backend"), services, ports)
    inv.ingresses.append(Ingress(
        name=str(meta.get("name") or "unnamed"), namespace=str(meta.get("namespace") or "default"),
        kind="Ingress", annotations=ann, services=services, ports=ports, location=loc,
        suppressions=_suppressions(ann, lines, loc.file, loc.line),
    ))


def _http_route(obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    meta, spec = _map(obj.get("metadata")), _map(obj.get("spec"))
    ann, lines = _annotations(meta)
    services: list[str] = []
    ports: list[Any] = []
    for rule in _list(spec.get("rules")):
        for ref in _list(_map(rule).get("backendRefs")):
            ref = _map(ref)
            if ref.get("name"):
                services.append(str(ref["name"]))
                if ref.get("port") is not None:
                    ports.append(ref["port"])
    inv.ingresses.append(Ingress(
        name=str(meta.get("name") or "unnamed"), namespace=str(meta.get("namespace") or "default"),
        kind="HTTPRoute", annotations=ann, services=services, ports=ports, location=loc,
        suppressions=_suppressions(ann, lines, loc.file, loc.line),
    ))


def _network_policy(obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    meta, spec = _map(obj.get("metadata")), _map(obj.get("spec"))
    sel = _map(spec.get("podSelector"))
    pod_selector = _str_map(sel.get("matchLabels"))
    # matchExpressions cannot be folded into labels; record them so the policy is never mistaken
    # for one that selects every pod (a selector a pod's labels cannot equal is the safe reading).
    for e in _list(sel.get("matchExpressions")):
        e = _map(e)
        if e.get("key"):
            values = ",".join(str(v) for v in _list(e.get("values")))
            pod_selector[str(e["key"])] = f"{e.get('operator', 'In')}({values})"
    ingress = _list(spec.get("ingress"))
    egress = _list(spec.get("egress"))
    types = [str(t) for t in _list(spec.get("policyTypes"))]
    if not types:
        types = ["Ingress"] + (["Egress"] if egress else [])
    inv.network_policies.append(NetworkPolicy(
        name=str(meta.get("name") or "unnamed"), namespace=str(meta.get("namespace") or "default"),
        pod_selector=pod_selector, policy_types=types, ingress_rules=len(ingress), egress_rules=len(egress),
        location=loc,
    ))


def _metric_name(name: str) -> str:
    return "gpu-utilization" if _GPU_UTIL.search(name) else name


def _hpa(obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    meta, spec = _map(obj.get("metadata")), _map(obj.get("spec"))
    ann, lines = _annotations(meta)
    target = _map(spec.get("scaleTargetRef"))
    metrics: list[str] = []
    version = str(obj.get("apiVersion", ""))
    if version.endswith("/v1"):
        metrics.append("cpu")  # autoscaling/v1 scales on CPU only (80% when no target is given)
    else:
        for m in _list(spec.get("metrics")):
            m = _map(m)
            mtype = str(m.get("type", ""))
            if mtype in ("Resource", "ContainerResource"):
                res = _map(m.get("resource" if mtype == "Resource" else "containerResource"))
                metrics.append(str(res.get("name", "cpu")))
                continue
            body = _map(m.get({"Pods": "pods", "External": "external", "Object": "object"}.get(mtype, "")))
            name = _map(body.get("metric")).get("name") or body.get("metricName")
            if name:
                metrics.append(_metric_name(str(name)))
        if not _list(spec.get("metrics")):
            metrics.append("cpu")  # autoscaling/v2 with no metrics: 80% average CPU
    window = _map(_map(_map(spec.get("behavior")).get("scaleDown"))).get("stabilizationWindowSeconds")
    inv.autoscalers.append(Autoscaler(
        name=str(meta.get("name") or "unnamed"), namespace=str(meta.get("namespace") or "default"),
        kind="HorizontalPodAutoscaler",
        target_kind=str(target["kind"]) if target.get("kind") else None,
        target_name=str(target["name"]) if target.get("name") else None,
        metrics=metrics,
        min_replicas=_int_field(spec, "minReplicas", 1, loc, "spec.minReplicas"),
        max_replicas=_int_field(spec, "maxReplicas", None, loc, "spec.maxReplicas"),
        scale_down_window_seconds=window,
        location=loc,
        suppressions=_suppressions(ann, lines, loc.file, loc.line),
    ))


def _scaled_object(obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    meta, spec = _map(obj.get("metadata")), _map(obj.get("spec"))
    ann, lines = _annotations(meta)
    target = _map(spec.get("scaleTargetRef"))
    metrics: list[str] = []
    for trig in _list(spec.get("triggers")):
        trig = _map(trig)
        ttype = str(trig.get("type", ""))
        md = _map(trig.get("metadata"))
        if ttype == "prometheus":
            query = str(md.get("query", ""))
            found = list(dict.fromkeys(_VLLM_METRIC.findall(query)))
            if found:
                metrics.extend(found)
            elif _GPU_UTIL.search(query):
                metrics.append("gpu-utilization")
            else:
                metrics.append(query)
        elif ttype in ("cpu", "memory"):
            metrics.append(ttype)
        elif ttype:
            metrics.append(_metric_name(ttype))
    window = _map(_map(_map(_map(_map(spec.get("advanced")).get("horizontalPodAutoscalerConfig"))
                            .get("behavior")).get("scaleDown"))).get("stabilizationWindowSeconds")
    inv.autoscalers.append(Autoscaler(
        name=str(meta.get("name") or "unnamed"), namespace=str(meta.get("namespace") or "default"),
        kind="ScaledObject",
        target_kind=str(target.get("kind") or "Deployment"),
        target_name=str(target["name"]) if target.get("name") else None,
        metrics=metrics,
        min_replicas=_int_field(spec, "minReplicaCount", 0, loc, "spec.minReplicaCount"),
        max_replicas=_int_field(spec, "maxReplicaCount", 100, loc, "spec.maxReplicaCount"),
        scale_down_window_seconds=window,
        location=loc,
        suppressions=_suppressions(ann, lines, loc.file, loc.line),
    ))


# ---------------------------------------------------------------------------------------------
# Nodes
# ---------------------------------------------------------------------------------------------


def _node(obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    meta, spec = _map(obj.get("metadata")), _map(obj.get("spec"))
    ann, lines = _annotations(meta)
    capacity = _map(_map(obj.get("status")).get("capacity"))
    try:
        count = int(str(capacity[L.GPU_RESOURCE])) if L.GPU_RESOURCE in capacity else None
    except ValueError:
        count = None
    pool = L.pool_from_labels(str(meta.get("name") or "unnamed"), _str_map(meta.get("labels")), loc,
                              _taints(spec.get("taints")), kind="node", gpus_per_node=count)
    pool.suppressions = _suppressions(ann, lines, loc.file, loc.line)
    inv.pools.append(pool)


_EXPANDABLE = (L.INSTANCE_TYPE, L.KARPENTER_GPU_NAME)


def _karpenter_pool(obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    meta, spec = _map(obj.get("metadata")), _map(obj.get("spec"))
    ann, lines = _annotations(meta)
    name = str(meta.get("name") or "unnamed")
    template = _map(spec.get("template"))
    tspec = _map(template.get("spec"))
    labels = _str_map(_map(template.get("metadata")).get("labels"))
    labels[L.KARPENTER_NODEPOOL] = name
    capacity_type = None
    multi: tuple[str, list[str]] | None = None
    for req in _list(tspec.get("requirements")):
        req = _map(req)
        key, op = str(req.get("key", "")), str(req.get("operator", ""))
        values = [str(v) for v in _list(req.get("values"))]
        if op != "In" or not values:
            continue
        if key == "karpenter.sh/capacity-type":
            capacity_type = ",".join(values)
        if len(values) == 1:
            labels[key] = values[0]
        elif key in _EXPANDABLE and multi is None:
            multi = (key, values)
    taints = _taints(tspec.get("taints"))
    variants = [(name, labels)]
    if multi is not None:  # one pool per instance type (or GPU name) the NodePool may launch
        variants = [(f"{name}/{v}", {**labels, multi[0]: v}) for v in multi[1]]
    node_class = _map(tspec.get("nodeClassRef")).get("name")
    suppressions = _suppressions(ann, lines, loc.file, loc.line)
    for pool_name, pool_labels in variants:
        pool = L.pool_from_labels(pool_name, pool_labels, loc, taints, kind="karpenter")
        pool.capacity_type = capacity_type
        pool.launch_template = str(node_class) if node_class else None
        pool.suppressions = list(suppressions)
        inv.pools.append(pool)


def _ec2_node_class(obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    meta, spec = _map(obj.get("metadata")), _map(obj.get("spec"))
    ann, lines = _annotations(meta)
    md = _map(spec.get("metadataOptions"))
    # Karpenter's defaults when metadataOptions is absent: httpTokens required, hop limit 1.
    inv.launch_templates.append(LaunchTemplate(
        name=str(meta.get("name") or "unnamed"),
        http_tokens=str(md.get("httpTokens") or "required"),
        http_put_response_hop_limit=_int_field(md, "httpPutResponseHopLimit", 1, loc,
                                               "spec.metadataOptions.httpPutResponseHopLimit"),
        location=loc,
        suppressions=_suppressions(ann, lines, loc.file, loc.line),
    ))


# ---------------------------------------------------------------------------------------------
# Inventory
# ---------------------------------------------------------------------------------------------


def _add(obj: Mapping[str, Any], loc: Location, inv: Inventory, lines: Lines | None) -> None:
    kind = str(obj.get("kind", ""))
    group = str(obj.get("apiVersion", "")).split("/", 1)[0] if "/" in str(obj.get("apiVersion", "")) else ""
    if kind == "List" or (kind.endswith("List") and isinstance(obj.get("items"), list)):
        for item in _list(obj.get("items")):
            if isinstance(item, dict):
                _add(item, Location(loc.file, item.line if isinstance(item, LineDict) else loc.line), inv, lines)
        return
    if kind in _SIMPLE_WORKLOADS:
        _workload(kind, obj, loc, inv, lines)
    elif kind == "Service":
        _service(obj, loc, inv)
    elif kind == "Ingress":
        _ingress(obj, loc, inv)
    elif kind == "HTTPRoute":
        _http_route(obj, loc, inv)
    elif kind == "NetworkPolicy" and group in ("", "networking.k8s.io"):
        _network_policy(obj, loc, inv)
    elif kind == "HorizontalPodAutoscaler":
        _hpa(obj, loc, inv)
    elif kind == "ScaledObject" and group == "keda.sh":
        _scaled_object(obj, loc, inv)
    elif kind == "Node":
        _node(obj, loc, inv)
    elif kind == "NodePool" and group == "karpenter.sh":
        _karpenter_pool(obj, loc, inv)
    elif kind == "EC2NodeClass" and group == "karpenter.k8s.aws":
        _ec2_node_class(obj, loc, inv)
    elif kind in _NO_OBJECT_KINDS:
        pass
    elif not _workload(kind, obj, loc, inv, lines):
        inv.skipped[kind or "(no kind)"] += 1


def inventory_from_objects(objs: Iterable[tuple[Mapping[str, Any], Location]],
                           lines: Lines | None = None) -> Inventory:
    """Turn Kubernetes objects into an inventory (pools are not resolved: see :func:`resolve_pools`).

    ``lines`` (file -> its text's lines) lets engine flags point at the line they are written on.
    """
    inv = Inventory()
    for obj, loc in objs:
        _add(obj, loc, inv, lines)
    return inv


# ---------------------------------------------------------------------------------------------
# Pool matching
# ---------------------------------------------------------------------------------------------


def _pool_admits(pool: NodePool, g: ServingGroup) -> bool:
    labels = pool.labels
    for k, v in g.node_selector.items():
        if labels.get(k) != v:
            return False
    if g.affinity and not any(all(e.matches(labels) for e in term) for term in g.affinity):
        return False
    for taint in pool.taints:
        if taint.effect in ("NoSchedule", "NoExecute") and not any(t.tolerates(taint) for t in g.tolerations):
            return False
    return True


def _selector_labels(g: ServingGroup) -> dict[str, str]:
    labels = dict(g.node_selector)
    for term in g.affinity[:1]:  # the first term: a pod needs only one to match
        for e in term:
            if e.operator == "In" and len(e.values) == 1 and e.key not in labels:
                labels[e.key] = e.values[0]
    return labels


def pool_from_selector(g: ServingGroup) -> NodePool | None:
    """A node pool synthesised from a group's own selector, when its labels identify a GPU."""
    labels = _selector_labels(g)
    used = [k for k in labels if k in L.GPU_LABELS or k in (L.LABEL_NVLINK, L.LABEL_EFA, L.GFD_CLIQUE)]
    if not any(k in L.GPU_LABELS for k in used):
        return None
    name = ",".join(f"{k.rsplit('/', 1)[-1]}={labels[k]}" for k in used)
    pool = L.pool_from_labels(name, labels, g.location, kind=SELECTOR_POOL_KIND)
    if pool.gpu is None and pool.gpus_per_node is None:
        return None
    return pool


def resolve_pools(inv: Inventory) -> None:
    """Set ``group.pool`` for every group that has none (or only one synthesised from its selector).

    With declared pools (Nodes, Karpenter NodePools, stack pools): the first pool whose labels
    satisfy the nodeSelector and one required node-affinity term, and whose NoSchedule/NoExecute
    taints the group tolerates (a pool that says which GPU it has is preferred when the group
    requests GPUs). Without declared pools: a pool synthesised from the selector's GPU labels, or
    None.
    """
    declared = [p for p in inv.pools if p.kind != SELECTOR_POOL_KIND]
    for g in inv.groups:
        if g.pool is not None and g.pool.kind != SELECTOR_POOL_KIND:
            continue
        if g.node_selector is UNKNOWN:  # not known yet: no pool can be matched (SW206 says so)
            g.pool = None
            continue
        if declared:
            matching = [p for p in declared if _pool_admits(p, g)]
            with_gpus = [p for p in matching if p.gpu is not None or p.gpus_per_node]
            wants_gpus = isinstance(g.gpus_per_pod, int) and g.gpus_per_pod > 0
            pick = (with_gpus or matching) if wants_gpus else matching
            g.pool = pick[0] if pick else None
        else:
            g.pool = pool_from_selector(g)


# ---------------------------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------------------------


def load_kubernetes_text(text: str, file: str) -> Inventory:
    """Parse manifests from ``text`` (named ``file`` in messages) into a pool-resolved inventory."""
    objs = parse_manifests(text, file)
    inv = inventory_from_objects(objs, {file: text.splitlines()})
    inv.sources.append(file)
    resolve_pools(inv)
    return inv


def load_kubernetes_file(path: str) -> Inventory:
    """Read a manifest file (``-`` for stdin) into a pool-resolved inventory."""
    return load_kubernetes_text(read_text(path), path)
