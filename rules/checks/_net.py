"""Shared helpers for the network, security and reliability rules (SW3xx, SW4xx).

Lookups across the inventory (which security groups, subnets and launch template a node pool uses;
which serving groups a Service selects) and the facts the rules compare against: the distributed
runtime ports, the Linux ephemeral port range NCCL draws from, what counts as "the whole internet".
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..model import (
    UNKNOWN,
    UNKNOWN_NAMESPACE,
    Autoscaler,
    Ingress,
    Inventory,
    LaunchTemplate,
    NodePool,
    SecurityGroup,
    Service,
    ServingGroup,
    SgRule,
    Subnet,
    Undecidable,
    is_unknown,
    known,
)

if TYPE_CHECKING:
    import ipaddress

#: Ports of the distributed runtimes that vLLM, PyTorch and Ray document as unauthenticated, at their
#: defaults: Ray's GCS (``ray start --port``), dashboard, client server and dashboard agent
#: (docs.ray.io, "Configuring Ray" and "Port Service Discovery"); torch.distributed's store and vLLM's
#: data-parallel master (``data_parallel_master_port``), vLLM's native multi-node launcher
#: (``--master-port``, ParallelConfig.master_port) and data-parallel RPC port (``data_parallel_rpc_port``)
#: (vllm/config/parallel.py); the KV-transfer port (KVTransferConfig.kv_port) and the NIXL and Mooncake
#: handshake ports (VLLM_NIXL_SIDE_CHANNEL_PORT, VLLM_MOONCAKE_BOOTSTRAP_PORT in vllm/envs.py). Ray's
#: node and object managers, its workers and NCCL take random ports from the ephemeral range.
RUNTIME_PORTS: dict[int, str] = {
    5600: "vLLM NIXL side channel",
    6379: "Ray GCS",
    8265: "Ray dashboard",
    8998: "vLLM Mooncake bootstrap",
    10001: "Ray client",
    14579: "vLLM KV transfer",
    29500: "torch.distributed / vLLM data-parallel master",
    29501: "vLLM multi-node master (--master-port)",
    29550: "vLLM data-parallel RPC",
    52365: "Ray dashboard agent",
}
#: Linux's default ``net.ipv4.ip_local_port_range``: where NCCL's bootstrap and socket ports come from.
EPHEMERAL_PORTS = (32768, 60999)
#: A rule opening at least this many ports is treated as covering NCCL's unpinnable ports.
WIDE_RANGE = 1000
WORLD = ("0.0.0.0/0", "::/0")
#: Service types that make a port reachable from outside the cluster.
EXTERNAL_SERVICE_TYPES = ("LoadBalancer", "NodePort")


# --- lookups ---------------------------------------------------------------------------------

def _matches(obj: Any, ref: Any) -> bool:
    if not isinstance(ref, str) or not ref:
        return False
    return ref in (obj.id, obj.name, obj.location.urn)


def find_security_group(inv: Inventory, ref: Any) -> SecurityGroup | None:
    for sg in inv.security_groups:
        if _matches(sg, ref):
            return sg
    return None


def find_subnet(inv: Inventory, ref: Any) -> Subnet | None:
    for s in inv.subnets:
        if _matches(s, ref):
            return s
    return None


def find_launch_template(inv: Inventory, ref: Any) -> LaunchTemplate | None:
    for lt in inv.launch_templates:
        if _matches(lt, ref):
            return lt
    return None


def pool_security_groups(inv: Inventory, pool: NodePool) -> tuple[list[SecurityGroup], list[str]]:
    """The pool's security groups found in the inventory, and the references that were not.

    Raises :class:`Undecidable` when the references themselves are unknown (a computed output).
    """
    refs = known(pool.security_groups, f"the security-group list of node pool `{pool.name}`")
    found: list[SecurityGroup] = []
    missing: list[str] = []
    for ref in refs:
        ref = known(ref, f"a security group of node pool `{pool.name}`")
        sg = find_security_group(inv, ref)
        if sg is None:
            missing.append(str(ref))
        elif sg not in found:
            found.append(sg)
    return found, missing


def is_self_source(sg: SecurityGroup, rule: SgRule) -> bool:
    if rule.self_ref:
        return True
    src = rule.source_security_group
    return isinstance(src, str) and bool(src) and src in (sg.id, sg.name, sg.location.urn)


def is_all_traffic(rule: SgRule) -> bool:
    """Protocol "-1" (all). "tcp 0-65535" is not all traffic: EFA's SRD is neither TCP nor UDP."""
    return known(rule.protocol, "protocol of a security group rule") in ("-1", "all")


