"""AWS resources of a Pulumi program -> node pools, security groups, subnets and launch templates.

Part of the Pulumi adapter (:mod:`shardwise.rules.adapters.pulumi`, whose docstring says what
becomes what). Every property is read with the typed reads of
:mod:`~shardwise.rules.adapters.pulumi.values`: an unknown value stays UNKNOWN in the model (a rule
that needs it cannot decide), a value of the wrong type is an input error naming the property path.

References (a node group's launch template and subnets, a rule's security group) are outputs of
other resources, unknown at preview. A reference is resolved by matching the referenced resource's
id, URN or name when the property carries one, else through the property's dependencies (the URNs
the engine lists for that property), else it stays UNKNOWN. A reference to something not in the
inputs (an existing subnet id) stays as written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...catalog.hardware import pool_from_labels
from ...model import UNKNOWN, LaunchTemplate, Location, NodePool, SecurityGroup, SgRule, Subnet, Suppression, Taint
from ...model.errors import InputError
from ...model.vocab import INSTANCE_TYPE, LABEL_EFA, LABEL_POOL
from ..k8s import parse_ignore
from .values import flag, obj, objs, text, texts, whole, wrong

if TYPE_CHECKING:
    from .resource import PulumiResource

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
_TAINT_EFFECTS = {"NO_SCHEDULE": "NoSchedule", "NO_EXECUTE": "NoExecute", "PREFER_NO_SCHEDULE": "PreferNoSchedule",
                  "NoSchedule": "NoSchedule", "NoExecute": "NoExecute", "PreferNoSchedule": "PreferNoSchedule"}
_PROTOCOLS = {"-1": "-1", "all": "-1", "tcp": "tcp", "6": "tcp", "udp": "udp", "17": "udp",
              "icmp": "icmp", "1": "icmp", "icmpv6": "icmpv6", "58": "icmpv6"}
#: Instance metadata hop limit: AWS accepts 1 to 64.
HOP_LIMIT_RANGE = (1, 64)


def suppressions(props: Mapping[str, Any], loc: Location) -> list[Suppression]:
    """The ``shardwise.dev/ignore`` tag (``"SW304: reason; SW301: reason"``); an unknown tag
    suppresses nothing."""
    tags = obj(props.get("tags"), "tags")
    value = tags.get(IGNORE_TAG) if tags is not UNKNOWN else None
    if not isinstance(value, str):
        return []
    return parse_ignore(value, loc)


# ---------------------------------------------------------------------------------------------
# References
# ---------------------------------------------------------------------------------------------


class Index:
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

    def missing(self, res: PulumiResource, prop: str) -> bool:
        """Whether the property depends on a resource that is not in the inputs (or not readable)."""
        return any(u not in self.by_urn for u in res.property_dependencies.get(prop, ()))

    def resolve_list(self, res: PulumiResource, prop: str, values: Any, types: Sequence[str]) -> Any:
        """A list of references (strings or UNKNOWN, as :func:`texts` reads them); unknown entries
        are matched to the property's dependencies.

        The engine lists the property's dependencies, not which entry each one fills: the unknown
        entries are taken to be the property's dependencies of the referenced type (two entries may
        be the same resource). When there is none, or the property also depends on a resource that
        is not in the inputs (or could not be read), an unknown entry stays UNKNOWN."""
        deps = self.deps(res, prop, types)
        if values is UNKNOWN:
            return UNKNOWN if not deps or self.missing(res, prop) else list(deps)
        out: list[Any] = [self.lookup(types, v) or v for v in values if v is not UNKNOWN]
        unknown = sum(1 for v in values if v is UNKNOWN)
        if unknown:
            out.extend(u for u in deps if u not in out)
            if not deps or self.missing(res, prop):
                out.append(UNKNOWN)
        return out


# ---------------------------------------------------------------------------------------------
# Security groups and their rules
# ---------------------------------------------------------------------------------------------


def _protocol(value: Any, path: str) -> Any:
    """``"tcp"``, ``"udp"``, ``"-1"`` (all) ...; absent reads as all traffic (the wider reading)."""
    p = text(value, path, numbers=True)
    if p is UNKNOWN:
        return UNKNOWN
    p = str(p if p is not None else "-1").strip().lower()
    return _PROTOCOLS.get(p, p)


def _ports(protocol: Any, entry: Mapping[str, Any], path: str) -> tuple[Any, Any]:
    lo = whole(entry.get("fromPort"), f"{path}fromPort", -1, 65535)
    hi = whole(entry.get("toPort"), f"{path}toPort", -1, 65535)
    if protocol == "-1":
        return 0, 65535
    return (lo if lo is not None else 0), (hi if hi is not None else 65535)


def _unknown_rule(direction: Any, loc: Location) -> SgRule:
    unknown: Any = UNKNOWN
    return SgRule(direction, unknown, unknown, unknown, unknown, unknown, location=loc)


def _has_sources(*lists: Any) -> bool:
    return any(v is UNKNOWN or bool(v) for v in lists)


def security_group(res: PulumiResource, props: Mapping[str, Any], index: Index) -> SecurityGroup:
    loc = res.location
    sg = SecurityGroup(name=res.name, id=res.id or text(props.get("id"), "id"), location=loc,
                       suppressions=suppressions(props, loc))
    for direction in ("ingress", "egress"):
        entries = objs(props.get(direction), direction)
        if entries is UNKNOWN:
            sg.rules.append(_unknown_rule(direction, loc))
            continue
        for i, entry in enumerate(entries):
            if entry is UNKNOWN:
                sg.rules.append(_unknown_rule(direction, loc))
            elif entry is not None:
                sg.rules.extend(_inline_rules(res, direction, entry, f"{direction}[{i}]", index))
    return sg


def _inline_rules(res: PulumiResource, direction: str, entry: Mapping[str, Any], path: str,
                  index: Index) -> list[SgRule]:
    """One ``ingress``/``egress`` entry of a security group -> one rule per kind of source."""
    loc = res.location
    proto = _protocol(entry.get("protocol"), f"{path}.protocol")
    lo, hi = _ports(proto, entry, f"{path}.")
    cidrs = texts(entry.get("cidrBlocks"), f"{path}.cidrBlocks")
    v6 = texts(entry.get("ipv6CidrBlocks"), f"{path}.ipv6CidrBlocks")
    prefix_lists = texts(entry.get("prefixListIds"), f"{path}.prefixListIds")
    rules = []
    if _has_sources(cidrs, v6, prefix_lists):
        rules.append(SgRule(direction, proto, lo, hi, cidrs=cidrs, ipv6_cidrs=v6, prefix_lists=prefix_lists,
                            location=loc))
    self_ref = flag(entry.get("self"), f"{path}.self")
    if self_ref is UNKNOWN:
        rules.append(SgRule(direction, proto, lo, hi, source_security_group=UNKNOWN, location=loc))
    elif self_ref:
        rules.append(SgRule(direction, proto, lo, hi, source_security_group=res.urn, self_ref=True, location=loc))
    groups = texts(entry.get("securityGroups"), f"{path}.securityGroups")
    sources = index.resolve_list(res, direction, groups, _SG_TYPES)
    for src in [UNKNOWN] if sources is UNKNOWN else sources:
        rules.append(SgRule(direction, proto, lo, hi, source_security_group=src, self_ref=src == res.urn,
                            location=loc))
    return rules


def _one(value: Any) -> Any:
    """A single-source property (``cidrIpv4``) as a source list."""
    return UNKNOWN if value is UNKNOWN else [value] if value else []


def rule_resource(res: PulumiResource, props: Mapping[str, Any], index: Index) -> tuple[Any, SgRule, list]:
    """A standalone rule resource -> (its security group reference, the rule, its suppressions)."""
    loc = res.location
    direction: Any
    if res.type == SG_RULE:
        direction = text(props.get("type"), "type")
        if direction is None:
            direction = "ingress"  # required by the provider; the stricter reading
        elif direction is not UNKNOWN and direction not in ("ingress", "egress"):
            raise InputError(f'type: expected "ingress" or "egress", found {direction!r}')
        proto = _protocol(props.get("protocol"), "protocol")
        cidrs = texts(props.get("cidrBlocks"), "cidrBlocks")
        v6 = texts(props.get("ipv6CidrBlocks"), "ipv6CidrBlocks")
        prefix_lists = texts(props.get("prefixListIds"), "prefixListIds")
        src_prop = "sourceSecurityGroupId"
        self_flag = flag(props.get("self"), "self")
    else:
        direction = "ingress" if res.type == SG_INGRESS else "egress"
        proto = _protocol(props.get("ipProtocol"), "ipProtocol")
        cidrs = _one(text(props.get("cidrIpv4"), "cidrIpv4"))
        v6 = _one(text(props.get("cidrIpv6"), "cidrIpv6"))
        prefix_lists = _one(text(props.get("prefixListId"), "prefixListId"))
        src_prop = "referencedSecurityGroupId"
        self_flag = False
    lo, hi = _ports(proto, props, "")
    target = index.resolve(res, "securityGroupId", text(props.get("securityGroupId"), "securityGroupId"),
                           _SG_TYPES)
    source: Any = None
    if self_flag is UNKNOWN:
        source = UNKNOWN
    elif self_flag:
        source = target
    elif src_prop in props or res.property_dependencies.get(src_prop):
        source = index.resolve(res, src_prop, text(props.get(src_prop), src_prop), _SG_TYPES)
    self_ref = bool(self_flag is True or (source is not None and source is not UNKNOWN
                                          and target is not UNKNOWN and source == target))
    rule = SgRule(direction, proto, lo, hi, cidrs=cidrs, ipv6_cidrs=v6, prefix_lists=prefix_lists,
                  source_security_group=source, self_ref=self_ref, location=loc)
    return target, rule, suppressions(props, loc)


# ---------------------------------------------------------------------------------------------
# Launch templates, subnets, node groups
# ---------------------------------------------------------------------------------------------


@dataclass
class LaunchExtras:
    """What a node group takes from its launch template."""

    security_groups: Any = field(default_factory=list)
    efa: Any = False
    placement_group: Any = None
    instance_type: Any = None  # set in the template when the node group cannot (Capacity Blocks)
    public_ip: Any = None  # True when a network interface asks for a public IPv4; UNKNOWN; None: not asked


def launch_template(res: PulumiResource, props: Mapping[str, Any], index: Index
                    ) -> tuple[LaunchTemplate, LaunchExtras]:
    loc = res.location
    md = obj(props.get("metadataOptions"), "metadataOptions")
    if md is UNKNOWN:
        tokens: Any = UNKNOWN
        hops: Any = UNKNOWN
    else:
        tokens = text(md.get("httpTokens"), "metadataOptions.httpTokens")
        lo, hi = HOP_LIMIT_RANGE
        hops = whole(md.get("httpPutResponseHopLimit"), "metadataOptions.httpPutResponseHopLimit", lo, hi,
                     f"AWS accepts {lo} to {hi}")
    lt = LaunchTemplate(name=res.name, id=res.id or text(props.get("id"), "id"), http_tokens=tokens,
                        http_put_response_hop_limit=hops, location=loc, suppressions=suppressions(props, loc))
    extras = LaunchExtras()
    extras.instance_type = text(props.get("instanceType"), "instanceType")
    top = texts(props.get("vpcSecurityGroupIds"), "vpcSecurityGroupIds")
    groups_unknown = top is UNKNOWN
    groups: list[Any] = [] if groups_unknown else list(top)
    nics = objs(props.get("networkInterfaces"), "networkInterfaces")
    nic_groups: list[Any] = []
    if nics is UNKNOWN:
        groups_unknown = True
        extras.efa = extras.public_ip = UNKNOWN
    else:
        for i, nic in enumerate(nics):
            if nic is UNKNOWN:
                groups_unknown = True
                extras.efa = UNKNOWN
                if extras.public_ip is not True:
                    extras.public_ip = UNKNOWN
                continue
            if nic is None:  # AWS rejects an interface with no device index; it is not one interface fewer
                raise wrong(f"networkInterfaces[{i}]", "an object", nic)
            kind = text(nic.get("interfaceType"), f"networkInterfaces[{i}].interfaceType")
            if kind is UNKNOWN:
                extras.efa = UNKNOWN
            elif isinstance(kind, str) and kind.startswith("efa") and extras.efa is not UNKNOWN:
                extras.efa = True
            public = _public_ip(nic.get("associatePublicIpAddress"), f"networkInterfaces[{i}].associatePublicIpAddress")
            if public is True or (public is UNKNOWN and extras.public_ip is not True):
                extras.public_ip = public
            sgs = texts(nic.get("securityGroups"), f"networkInterfaces[{i}].securityGroups")
            if sgs is UNKNOWN:
                groups_unknown = True
            else:
                nic_groups.extend(sgs)
    refs = [*index.resolve_list(res, "vpcSecurityGroupIds", groups, _SG_TYPES),
            *index.resolve_list(res, "networkInterfaces", nic_groups, _SG_TYPES)]
    extras.security_groups = UNKNOWN if groups_unknown else list(dict.fromkeys(refs))
    placement = obj(props.get("placement"), "placement")
    if placement is UNKNOWN:
        extras.placement_group = UNKNOWN
    else:
        group_name = text(placement.get("groupName"), "placement.groupName")
        if group_name is not None or index.deps(res, "placement", (PLACEMENT_GROUP,)):
            ref = index.resolve(res, "placement", group_name, (PLACEMENT_GROUP,))
            if isinstance(ref, str) and ref in index.by_urn:
                pg_res, pg_props = index.by_urn[ref]
                ref = pg_props["name"] if isinstance(pg_props.get("name"), str) else pg_res.name
            extras.placement_group = ref
    return lt, extras


def _public_ip(value: Any, path: str) -> Any:
    """A launch template interface's ``associatePublicIpAddress``: the provider takes the strings "true" and
    "false" (a program may pass a boolean); True, False, UNKNOWN or None (not set)."""
    if value is None or value is UNKNOWN or isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise wrong(path, '"true" or "false"', value) if not isinstance(value, str) else InputError(
        f'{path}: expected "true" or "false", found {value!r}')


def subnet(res: PulumiResource, props: Mapping[str, Any]) -> Subnet:
    loc = res.location
    public = flag(props.get("mapPublicIpOnLaunch"), "mapPublicIpOnLaunch")
    return Subnet(
        name=res.name,
        id=res.id or text(props.get("id"), "id"),
        map_public_ip_on_launch=False if public is None else public,
        availability_zone=text(props.get("availabilityZone"), "availabilityZone"),
        location=loc,
        suppressions=suppressions(props, loc),
    )


def _capacity(value: Any) -> Any:
    if value is UNKNOWN or value is None:
        return value
    return str(value).lower().replace("_", "-")


def _labels(props: Mapping[str, Any]) -> tuple[dict[str, str], Any]:
    """A node group's ``labels``: the known ones, and the keys whose values are unknown (UNKNOWN
    when the whole map is)."""
    raw = obj(props.get("labels"), "labels")
    if raw is UNKNOWN:
        return {}, UNKNOWN
    labels: dict[str, str] = {}
    unknown: set[str] = set()
    for k, v in raw.items():
        value = text(v, f"labels.{k}", numbers=True)
        if value is UNKNOWN:
            unknown.add(str(k))
        elif value is not None:
            labels[str(k)] = value
    return labels, frozenset(unknown)


def _taints(props: Mapping[str, Any]) -> list[Taint]:
    """A node group's ``taints``; a taint with an unknown key, value or effect keeps it UNKNOWN
    (it is never dropped), and an unknown list reads as one taint of which nothing is known."""
    raw = objs(props.get("taints"), "taints")
    if raw is UNKNOWN:
        return [Taint(UNKNOWN, UNKNOWN, UNKNOWN)]
    taints: list[Taint] = []
    for i, t in enumerate(raw):
        if t is UNKNOWN:
            taints.append(Taint(UNKNOWN, UNKNOWN, UNKNOWN))
            continue
        if t is None:
            continue
        key = text(t.get("key"), f"taints[{i}].key")
        if key is None or key == "":
            raise InputError(f"taints[{i}].key: a taint needs a key")
        value = text(t.get("value"), f"taints[{i}].value")
        effect = text(t.get("effect"), f"taints[{i}].effect")
        if effect is None:
            raise InputError(f"taints[{i}].effect: a taint needs an effect (NO_SCHEDULE, NO_EXECUTE or "
                             "PREFER_NO_SCHEDULE)")
        if effect is not UNKNOWN:
            if effect not in _TAINT_EFFECTS:
                raise InputError(f"taints[{i}].effect: expected NO_SCHEDULE, NO_EXECUTE or PREFER_NO_SCHEDULE, "
                                 f"found {effect!r}")
            effect = _TAINT_EFFECTS[effect]
        taints.append(Taint(key, value, effect))
    return taints


def node_group(res: PulumiResource, props: Mapping[str, Any], index: Index,
               templates: Mapping[str, tuple[LaunchTemplate, LaunchExtras]]) -> list[NodePool]:
    loc = res.location
    labels, unknown_labels = _labels(props)
    ng_name = text(props.get("nodeGroupName"), "nodeGroupName")
    name = labels.get(LABEL_POOL) or (ng_name if isinstance(ng_name, str) and ng_name else res.name)
    labels.setdefault("eks.amazonaws.com/nodegroup", name)
    cap = text(props.get("capacityType"), "capacityType")
    if isinstance(cap, str):
        labels.setdefault("eks.amazonaws.com/capacityType", cap)
    taints = _taints(props)
    ami_type = text(props.get("amiType"), "amiType")
    subnets = index.resolve_list(res, "subnetIds", texts(props.get("subnetIds"), "subnetIds", nulls=False), (SUBNET,))
    lt_ref: Any = None
    extras = LaunchExtras()
    spec = obj(props.get("launchTemplate"), "launchTemplate")
    if spec is UNKNOWN:
        lt_ref = UNKNOWN
    elif props.get("launchTemplate") is not None:
        raw = text(spec.get("id"), "launchTemplate.id")
        if raw is None or raw is UNKNOWN:
            name_ref = text(spec.get("name"), "launchTemplate.name")
            raw = name_ref if name_ref is not None else raw
        lt_ref = index.resolve(res, "launchTemplate", raw, (LAUNCH_TEMPLATE,))
        if lt_ref is None:
            lt_ref = UNKNOWN
    if lt_ref is UNKNOWN:
        extras = LaunchExtras(security_groups=UNKNOWN, efa=UNKNOWN, placement_group=UNKNOWN)
    elif isinstance(lt_ref, str) and lt_ref in templates:
        extras = templates[lt_ref][1]
    elif lt_ref is not None:  # a launch template not in the inputs: nothing of it is known
        extras = LaunchExtras(security_groups=UNKNOWN, efa=UNKNOWN, placement_group=UNKNOWN)

    types = texts(props.get("instanceTypes"), "instanceTypes")
    instance_types: list[Any] = [UNKNOWN] if types is UNKNOWN else list(types)
    if not instance_types and extras.instance_type is not None:  # e.g. a Capacity Block node group
        instance_types = [extras.instance_type]
    variants: list[tuple[str, Any]] = [(name, t) for t in instance_types[:1]] or [(name, None)]
    if len({str(t) for t in instance_types}) > 1:  # one pool per instance type the group may launch
        variants = [(f"{name}/{t}", t) for t in dict.fromkeys(instance_types)]

    pools = []
    supp = suppressions(props, loc)
    for pool_name, itype in variants:
        pool_labels = dict(labels)
        if isinstance(itype, str):
            pool_labels.setdefault(INSTANCE_TYPE, itype)
        pool = pool_from_labels(pool_name, pool_labels, loc, taints, kind="eks-nodegroup")
        pool.unknown_labels = unknown_labels
        if itype is UNKNOWN:
            pool.instance_type = UNKNOWN
            if pool.gpu is None and pool.gpus_per_node is None:
                pool.gpus_per_node = UNKNOWN
                pool.gpu_memory_gib = UNKNOWN
        pool.capacity_type = _capacity(cap)
        pool.ami_type = ami_type
        pool.subnets = subnets
        pool.launch_template = lt_ref
        pool.public_ip = extras.public_ip
        pool.security_groups = extras.security_groups
        # EFA interfaces come from the launch template (the instance type only says they are possible)
        pool.efa = extras.efa
        if extras.efa is None and LABEL_EFA in pool_labels:
            pool.efa = pool_labels[LABEL_EFA].strip().lower() == "true"
        pool.placement_group = extras.placement_group
        pool.suppressions = list(supp)
        pools.append(pool)
    return pools


__all__ = ["IGNORE_TAG", "Index", "LaunchExtras", "launch_template", "node_group", "rule_resource",
           "security_group", "subnet", "suppressions", "wrong"]
