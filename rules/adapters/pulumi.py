"""Pulumi resources (as the engine, ``pulumi preview --json`` or ``pulumi stack export`` give them)
-> :class:`~shardwise.rules.model.Inventory`. Pure: never imports ``pulumi``.

A resource is its type token, name, URN and properties in the engine's camelCase, with the
parent, dependencies and per-property dependencies when known (:class:`PulumiResource`).

Values:

- the engine's unknown sentinels (``04da6b54-…`` and the other typed ones), an output value with no
  ``value``, and a secret whose plaintext is not in the input (``ciphertext`` only) become
  :data:`~shardwise.rules.model.UNKNOWN`; a secret with ``value`` (or ``plaintext``) is unwrapped;
  assets and archives become ``None``; resource references become their id, else their URN;
- protobuf numbers arrive as floats: whole floats become ``int``.

What becomes what:

- ``aws:eks/nodeGroup:NodeGroup`` -> :class:`NodePool` (kind ``eks-nodegroup``): its labels plus
  the labels EKS puts on every node (``eks.amazonaws.com/nodegroup``, ``-capacityType``,
  ``node.kubernetes.io/instance-type``), taints, capacity type, subnets, and from its launch
  template the security groups, EFA interfaces and placement group. The pool is named by its
  ``shardwise.dev/pool`` label, else its ``nodeGroupName``, else the resource name;
- ``aws:ec2/launchTemplate:LaunchTemplate`` -> :class:`LaunchTemplate` (metadata options);
- ``aws:ec2/securityGroup:SecurityGroup`` (inline ``ingress``/``egress``) and the rule resources
  ``aws:ec2/securityGroupRule:SecurityGroupRule``, ``aws:vpc/securityGroupIngressRule:…`` and
  ``aws:vpc/securityGroupEgressRule:…`` -> :class:`SecurityGroup` with its :class:`SgRule` list;
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

References (a node group's launch template and subnets, a rule's security group) are outputs of
other resources, unknown at preview. A reference is resolved by matching the referenced resource's
id, URN or name when the property carries one, else through the property's dependencies (the URNs
the engine lists for that property), else it stays UNKNOWN. A reference to something not in the
inputs (an existing subnet id) stays as written.

Suppressions: the AWS tag ``shardwise.dev/ignore`` (``"SW304: reason; SW301: reason"``) on node
groups, launch templates, security groups (and their rule resources) and subnets; the annotation of
the same name on Kubernetes objects.
"""

from __future__ import annotations

import dataclasses
import json
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
    NodePool,
    SecurityGroup,
    SgRule,
    Subnet,
    Suppression,
    Taint,
)
from ..yamlsrc import read_text

UNKNOWN_SENTINELS = frozenset({
    "1c4a061d-8072-4f0a-a4cb-0ff528b18fe7",  # boolean
    "3eeb2bf0-c639-47a8-9e75-3b44932eb421",  # number
    "04da6b54-80e4-46f7-96ec-b56ff0331ba9",  # string
    "6a19a0b0-7e62-4c92-b797-7f8e31da9cc2",  # array
    "030794c1-ac77-496b-92df-f27374a8bd58",  # asset
    "e48ece36-62e2-4504-bad9-02848725956a",  # archive
    "dd056dcd-154b-4c76-9bd3-c8f88648b5ff",  # object
})
SIG_KEY = "4dabf18193072939515e22adb298388d"
SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270"
ASSET_SIG = "c44067f5952c0a294b673a41bacd8c17"
ARCHIVE_SIG = "0def7320c3a5731c473e5ecbe6d01bc7"
RESOURCE_SIG = "5cf8f73096256a8f31e491e813e4eb8e"
OUTPUT_SIG = "d0e6a833031e9bbcd3f4e8bde6ca49a4"

IGNORE_TAG = "shardwise.dev/ignore"

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
SECURITY_GROUP = "aws:ec2/securityGroup:SecurityGroup"
SG_RULE = "aws:ec2/securityGroupRule:SecurityGroupRule"
SG_INGRESS = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"
SG_EGRESS = "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule"
SUBNET = "aws:ec2/subnet:Subnet"
PLACEMENT_GROUP = "aws:ec2/placementGroup:PlacementGroup"

