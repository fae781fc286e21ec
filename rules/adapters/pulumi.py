"""Pulumi resources (as the engine, ``pulumi preview --json`` or ``pulumi stack export`` give them)
-> :class:`~shardwise.rules.model.Inventory`. Pure: never imports ``pulumi``.

A resource is its type token, name, URN and properties in the engine's camelCase, with the
parent, dependencies and per-property dependencies when known (:class:`PulumiResource`).

Values are read by :mod:`~shardwise.rules.adapters.pulumi_values`: the engine's unknown sentinels
become :data:`~shardwise.rules.model.UNKNOWN` (never "absent"), secrets are unwrapped, whole floats
become ``int``, and a property of the wrong type is an input error naming its path.

What becomes what:

- ``aws:eks/nodeGroup:NodeGroup`` -> :class:`NodePool` (kind ``eks-nodegroup``): its labels plus
  the labels EKS puts on every node (``eks.amazonaws.com/nodegroup``, ``-capacityType``,
  ``node.kubernetes.io/instance-type``), taints, capacity type, subnets, and from its launch
  template the security groups, EFA interfaces and placement group. The pool is named by its
  ``shardwise.dev/pool`` label, else its ``nodeGroupName``, else the resource name;
- ``aws:ec2/launchTemplate:LaunchTemplate`` -> :class:`LaunchTemplate` (metadata options);
- ``aws:ec2/securityGroup:SecurityGroup`` (inline ``ingress``/``egress``) and the rule resources
  ``aws:ec2/securityGroupRule:SecurityGroupRule``, ``aws:vpc/securityGroupIngressRule:…`` and
  ``aws:vpc/securityGroupEgressRule:…`` -> :class:`SecurityGroup` with its :class:`SgRule` list
  (sources: CIDR blocks, managed prefix lists, security groups);
- ``aws:ec2/subnet:Subnet`` -> :class:`Subnet`; ``aws:ec2/placementGroup:PlacementGroup`` names
  the pool's placement group;
- every ``kubernetes:<group>/<version>:<Kind>`` resource is a manifest (its properties are
  ``apiVersion``/``kind``/``metadata``/``spec``) handed to
  :func:`~shardwise.rules.adapters.k8s.inventory_from_objects`; ``metadata.name`` defaults
  to the resource name. Unknown values inside a manifest: an unknown image, env value, replica
  count, probe timing, Service type, LeaderWorkerSet size or restart policy, or autoscaler bound
  stays UNKNOWN in the model; an unknown namespace reads as ``<unknown>``
  (:data:`UNKNOWN_NAMESPACE`); a NetworkPolicy with an unknown field is never read as selecting
  every pod; an unknown ``command``/``args`` token reads as an unresolved ``$(VAR)``; any other
  unknown field is read as absent.
- everything else is counted in ``Inventory.skipped``.

The AWS resources are read by :mod:`~shardwise.rules.adapters.pulumi_aws` (references between
them are resolved there: by id, URN or name, else through the property's dependencies, else UNKNOWN).

Suppressions: the AWS tag ``shardwise.dev/ignore`` (``"SW304: reason; SW301: reason"``) on node
groups, launch templates, security groups (and their rule resources) and subnets; the annotation of
the same name on Kubernetes objects.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import InputError
from ..model import (
    UNKNOWN,
    UNKNOWN_NAMESPACE,
    UNKNOWN_TOKEN,
    Inventory,
    LaunchTemplate,
    Location,
    SecurityGroup,
    Suppression,
)
from ..yamlsrc import read_text
from . import pulumi_aws as aws
from .pulumi_values import UNKNOWN_SENTINELS, clean, is_unknown_value, json_type

IGNORE_TAG = aws.IGNORE_TAG
NODE_GROUP, LAUNCH_TEMPLATE, SECURITY_GROUP = aws.NODE_GROUP, aws.LAUNCH_TEMPLATE, aws.SECURITY_GROUP
SG_RULE, SG_INGRESS, SG_EGRESS = aws.SG_RULE, aws.SG_INGRESS, aws.SG_EGRESS
SUBNET, PLACEMENT_GROUP = aws.SUBNET, aws.PLACEMENT_GROUP

_K8S_SKIP_MODULES = ("yaml", "yaml/v2", "kustomize", "kustomize/v2", "helm.sh/v3", "helm.sh/v4")
_URN_RE = re.compile(r'"urn"\s*:\s*"(urn:pulumi:[^"]+)"')


@dataclass(frozen=True)
class PulumiResource:
    """One resource as the engine describes it; ``props`` in camelCase, raw (sentinels included)."""

    type: str
    name: str
    urn: str
    props: Mapping[str, Any]
    id: str | None = None
    parent: str | None = None
    dependencies: tuple[str, ...] = ()
    property_dependencies: Mapping[str, Sequence[str]] = field(default_factory=dict)
    file: str | None = None
    line: int | None = None

    @property
    def location(self) -> Location:
        return Location(self.file, self.line, self.urn or None)


def name_from_urn(urn: str) -> str:
    return urn.rsplit("::", 1)[-1] if "::" in urn else urn


def merge_state(inputs: Mapping[str, Any], outputs: Mapping[str, Any]) -> dict[str, Any]:
    """One resource's properties from its inputs and outputs: the inputs win; an output that is not
    among the inputs is kept, unless it is unknown.

    At preview a provider reports every attribute it computes as unknown: the id and ARN, and the
    optional attributes the program left unset, which it fills in after the update (a security
    group's ``ingress`` read back from AWS, a node group's default ``instanceTypes``, the launch
    template's ``metadataOptions`` defaults). The program did not set them, so they read as absent,
    as they do in the inputs; an unknown the program set is among the inputs and stays unknown.
    """
    merged = {k: v for k, v in outputs.items() if k in inputs or not is_unknown_value(v)}
    merged.update(inputs)
    return merged


# ---------------------------------------------------------------------------------------------
# Kubernetes
# ---------------------------------------------------------------------------------------------


def kubernetes_api(type_token: str) -> tuple[str, str] | None:
    """``kubernetes:apps/v1:Deployment`` -> (``apps/v1``, ``Deployment``); None for non-objects."""
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


_DROP = object()


def _prepare_manifest(props: Mapping[str, Any]) -> tuple[dict[str, Any], list[tuple[Any, ...]]]:
    """Replace UNKNOWN inside a manifest (see the module docstring); return the unknown paths."""
    unknown: list[tuple[Any, ...]] = []

    def walk(v: Any, path: tuple[Any, ...]) -> Any:
        if v is UNKNOWN:
            unknown.append(path)
            return _DROP
        if isinstance(v, dict):
            out: dict[str, Any] = {}
            for k, x in v.items():
                y = walk(x, (*path, k))
                if y is _DROP:
                    if k == "value" and len(path) >= 2 and path[-2] == "env":
                        out["valueFrom"] = {}  # reads as a value the manifest does not set literally
                    continue
                out[k] = y
            return out
        if isinstance(v, list):
            items = []
            for i, x in enumerate(v):
                y = walk(x, (*path, i))
                if y is _DROP:
                    if path and path[-1] in ("args", "command"):
                        items.append(UNKNOWN_TOKEN)
                    continue
                items.append(y)
            return items
        return v

    manifest = walk({k: v for k, v in props.items() if not str(k).startswith("__")}, ())
    return manifest, unknown


def _restore_unknowns(inv: Inventory, manifest: Mapping[str, Any], unknown: list[tuple[Any, ...]]) -> None:
    """Put UNKNOWN back on the model fields the rules read (the adapter saw them as absent)."""
    for path in unknown:
        tail = path[-3:]
        if path == ("spec", "replicas"):
            for g in inv.groups:
                g.replicas = UNKNOWN
        elif path == ("spec", "type"):
            for s in inv.services:
                s.type = UNKNOWN
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
        elif "nodeSelector" in path:
            for g in inv.groups:
                g.node_selector, g.pool = UNKNOWN, None
        elif path == ("metadata", "namespace"):
            namespaced: list[Any] = [*inv.groups, *inv.services, *inv.ingresses, *inv.network_policies,
                                     *inv.autoscalers]
            for obj in namespaced:
                obj.namespace = UNKNOWN_NAMESPACE
        elif path[:1] == ("spec",) and manifest.get("kind") == "NetworkPolicy":
            for np in inv.network_policies:  # never mistaken for a policy that selects every pod
                np.pod_selector = {**np.pod_selector, UNKNOWN_NAMESPACE: UNKNOWN_NAMESPACE}
        elif len(path) >= 3 and tail[0] == "containers" and tail[2] == "image":
            for c in _containers_named(inv, manifest, path[:-1]):
                c.image = UNKNOWN
        elif len(path) >= 4 and path[-4] == "containers" and path[-2] in _PROBES and path[-1] in _PROBE_FIELDS:
            for c in _containers_named(inv, manifest, path[:-2]):
                probe = c.probes.get(_PROBES[path[-2]])
                if probe is not None:
                    setattr(probe, _PROBE_FIELDS[path[-1]], UNKNOWN)


_PROBES = {"startupProbe": "startup", "livenessProbe": "liveness", "readinessProbe": "readiness"}
_PROBE_FIELDS = {"initialDelaySeconds": "initial_delay_seconds", "periodSeconds": "period_seconds",
                 "failureThreshold": "failure_threshold", "timeoutSeconds": "timeout_seconds"}


def _containers_named(inv: Inventory, manifest: Mapping[str, Any], path: tuple[Any, ...]) -> list[Any]:
    raw = _container_at(manifest, path)
    if raw is None:
        return []
    return [c for g in inv.groups for c in g.containers if c.name == raw.get("name")]


def _container_at(manifest: Mapping[str, Any], path: tuple[Any, ...]) -> Mapping[str, Any] | None:
    node: Any = manifest
    for key in path:
        try:
            node = node[key]
        except (KeyError, IndexError, TypeError):
            return None
    return node if isinstance(node, Mapping) else None


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
        for c in g.containers:
            c.location = fix(c.location)
    located: list[Any] = [*inv.services, *inv.ingresses, *inv.autoscalers, *inv.pools, *inv.launch_templates,
                          *inv.network_policies]
    for obj in located:
        obj.location = fix(obj.location)
        if hasattr(obj, "suppressions"):
            obj.suppressions = fix_supp(obj.suppressions)


def _kubernetes(res: PulumiResource, props: Mapping[str, Any], api: tuple[str, str]) -> Inventory:
    from .k8s import inventory_from_objects

    manifest, unknown = _prepare_manifest(props)
    manifest.setdefault("apiVersion", api[0])
    manifest.setdefault("kind", api[1])
    meta = manifest.get("metadata")
    if not isinstance(meta, dict):
        meta = manifest["metadata"] = {}
    if not meta.get("name"):
        meta["name"] = res.name
    loc = res.location
    inv = inventory_from_objects([(manifest, loc)])
    _restore_unknowns(inv, manifest, unknown)
    _fill_locations(inv, loc)
    return inv


# ---------------------------------------------------------------------------------------------
# Inventory
# ---------------------------------------------------------------------------------------------


def inventory_from_resources(resources: Iterable[PulumiResource], *,
                             errors: list[tuple[PulumiResource, str]] | None = None,
                             resolve: bool = True) -> Inventory:
    """Turn engine resources into one inventory.

    A resource that cannot be read raises :class:`InputError` naming its URN, or, when ``errors``
    is given, is recorded there as (resource, message) and left out. ``resolve`` matches
    workloads to node pools (:func:`~shardwise.rules.adapters.k8s.resolve_pools`).
    """
    cleaned: list[tuple[PulumiResource, Mapping[str, Any]]] = []
    inv = Inventory()

    def fail(res: PulumiResource, exc: Exception) -> None:
        if isinstance(exc, InputError):
            msg = exc.message
        elif isinstance(exc, RecursionError):
            msg = "properties nested too deeply"
        else:
            msg = f"{type(exc).__name__}: {exc}"
        if errors is None:
            raise InputError(f"{res.type} {res.urn}: {msg}", res.file, res.line) from exc
        errors.append((res, msg))

    for res in resources:
        try:
            props = clean(res.props)
            if not isinstance(props, Mapping):
                raise InputError(f"properties are a {type(props).__name__}, not an object")
        except Exception as exc:  # noqa: BLE001 - one bad resource must not hide the rest
            fail(res, exc)
            continue
        cleaned.append((res, props))
    index = aws.Index(cleaned)

    sgs: dict[str, SecurityGroup] = {}
    templates: dict[str, tuple[LaunchTemplate, aws.LaunchExtras]] = {}
    rules: list[tuple[PulumiResource, Mapping[str, Any]]] = []
    groups: list[tuple[PulumiResource, Mapping[str, Any]]] = []
    for res, props in cleaned:
        try:
            if res.type == SECURITY_GROUP:
                sgs[res.urn] = aws.security_group(res, props, index)
                inv.security_groups.append(sgs[res.urn])
            elif res.type == LAUNCH_TEMPLATE:
                templates[res.urn] = aws.launch_template(res, props, index)
                inv.launch_templates.append(templates[res.urn][0])
            elif res.type == SUBNET:
                inv.subnets.append(aws.subnet(res, props))
            elif res.type in (SG_RULE, SG_INGRESS, SG_EGRESS):
                rules.append((res, props))
            elif res.type == NODE_GROUP:
                groups.append((res, props))
            elif res.type == PLACEMENT_GROUP:
                pass  # read through the launch templates that name it
            elif (api := kubernetes_api(res.type)) is not None:
                inv.extend(_kubernetes(res, props, api))
            else:
                inv.skipped[res.type] += 1
        except Exception as exc:  # noqa: BLE001
            fail(res, exc)
    for res, props in rules:
        try:
            target, rule, suppressions = aws.rule_resource(res, props, index)
        except Exception as exc:  # noqa: BLE001
            fail(res, exc)
            continue
        sg = sgs.get(target) if isinstance(target, str) else None
        if sg is None:  # a group not in the inputs (or not known yet): keep the rule visible
            key = target if isinstance(target, str) else f"{res.name} (security group unknown)"
            sg = sgs.get(key)
            if sg is None:
                sg = SecurityGroup(name=key, id=target if isinstance(target, str) else None,
                                   location=res.location)
                sgs[key] = sg
                inv.security_groups.append(sg)
        sg.rules.append(rule)
        sg.suppressions.extend(s for s in suppressions if s not in sg.suppressions)
    for res, props in groups:
        try:
            inv.pools.extend(aws.node_group(res, props, index, templates))
        except Exception as exc:  # noqa: BLE001
            fail(res, exc)
    if resolve:
        from .k8s import resolve_pools

        resolve_pools(inv)
    return inv


# ---------------------------------------------------------------------------------------------
# preview --json / stack export files
# ---------------------------------------------------------------------------------------------

_SKIP_OPS = frozenset({"delete", "delete-replaced", "discard", "discard-replaced", "remove-pending-replace",
                       "read-discard"})


def is_pulumi_json(data: Any) -> bool:
    """Whether parsed JSON is a ``pulumi preview --json`` or ``pulumi stack export`` document."""
    if not isinstance(data, Mapping):
        return False
    dep = data.get("deployment")
    if isinstance(dep, Mapping) and isinstance(dep.get("resources"), list):
        return True
    steps = data.get("steps")
    if isinstance(steps, list) and ("changeSummary" in data or any(
            isinstance(s, Mapping) and "op" in s for s in steps)):
        return True
    res = data.get("resources")
    return isinstance(res, list) and bool(res) and all(
        isinstance(r, Mapping) and "urn" in r and "type" in r for r in res)


def _urn_lines(text: str | None) -> dict[str, int]:
    if not text:
        return {}
    out: dict[str, int] = {}
    line, pos = 1, 0
    for m in _URN_RE.finditer(text):
        line += text.count("\n", pos, m.start())
        pos = m.start()
        out.setdefault(m.group(1), line)
    return out


_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\],:]|[^\s{}\[\],:"]+')


def _item_line(text: str | None, path: tuple[str, ...], index: int) -> int | None:
    """The line on which element ``index`` of the array at ``path`` (object keys from the root)
    starts in the JSON ``text``; None when there is no text or no such element. Used only for
    error messages, so it scans the text on demand."""
    if not text:
        return None
    # one frame per open container: [kind, its position in its parent, current key or index, expecting a key]
    frames: list[list[Any]] = []
    for m in _JSON_TOKEN.finditer(text):
        t = m.group()
        top = frames[-1] if frames else None
        if t == ",":
            if top is not None:
                if top[0] == "[":
                    top[2] += 1
                else:
                    top[3] = True
            continue
        if t == ":":
            if top is not None:
                top[3] = False
            continue
        if t in "}]":
            if frames:
                frames.pop()
            continue
        if top is not None and top[0] == "{" and top[3]:
            top[2] = t[1:-1] if t.startswith('"') else t  # an object key
            continue
        if (top is not None and top[0] == "[" and top[2] == index
                and tuple(f[1] for f in frames[1:]) == path):
            return text.count("\n", 0, m.start()) + 1
        if t in "{[":
            frames.append([t, top[2] if top is not None else None, 0 if t == "[" else None, t == "{"])
    return None


def _state_resource(state: Mapping[str, Any], file: str, lines: Mapping[str, int], where: str,
                    line: int | None = None) -> PulumiResource | None:
    urn = state.get("urn")
    rtype = state.get("type")
    if not isinstance(urn, str) or not isinstance(rtype, str):
        missing = "urn" if not isinstance(urn, str) else "type"
        raise InputError(f"{where}: a resource without a {missing} (a string)", file,
                         lines.get(urn, line) if isinstance(urn, str) else line)
    line = lines.get(urn, line)
    if rtype == "pulumi:pulumi:Stack" or rtype.startswith("pulumi:providers:") or state.get("delete"):
        return None
    inputs = state.get("inputs") or {}
    outputs = state.get("outputs") or {}
    if not isinstance(inputs, Mapping) or not isinstance(outputs, Mapping):
        raise InputError(f"{urn}: inputs and outputs must be objects", file, line)
    deps = state.get("propertyDependencies") or {}
    if not isinstance(deps, Mapping):
        raise InputError(f"{urn}: propertyDependencies must be an object, got {json_type(deps)}", file, line)
    dependencies = state.get("dependencies") or []
    if not isinstance(dependencies, list):
        raise InputError(f"{urn}: dependencies must be an array, got {json_type(dependencies)}", file, line)
    rid = state.get("id")
    return PulumiResource(
        type=rtype, name=name_from_urn(urn), urn=urn, props=merge_state(inputs, outputs),
        id=rid if isinstance(rid, str) and rid and rid not in UNKNOWN_SENTINELS else None,
        parent=state.get("parent") if isinstance(state.get("parent"), str) else None,
        dependencies=tuple(d for d in dependencies if isinstance(d, str)),
        property_dependencies={str(k): tuple(u for u in v if isinstance(u, str))
                               for k, v in deps.items() if isinstance(v, list)},
        file=file, line=line,
    )


def resources_from_json(data: Any, file: str, text: str | None = None) -> list[PulumiResource]:
    """The resources of a preview (``steps[].newState``) or state export (``deployment.resources``)."""
    if not is_pulumi_json(data):
        raise InputError("not a `pulumi preview --json` or `pulumi stack export` document", file)
    lines = _urn_lines(text)
    out: list[PulumiResource] = []
    dep = data.get("deployment")
    export = isinstance(dep, Mapping) and isinstance(dep.get("resources"), list)
    if not export and isinstance(data.get("steps"), list):
        for i, step in enumerate(data["steps"]):
            if not isinstance(step, Mapping):
                raise InputError(f"steps[{i}]: a step is not an object (found {json_type(step)})", file,
                                 _item_line(text, ("steps",), i))
            step_urn = step.get("urn")
            step_line = lines.get(step_urn) if isinstance(step_urn, str) else None
            if step_line is None:
                step_line = _item_line(text, ("steps",), i)
            op = step.get("op")
            if op is not None and not isinstance(op, str):
                raise InputError(f"steps[{i}].op: expected a string such as \"create\", got {json_type(op)}",
                                 file, step_line)
            if op in _SKIP_OPS:
                continue
            key = next((k for k in ("newState", "resource", "new") if step.get(k) is not None), "newState")
            state = step.get(key)
            if state is None:
                continue  # a step without a new state
            if not isinstance(state, Mapping):
                raise InputError(f"steps[{i}].{key}: expected a resource (an object), found {json_type(state)}",
                                 file, step_line)
            res = _state_resource(state, file, lines, f"steps[{i}].{key}", step_line)
            if res is not None:
                out.append(res)
        return out
    if not export:  # a bare resource list
        dep = data
    path = ("deployment", "resources") if export else ("resources",)
    for i, state in enumerate(dep["resources"]):
        where = f"{'deployment.' if export else ''}resources[{i}]"
        if not isinstance(state, Mapping):
            raise InputError(f"{where}: a resource entry is not an object (found {json_type(state)})", file,
                             _item_line(text, path, i))
        urn = state.get("urn")
        line = lines.get(urn) if isinstance(urn, str) else None
        res = _state_resource(state, file, lines, where, line if line is not None else _item_line(text, path, i))
        if res is not None:
            out.append(res)
    return out


def inventory_from_pulumi_json(data: Any, file: str, text: str | None = None) -> Inventory:
    """A parsed preview/export document -> inventory (``text`` lets findings point at lines; without
    it the file is read again when it exists)."""
    if text is None and file and os.path.isfile(file):
        try:
            text = read_text(file)
        except InputError:
            text = None
    inv = inventory_from_resources(resources_from_json(data, file, text), resolve=False)
    inv.sources.append(file)
    return inv


def load_pulumi_json(path: str) -> Inventory:
    """Read a ``pulumi preview --json`` or ``pulumi stack export`` file (``-`` for stdin)."""
    from .k8s import resolve_pools

    text = read_text(path)
    file = "<stdin>" if path == "-" else path
    from . import parse_json

    inv = inventory_from_pulumi_json(parse_json(text, file), file, text)
    resolve_pools(inv)
    return inv
