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


# --- a backendRef's namespace, and the ReferenceGrants that let a route send there (mend16) -------------------------

_CROSS = """
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: llm-d}
spec:
  rules:
    - backendRefs:
        - {name: vllm, port: 8000}
        - {name: vllm, namespace: llm-d, port: 8000}
        - {name: vllm, namespace: models, port: 8000}
        - {group: inference.networking.k8s.io, kind: InferencePool, name: pool, namespace: models}
"""


def _grant(to: str, ns: str = "models", source: str = "llm-d", kind: str = "HTTPRoute") -> str:
    return f"""
---
apiVersion: gateway.networking.k8s.io/v1beta1
kind: ReferenceGrant
metadata: {{name: g, namespace: {ns}}}
spec:
  from: [{{group: gateway.networking.k8s.io, kind: {kind}, namespace: {source}}}]
  to: [{to}]
"""


def _remote(text: str) -> list[tuple[str, str, str, object, bool]]:
    return [(r.kind, r.namespace, r.name, r.permitted, r.outside) for r in _route(text).remote_refs]


def test_a_backendref_of_the_routes_own_namespace_is_local_and_another_one_is_remote():
    r = _route(_CROSS)
    assert r.services == ["vllm", "vllm"] and r.pool_refs == [] and r.ports == [8000, 8000, 8000]
    no = "no ReferenceGrant of namespace `models` is in the inputs, and one applied apart from them may permit it"
    assert _remote(_CROSS) == [("Service", "models", "vllm", no, True), ("InferencePool", "models", "pool", no, True)]


def test_a_grant_of_the_target_namespace_permits_what_its_from_and_to_name():
    core = '{group: "", kind: Service}'
    pools = "{group: inference.networking.k8s.io, kind: InferencePool}"
    assert [p for _k, _n, _m, p, _o in _remote(_CROSS + _grant(core) + _grant(pools))] == [True, True]
    # a to without a name covers every Service there; one with a name only that Service
    assert [p for *_, p, _o in _remote(_CROSS + _grant('{group: "", kind: Service, name: vllm}'))] == [True, False]
    assert [p for *_, p, _o in _remote(_CROSS + _grant('{group: "", kind: Service, name: other}'))] == [False, False]
    # from another namespace, or another route kind: not this route's; a grant of another namespace says nothing
    assert [p for *_, p, _o in _remote(_CROSS + _grant(core, source="team-a"))] == [False, False]
    assert [p for *_, p, _o in _remote(_CROSS + _grant(core, kind="GRPCRoute"))] == [False, False]
    assert [p for *_, p, _o in _remote(_CROSS + _grant(core, ns="elsewhere"))][0].startswith("no ReferenceGrant")
    # v1alpha2's group is not v1's: a grant to inference.networking.k8s.io does not cover an x-k8s.io pool
    legacy = _CROSS.replace("group: inference.networking.k8s.io", "group: inference.networking.x-k8s.io")
    assert [p for *_, p, _o in _remote(legacy + _grant(pools))] == [False, False]


def test_a_grant_or_a_namespace_a_template_fills_is_not_known_and_not_for_want_of_a_grant():
    placeholder = _grant('{group: "", kind: Service, name: "${SERVICE}"}')
    assert _remote(_CROSS + placeholder)[0][3:] == ("ReferenceGrant `g` holds a value not known yet", False)
    templated = _CROSS.replace("namespace: models, port", 'namespace: "${MODEL_NS}", port')
    assert _remote(templated)[0] == ("Service", "<unknown>", "vllm", "the namespace its backendRef names is the "
                                     "template placeholder `${MODEL_NS}`", False)


def test_the_grants_the_renderer_writes_let_its_routes_reach_their_backends():
    """``render.router`` writes a ReferenceGrant in each backend's namespace for a gateway-api router's routes: the
    reader takes it as permitting them (the two agree on the Gateway API)."""
    import yaml
    from render_support import service
    from shardwise.rules.model.spec import RouterSpec
    from shardwise.rules.render.router import render_router

    objs = render_router(RouterSpec(name="llm", kind="gateway-api", services=("llama-70b",)), [service()])
    assert _remote("---\n".join(yaml.safe_dump(o) for o in objs)) == [("Service", "serving", "llama-70b", True, True)]


def test_a_grant_whose_namespace_a_template_fills_may_permit_but_never_surely():
    core = '{group: "", kind: Service}'
    [svc, pool] = _remote(_CROSS + _grant(core, ns='"${GRANT_NS}"'))
    assert svc[3:] == ("ReferenceGrant `g` holds a value not known yet", False)
    assert pool[3].startswith("no ReferenceGrant of namespace `models`")  # it covers no pool, wherever it is