_SG_TYPES = (SECURITY_GROUP,)
_K8S_SKIP_MODULES = ("yaml", "yaml/v2", "kustomize", "kustomize/v2", "helm.sh/v3", "helm.sh/v4")
_TAINT_EFFECTS = {"NO_SCHEDULE": "NoSchedule", "NO_EXECUTE": "NoExecute",
                  "PREFER_NO_SCHEDULE": "PreferNoSchedule"}
_PROTOCOLS = {"-1": "-1", "all": "-1", "tcp": "tcp", "6": "tcp", "udp": "udp", "17": "udp",
              "icmp": "icmp", "1": "icmp", "icmpv6": "icmpv6", "58": "icmpv6"}
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


# ---------------------------------------------------------------------------------------------
# Values
# ---------------------------------------------------------------------------------------------


def clean(value: Any) -> Any:
    """Engine property values -> plain Python values with :data:`UNKNOWN` (see the module docstring)."""
    if isinstance(value, str):
        return UNKNOWN if value in UNKNOWN_SENTINELS else value
    if isinstance(value, float):
        return int(value) if value.is_integer() else value
    if isinstance(value, Mapping):
        sig = value.get(SIG_KEY)
        if sig is not None:
            return _special(sig, value)
        return {str(k): clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean(v) for v in value]
    return value


def _special(sig: Any, value: Mapping[str, Any]) -> Any:
    if sig == SECRET_SIG:
        if "value" in value:
            return clean(value["value"])
        if "plaintext" in value:  # `pulumi stack export --show-secrets`
            try:
                return clean(json.loads(value["plaintext"]))
            except (TypeError, ValueError):
                return UNKNOWN
        return UNKNOWN  # ciphertext only
    if sig == OUTPUT_SIG:
        return clean(value["value"]) if "value" in value else UNKNOWN
    if sig == RESOURCE_SIG:
        ref = value.get("id") or value.get("urn")
        return clean(ref) if ref is not None else UNKNOWN
    if sig in (ASSET_SIG, ARCHIVE_SIG):
        return None
    raise InputError(f"unrecognised Pulumi value signature {sig!r}")


def _str(value: Any) -> Any:
    """A known scalar as ``str``; UNKNOWN and None pass through."""
    if value is None or value is UNKNOWN:
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _bool(value: Any) -> Any:
    if value is None or value is UNKNOWN or isinstance(value, bool):
        return value
    v = str(value).strip().lower()
    if v in ("true", "1", "yes"):
        return True
    if v in ("false", "0", "no", ""):
        return False
    raise InputError(f"expected true or false, got {value!r}")


def _int(value: Any) -> Any:
    if value is None or value is UNKNOWN:
        return value
    if isinstance(value, bool):
        raise InputError(f"expected a whole number, got {value!r}")
    try:
        return int(str(value).strip())
    except ValueError:
        raise InputError(f"expected a whole number, got {value!r}") from None


def _list(value: Any) -> Any:
    if value is UNKNOWN:
        return UNKNOWN
    return list(value) if isinstance(value, list) else []


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _suppressions(props: Mapping[str, Any], loc: Location) -> list[Suppression]:
    from .k8s import parse_ignore

    tags = _map(props.get("tags"))
    value = tags.get(IGNORE_TAG)
    if not isinstance(value, str):
        return []
    return parse_ignore(value, loc)


# ---------------------------------------------------------------------------------------------
# References
# ---------------------------------------------------------------------------------------------