def runtime_ports_covered(rule: SgRule) -> list[str]:
    """The runtime ports (and NCCL's ephemeral range) that an ingress rule opens, as phrases."""
    proto = known(rule.protocol, "protocol of a security group rule")
    if proto not in ("-1", "all", "tcp", "6"):
        return []
    if proto in ("-1", "all"):
        lo, hi = 0, 65535
    else:
        lo = int(known(rule.from_port, "from_port of a security group rule"))
        hi = int(known(rule.to_port, "to_port of a security group rule"))
    out = [f"{name} {port}" for port, name in sorted(RUNTIME_PORTS.items()) if lo <= port <= hi]
    if hi - lo + 1 >= WIDE_RANGE and lo <= EPHEMERAL_PORTS[1] and hi >= EPHEMERAL_PORTS[0]:
        out.append("NCCL's ephemeral ports")
    return out


def networks(cidrs: Iterable[Any]) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    """The networks of CIDR strings, however spelled (``0::0/0``, ``10.0.0.1/8``); unparsable ones are left
    out (the adapters reject them as input errors)."""
    import ipaddress  # only when a security group is checked: not on the manifest start-up path

    out: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = []
    for c in cidrs:
        if isinstance(c, str):
            try:
                out.append(ipaddress.ip_network(c.strip(), strict=False))
            except ValueError:
                continue
    return out


def world_families(cidrs: Iterable[Any]) -> list[str]:
    """``["IPv4"]``, ``["IPv6"]`` or both when the union of ``cidrs`` covers every address of that family
    (``0.0.0.0/0``, ``0::0/0``, or ranges such as ``0.0.0.0/1`` + ``128.0.0.0/1``)."""
    import ipaddress

    nets = networks(cidrs)
    out = []
    for version, name, everything in ((4, "IPv4", ipaddress.ip_network("0.0.0.0/0")),
                                      (6, "IPv6", ipaddress.ip_network("::/0"))):
        family = [n for n in nets if n.version == version]
        if family and list(ipaddress.collapse_addresses(family)) == [everything]:  # type: ignore[type-var]
            out.append(name)
    return out


def is_world(cidr: Any) -> bool:
    """Whether one CIDR is the whole internet, however spelled."""
    return bool(world_families([cidr]))


def opens_port(rule: SgRule, port: int) -> bool:
    """Whether an ingress rule opens TCP ``port`` (protocol tcp or all traffic)."""
    proto = known(rule.protocol, "protocol of a security group rule")
    if proto in ("-1", "all"):
        return True
    if proto not in ("tcp", "6"):
        return False
    lo = int(known(rule.from_port, "from_port of a security group rule"))
    hi = int(known(rule.to_port, "to_port of a security group rule"))
    return lo <= port <= hi


def describe_rule_ports(rule: SgRule) -> str:
    if rule.protocol in ("-1", "all"):
        return "all traffic"
    lo, hi = rule.from_port, rule.to_port
    port = f"{lo}" if lo == hi else f"{lo}-{hi}"
    return f"{rule.protocol} {port}"