def test_a_grant_list_or_entry_a_template_fills_may_permit_but_never_surely():
    """A ``to`` or ``from`` list (or one entry) a template fills: any entry; one the known entries already answer
    False for a backend stays False only where no unknown entry could permit it (mend18)."""
    held = ("ReferenceGrant `g` holds a value not known yet", False)
    assert [r[3:] for r in _remote(_CROSS + _grant('"${GRANT_TO}"').replace('to: ["${GRANT_TO}"]',
                                                                            'to: "${GRANT_TO}"'))] == [held, held]
    assert [r[3:] for r in _remote(_CROSS + _grant('"${ONE}", {group: "", kind: Service}'))] == [(True, True), held]
    fr = _CROSS + _grant('{group: "", kind: Service}').replace(
        "from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: llm-d}]", 'from: "${FROM}"')
    assert [r[3:] for r in _remote(fr)] == [held, (False, True)]  # it names no pool: the route does not send there


# --- a route that names no namespace lands in the one it is applied into (mend23) ------------------------------------

_APPLIED = _CROSS.replace("metadata: {name: r, namespace: llm-d}", "metadata: {name: r}").replace(
    "        - {name: vllm, namespace: llm-d, port: 8000}\n", "")


def test_a_route_naming_no_namespace_is_never_refused_by_a_grant_that_names_one():
    core = '{group: "", kind: Service}'
    [svc, _pool] = _remote(_APPLIED + _grant(core))
    assert svc[:3] == ("Service", "models", "vllm") and svc[4] is True  # outside the inputs: never a block
    assert svc[3] == ("HTTPRoute `r` lands in the namespace it is applied into (it names none, or its Helm release's), "
                      "as `kubectl apply -n` or `helm install -n` puts it; ReferenceGrant `models/g` permits HTTPRoutes "
                      "of `llm-d` only, and the inputs do not show whether it is applied there")
    # a grant of `default` decides no more: `kubectl apply -n` may put the route elsewhere
    assert _remote(_APPLIED + _grant(core, source="default"))[0][3].startswith("HTTPRoute `r` lands in")
    # what the grant's kind or target refuses, it refuses wherever the route lands but in `models` itself, where the
    # ref is of the route's own namespace and needs no grant (mend29: it was "does not send there", a silent pass)
    own = ("HTTPRoute `r` lands in the namespace it is applied into (it names none, or its Helm release's), as "
           "`kubectl apply -n` or `helm install -n` puts it: applied into `models` its backendRef is of its own "
           "namespace and needs no ReferenceGrant, applied into any other no ReferenceGrant of the inputs permits it "
           "though one applied apart from them may, and the inputs do not show where it is applied")
    assert [r[3:] for r in _remote(_APPLIED + _grant(core, kind="GRPCRoute"))] == [(own, True), (own, True)]
    assert [r[3:] for r in _remote(_APPLIED + _grant('{group: "", kind: Service, name: other}'))] == [(own, True),
                                                                                                     (own, True)]


def test_a_route_naming_no_namespace_and_a_ref_naming_default_is_of_its_own_namespace_only_there():
    """``namespace: default`` written on the backendRef of a route that names none: the route's own namespace only
    where it is applied into ``default`` (mend29: read as the route's own, the route surely sent there)."""
    route = """\
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r}
spec:
  rules:
    - backendRefs:
        - {name: vllm, namespace: default, port: 8000}
        - {name: other, port: 8000}
"""
    assert _route(route).services == ["other"]  # a ref that names no namespace is its own wherever it lands
    assert _remote(route) == [("Service", "default", "vllm", (
        "HTTPRoute `r` lands in the namespace it is applied into (it names none, or its Helm release's), as `kubectl "
        "apply -n` or `helm install -n` puts it: applied into `default` its backendRef is of its own namespace and "
        "needs no ReferenceGrant, applied into any other no ReferenceGrant of the inputs permits it though one applied "
        "apart from them may, and the inputs do not show where it is applied"), True)]
    pinned = route.replace("metadata: {name: r}", "metadata: {name: r, namespace: default}")
    assert _route(pinned).services == ["vllm", "other"] and _remote(pinned) == []


def test_a_helm_release_route_and_grant_of_the_release_namespace_agree_and_a_named_one_cannot_decide():
    from shardwise.rules.model import RELEASE_NAMESPACE

    release = _APPLIED.replace("metadata: {name: r}", f"metadata: {{name: r, namespace: {RELEASE_NAMESPACE}}}")
    core = '{group: "", kind: Service}'
    assert _route(release).namespace_applied is True
    assert [p for *_, p, _o in _remote(release + _grant(core, source=RELEASE_NAMESPACE))][0] is True
    assert _remote(release + _grant(core))[0][3].startswith("HTTPRoute `r` lands in the namespace it is applied into")
    assert _route(_CROSS).namespace_applied is False