class _Index:
    """Resources by URN, and by id and name within each type, for resolving references."""

    def __init__(self, resources: Sequence[tuple[PulumiResource, Mapping[str, Any]]]) -> None:
        self.by_urn: dict[str, tuple[PulumiResource, Mapping[str, Any]]] = {}
        self.keys: dict[tuple[str, str], str] = {}
        for res, props in resources:
            self.by_urn[res.urn] = (res, props)
            for key in (res.id, props.get("id"), props.get("name"), props.get("arn"), res.name):
                if isinstance(key, str) and key:
                    self.keys.setdefault((res.type, key), res.urn)

    def lookup(self, types: Sequence[str], value: Any) -> str | None:
        if not isinstance(value, str):
            return None
        if value in self.by_urn and self.by_urn[value][0].type in types:
            return value
        for t in types:
            urn = self.keys.get((t, value))
            if urn is not None:
                return urn
        return None

    def deps(self, res: PulumiResource, prop: str, types: Sequence[str]) -> list[str]:
        return [u for u in res.property_dependencies.get(prop, ())
                if u in self.by_urn and self.by_urn[u][0].type in types]

    def resolve(self, res: PulumiResource, prop: str, value: Any, types: Sequence[str]) -> Any:
        """One reference -> the URN of a resource in the inputs, the value as written, or UNKNOWN."""
        if value is not None and value is not UNKNOWN:
            return self.lookup(types, value) or value
        deps = self.deps(res, prop, types)
        if len(deps) == 1:
            return deps[0]
        return UNKNOWN if value is UNKNOWN or deps else None

    def resolve_list(self, res: PulumiResource, prop: str, values: Any, types: Sequence[str],
                     what: str | None = None) -> Any:
        """A list of references; unknown entries are matched to the property's dependencies.
        ``what`` names the list in errors (default: ``prop``)."""
        if values is UNKNOWN:
            deps = self.deps(res, prop, types)
            return list(deps) if deps else UNKNOWN
        out: list[Any] = []
        unknown = 0
        for v in values:
            if v is UNKNOWN:
                unknown += 1
            elif isinstance(v, str):
                out.append(self.lookup(types, v) or v)
            elif v is not None:
                raise InputError(f"{what or prop}: expected ids (strings), found {_json_type(v)}")
        if unknown:
            # The engine lists the property's dependencies, not which entry each one fills: the
            # unknown entries are taken to be the property's dependencies of the referenced type.
            deps = self.deps(res, prop, types)
            if deps:
                out.extend(u for u in deps if u not in out)
            else:
                out.append(UNKNOWN)
        return out


# ---------------------------------------------------------------------------------------------
# AWS
# ---------------------------------------------------------------------------------------------


@dataclass
class _LaunchExtras:
    security_groups: Any = field(default_factory=list)
    efa: Any = False
    placement_group: Any = None
    instance_type: Any = None  # set in the template when the node group cannot (Capacity Blocks)


def _protocol(value: Any) -> Any:
    if value is UNKNOWN:
        return UNKNOWN
    p = str(value if value is not None else "-1").strip().lower()
    return _PROTOCOLS.get(p, p)


def _ports(protocol: Any, lo: Any, hi: Any) -> tuple[Any, Any]:
    if protocol == "-1":
        return 0, 65535
    return _int(lo) if lo is not None else 0, _int(hi) if hi is not None else 65535


def _unknown_rule(direction: Any, loc: Location) -> SgRule:
    unknown: Any = UNKNOWN
    return SgRule(direction, unknown, unknown, unknown, unknown, unknown, location=loc)


def _security_group(res: PulumiResource, props: Mapping[str, Any], index: _Index) -> SecurityGroup:
    loc = res.location
    sg = SecurityGroup(name=res.name, id=res.id or _str(props.get("id")), location=loc,
                       suppressions=_suppressions(props, loc))
    for direction in ("ingress", "egress"):
        entries = props.get(direction)
        if entries is UNKNOWN:
            sg.rules.append(_unknown_rule(direction, loc))
            continue
        for raw in _list(entries):
            if raw is UNKNOWN:
                sg.rules.append(_unknown_rule(direction, loc))
                continue
            entry = _map(raw)
            if not entry:
                continue
            proto = _protocol(entry.get("protocol"))
            lo, hi = _ports(proto, entry.get("fromPort"), entry.get("toPort"))
            cidrs = _list(entry.get("cidrBlocks"))
            v6 = _list(entry.get("ipv6CidrBlocks"))
            if cidrs or v6 or entry.get("prefixListIds"):
                sg.rules.append(SgRule(direction, proto, lo, hi, cidrs=cidrs, ipv6_cidrs=v6, location=loc))
            self_ref = _bool(entry.get("self"))
            if self_ref is UNKNOWN:
                sg.rules.append(SgRule(direction, proto, lo, hi, source_security_group=UNKNOWN, location=loc))
            elif self_ref:
                sg.rules.append(SgRule(direction, proto, lo, hi, source_security_group=res.urn, self_ref=True,
                                       location=loc))
            sources = index.resolve_list(res, direction, _list(entry.get("securityGroups")), _SG_TYPES,
                                         f"{direction}[].securityGroups")
            if sources is UNKNOWN:
                sources = [UNKNOWN]
            for src in sources:
                sg.rules.append(SgRule(direction, proto, lo, hi, source_security_group=src,
                                       self_ref=src == res.urn, location=loc))
    return sg


