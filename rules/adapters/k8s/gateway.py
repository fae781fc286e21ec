"""Gateway API: which Gateways of the inputs publish an HTTPRoute (or KServe's route of an LLMInferenceService), and
how far, for SW306.

Objects kept as read (cross references, joined once every input is read by :func:`link_gateways`):

- ``Gateway`` and ``GatewayClass`` (gateway.networking.k8s.io): listeners (name, protocol, port, hostname,
  ``allowedRoutes`` kinds and namespaces ``Same`` / ``All`` / ``Selector``), ``gatewayClassName``, ``addresses``,
  ``spec.infrastructure`` (annotations, parametersRef); a class's ``controllerName`` and ``parametersRef``.
- the AWS Load Balancer Controller's ``LoadBalancerConfiguration`` (its ``scheme``; ``internal`` when none says,
  kubernetes-sigs.github.io/aws-load-balancer-controller, guide/gateway/loadbalancerconfig) and
  ``ListenerRuleConfiguration`` (``authenticate-oidc`` / ``authenticate-cognito`` actions on a route's rules, through
  an ``ExtensionRef`` filter, guide/gateway/listenerruleconfig);
- policies that authenticate the clients of a Gateway or a route: Envoy Gateway's ``SecurityPolicy`` (jwt, oidc,
  basicAuth, apiKeyAuth, extAuth), Kuadrant's ``AuthPolicy``, Istio's ``RequestAuthentication`` with an
  ``AuthorizationPolicy`` on the same Gateway, GKE's ``GCPBackendPolicy`` with IAP on the backend Service;
- ``Namespace`` labels, for ``allowedRoutes.namespaces.from: Selector``.

A route attaches as the Gateway API says: a parentRef's namespace defaults to the route's, ``sectionName`` picks a
listener by name and ``port`` by port; a listener takes an HTTPRoute when its protocol is HTTP or HTTPS, its
``allowedRoutes.kinds`` (if any) name HTTPRoute, its namespaces admit the route's and its hostname meets one of the
route's. A route no listener admits is not published through that Gateway.

How far a Gateway reaches is what its controller's documentation says of the class: GKE's external classes
(``gke-l7-global-external-managed``, ``gke-l7-regional-external-managed``, ``gke-l7-gxlb``, their ``-mc`` forms)
make an internet-facing Application Load Balancer and its internal ones (``gke-l7-rilb``,
``gke-l7-cross-regional-internal-managed``) a private one (GKE docs, "GatewayClass capabilities"); the AWS Load
Balancer Controller (``gateway.k8s.aws/alb``) makes the ALB its LoadBalancerConfiguration's scheme says, internal by
default; AWS VPC Lattice's controller publishes to a service network, reached from the VPCs associated with it;
every other controller (Istio, Envoy Gateway, Cilium, NGINX Gateway Fabric, Kong, Traefik, Azure's Application
Gateway for Containers...) makes a load balancer whose reach is the cloud's default or its own configuration, unless
``spec.infrastructure.annotations`` carry an internal load balancer annotation. Only the first kind, with no policy
that authenticates, is sure.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping, Sequence
from typing import Any

from ...model import UNKNOWN, CrossRef, Ingress, Inventory, Location, ServingGroup
from ...model.unknown import is_placeholder
from ...model.vocab import INTERNAL_LB_ANNOTATIONS
from .fields import as_list, as_map

GATEWAY_REF = "gateway api gateway"
CLASS_REF = "gateway api class"
POLICY_REF = "gateway api policy"
NAMESPACE_REF = "gateway api namespace"
LLMISVC_REF = "gateway api llmisvc route"

_GKE_CONTROLLER = "networking.gke.io/gateway"
#: GKE's GatewayClasses (installed by GKE, so never in a repository's manifests) and the load balancer each makes.
_GKE_EXTERNAL = ("gke-l7-global-external-managed", "gke-l7-regional-external-managed", "gke-l7-gxlb")
_GKE_INTERNAL = ("gke-l7-rilb", "gke-l7-cross-regional-internal-managed")
_LBC_ALB = "gateway.k8s.aws/alb"
_LBC_NLB = "gateway.k8s.aws/nlb"
_LATTICE = "application-networking.k8s.aws/gateway-api-controller"
_LBC_GROUP = "gateway.k8s.aws"
#: Envoy Gateway SecurityPolicy fields that authenticate the client.
_ENVOY_AUTH = ("jwt", "oidc", "basicAuth", "apiKeyAuth", "extAuth")
_LRC_AUTH = ("authenticate-oidc", "authenticate-cognito")
_WORLD = ("0.0.0.0/0", "::/0")
#: The label Istio puts on the pods of the Gateway it deploys (a policy's workload selector names it).
_GATEWAY_NAME = "gateway.networking.k8s.io/gateway-name"


def add_gateway_object(kind: str, obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    """Keep a Gateway, a GatewayClass, a policy or a Namespace for :func:`link_gateways`."""
    ref = {"Gateway": GATEWAY_REF, "GatewayClass": CLASS_REF, "Namespace": NAMESPACE_REF}.get(kind, POLICY_REF)
    inv.cross_refs.append(CrossRef(ref, obj, loc))


def _meta(obj: Mapping[str, Any]) -> tuple[str, str]:
    meta = as_map(obj.get("metadata"))
    return str(meta.get("namespace") or "default"), str(meta.get("name") or "")


def _unknown(value: Any) -> bool:
    return value is UNKNOWN or is_placeholder(value)


class _Inputs:
    """The Gateway API objects of the inputs, by what looks them up."""

    def __init__(self, inv: Inventory) -> None:
        self.gateways: dict[tuple[str, str], Mapping[str, Any]] = {}
        self.classes: dict[str, Mapping[str, Any]] = {}
        self.policies: list[Mapping[str, Any]] = []
        self.namespaces: dict[str, Mapping[str, Any]] = {}
        for r in inv.cross_refs:
            if r.kind == GATEWAY_REF:
                self.gateways[_meta(r.obj)] = r.obj
            elif r.kind == CLASS_REF:
                self.classes[_meta(r.obj)[1]] = r.obj
            elif r.kind == POLICY_REF:
                self.policies.append(r.obj)
            elif r.kind == NAMESPACE_REF:
                self.namespaces[_meta(r.obj)[1]] = r.obj

    def policy(self, kind: str, namespace: str, name: str) -> Mapping[str, Any] | None:
        return next((p for p in self.policies if p.get("kind") == kind and _meta(p) == (namespace, name)), None)


# ---------------------------------------------------------------------------------------------------------------
# attachment
# ---------------------------------------------------------------------------------------------------------------

def _host_meets(listener: Any, route: list[Any]) -> bool:
    """Whether a listener's hostname meets one of the route's (no hostname on either side meets every one)."""
    if not isinstance(listener, str) or not listener or not route:
        return True
    for h in route:
        if not isinstance(h, str):
            return True  # a value not known yet: may meet it
        if h == listener or (listener.startswith("*.") and h.endswith(listener[1:])) \
                or (h.startswith("*.") and listener.endswith(h[1:])):
            return True
    return False


#: What :func:`_namespace_admitted` answers where only the namespace a route that names none is applied into decides.
APPLIED = "applied"


def _namespace_admitted(allowed: Mapping[str, Any], gw: Mapping[str, Any], route_ns: str, inputs: _Inputs,
                        applied: bool = False) -> Any:
    """Whether a listener's ``allowedRoutes.namespaces`` admits routes of ``route_ns``; None when it cannot be told
    (a selector over labels of a Namespace not in the inputs), UNKNOWN for a value not known yet, :data:`APPLIED`
    where the route names no namespace (``applied``: it lands in the one it is applied into) and that decides it: the
    Gateway names another (``Same``), or a selector does. Read as ``default``, a route applied with ``kubectl apply
    -n llm-d`` onto llm-d's Gateway was "not admitted", a silent pass (mend23); a Gateway that names none either is
    applied with it, into the same namespace."""
    ns = as_map(allowed.get("namespaces"))
    frm = ns.get("from", "Same")
    gw_ns = _meta(gw)[0]
    if _unknown(frm) or _unknown(ns.get("selector")):
        return UNKNOWN
    if frm == "All":
        return True
    if frm == "Same":
        if applied and as_map(gw.get("metadata")).get("namespace") not in (None, route_ns):
            return APPLIED
        return route_ns == gw_ns
    if frm != "Selector":
        return False
    if applied and (as_map(ns.get("selector")).get("matchLabels") or as_map(ns.get("selector")).get(
            "matchExpressions")):
        return APPLIED
    sel = as_map(ns.get("selector"))
    match = as_map(sel.get("matchLabels"))
    if sel.get("matchExpressions") or not match:
        return None if sel.get("matchExpressions") else True  # an empty selector selects every namespace
    labels = {"kubernetes.io/metadata.name": route_ns}  # set on every namespace by Kubernetes (1.22 on)
    obj = inputs.namespaces.get(route_ns)
    if obj is not None:
        labels.update({str(k): str(v) for k, v in as_map(as_map(obj.get("metadata")).get("labels")).items()})
    if all(labels.get(str(k)) == str(v) for k, v in match.items()):
        return True
    if obj is None and any(str(k) != "kubernetes.io/metadata.name" for k in match):
        return None  # labels the inputs do not show
    return False


def _admits(gw: Mapping[str, Any], ref: Mapping[str, Any], route_ns: str, hostnames: list[Any],
            inputs: _Inputs, applied: bool = False) -> Any:
    """Whether one of the Gateway's listeners takes the HTTPRoute through this parentRef; None when it cannot be
    told from the inputs (a Namespace's labels), :data:`APPLIED` when the namespace the route is applied into
    decides it, UNKNOWN when a value not known yet decides it."""
    listeners = as_list(as_map(gw.get("spec")).get("listeners"))
    if not listeners:  # the API requires one: listeners not known yet (a preview's computed list)
        return UNKNOWN
    unsure: Any = False
    for raw in listeners:
        lst = as_map(raw)
        proto = lst.get("protocol")
        if _unknown(raw) or any(_unknown(lst.get(k)) for k in ("name", "port", "protocol")):
            unsure = UNKNOWN  # a listener not known yet (a preview's computed value) may take it
            continue
        if ref.get("sectionName") is not None and ref.get("sectionName") != lst.get("name"):
            continue
        if ref.get("port") is not None and ref.get("port") != lst.get("port"):
            continue
        if proto not in ("HTTP", "HTTPS"):
            continue
        allowed = as_map(lst.get("allowedRoutes"))
        kinds = as_list(allowed.get("kinds"))
        if kinds and not any(as_map(k).get("kind") == "HTTPRoute" for k in kinds):
            continue
        if not _host_meets(lst.get("hostname"), hostnames):
            continue
        ok = _namespace_admitted(allowed, gw, route_ns, inputs, applied)
        if ok is True:
            return True
        if ok is UNKNOWN:
            unsure = UNKNOWN
        elif ok is APPLIED and unsure is not UNKNOWN:
            unsure = APPLIED
        elif ok is None and unsure is False:
            unsure = True
    return UNKNOWN if unsure is UNKNOWN else APPLIED if unsure is APPLIED else None if unsure else False


# ---------------------------------------------------------------------------------------------------------------
# reach
# ---------------------------------------------------------------------------------------------------------------

class Reach:
    """How a Gateway publishes what it admits: ``how`` as SW306 says it, ``advisory`` why that is not sure ("" when
    it is), ``undecided`` the value not known yet that decides it."""

    __slots__ = ("advisory", "how", "undecided")

    def __init__(self, how: str, advisory: str = "", undecided: str | None = None) -> None:
        self.how, self.advisory, self.undecided = how, advisory, undecided


def _lbc_scheme(gw: Mapping[str, Any], cls: Mapping[str, Any] | None, inputs: _Inputs) -> tuple[Any, str, str]:
    """(scheme, where it is said, what narrows the clients) of an AWS LBC Gateway: its class's and its own
    LoadBalancerConfiguration merged as the controller does (``mergingMode`` of the class's, ``prefer-gateway-class``
    by default); scheme None when a configuration the Gateway names is not in the inputs."""
    configs: list[tuple[str, Mapping[str, Any] | None, str]] = []
    if cls is not None:
        ref = as_map(as_map(cls.get("spec")).get("parametersRef"))
        if ref.get("kind") == "LoadBalancerConfiguration":
            ns, name = str(ref.get("namespace") or "default"), str(ref.get("name"))
            configs.append(("class", inputs.policy("LoadBalancerConfiguration", ns, name), f"`{ns}/{name}`"))
    ref = as_map(as_map(as_map(gw.get("spec")).get("infrastructure")).get("parametersRef"))
    if ref.get("kind") == "LoadBalancerConfiguration":
        ns, name = _meta(gw)[0], str(ref.get("name"))
        configs.append(("gateway", inputs.policy("LoadBalancerConfiguration", ns, name), f"`{ns}/{name}`"))
    if any(c is None for _, c, _ in configs):
        missing = next(w for _, c, w in configs if c is None)
        return None, f"LoadBalancerConfiguration {missing}", ""
    prefer = "prefer-gateway-class"
    for who, c, _ in configs:
        if who == "class":
            prefer = str(as_map(as_map(c).get("spec")).get("mergingMode") or prefer)
    order = sorted(configs, key=lambda x: (x[0] == "class") != (prefer == "prefer-gateway-class"))
    scheme: Any = "internal"
    said = "the controller's default"
    for _, c, where in order:
        value = as_map(as_map(c).get("spec")).get("scheme")
        if value is not None:
            scheme, said = value, f"LoadBalancerConfiguration {where}"
            break
    narrow = ""
    for _, c, where in order:
        spec = as_map(as_map(c).get("spec"))
        ranges = [str(r).strip() for r in as_list(spec.get("sourceRanges"))]
        if ranges and not any(r in _WORLD for r in ranges):
            narrow = f"`sourceRanges` of LoadBalancerConfiguration {where}"
        elif spec.get("securityGroups"):
            narrow = f"`securityGroups` of LoadBalancerConfiguration {where}"
        elif spec.get("wafV2") or spec.get("shieldAdvanced"):
            narrow = f"the WAF of LoadBalancerConfiguration {where}"
        if narrow:
            break
    return scheme, said, narrow


def _private_address(gw: Mapping[str, Any]) -> str | None:
    for a in as_list(as_map(gw.get("spec")).get("addresses")):
        a = as_map(a)
        if a.get("type", "IPAddress") != "IPAddress" or not isinstance(a.get("value"), str):
            continue
        try:
            if ipaddress.ip_address(a["value"]).is_private:
                return str(a["value"])
        except ValueError:
            continue
    return None


def gateway_reach(gw: Mapping[str, Any], inputs: _Inputs) -> Reach:
    """How far a Gateway of the inputs publishes what it admits (see the module doc)."""
    ns, name = _meta(gw)
    spec = as_map(gw.get("spec"))
    said = f"Gateway `{ns}/{name}`"
    cls_name = spec.get("gatewayClassName")
    if _unknown(cls_name):
        return Reach(f"through {said}", undecided=f"`spec.gatewayClassName` of {said}")
    cls = inputs.classes.get(str(cls_name))
    controller: Any = as_map(cls.get("spec")).get("controllerName") if cls is not None else None
    if _unknown(controller):
        return Reach(f"through {said}", undecided=f"`spec.controllerName` of GatewayClass `{cls_name}`")
    base = str(cls_name).removesuffix("-mc")
    gke = controller == _GKE_CONTROLLER or (cls is None and base in (*_GKE_EXTERNAL, *_GKE_INTERNAL))
    if gke and base in _GKE_EXTERNAL:
        return Reach(f"through {said} on GKE's external Application Load Balancer (gatewayClassName `{cls_name}`)")
    if gke and base in _GKE_INTERNAL:
        return Reach(f"through {said} on GKE's internal Application Load Balancer (gatewayClassName `{cls_name}`)",
                     "an internal Application Load Balancer is reachable from the VPC network, not from the internet")
    if controller == _LBC_ALB:
        scheme, where, narrow = _lbc_scheme(gw, cls, inputs)
        if scheme is None:
            return Reach(f"through {said} on an ALB (GatewayClass `{cls_name}`)",
                         f"{where} is not in the inputs and sets the ALB's scheme (internal by default)")
        if _unknown(scheme):
            return Reach(f"through {said}", undecided=f"`spec.scheme` of {where}")
        if str(scheme).strip() != "internet-facing":
            return Reach(f"through {said} on an internal ALB (scheme {scheme}: {where})",
                         "an internal ALB is reachable from the VPC and the networks joined to it, not from the "
                         "internet")
        how = f"through {said} on an internet-facing ALB (scheme internet-facing: {where})"
        return Reach(how, f"{narrow} narrows who reaches it" if narrow else "")
    if controller == _LBC_NLB:
        return Reach(f"through {said}", "the AWS Load Balancer Controller serves HTTPRoutes on ALB Gateways, not on "
                     "this NLB one")
    if controller == _LATTICE:
        return Reach(f"through {said} on an Amazon VPC Lattice service network",
                     "a VPC Lattice service is reached from the VPCs associated with its service network, not from "
                     "the internet")
    ann = as_map(as_map(spec.get("infrastructure")).get("annotations"))
    for key, values in INTERNAL_LB_ANNOTATIONS:
        value = ann.get(key)
        if _unknown(value):
            return Reach(f"through {said}", undecided=f"`spec.infrastructure.annotations` `{key}` of {said}")
        if isinstance(value, str) and value.strip().lower() in values:
            return Reach(f"through {said}", f"`{key}: {value}` in its `spec.infrastructure.annotations` keeps the "
                         "load balancer its controller makes off the internet")
    meta_ann = as_map(as_map(gw.get("metadata")).get("annotations"))
    if str(meta_ann.get("networking.istio.io/service-type", "")).strip() == "ClusterIP":
        return Reach(f"through {said}", "`networking.istio.io/service-type: ClusterIP` gives it a cluster-internal "
                     "Service")
    private = _private_address(gw)
    if private is not None:
        return Reach(f"through {said}", f"its address {private} is a private one")
    owner = f"`{controller}`" if isinstance(controller, str) else "not in the inputs"
    who = f"GatewayClass `{cls_name}` ({owner})"
    return Reach(f"through {said}", "whether it is reachable from outside the cluster is the load balancer that the "
                 f"controller of {who} makes (the cloud's default or the controller's own configuration), which the "
                 "inputs do not show")


# ---------------------------------------------------------------------------------------------------------------
# authentication the inputs show
# ---------------------------------------------------------------------------------------------------------------

def _targets(policy: Mapping[str, Any]) -> list[tuple[str, str]]:
    spec = as_map(policy.get("spec"))
    refs = [spec.get("targetRef"), *as_list(spec.get("targetRefs"))]
    return [(str(as_map(r).get("kind")), str(as_map(r).get("name"))) for r in refs if as_map(r).get("name")]


def _authenticates(inputs: _Inputs, namespace: str, kind: str, name: str) -> str | None:
    """The policy of the inputs that authenticates the clients of a Gateway or an HTTPRoute, as said; None."""
    istio: dict[str, str] = {}
    for p in inputs.policies:
        if _meta(p)[0] != namespace:
            continue
        targets = _targets(p)
        sel = as_map(as_map(as_map(p.get("spec")).get("selector")).get("matchLabels"))
        on = (kind, name) in targets or (kind == "Gateway" and sel.get(_GATEWAY_NAME) == name)
        if not on:
            continue
        pk, pn = p.get("kind"), _meta(p)[1]
        spec = as_map(p.get("spec"))
        if pk == "SecurityPolicy" and any(spec.get(k) for k in _ENVOY_AUTH):
            return f"Envoy Gateway SecurityPolicy `{pn}`"
        if pk == "AuthPolicy":
            return f"Kuadrant AuthPolicy `{pn}`"
        if pk in ("RequestAuthentication", "AuthorizationPolicy"):
            istio[str(pk)] = pn
    if len(istio) == 2:
        return (f"Istio RequestAuthentication `{istio['RequestAuthentication']}` with AuthorizationPolicy "
                f"`{istio['AuthorizationPolicy']}`")
    return None


def _route_auth(inputs: _Inputs, ing: Ingress) -> tuple[str | None, str]:
    """(the policy that authenticates the route's clients, why one may that the inputs do not show)."""
    found = _authenticates(inputs, ing.namespace, "HTTPRoute", ing.name)
    if found:
        return found, ""
    for kind, name in ing.extension_refs:
        if kind != "ListenerRuleConfiguration":
            continue
        lrc = inputs.policy(kind, ing.namespace, name)
        if lrc is None:
            return None, f"ListenerRuleConfiguration `{name}` is not in the inputs and could authenticate its clients"
        if any(as_map(a).get("type") in _LRC_AUTH for a in as_list(as_map(lrc.get("spec")).get("actions"))):
            return f"the ALB's authentication action of ListenerRuleConfiguration `{name}`", ""
    for p in inputs.policies:
        if p.get("kind") != "GCPBackendPolicy" or _meta(p)[0] != ing.namespace:
            continue
        if not any(k == "Service" and n in ing.services for k, n in _targets(p)):
            continue
        default = as_map(as_map(p.get("spec")).get("default"))
        if as_map(default.get("iap")).get("enabled") is True:
            return f"IAP of GCPBackendPolicy `{_meta(p)[1]}`", ""
    return None, ""


# ---------------------------------------------------------------------------------------------------------------
# joining
# ---------------------------------------------------------------------------------------------------------------

def _parents_reach(refs: Sequence[Mapping[str, Any]], route_ns: str, hostnames: list[Any], inputs: _Inputs,
                   applied: bool = False) -> tuple[list[tuple[Reach, str]], bool]:
    """(the reach of each parent Gateway of the inputs that admits the route, with the policy that authenticates
    its clients or ""; whether a parent is not in the inputs or may admit it)."""
    found: list[tuple[Reach, str]] = []
    unseen = False
    for ref in refs:
        if ref.get("kind", "Gateway") != "Gateway" or ref.get("group", "gateway.networking.k8s.io") not in (
                "gateway.networking.k8s.io", ""):
            continue  # a mesh parent (a Service): east-west, nothing published
        gw = inputs.gateways.get((str(ref.get("namespace")), str(ref.get("name"))))
        if gw is None:
            unseen = True
            continue
        admitted = _admits(gw, ref, route_ns, hostnames, inputs, applied)
        if admitted is False:
            continue
        reach = gateway_reach(gw, inputs)
        if admitted is UNKNOWN and not reach.advisory and not reach.undecided:
            reach = Reach(reach.how, undecided=f"`spec.listeners` of Gateway `{_meta(gw)[0]}/{_meta(gw)[1]}`")
        elif admitted is APPLIED and not reach.advisory and not reach.undecided:
            reach = Reach(reach.how, "whether its listeners admit the route depends on the namespace the route is "
                          "applied into (it names none), which the inputs do not show")
        elif admitted is None and not reach.advisory and not reach.undecided:
            reach = Reach(reach.how, "whether its listeners admit the route depends on a namespace's labels, which "
                          "the inputs do not show")
        ns, name = _meta(gw)
        found.append((reach, _authenticates(inputs, ns, "Gateway", name) or ""))
    return found, unseen


def _decide(found: list[tuple[Reach, str]], unseen: bool, extra: str = "") -> tuple[str, ...]:
    """What the parents say of a route: ("silent", why) when no Gateway of the inputs leaves it open and none is
    missing, ("unchanged",) when only Gateways not in the inputs may, ("undecided", what) when a value not known yet
    decides, ("reach", how, advisory) otherwise (advisory "" when sure to face the internet)."""
    open_ = [r for r, auth in found if not auth]
    if not open_:
        if unseen:
            return ("unchanged",)
        auths = sorted({a for _, a in found if a})
        return ("silent", ", ".join(auths) if auths else "no listener of its parent Gateways of the inputs admits it")
    for r in open_:
        if r.undecided:
            return ("undecided", r.undecided)
    sure = [r for r in open_ if not r.advisory]
    if sure:
        return ("reach", sure[0].how, extra)
    r = open_[0]
    return ("reach", r.how, "; ".join(w for w in (r.advisory, extra) if w))


def link_gateways(inv: Inventory) -> None:
    """Give each HTTPRoute, and each LLMInferenceService KServe routes, what the Gateways of the inputs say."""
    inputs = _Inputs(inv)
    for ing in inv.ingresses:
        if ing.kind != "HTTPRoute" or not (inputs.gateways or inputs.policies):
            continue
        auth, maybe = _route_auth(inputs, ing)
        if auth:
            ing.gateway_auth = auth
            continue
        found, unseen = _parents_reach(ing.parent_refs, ing.namespace, ing.hostnames, inputs, ing.namespace_applied)
        if unseen and not found:
            continue  # no parent Gateway in the inputs: as before
        decided = _decide(found, unseen, maybe)
        if decided[0] == "silent":
            ing.gateway_auth = decided[1]
        elif decided[0] == "undecided":
            ing.gateway_undecided = decided[1]
        elif decided[0] == "reach":
            ing.gateway = (decided[1], decided[2])
    for r in inv.cross_refs:
        if r.kind == LLMISVC_REF:
            _llmisvc(r, inputs, inv)


def _llmisvc(ref: CrossRef, inputs: _Inputs, inv: Inventory) -> None:
    """An LLMInferenceService's route (KServe's own on its Gateways, or the user's HTTPRoutes it names) judged on the
    Gateways of the inputs."""
    info = ref.obj
    decided: tuple[str, ...]
    if info["routes"]:
        routes = [i for i in inv.ingresses if i.kind == "HTTPRoute" and i.namespace == info["namespace"]
                  and i.name in info["routes"]]
        if len(routes) != len(info["routes"]):
            return
        undecided = [i.gateway_undecided for i in routes if i.gateway_undecided]
        reaches = sorted((i.gateway for i in routes if i.gateway is not None), key=lambda x: x[1] != "")
        if undecided:
            decided = ("undecided", undecided[0])
        elif reaches:
            decided = ("reach", *reaches[0])
        elif all(i.gateway_auth for i in routes):
            decided = ("silent", "")
        else:
            return
    else:
        gateways = info["gateways"] or _default_gateway(inv, info)
        for g in ref.groups:  # the words of the default Gateway an inferenceservice-config of the inputs names
            if isinstance(g.published, str):
                g.published = info["how"]
        refs = [{"namespace": ns, "name": name} for ns, name in gateways]
        found, unseen = _parents_reach(refs, info["namespace"], [], inputs)
        if unseen and not found:
            return
        decided = _decide(found, unseen)
    for g in ref.groups:
        _set_published(g, decided, info)


#: KServe's default Gateway of an LLMInferenceService's route as shipped, and the inferenceservice-config key that
#: changes it (``ingress.kserveIngressGateway``, ``namespace/name``; kserve.LLMISVC_DEFAULT_GATEWAY).
_DEFAULT_GATEWAY = ("kserve", "kserve-ingress-gateway")
_CONFIG_NAME = "inferenceservice-config"


def _default_gateway(inv: Inventory, info: dict[str, Any]) -> list[tuple[str, str]]:
    """The cluster's default Gateway of KServe's route: ``ingress.kserveIngressGateway`` of the
    inferenceservice-config ConfigMaps of the inputs when they name one and agree (the words of ``info["how"]`` say
    so), else KServe's shipped one."""
    import json  # only for a route on the default Gateway

    seen: set[str] = set()
    where = ""
    for m in inv.config_maps:
        if m.kind != "ConfigMap" or m.name != _CONFIG_NAME:
            continue
        try:
            value = as_map(json.loads(m.data.get("ingress") or "{}")).get("kserveIngressGateway")
        except (TypeError, ValueError):
            return [_DEFAULT_GATEWAY]
        if not isinstance(value, str) or value.count("/") != 1:
            return [_DEFAULT_GATEWAY]
        seen.add(value.strip())
        where = where or f"`{m.namespace}/{m.name}`"
    if len(seen) != 1:
        return [_DEFAULT_GATEWAY]
    [value] = seen
    ns, name = value.split("/")
    if (ns, name) != _DEFAULT_GATEWAY:
        shipped = "/".join(_DEFAULT_GATEWAY)
        info["how"] = info["how"].replace(f"`{shipped}` (the cluster's default, as KServe ships it)",
                                          f"`{value}` (`ingress.kserveIngressGateway` of {where})")
    return [(ns, name)]


def _set_published(g: ServingGroup, decided: tuple[str, ...], info: Mapping[str, Any]) -> None:
    if decided[0] == "silent":
        g.published, g.published_advisory = None, ""
    elif decided[0] == "undecided":  # SW306 cannot decide: fail closed, as for an HTTPRoute
        g.published_undecided = decided[1]
    elif decided[0] == "reach":
        g.published = f"{info['how']}, reachable {decided[1]}"
        g.published_advisory = decided[2]
