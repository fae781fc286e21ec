"""Network policies beyond the Kubernetes kind: Cilium, Calico, AdminNetworkPolicy and
BaselineAdminNetworkPolicy -> :class:`NetworkPolicy` with ``denies_all_ingress`` decided here.

A policy counts as a namespace's default deny for ingress when it selects every pod of the
namespace and, by itself, lets no ingress traffic in (or denies it from everywhere), the way each
project documents its default-deny policy:

- Cilium (``cilium.io/v2``): a rule (``spec`` or one of ``specs``) with an empty ``endpointSelector``
  whose ``ingress`` rules are all empty (``ingress: [{}]``), or an ``ingressDeny`` rule from the
  entity ``all``; unless ``enableDefaultDeny.ingress`` is false. A CiliumClusterwideNetworkPolicy
  covers every namespace with an empty selector, or the namespaces its selector names through the
  ``k8s:io.kubernetes.pod.namespace`` label.
- Calico (``projectcalico.org/v3``): a selector of every pod (absent, empty or ``all()``), ingress
  among its types, and no ingress rule other than an unconditional ``Deny``. A GlobalNetworkPolicy
  covers every namespace, or the one its ``namespaceSelector`` names
  (``projectcalico.org/name == 'serving'``).
- AdminNetworkPolicy / BaselineAdminNetworkPolicy (``policy.networking.k8s.io``): a subject of every
  pod of the namespaces it names (all of them for ``namespaces: {}``) and an ingress rule with action
  ``Deny`` from every namespace.

Anything else (a narrower selector, allow rules) is recorded as a policy that does not deny all
ingress, so SW305 names it and still reports the namespace.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ...model import Inventory, Location, NetworkPolicy
from .fields import as_list, as_map

#: Pod labels through which Cilium selects a namespace.
_CILIUM_NS_LABELS = ("k8s:io.kubernetes.pod.namespace", "io.kubernetes.pod.namespace")
#: Namespace label keys that hold the namespace's name.
_NS_NAME_LABELS = ("kubernetes.io/metadata.name", "projectcalico.org/name", "name")
_CALICO_ALL = re.compile(r"^\s*(all\(\s*\))?\s*$")
_CALICO_EQ = re.compile(r"""^\s*(?:projectcalico\.org/name|projectcalico\.org/namespace|"""
                        r"""kubernetes\.io/metadata\.name)\s*==\s*['"]([^'"]+)['"]\s*$""")


def _meta(obj: Mapping[str, Any]) -> tuple[str, str]:
    meta = as_map(obj.get("metadata"))
    return str(meta.get("name") or "unnamed"), str(meta.get("namespace") or "default")


def _selector_namespaces(sel: Any, label_keys: tuple[str, ...]) -> tuple[str, ...] | None:
    """The namespaces whose every pod a label selector picks: ``("*",)`` for an empty selector, the names
    a namespace-name label picks, or None when the selector picks only some pods."""
    if sel is None:
        return ("*",)
    if not isinstance(sel, dict):
        return None
    labels = as_map(sel.get("matchLabels"))
    exprs = as_list(sel.get("matchExpressions"))
    if set(sel) - {"matchLabels", "matchExpressions"}:
        return None
    if not labels and not exprs:
        return ("*",)
    names: set[str] | None = None
    for key, value in labels.items():
        if key not in label_keys:
            return None
        names = {str(value)} if names is None else names & {str(value)}
    for e in exprs:
        e = as_map(e)
        if e.get("key") not in label_keys or e.get("operator") != "In":
            return None
        values = {str(v) for v in as_list(e.get("values"))}
        names = values if names is None else names & values
    return tuple(sorted(names or ()))


def _cilium(obj: Mapping[str, Any], loc: Location, inv: Inventory, cluster_wide: bool) -> None:
    name, namespace = _meta(obj)
    rules = [as_map(obj.get("spec"))] if isinstance(obj.get("spec"), dict) else []
    rules += [as_map(r) for r in as_list(obj.get("specs"))]
    covered: set[str] = set()
    for rule in rules:
        if "endpointSelector" not in rule:
            continue  # a host policy (nodeSelector): not about pods
        if as_map(rule.get("enableDefaultDeny")).get("ingress") is False:
            continue
        ingress = rule.get("ingress")
        deny_all = isinstance(ingress, list) and bool(ingress) and all(r == {} for r in ingress)
        deny_all = deny_all or any("all" in [str(x) for x in as_list(as_map(r).get("fromEntities"))]
                                   for r in as_list(rule.get("ingressDeny")))
        if not deny_all:
            continue
        sel = rule.get("endpointSelector")
        found = _selector_namespaces(sel, _CILIUM_NS_LABELS)
        if found is None:
            continue
        if not cluster_wide:
            found = (namespace,) if found == ("*",) or namespace in found else ()
        covered.update(found)
    kind = "CiliumClusterwideNetworkPolicy" if cluster_wide else "CiliumNetworkPolicy"
    policy = _policy(name, namespace, kind, "cilium.io", loc, covered, cluster_wide)
    if not cluster_wide and len(rules) == 1:
        _cilium_isolation(policy, rules[0])
    inv.network_policies.append(policy)


def _cilium_isolation(policy: NetworkPolicy, rule: Mapping[str, Any]) -> None:
    """Which pods a namespaced Cilium rule isolates: those its ``endpointSelector`` labels pick, when it
    has an ingress section (Cilium then denies what the section does not allow)."""
    sel = rule.get("endpointSelector")
    if not isinstance(sel, dict) or as_list(sel.get("matchExpressions")) or set(sel) - {"matchLabels"}:
        return
    if as_map(rule.get("enableDefaultDeny")).get("ingress") is False:
        return
    if "ingress" not in rule and "ingressDeny" not in rule:
        return
    policy.pod_selector = {str(k).removeprefix("k8s:"): str(v) for k, v in as_map(sel.get("matchLabels")).items()}
    policy.policy_types = ["Ingress"]
    ingress = as_list(rule.get("ingress"))
    policy.ingress_rules = len(ingress)
    policy.open_ingress = any(
        set(str(e) for e in as_list(as_map(r).get("fromEntities"))) & {"all", "world", "cluster"}
        or any(e == {} for e in as_list(as_map(r).get("fromEndpoints")))
        for r in ingress)


def _calico_rule_denies_all(rule: Any) -> bool:
    r = as_map(rule)
    return r.get("action") == "Deny" and not (set(r) - {"action", "metadata"})


def _calico(obj: Mapping[str, Any], loc: Location, inv: Inventory, global_: bool, group: str) -> None:
    name, namespace = _meta(obj)
    spec = as_map(obj.get("spec"))
    ingress = as_list(spec.get("ingress"))
    egress = as_list(spec.get("egress"))
    types = [str(t) for t in as_list(spec.get("types"))] or (["Ingress"] + (["Egress"] if egress else []))
    selector = spec.get("selector")
    selects_all = selector is None or (isinstance(selector, str) and _CALICO_ALL.match(selector) is not None)
    denies = selects_all and "Ingress" in types and all(_calico_rule_denies_all(r) for r in ingress)
    covered: tuple[str, ...] = ()
    if denies:
        if not global_:
            covered = (namespace,)
        else:
            ns_sel = spec.get("namespaceSelector")
            if ns_sel is None or (isinstance(ns_sel, str) and _CALICO_ALL.match(ns_sel)):
                covered = ("*",)
            elif isinstance(ns_sel, str) and (m := _CALICO_EQ.match(ns_sel)) is not None:
                covered = (m.group(1),)
    kind = "GlobalNetworkPolicy" if global_ else "NetworkPolicy"
    inv.network_policies.append(_policy(name, namespace, kind, group, loc, set(covered), global_))


def _from_everywhere(peer: Any) -> bool:
    p = as_map(peer)
    if "namespaces" in p:
        return _selector_namespaces(p.get("namespaces"), _NS_NAME_LABELS) == ("*",)
    pods = as_map(p.get("pods"))
    return (bool(pods) and _selector_namespaces(pods.get("namespaceSelector"), _NS_NAME_LABELS) == ("*",)
            and _selector_namespaces(pods.get("podSelector"), ()) == ("*",))


def _admin(obj: Mapping[str, Any], loc: Location, inv: Inventory, kind: str) -> None:
    name, namespace = _meta(obj)
    spec = as_map(obj.get("spec"))
    subject = as_map(spec.get("subject"))
    if "namespaces" in subject:
        found = _selector_namespaces(subject.get("namespaces"), _NS_NAME_LABELS)
    else:
        pods = as_map(subject.get("pods"))
        found = (_selector_namespaces(pods.get("namespaceSelector"), _NS_NAME_LABELS)
                 if pods and _selector_namespaces(pods.get("podSelector"), ()) == ("*",) else None)
    denies = any(as_map(r).get("action") == "Deny" and any(_from_everywhere(p) for p in as_list(as_map(r).get("from")))
                 for r in as_list(spec.get("ingress")))
    covered = set(found or ()) if denies else set()
    inv.network_policies.append(_policy(name, namespace, kind, "policy.networking.k8s.io", loc, covered, True))


def _policy(name: str, namespace: str, kind: str, group: str, loc: Location, covered: set[str],
            cluster_wide: bool) -> NetworkPolicy:
    namespaces = tuple(sorted(covered)) if cluster_wide else None
    return NetworkPolicy(
        name=name, namespace=namespace, location=loc, kind=kind, api_group=group,
        denies_all_ingress=bool(covered), namespaces=namespaces,
    )


def add_cilium_policy(obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    _cilium(obj, loc, inv, cluster_wide=False)


def add_cilium_clusterwide_policy(obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    _cilium(obj, loc, inv, cluster_wide=True)


def add_calico_policy(obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    _calico(obj, loc, inv, global_=False, group="projectcalico.org")


def add_calico_global_policy(obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    _calico(obj, loc, inv, global_=True, group="projectcalico.org")


def add_admin_policy(obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    _admin(obj, loc, inv, "AdminNetworkPolicy")


def add_baseline_admin_policy(obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    _admin(obj, loc, inv, "BaselineAdminNetworkPolicy")