def _rule_resource(res: PulumiResource, props: Mapping[str, Any], index: _Index) -> tuple[Any, SgRule, list]:
    """A standalone rule resource -> (its security group reference, the rule, its suppressions)."""
    loc = res.location
    if res.type == SG_RULE:
        direction = _str(props.get("type")) or "ingress"
        proto = _protocol(props.get("protocol"))
        lo, hi = _ports(proto, props.get("fromPort"), props.get("toPort"))
        cidrs, v6 = _list(props.get("cidrBlocks")), _list(props.get("ipv6CidrBlocks"))
        src_prop = "sourceSecurityGroupId"
        self_flag = _bool(props.get("self"))
    else:
        direction = "ingress" if res.type == SG_INGRESS else "egress"
        proto = _protocol(props.get("ipProtocol"))
        lo, hi = _ports(proto, props.get("fromPort"), props.get("toPort"))
        cidrs = [props["cidrIpv4"]] if props.get("cidrIpv4") is not None else []
        v6 = [props["cidrIpv6"]] if props.get("cidrIpv6") is not None else []
        src_prop = "referencedSecurityGroupId"
        self_flag = False
    if direction is UNKNOWN:
        direction = "ingress"  # the stricter reading
    target = index.resolve(res, "securityGroupId", props.get("securityGroupId"), _SG_TYPES)
    source: Any = None
    if self_flag is UNKNOWN:
        source = UNKNOWN
    elif self_flag:
        source = target
    elif src_prop in props or res.property_dependencies.get(src_prop):
        source = index.resolve(res, src_prop, props.get(src_prop), _SG_TYPES)
    self_ref = bool(self_flag is True or (source is not None and source is not UNKNOWN
                                          and target is not UNKNOWN and source == target))
    rule = SgRule("egress" if direction == "egress" else "ingress", proto, lo, hi, cidrs=cidrs, ipv6_cidrs=v6,
                  source_security_group=source, self_ref=self_ref, location=loc)
    return target, rule, _suppressions(props, loc)


def _launch_template(res: PulumiResource, props: Mapping[str, Any], index: _Index
                     ) -> tuple[LaunchTemplate, _LaunchExtras]:
    loc = res.location
    md = props.get("metadataOptions")
    if md is UNKNOWN:
        tokens: Any = UNKNOWN
        hops: Any = UNKNOWN
    else:
        md = _map(md)
        tokens = _str(md.get("httpTokens"))
        hops = _int(md.get("httpPutResponseHopLimit"))
    lt = LaunchTemplate(name=res.name, id=res.id or _str(props.get("id")), http_tokens=tokens,
                        http_put_response_hop_limit=hops, location=loc, suppressions=_suppressions(props, loc))
    extras = _LaunchExtras()
    itype = props.get("instanceType")
    extras.instance_type = itype if itype is UNKNOWN or isinstance(itype, str) else None
    groups: list[Any] = []
    top = props.get("vpcSecurityGroupIds")
    groups_unknown = top is UNKNOWN
    if not groups_unknown:
        groups.extend(_list(top))
    nics = props.get("networkInterfaces")
    nic_groups: list[Any] = []
    if nics is UNKNOWN:
        groups_unknown = True
        extras.efa = UNKNOWN
    else:
        for nic in _list(nics):
            nic = _map(nic)
            kind = nic.get("interfaceType")
            if kind is UNKNOWN:
                extras.efa = UNKNOWN
            elif isinstance(kind, str) and kind.startswith("efa") and extras.efa is not UNKNOWN:
                extras.efa = True
            sgs = nic.get("securityGroups")
            if sgs is UNKNOWN:
                groups_unknown = True
            else:
                nic_groups.extend(_list(sgs))
    refs = [*index.resolve_list(res, "vpcSecurityGroupIds", groups, _SG_TYPES),
            *index.resolve_list(res, "networkInterfaces", nic_groups, _SG_TYPES, "networkInterfaces[].securityGroups")]
    extras.security_groups = UNKNOWN if groups_unknown else list(dict.fromkeys(refs))
    placement = props.get("placement")
    if placement is UNKNOWN:
        extras.placement_group = UNKNOWN
    else:
        group_name = _map(placement).get("groupName")
        if group_name is not None or index.deps(res, "placement", (PLACEMENT_GROUP,)):
            ref = index.resolve(res, "placement", group_name, (PLACEMENT_GROUP,))
            if isinstance(ref, str) and ref in index.by_urn:
                pg_res, pg_props = index.by_urn[ref]
                ref = _str(pg_props.get("name")) if isinstance(pg_props.get("name"), str) else pg_res.name
            extras.placement_group = ref
    return lt, extras