def rule_sources(sg: SecurityGroup, rule: SgRule) -> list[str]:
    """Every source of an ingress rule other than the group itself, as phrases ("0.0.0.0/0")."""
    cidrs = known(rule.cidrs, "cidr_blocks of a security group rule")
    v6 = known(rule.ipv6_cidrs, "ipv6_cidr_blocks of a security group rule")
    out = [str(known(c, "a CIDR block of a security group rule")) for c in [*cidrs, *v6]]
    prefix_lists = known(rule.prefix_lists, "prefix_list_ids of a security group rule")
    out += [f"prefix list `{known(p, 'a prefix list of a security group rule')}`" for p in prefix_lists]
    src = rule.source_security_group
    if src is UNKNOWN:
        if not rule.self_ref:
            raise Undecidable(f"source security group of an ingress rule of `{sg.name}`")
    elif src and not is_self_source(sg, rule):
        out.append(f"security group `{src}`")
    return out


# --- workloads -------------------------------------------------------------------------------

def selects(service: Service, g: ServingGroup) -> bool:
    """Whether a Service's selector matches the pods of a serving group (same namespace).

    Raises :class:`Undecidable` when the answer depends on a value not known yet (at preview): the
    selector, the pods' labels, or the namespace of either.
    """
    namespaces = (service.namespace, g.namespace)
    if service.namespace != g.namespace and UNKNOWN_NAMESPACE not in namespaces:
        return False
    selector = service.selector
    if is_unknown(selector):
        raise Undecidable(f"the selector of {service.kind} `{service.name}`")
    if not selector:
        return False
    labels = g.pod_labels
    if is_unknown(labels):
        raise Undecidable(f"the label set of the pods of {g.kind} `{g.name}`")
    if not all(labels.get(k) == v for k, v in selector.items()):
        return False
    if service.namespace != g.namespace:
        raise Undecidable(f"the namespace of {service.kind} `{service.name}` or of {g.kind} `{g.name}`")
    return True


def routed_ports(ing: Ingress, svc: Service) -> list[Any]:
    """The ports ``ing`` routes to Service ``svc``: those its backends that name it write
    (:attr:`Ingress.service_ports`), else (none written, a Service of another namespace, a backend a preview
    computes) every port it routes to (review49: ``ing.ports`` pools them over its backends)."""
    own = ing.service_ports.get(svc.name) if svc.namespace == ing.namespace else None
    return own if own and UNKNOWN not in ing.ports else ing.ports


def routed_targets(ing: Ingress, svc: Service) -> list[Any]:
    """The target ports of ``svc`` that ``ing`` may send traffic to: those of the Service ports it routes to this
    Service (:func:`routed_ports`, by number or by name), a port not known yet among them; all of them where it writes
    no port for it, or where the Service's ports and target ports do not pair up. One reading for SW301 and SW306
    (review50: SW306 judged every target port of a Service, so a port only in-cluster clients use, on vLLM itself,
    made an Ingress routed only to an oauth2-proxy sidecar's port block)."""
    routed = routed_ports(ing, svc)
    targets: list[Any] = []
    if len(svc.ports) == len(svc.target_ports):
        targets += [t for p, t in zip(svc.ports, svc.target_ports, strict=True)  # a port not known
                    if not routed or p in routed or p is UNKNOWN]  # may be the one routed to
    else:
        targets += svc.target_ports
    targets += [t for n, t in svc.port_names.items() if n in routed]
    return targets


def fronting_containers(svc: Service, g: ServingGroup, targets: list[Any] | None = None) -> list[str]:
    """The containers of ``g`` other than vLLM's that receive all of ``svc``'s traffic (an authenticating proxy
    sidecar such as oauth2-proxy in front of vLLM), as ``name (port)``; empty when a target port reaches a vLLM
    container, is declared by no container of the pod, or is not known yet (the traffic may reach vLLM). Only the
    target ports ``targets`` where given (those a route sends to: :func:`routed_targets`) and it names one; every
    target port of the Service otherwise."""
    fronts: list[str] = []
    if any(c.port_names.get("*") is UNKNOWN for c in g.containers):
        return []  # a container's ports are not all known yet: one of them may be the target
    for target in targets or svc.target_ports:
        if target is UNKNOWN or isinstance(target, bool) or target is None:
            return []
        number = target if isinstance(target, int) else int(target) if str(target).strip().isdigit() else None
        owners = [c for c in g.containers
                  if (number in c.ports if number is not None else str(target).strip() in c.port_names)]
        if not owners or any(c.runs_vllm for c in owners):
            return []
        port = number if number is not None else owners[0].port_names[str(target).strip()]
        fronts.append(f"`{owners[0].name}` (port {port})")
    return sorted(set(fronts))