def test_a_same_namespace_listener_cannot_tell_whether_it_admits_a_route_naming_no_namespace():
    route = ROUTE.replace("metadata: {name: r, namespace: app}", "metadata: {name: r}")
    same = _gateway("gke-l7-global-external-managed").replace(
        "\n      allowedRoutes: {namespaces: {from: All}}", "")
    r = _route(route + "---" + same)
    assert r.gateway is not None and r.gateway[1] == ("whether its listeners admit the route depends on the namespace "
                                                     "the route is applied into (it names none), which the inputs do "
                                                     "not show")
    # a Gateway that names no namespace either is applied with it: the same namespace, admitted and sure
    both = _route(route.replace(", namespace: infra}", "}") + "---" + same.replace(", namespace: infra}", "}"))
    assert both.gateway is not None and both.gateway[1] == ""
    # a route written in another namespace is refused, as before
    assert _route(ROUTE + "---" + same).gateway_auth == "no listener of its parent Gateways of the inputs admits it"


# --- a backendRef names a Service only of kind Service in the core group, a pool only of its group (mend23) ---------

_KINDS = """
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: llm}
spec:
  rules:
    - backendRefs:
        - {name: a, port: 8000}
        - {group: "", kind: Service, name: b, port: 8001}
        - {group: multicluster.x-k8s.io, kind: ServiceImport, name: c, port: 8002}
        - {group: gateway.envoyproxy.io, kind: Backend, name: d, port: 8003}
        - {kind: InferencePool, name: e}
        - {group: inference.networking.x-k8s.io, kind: InferencePool, name: f}
        - {group: inference.networking.k8s.io, kind: InferencePool, name: f}
        - {group: core, kind: Service, name: g, port: 8004}
        - {group: "${GROUP}", kind: Service, name: h, port: 8005}
"""


def test_backendref_kinds_and_groups_as_the_gateway_api_reads_them():
    r = _route(_KINDS)
    assert r.services == ["a", "b"]  # a group a template fills may be the core one, or not (mend29): not known
    assert [(x.kind, x.name, x.unseen) for x in r.remote_refs if x.unseen] == [("Service", "h", True)]
    assert list(zip(r.pool_groups, r.pool_refs, strict=True)) == [
        ("inference.networking.x-k8s.io", "f"), ("inference.networking.k8s.io", "f")]
    assert r.ports == [8000, 8001, 8002, 8003, 8004, 8005]  # each port the route sends to, whatever serves it
    [core] = [x for x in r.remote_refs if not x.unseen]  # group core: the route's own namespace, decided by the implementation only
    assert (core.kind, core.namespace, core.name, core.outside) == ("Service", "llm", "g", True)
    assert core.permitted == core.note and core.note.startswith("its backendRef names group `core`")


# --- a backendRef whose kind or group a template fills (mend29) -----------------------------------------------------

_UNSEEN_KINDS = """\
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: llm-d}
spec:
  rules:
    - backendRefs:
        - {kind: "{{ .Values.kind }}", name: vllm, port: 8000}
        - {group: "${POOL_GROUP}", kind: InferencePool, name: pool}
        - {group: "${GROUP}", kind: Service, name: svc, namespace: models}
        - {group: "${GROUP}", kind: ServiceImport, name: imported}
"""


def test_a_backendref_whose_kind_or_group_is_a_placeholder_names_what_it_may_and_none_surely():
    r = _route(_UNSEEN_KINDS)
    assert r.services == [] and r.pool_refs == [] and r.ports == [8000]
    assert [(x.kind, x.namespace, x.name, x.group, x.permitted, x.outside, x.unseen) for x in r.remote_refs] == [
        ("Service", "llm-d", "vllm", "", "its backendRef's kind is the template placeholder `{{ .Values.kind }}`",
         False, True),
        ("InferencePool", "llm-d", "pool", "", "its backendRef's group is the template placeholder `${POOL_GROUP}`",
         False, True),
        ("Service", "models", "svc", "", "its backendRef's group is the template placeholder `${GROUP}`", False, True),
    ]  # of the core group, an InferencePool it is not; a ServiceImport is neither, whatever its group: no ref


def test_a_pool_ref_whose_group_is_a_placeholder_joins_the_pool_of_either_group():
    pool = """\
---
apiVersion: inference.networking.x-k8s.io/v1alpha2
kind: InferencePool
metadata: {name: pool, namespace: llm-d}
spec: {targetPortNumber: 8000, selector: {app: vllm}}
"""
    assert [p.name for p in _route(_UNSEEN_KINDS + pool).pools] == ["pool"]
    assert _route(_UNSEEN_KINDS + pool.replace("llm-d", "other")).pools == []  # of the route's namespace only