def _subnet(res: PulumiResource, props: Mapping[str, Any]) -> Subnet:
    loc = res.location
    public = _bool(props.get("mapPublicIpOnLaunch"))
    return Subnet(
        name=res.name,
        id=res.id or _str(props.get("id")),
        map_public_ip_on_launch=False if public is None else public,
        availability_zone=_str(props.get("availabilityZone")),
        location=loc,
        suppressions=_suppressions(props, loc),
    )


def _capacity(value: Any) -> Any:
    if value is UNKNOWN or value is None:
        return value
    return str(value).lower().replace("_", "-")


def _node_group(res: PulumiResource, props: Mapping[str, Any], index: _Index,
                templates: Mapping[str, tuple[LaunchTemplate, _LaunchExtras]]) -> list[NodePool]:
    from ..vocab import INSTANCE_TYPE, LABEL_EFA, LABEL_POOL
    from .k8s.pools import pool_from_labels

    loc = res.location
    labels = {str(k): str(v) for k, v in _map(props.get("labels")).items() if isinstance(v, str | int | float)}
    ng_name = props.get("nodeGroupName")
    name = labels.get(LABEL_POOL) or (ng_name if isinstance(ng_name, str) and ng_name else res.name)
    labels.setdefault("eks.amazonaws.com/nodegroup", name)
    cap = props.get("capacityType")
    if isinstance(cap, str):
        labels.setdefault("eks.amazonaws.com/capacityType", cap)
    taints = []
    for t in _list(props.get("taints")) if props.get("taints") is not UNKNOWN else []:
        t = _map(t)
        if isinstance(t.get("key"), str):
            effect = _str(t.get("effect")) or "NO_SCHEDULE"
            taints.append(Taint(t["key"], _str(t.get("value")) if isinstance(t.get("value"), str) else None,
                                _TAINT_EFFECTS.get(str(effect), str(effect))))
    subnets = index.resolve_list(res, "subnetIds", _list(props.get("subnetIds"))
                                 if props.get("subnetIds") is not UNKNOWN else UNKNOWN, (SUBNET,))
    lt_ref: Any = None
    extras = _LaunchExtras()
    spec = props.get("launchTemplate")
    if spec is UNKNOWN:
        lt_ref = UNKNOWN
    elif spec is not None:
        spec = _map(spec)
        raw = spec.get("id")
        if raw is None or raw is UNKNOWN:
            raw = spec.get("name", raw)
        lt_ref = index.resolve(res, "launchTemplate", raw, (LAUNCH_TEMPLATE,))
        if lt_ref is None:
            lt_ref = UNKNOWN
    if lt_ref is UNKNOWN:
        extras = _LaunchExtras(security_groups=UNKNOWN, efa=UNKNOWN, placement_group=UNKNOWN)
    elif isinstance(lt_ref, str) and lt_ref in templates:
        extras = templates[lt_ref][1]
    elif lt_ref is not None:
        extras = _LaunchExtras(security_groups=[], efa=None, placement_group=None)

    types = props.get("instanceTypes")
    instance_types: list[Any] = [UNKNOWN] if types is UNKNOWN else [t for t in _list(types) if t is not None]
    for t in instance_types:
        if t is not UNKNOWN and not isinstance(t, str):
            raise InputError(f"instanceTypes: expected instance type names (strings), found {_json_type(t)}")
    if not instance_types and extras.instance_type is not None:  # e.g. a Capacity Block node group
        instance_types = [extras.instance_type]
    variants: list[tuple[str, Any]] = [(name, t) for t in instance_types[:1]] or [(name, None)]
    if len({str(t) for t in instance_types}) > 1:  # one pool per instance type the group may launch
        variants = [(f"{name}/{t}", t) for t in dict.fromkeys(instance_types)]

    pools = []
    suppressions = _suppressions(props, loc)
    for pool_name, itype in variants:
        pool_labels = dict(labels)
        if isinstance(itype, str):
            pool_labels.setdefault(INSTANCE_TYPE, itype)
        pool = pool_from_labels(pool_name, pool_labels, loc, taints, kind="eks-nodegroup")
        if itype is UNKNOWN:
            pool.instance_type = UNKNOWN
            if pool.gpu is None and pool.gpus_per_node is None:
                pool.gpus_per_node = UNKNOWN
                pool.gpu_memory_gib = UNKNOWN
        pool.capacity_type = _capacity(cap)
        pool.subnets = subnets
        pool.launch_template = lt_ref
        pool.security_groups = extras.security_groups
        # EFA interfaces come from the launch template (the instance type only says they are possible)
        pool.efa = extras.efa
        if extras.efa is None and LABEL_EFA in pool_labels:
            pool.efa = pool_labels[LABEL_EFA].strip().lower() == "true"
        pool.placement_group = extras.placement_group
        pool.suppressions = list(suppressions)
        pools.append(pool)
    return pools


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
    index = _Index(cleaned)

    sgs: dict[str, SecurityGroup] = {}
    templates: dict[str, tuple[LaunchTemplate, _LaunchExtras]] = {}
    rules: list[tuple[PulumiResource, Mapping[str, Any]]] = []
    groups: list[tuple[PulumiResource, Mapping[str, Any]]] = []
    for res, props in cleaned:
        try:
            if res.type == SECURITY_GROUP:
                sgs[res.urn] = _security_group(res, props, index)
                inv.security_groups.append(sgs[res.urn])
            elif res.type == LAUNCH_TEMPLATE:
                templates[res.urn] = _launch_template(res, props, index)
                inv.launch_templates.append(templates[res.urn][0])
            elif res.type == SUBNET:
                inv.subnets.append(_subnet(res, props))
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
            target, rule, suppressions = _rule_resource(res, props, index)
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
            inv.pools.extend(_node_group(res, props, index, templates))
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