def services_in(inv: Inventory, namespace: object) -> list[Service]:
    """The Services of ``inv`` whose namespace is ``namespace``, in input order (an index built once per
    inventory and rebuilt when Services were added: a rule asking this per workload stays linear). Of every
    deployable unit: a caller judging a group keeps those of its unit (``Inventory.same_unit``)."""
    index = inv.index.get("services")
    if index is None or index[0] != len(inv.services):
        by_ns: dict[object, list[Service]] = {}
        for s in inv.services:
            by_ns.setdefault(s.namespace, []).append(s)
        index = (len(inv.services), by_ns)
        inv.index["services"] = index
    return index[1].get(namespace, [])


def selectable(inv: Inventory, service: Service) -> list[ServingGroup]:
    """The serving groups of ``inv`` for which :func:`selects` of ``service`` may be true or may raise, in input
    order: every other group gives false without raising. ``[g for g in selectable(inv, s) if selects(s, g)]``
    is ``[g for g in inv.groups if selects(s, g)]``, and raises the same :class:`Undecidable` where that does
    (the first group in input order that raises is among these). See :func:`_by_first_label`. Only the groups of the
    Service's own deployable unit (``Inventory.same_unit``): a Service of one repository or stack never selects the
    pods of another's (place16)."""
    found = _by_first_label(inv, "groups", inv.groups, service.selector, lambda g: g.pod_labels)
    return [g for g in found if inv.same_unit(service.location.file, g.location.file)] if inv.units else found


def selectable_pods(inv: Inventory, service: Service) -> list[Any]:
    """The entries of ``inv.pod_ports`` whose labels may match the selector of ``service``, in input order: every
    other entry's labels are known and miss the selector's first label or give it another string. Only those of the
    Service's own deployable unit, as :func:`selectable` (readers17: a named ``targetPort`` resolves on the pods the
    Service selects, Kubernetes' endpoints of its own cluster; another checkout's pod of the same labels named
    ``http`` another port)."""
    found = _by_first_label(inv, "pod_ports", inv.pod_ports, service.selector, lambda p: p.labels)
    return [p for p in found if inv.same_unit(service.location.file, p.location.file)] if inv.units else found


def _by_first_label(inv: Inventory, what: str, items: list[Any], selector: Any, labels_of: Any) -> list[Any]:
    """``items`` less those whose labels are known and whose value of the label the selector names first is
    missing or another string (their labels cannot match a selector, which needs every label it names); items
    with unknown labels, or a value of that label that is not a string, are kept, and all of them where the
    selector is unknown or not a mapping with a string first value; none for an empty selector (it selects
    nothing). An index by label, built once per inventory, ``what`` and label name and rebuilt when items were
    added: a rule asking this for every Service of a stack stays linear (it compared every workload with every
    Service: 138 Services behind one Ingress, 19,044 comparisons of the groups and as many of the pods)."""
    if selector is UNKNOWN or not isinstance(selector, dict):
        return items
    if not selector:
        return []
    key, value = next(iter(selector.items()))
    if not isinstance(value, str):
        return items
    name = f"{what}_by_label"
    index = inv.index.get(name)
    if index is None or index[0] != len(items):
        index = (len(items), {})
        inv.index[name] = index
    by_key: dict[Any, tuple[dict[str, list[int]], list[int]]] = index[1]
    found = by_key.get(key)
    if found is None:
        by_value: dict[str, list[int]] = {}
        others: list[int] = []  # unknown labels, or a value of the label that is not a string: always kept
        for i, item in enumerate(items):
            labels = labels_of(item)
            label = labels.get(key) if isinstance(labels, dict) else UNKNOWN
            if isinstance(label, str):
                by_value.setdefault(label, []).append(i)
            elif label is not None:
                others.append(i)
        found = by_key[key] = (by_value, others)
    by_value, others = found
    picked = by_value.get(value, [])
    positions = sorted([*picked, *others]) if others else picked
    return [items[i] for i in positions]


