"""adapters.k8s.gateway: what the Gateways of the inputs say of an HTTPRoute (SW306's reach), case by case, on
shapes the rule fixtures (tests/fixtures/rules/SW306/gateway-*.yaml) do not hold."""

from __future__ import annotations

from shardwise.rules.adapters.k8s import load_kubernetes_text
from shardwise.rules.model import Ingress

ROUTE = """
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: app}
spec:
  parentRefs: [{name: gw, namespace: infra}]
  rules: [{backendRefs: [{name: svc, port: 8000}]}]
"""


def _gateway(cls: str, extra: str = "", listener: str = "") -> str:
    return f"""
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {{name: gw, namespace: infra{extra}}}
spec:
  gatewayClassName: {cls}
  listeners:
    - name: http
      protocol: HTTP
      port: 80
      allowedRoutes: {{namespaces: {{from: All}}}}{listener}
"""


def _route(text: str) -> Ingress:
    inv = load_kubernetes_text(text, "t.yaml")  # joined as a run joins its inputs (resolve_pools)
    [route] = [i for i in inv.ingresses if i.kind == "HTTPRoute"]
    return route


def test_an_external_gke_class_is_sure_and_says_its_class():
    r = _route(_gateway("gke-l7-gxlb") + "---" + ROUTE)
    assert r.gateway == ("through Gateway `infra/gw` on GKE's external Application Load Balancer (gatewayClassName "
                         "`gke-l7-gxlb`)", "")
    assert r.gateway_auth is None and r.gateway_undecided is None


def test_a_gatewayclass_of_the_inputs_decides_the_controller_over_the_name():
    cls = """
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: gke-l7-gxlb}
spec: {controllerName: gateway.envoyproxy.io/gatewayclass-controller}
"""
    r = _route(_gateway("gke-l7-gxlb") + "---" + cls + "---" + ROUTE)
    assert r.gateway is not None and r.gateway[1].startswith("whether it is reachable from outside the cluster is the "
                                                             "load balancer that the controller of GatewayClass "
                                                             "`gke-l7-gxlb` (`gateway.envoyproxy.io/")


def test_lbc_merging_mode_prefer_gateway_lets_the_gateways_scheme_win():
    cls = """
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: alb}
spec:
  controllerName: gateway.k8s.aws/alb
  parametersRef: {group: gateway.k8s.aws, kind: LoadBalancerConfiguration, name: base, namespace: infra}
---
apiVersion: gateway.k8s.aws/v1beta1
kind: LoadBalancerConfiguration
metadata: {name: base, namespace: infra}
spec: {mergingMode: MODE, scheme: internal}
---
apiVersion: gateway.k8s.aws/v1beta1
kind: LoadBalancerConfiguration
metadata: {name: mine, namespace: infra}
spec: {scheme: internet-facing}
"""
    infra = ("\n  infrastructure:\n    parametersRef: {group: gateway.k8s.aws, kind: LoadBalancerConfiguration, "
             "name: mine}")
    gw = _gateway("alb").replace("\n  listeners:", infra + "\n  listeners:")
    sure = _route(gw + "---" + cls.replace("MODE", "prefer-gateway") + "---" + ROUTE)
    assert sure.gateway == ("through Gateway `infra/gw` on an internet-facing ALB (scheme internet-facing: "
                            "LoadBalancerConfiguration `infra/mine`)", "")
    internal = _route(gw + "---" + cls.replace("MODE", "prefer-gateway-class") + "---" + ROUTE)
    assert internal.gateway is not None and internal.gateway[0] == (
        "through Gateway `infra/gw` on an internal ALB (scheme internal: LoadBalancerConfiguration `infra/base`)")


def test_istio_service_type_cluster_ip_and_a_private_address_are_internal():
    annotated = _gateway("istio", extra=", annotations: {networking.istio.io/service-type: ClusterIP}")
    assert _route(annotated + "---" + ROUTE).gateway == (
        "through Gateway `infra/gw`", "`networking.istio.io/service-type: ClusterIP` gives it a cluster-internal "
        "Service")
    addressed = _gateway("istio").replace("\n  listeners:", "\n  addresses: [{type: IPAddress, value: 10.0.3.7}]"
                                          "\n  listeners:")
    assert _route(addressed + "---" + ROUTE).gateway == ("through Gateway `infra/gw`",
                                                         "its address 10.0.3.7 is a private one")


def test_a_selector_listener_reads_the_namespace_labels_of_the_inputs():
    gw = _gateway("gke-l7-global-external-managed").replace(
        "{namespaces: {from: All}}", "{namespaces: {from: Selector, selector: {matchLabels: {expose: 'yes'}}}}")
    ns = "\napiVersion: v1\nkind: Namespace\nmetadata: {name: app, labels: {expose: 'LABEL'}}\n"
    assert _route(gw + "---" + ns.replace("LABEL", "yes") + "---" + ROUTE).gateway == (
        "through Gateway `infra/gw` on GKE's external Application Load Balancer (gatewayClassName "
        "`gke-l7-global-external-managed`)", "")
    assert _route(gw + "---" + ns.replace("LABEL", "no") + "---" + ROUTE).gateway_auth == (
        "no listener of its parent Gateways of the inputs admits it")
    unseen = _route(gw + "---" + ROUTE).gateway  # the Namespace is not in the inputs: its labels are not known
    assert unseen is not None and unseen[1] == ("whether its listeners admit the route depends on a namespace's "
                                                "labels, which the inputs do not show")


def test_a_gateway_not_in_the_inputs_leaves_the_route_as_before():
    other = _gateway("gke-l7-gxlb").replace("name: gw,", "name: elsewhere,")
    r = _route(other + "---" + ROUTE)
    assert (r.gateway, r.gateway_auth, r.gateway_undecided) == (None, None, None)
