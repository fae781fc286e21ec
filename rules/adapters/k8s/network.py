"""Networking objects: Service, Ingress, Gateway API HTTPRoute and NetworkPolicy."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...model import Ingress, Inventory, Location, NetworkPolicy, Service
from .fields import as_list, as_map, read_annotations, str_map, suppressions_from


def add_service(obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    meta, spec = as_map(obj.get("metadata")), as_map(obj.get("spec"))
    ann, lines = read_annotations(meta)
    ports, targets = [], []
    for p in as_list(spec.get("ports")):
        p = as_map(p)
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
        selector=str_map(spec.get("selector")),
        annotations=ann,
        location=loc,
        suppressions=suppressions_from(ann, lines, loc.file, loc.line),
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
        location=loc,
    ))