def services_of(inv: Inventory, g: ServingGroup) -> list[Service]:
    return [s for s in inv.services if inv.same_unit(s.location.file, g.location.file) and selects(s, g)]


#: The suffix of the Service KServe makes for an InferenceService's predictor (``<name>-predictor``, a Kubernetes
#: Service in RawDeployment mode, the Knative Service's in Serverless mode; pkg/constants.PredictorServiceName).
PREDICTOR_SERVICE = "-predictor"


class OutsideInputs(Undecidable):
    """Whether a route sends to a backend of another namespace is not known only for want of a ReferenceGrant that
    the inputs do not hold (one applied apart from them may permit it): what lies outside the inputs is no value
    they write, so a finding on it says "cannot decide" and never blocks (mend16)."""


def backends(inv: Inventory, ing: Ingress) -> list[tuple[str, str, list[Service], Undecidable | None]]:
    """What an Ingress or route sends to, backend by backend: its InferencePools of the inputs, then the Services it
    names, each as (the kind, the name written, the objects of the inputs and of its deployable unit it names, None
    where it surely sends there or why that is not known). A backendRef names an object of the route's namespace, or
    of the one it writes (:class:`RemoteRef`): one there the ReferenceGrants of the inputs do not permit, while they
    hold grants of that namespace, is left out (the Gateway configures no such backend: RefNotPermitted); one whose
    grant is not in the inputs, or whose namespace is not known yet, names its objects with why it is not known.
    One list for every rule that asks, so a pool and a Service are judged alike (the two loops of
    :func:`judged_behind` and the two lists of :func:`routes_to` were one each)."""
    out: list[tuple[str, str, list[Service], Undecidable | None]] = []
    pools = [("InferencePool", p.name, [p]) for p in ing.pools if inv.same_unit(ing.location.file, p.location.file)]
    named = [("Service", n, fronted(inv, ing, n)) for n in ing.services]
    for kind, name, found in [*pools, *named]:
        local = [s for s in found if s.namespace == ing.namespace and (kind == "Service" or name in ing.pool_refs)]
        if local or not found:
            out.append((kind, name, local, None))
        for s in (s for s in found if not any(s is x for x in local)):  # a pool of another namespace's ref
            out.extend(_remote(ing, kind, s))
    if ing.remote_refs:
        for s in inv.services:
            if inv.same_unit(ing.location.file, s.location.file):
                out.extend(_remote(ing, "Service", s))
    return out


def _remote(ing: Ingress, kind: str, s: Service) -> list[tuple[str, str, list[Service], Undecidable | None]]:
    """``s`` as a backend of ``ing`` through its backendRefs to another namespace: none where none names it or the
    grants say the route does not send there."""
    refs = [r for r in ing.remote_refs if r.kind == kind and r.name == s.name and r.permitted is not False
            and r.namespace in (s.namespace, UNKNOWN_NAMESPACE)]
    if not refs:
        return []
    if any(r.permitted is True for r in refs):
        return [(kind, s.name, [s], None)]
    ref = refs[0]
    why = f"whether {ing.kind} `{ing.namespace}/{ing.name}` sends to {kind} `{s.namespace}/{s.name}`"
    return [(kind, s.name, [s], OutsideInputs(why, str(ref.permitted)) if ref.outside
             else Undecidable(why, str(ref.permitted)))]


