"""Networking objects: Service, Ingress, Gateway API HTTPRoute and NetworkPolicy."""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Any

from ...model import UNKNOWN, Ingress, Inventory, Location, NetworkPolicy, Service
from ...model.errors import InputError
from .fields import as_list, as_map, line_of, read_annotations, str_map, suppressions_from, typed_items, typed_map

#: The Service types Kubernetes accepts, spelled exactly so: the API server rejects any other spelling
#: ("loadbalancer", "Loadbalancer", "LoadBalancer " with a space, full-width letters).
SERVICE_TYPES = ("ClusterIP", "NodePort", "LoadBalancer", "ExternalName")


def _service_type(spec: Mapping[str, Any], loc: Location) -> Any:
    value = spec.get("type")
    if value is None or value is UNKNOWN:
        return "ClusterIP" if value is None else UNKNOWN
    if value in SERVICE_TYPES:
        return value
    close = next((t for t in SERVICE_TYPES
                  if isinstance(value, str) and unicodedata.normalize("NFKC", value).strip().lower() == t.lower()),
                 None)
    hint = f"; did you mean {close}?" if close else ""
    raise InputError(f"spec.type: {value!r} is not a Service type Kubernetes accepts "
                     f"({', '.join(SERVICE_TYPES)}, spelled exactly){hint}",
                     loc.file, line_of(spec, "type") or loc.line)


def add_service(obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    meta = as_map(obj.get("metadata"))
    spec = typed_map(obj, "spec", "spec", loc)
    ann, lines = read_annotations(meta)
    ports, targets = [], []
    names: dict[str, Any] = {}
    for p in typed_items(spec, "ports", "spec.ports", loc):
        port = p.get("port")
        if isinstance(port, int):
            ports.append(port)
        target = p.get("targetPort", port)
        targets.append(target)
        if isinstance(p.get("name"), str):
            names[p["name"]] = target
    inv.services.append(Service(
        name=str(meta.get("name") or "unnamed"),
        namespace=str(meta.get("namespace") or "default"),
        type=_service_type(spec, loc),
        ports=ports,
        target_ports=targets,
        selector=str_map(spec.get("selector")),
        annotations=ann,
        location=loc,
        suppressions=suppressions_from(ann, lines, loc.file, loc.line),
        port_names=names,
        type_location=Location(loc.file, line_of(spec, "type")) if "type" in spec and line_of(spec, "type") else None,
    ))


def _backend(b: Any, services: list[str], ports: list[Any]) -> None:
    b = as_map(b)
    svc = as_map(b.get("service"))
    name = svc.get("name") or b.get("serviceName")
    if name:
        services.append(str(name))
        port = as_map(svc.get("port"))
        value = port.get("number", port.get("name")) if port else b.get("servicePort")
        if value is not None:
            ports.append(value)


def add_ingress(obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    meta, spec = as_map(obj.get("metadata")), as_map(obj.get("spec"))
    ann, lines = read_annotations(meta)
    services: list[str] = []
    ports: list[Any] = []
    _backend(spec.get("defaultBackend") or spec.get("backend"), services, ports)
    for rule in as_list(spec.get("rules")):
        for path in as_list(as_map(as_map(rule).get("http")).get("paths")):
            _backend(as_map(path).get("backend"), services, ports)
    inv.ingresses.append(Ingress(
        name=str(meta.get("name") or "unnamed"), namespace=str(meta.get("namespace") or "default"),
        kind="Ingress", annotations=ann, services=services, ports=ports, location=loc,
        suppressions=suppressions_from(ann, lines, loc.file, loc.line),
    ))


def add_http_route(obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    meta, spec = as_map(obj.get("metadata")), as_map(obj.get("spec"))
    ann, lines = read_annotations(meta)
    services: list[str] = []
    ports: list[Any] = []
    for rule in as_list(spec.get("rules")):
        for ref in as_list(as_map(rule).get("backendRefs")):
            ref = as_map(ref)
            if ref.get("name"):
                services.append(str(ref["name"]))
                if ref.get("port") is not None:
                    ports.append(ref["port"])
    inv.ingresses.append(Ingress(
        name=str(meta.get("name") or "unnamed"), namespace=str(meta.get("namespace") or "default"),
        kind="HTTPRoute", annotations=ann, services=services, ports=ports, location=loc,
        suppressions=suppressions_from(ann, lines, loc.file, loc.line),
    ))


def add_network_policy(obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    meta, spec = as_map(obj.get("metadata")), as_map(obj.get("spec"))
    sel = as_map(spec.get("podSelector"))
    pod_selector = str_map(sel.get("matchLabels"))
    # matchExpressions cannot be folded into labels; record them so the policy is never mistaken
    # for one that selects every pod (a selector a pod's labels cannot equal is the safe reading).
    for e in as_list(sel.get("matchExpressions")):
        e = as_map(e)
        if e.get("key"):
            values = ",".join(str(v) for v in as_list(e.get("values")))
            pod_selector[str(e["key"])] = f"{e.get('operator', 'In')}({values})"
    ingress = as_list(spec.get("ingress"))
    egress = as_list(spec.get("egress"))
    types = [str(t) for t in as_list(spec.get("policyTypes"))]
    if not types:
        types = ["Ingress"] + (["Egress"] if egress else [])
    inv.network_policies.append(NetworkPolicy(
        name=str(meta.get("name") or "unnamed"), namespace=str(meta.get("namespace") or "default"),
        pod_selector=pod_selector, policy_types=types, ingress_rules=len(ingress), egress_rules=len(egress),
        location=loc, open_ingress=any(_admits_everyone(r) for r in ingress),
    ))


def _admits_everyone(rule: Any) -> bool:
    """An ingress rule of a NetworkPolicy that admits every source: no ``from`` at all, a peer of every
    namespace (``namespaceSelector: {}`` with no narrower podSelector) or an ipBlock of the whole internet."""
    peers = as_map(rule).get("from")
    if not peers:
        return True
    for peer in as_list(peers):
        peer = as_map(peer)
        ns_sel, pod_sel = peer.get("namespaceSelector"), peer.get("podSelector")
        if ns_sel is not None and not as_map(ns_sel) and not as_map(pod_sel):
            return True
        block = as_map(peer.get("ipBlock"))
        if str(block.get("cidr", "")).strip() in ("0.0.0.0/0", "::/0") and not block.get("except"):
            return True
    return False