def _json_type(value: Any) -> str:
    """How JSON names the type of ``value``: an object, an array, a string, a number, a boolean, null."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"


def _state_resource(state: Mapping[str, Any], file: str, lines: Mapping[str, int], where: str,
                    line: int | None = None) -> PulumiResource | None:
    urn = state.get("urn")
    rtype = state.get("type")
    if not isinstance(urn, str) or not isinstance(rtype, str):
        missing = "urn" if not isinstance(urn, str) else "type"
        raise InputError(f"{where}: a resource without a {missing} (a string)", file,
                         lines.get(urn) if isinstance(urn, str) else line)
    line = lines.get(urn, line)
    if rtype == "pulumi:pulumi:Stack" or rtype.startswith("pulumi:providers:") or state.get("delete"):
        return None
    inputs = state.get("inputs") or {}
    outputs = state.get("outputs") or {}
    if not isinstance(inputs, Mapping) or not isinstance(outputs, Mapping):
        raise InputError(f"{urn}: inputs and outputs must be objects", file, line)
    deps = state.get("propertyDependencies") or {}
    if not isinstance(deps, Mapping):
        raise InputError(f"{urn}: propertyDependencies must be an object, got {_json_type(deps)}", file, line)
    dependencies = state.get("dependencies") or []
    if not isinstance(dependencies, list):
        raise InputError(f"{urn}: dependencies must be an array, got {_json_type(dependencies)}", file, line)
    rid = state.get("id")
    return PulumiResource(
        type=rtype, name=name_from_urn(urn), urn=urn, props={**outputs, **inputs},
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
                continue
            step_urn = step.get("urn")
            step_line = lines.get(step_urn) if isinstance(step_urn, str) else None
            op = step.get("op")
            if op is not None and not isinstance(op, str):
                raise InputError(f"steps[{i}].op: expected a string such as \"create\", got {_json_type(op)}",
                                 file, step_line)
            if op in _SKIP_OPS:
                continue
            key = next((k for k in ("newState", "resource", "new") if step.get(k)), "newState")
            state = step.get(key)
            if not isinstance(state, Mapping):
                continue
            res = _state_resource(state, file, lines, f"steps[{i}].{key}", step_line)
            if res is not None:
                out.append(res)
        return out
    if not export:  # a bare resource list
        dep = data
    for i, state in enumerate(dep["resources"]):
        where = f"{'deployment.' if export else ''}resources[{i}]"
        if not isinstance(state, Mapping):
            raise InputError(f"{where}: a resource entry is not an object", file)
        res = _state_resource(state, file, lines, where)
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