def judged_behind(inv: Inventory, ing: Ingress) -> tuple[list[tuple[Service, ServingGroup]],
                                                         list[tuple[Service, ServingGroup, Undecidable]]]:
    """The (Service, serving group) pairs an Ingress routes to (the Services and InferencePools of the inputs its
    :func:`backends` name, and the Service KServe makes for an InferenceService's predictor, which no input holds,
    standing in for it: :func:`predictor_stand_ins`), judged pair by pair: (the pairs the Ingress surely routes to, the
    pairs it may route to whose answer is not known yet, each with its :class:`Undecidable`), both in input order.
    One group's unknown labels do not hide another group's sure answer, and no answer depends on the other groups'
    input order (small16: SW306 and SW406 asked ``groups_behind``, which raised at the first group whose labels were
    unknown; it is gone). Only the Services and groups of the Ingress's own deployable unit count (place16)."""
    sure: list[tuple[Service, ServingGroup]] = []
    unsure: list[tuple[Service, ServingGroup, Undecidable]] = []
    named = backends(inv, ing)
    for _kind, _name, found, why in named:
        for s in found:
            for g in selectable(inv, s):
                try:
                    if selects(s, g):
                        if why is None:
                            sure.append((s, g))
                        else:
                            unsure.append((s, g, why))
                except Undecidable as u:
                    unsure.append((s, g, u))
    for s, g, why in predictor_stand_ins(inv, ing, named):
        if why is None:
            sure.append((s, g))
        else:
            unsure.append((s, g, why))
    return sure, unsure


def predictor_stand_ins(inv: Inventory, ing: Ingress, named: list[tuple[str, str, list[Service], Undecidable | None]]
                        ) -> list[tuple[Service, ServingGroup, Undecidable | None]]:
    """The Services KServe makes for an InferenceService's predictor that ``ing`` names and no input holds, standing
    in for them, each with the InferenceService of the inputs (and of the route's deployable unit) whose it is, and
    None where the route surely sends there or why that is not known: a backend named ``<isvc>-predictor`` of the
    route's namespace, or of the namespace its backendRef names (an HTTPRoute of the gateway's namespace in front of
    an InferenceService of the model's namespace, sent there where a ReferenceGrant permits it, as a Service of the
    inputs is: :func:`_remote`). Only the route's own namespace stood in (mend23)."""
    out: list[tuple[Service, ServingGroup, Undecidable | None]] = []
    wanted: list[tuple[str, str, Undecidable | None]] = []
    for kind, name, found, _why in named:  # what backends(inv, ing) gave
        if not found and kind == "Service" and name.endswith(PREDICTOR_SERVICE) and name in ing.services:
            wanted.append((ing.namespace, name, None))
    for r in ing.remote_refs:
        if r.kind != "Service" or not r.name.endswith(PREDICTOR_SERVICE) or r.permitted is False:
            continue
        if any(s.name == r.name and r.namespace in (s.namespace, UNKNOWN_NAMESPACE) for s in inv.services
               if inv.same_unit(ing.location.file, s.location.file)):
            continue  # the Service is in the inputs: judged as one (backends)
        why: Undecidable | None = None
        if r.permitted is not True:
            what = f"whether {ing.kind} `{ing.namespace}/{ing.name}` sends to Service `{r.namespace}/{r.name}`"
            why = OutsideInputs(what, str(r.permitted)) if r.outside else Undecidable(what, str(r.permitted))
        wanted.append((r.namespace, r.name, why))
    for namespace, name, why in wanted:
        isvc = name[:-len(PREDICTOR_SERVICE)]
        for g in inv.groups:
            if (g.kind == "InferenceService" and g.name == isvc and namespace in (g.namespace, UNKNOWN_NAMESPACE)
                    and inv.same_unit(ing.location.file, g.location.file)):
                stand_in = Service(name, g.namespace, location=g.location)
                if namespace == UNKNOWN_NAMESPACE and why is None:
                    why = Undecidable(f"the namespace of Service `{name}`")
                out.append((stand_in, g, why))
    return out


def is_mesh_parent(ref: dict[str, Any]) -> bool:
    """Whether a route's parentRef is a Service (GAMMA, the Gateway API's service mesh binding: gateway-api v1.2.0
    geps/gep-1426, ``kind: Service`` with the core group, written ``""`` by Istio's documentation and ``core`` by
    Linkerd's): the route then applies to the traffic that clients in the mesh send to that Service, east-west, and
    no Gateway publishes it."""
    return ref.get("kind") == "Service"


def mesh_only(ing: Ingress) -> bool:
    """Whether ``ing`` is an HTTPRoute whose every parentRef is a Service (:func:`is_mesh_parent`): it routes no
    traffic from outside the cluster (what reaches the parent Service from outside reaches it as that Service's own,
    judged on the Service), and it is no gateway in front of its backends (mend23: SW301 said such a route "routes
    outside traffic" to a runtime port, and SW312 took it for a gateway in front)."""
    return ing.kind == "HTTPRoute" and bool(ing.parent_refs) and all(is_mesh_parent(p) for p in ing.parent_refs)


def fronted(inv: Inventory, ing: Ingress, name: str) -> list[Service]:
    """The Services of ``inv`` named ``name`` in the namespace of ``ing`` and of its deployable unit."""
    return [s for s in inv.services if s.name == name and s.namespace == ing.namespace
            and inv.same_unit(ing.location.file, s.location.file)]


def routes_to(inv: Inventory, ing: Ingress, g: ServingGroup, mesh: bool = False) -> bool:
    """Whether an Ingress routes to serving group ``g`` (a sure pair of :func:`judged_behind` holds ``g``), asking
    :func:`selects` of ``g`` only: raises :class:`Undecidable` when a Service the Ingress names may select ``g``
    and that is not known yet, never for another group's unknown labels (so the answer for one group does not
    depend on the other groups or on their input order). A mesh route (:func:`mesh_only`) routes to none, unless
    ``mesh``: then it is asked as any route is (what a finding says is there)."""
    undecided: Undecidable | None = None
    if not inv.same_unit(ing.location.file, g.location.file) or (mesh_only(ing) and not mesh):
        return False  # another repository's or stack's Ingress (place16); a mesh route is no gateway in front
    named = backends(inv, ing)
    for _kind, _name, found, why in named:
        for s in found:
            if not inv.same_unit(s.location.file, g.location.file):
                continue
            try:
                if selects(s, g):
                    if why is None:
                        return True
                    undecided = undecided or why
            except Undecidable as u:
                undecided = undecided or u
    for _s, x, why in predictor_stand_ins(inv, ing, named):
        if x is g:
            if why is None:
                return True
            undecided = undecided or why
    if undecided is not None:
        try:
            raise undecided
        finally:  # not kept in this frame, which the raised value's traceback holds: no reference cycle
            undecided = None
    return False


def is_multi_node(g: ServingGroup) -> bool:
    pods = g.pods_per_group
    if pods is UNKNOWN:
        return g.kind in ("LeaderWorkerSet", "VllmMultiNode")
    return (isinstance(pods, int) and pods > 1) or g.kind in ("LeaderWorkerSet", "VllmMultiNode")


def targets(inv: Inventory, a: Autoscaler) -> list:
    """The serving groups an autoscaler scales (by target name and namespace)."""
    return [g for g in inv.groups if g.kind != "plan" and g.name == a.target_name
            and g.namespace == a.namespace]


def ami_family(ami: object) -> str | None:
    """The OS family of an EKS managed node group's amiType: "AL2", "AL2023", "Bottlerocket", or None (not set, or
    another: Windows, CUSTOM)."""
    if not isinstance(ami, str):
        return None
    word = ami.strip().upper()
    if word.startswith("AL2023_"):
        return "AL2023"
    if word.startswith("AL2_"):
        return "AL2"
    if word.startswith("BOTTLEROCKET_"):
        return "Bottlerocket"
    return None
