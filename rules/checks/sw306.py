"""SW306: vLLM exposed without a gateway (LoadBalancer/NodePort Service, or dev mode on)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ..engine import Hit, LintConfig, ObjectRule, RuleMeta, group_subject, hit, subject_of
from ..model import UNKNOWN, Ingress, Inventory, Service, ServingGroup, Undecidable, known
from ..model.vocab import AWS_LB_SCHEME, INTERNAL_LB_ANNOTATIONS
from ._env import env_value, vllm_containers
from ._net import (
    EXTERNAL_SERVICE_TYPES,
    WORLD,
    OutsideInputs,
    fronting_containers,
    is_mesh_parent,
    judged_behind,
    mesh_only,
    routed_targets,
    selectable,
    selects,
)
from ._unseen import unseen_hits
from ._words import listed

DEV_MODE = "VLLM_SERVER_DEV_MODE"


#: What to write instead, in a blocking finding (the names it gives are the message's own: a baseline's field is
#: read from the message).
_REMEDY = ("set VLLM_API_KEY in the vLLM container from a Secret (valueFrom.secretKeyRef), or authenticate the "
           "clients at the gateway or the load balancer")


class VllmExposedWithoutGateway(ObjectRule[Service | Ingress | ServingGroup]):
    meta = RuleMeta(
        code="SW306",
        name="vllm-exposed-without-gateway",
        enforcement="mandatory",
        severity="high",
        summary=(
            "A LoadBalancer or NodePort Service, or the public route of a Knative Service or a KServe "
            "InferenceService, exposes vLLM pods directly, an Ingress, HTTPRoute (judged on its Gateways of the "
            "inputs) or OpenShift Route routes to a vLLM server that checks no API key, or a vLLM container sets "
            "VLLM_SERVER_DEV_MODE."
        ),
        why=(
            "vLLM's HTTP server is not meant to face clients on its own: --api-key guards only the /v1 "
            "routes, and metrics, health, tokenizer and (with VLLM_SERVER_DEV_MODE) development endpoints "
            "such as /sleep, /reset_prefix_cache and /collective_rpc answer anyone. A Service of type "
            "LoadBalancer or NodePort bypasses the gateway that authenticates, rate-limits and routes by "
            "load. A public LoadBalancer blocks; a NodePort (reachable as far as the nodes' security groups "
            "allow) or a LoadBalancer its annotation makes internal is advisory, and so is one handed to the AWS "
            "Load Balancer Controller (loadBalancerClass service.k8s.aws/nlb, or aws-load-balancer-type external) "
            "or to EKS Auto Mode (eks.amazonaws.com/nlb) with no scheme annotation: both make it internal by "
            "default. A LoadBalancer that names no class and no scheme is advisory too unless the inputs name a "
            "cloud other than AWS (GKE, AKS, OCI, DigitalOcean annotations or node labels): on EKS the AWS Load "
            "Balancer Controller v2.5+ (its Service webhook, on by default) sets service.k8s.aws/nlb at creation "
            "and Auto Mode makes eks.amazonaws.com/nlb the default class, so the same manifest gets an internal NLB "
            "there and a public one elsewhere. A Knative Service without the label "
            "networking.knative.dev/visibility: cluster-local gets a route on the cluster's ingress gateway; whether "
            "that route is reachable from outside is the cluster's config-domain (since Knative 1.8 the default, "
            "svc.cluster.local, is not exposed through the ingress) and the gateway's Service, which manifests "
            "rarely show: advisory (a label not known yet is said the same way; a Cloud Run service, the same kind, is "
            "served behind Cloud Run's IAM invoker check, not a Knative ingress). A KServe InferenceService is "
            "routed the same way in Serverless (Knative) mode, the mode KServe's inferenceservice-config ships as the "
            "default (v0.10 to v0.19) and the one taken when no serving.kserve.io/deploymentMode annotation names "
            "another, unless it carries networking.knative.dev/visibility: cluster-local: advisory, for the same "
            "reason. In RawDeployment (Standard) mode KServe creates an Ingress or HTTPRoute unless "
            "networking.kserve.io/visibility: cluster-local is set, but only where the cluster's ingress config turns "
            "ingress creation on (OpenShift AI ships it off): advisory. A networking.kserve.io/visibility label with "
            "no annotation says Standard mode (only it reads the label); an inferenceservice-config ConfigMap in the "
            "inputs gives the default mode and whether Standard mode creates an Ingress at all. An Ingress, an "
            "HTTPRoute or an OpenShift Route (onto a Service of the inputs, or onto the <name>-predictor Service "
            "KServe makes for an InferenceService) is a router, not an authenticating gateway: one that routes to a "
            "vLLM server with no "
            "--api-key and no VLLM_API_KEY (in env, or an envFrom ConfigMap of the inputs) lets whoever reaches it "
            "call every route. It blocks when the Ingress itself says it faces the internet (the AWS Load Balancer "
            "Controller's alb.ingress.kubernetes.io/scheme: internet-facing, or scheme internet-facing in the "
            "IngressClassParams its IngressClass of the inputs names, which the controller takes over the "
            "annotation) and nothing on it authenticates or "
            "narrows the clients (an ALB auth-type cognito or oidc, ingress-nginx auth-url, auth-type or client "
            "certificates; inbound-cidrs, security groups, a WAF ACL, a source-range allow list make it "
            "advisory). Any other Ingress (an internal ALB, the ALB's default scheme internal, another controller "
            "whose own Service decides its reach) and every Route (the router's IngressController decides) are "
            "advisory: a cluster setting the manifest does not show is not sure. An HTTPRoute, and the route KServe "
            "makes for an LLMInferenceService, is judged on its parent Gateways of the inputs, attached as the Gateway "
            "API does (parentRef namespace defaulting to the route's, sectionName, port, listener protocol, "
            "allowedRoutes kinds and namespaces Same, All or Selector, hostnames): a Gateway that admits no such route "
            "does not publish it. A backendRef names the Service or InferencePool of the route's namespace, or of the "
            "namespace it writes, which the route reaches only where a ReferenceGrant there permits it (its from "
            "naming the route's kind and namespace, its to the backend's group, kind and, if it names one, name): "
            "where the inputs hold ReferenceGrants of that namespace and none permits it the Gateway does not send "
            "there, and where they hold none (one may be applied apart from them) it cannot decide, advisory. A "
            "route that names no namespace lands in the one it is applied into (kubectl apply -n, a Helm release's): "
            "equal to the other objects of its input that name none, and against a grant's or a Gateway's namespace "
            "it cannot decide, advisory. A backendRef names a Service only with kind Service of the core group "
            "(written \"\" or left out; group core only some implementations resolve: cannot decide), an "
            "InferencePool only of the group it writes; a ServiceImport or another kind names none of the inputs. "
            "A route whose parentRefs are all Services (GAMMA, a service mesh's routing) is published by no Gateway. "
            "It "
            "blocks when a Gateway admitting it has a class whose controller is documented to make an internet-facing "
            "load balancer (GKE's gke-l7-global-external-managed, gke-l7-regional-external-managed, gke-l7-gxlb; the "
            "AWS Load Balancer Controller's gateway.k8s.aws/alb "
            "with a LoadBalancerConfiguration scheme internet-facing) and no policy of the inputs authenticates its "
            "clients (an Envoy Gateway SecurityPolicy with jwt, oidc, basicAuth, apiKeyAuth or extAuth, a Kuadrant "
            "AuthPolicy, an Istio RequestAuthentication with an AuthorizationPolicy on the Gateway, a "
            "ListenerRuleConfiguration authenticate-oidc or authenticate-cognito action, a GKE GCPBackendPolicy with "
            "IAP). GKE's internal classes, the AWS Load Balancer Controller's default internal ALB, VPC Lattice, a "
            "Gateway whose spec.infrastructure.annotations make its load balancer internal, and every other controller "
            "(Istio, Envoy Gateway, Cilium, NGINX Gateway Fabric, Kong, Traefik, whose LoadBalancer Service takes the "
            "cloud's default) are advisory, and so is a route whose Gateway is not in the inputs. So is a server whose "
            "envFrom Secret, or ConfigMap not in the inputs, could set VLLM_API_KEY, and a Service whose every "
            "targetPort is a port another container of the pod declares (an oauth2-proxy or kube-rbac-proxy sidecar "
            "in front of vLLM: whether it authenticates is its own configuration), behind an Ingress or route "
            "counting only the Service ports it routes to (a port for in-cluster clients on vLLM itself is not "
            "published by a route that names only the proxy's); a targetPort on vLLM's own port "
            "blocks whatever sidecars the pod has. VLLM_SERVER_DEV_MODE is read "
            "from env and from the envFrom ConfigMaps of the inputs (what a Secret or a ConfigMap kept elsewhere "
            "could hold is not guessed); a value that is not known yet (a preview's computed value, a whole pod "
            "template not known yet) blocks until it is known."
        ),
        bad_example=(
            "apiVersion: v1\n"
            "kind: Service\n"
            "metadata:\n"
            "  name: llama\n"
            "  namespace: serving\n"
            "  annotations: {service.beta.kubernetes.io/aws-load-balancer-scheme: internet-facing}\n"
            "spec:\n"
            "  type: LoadBalancer\n"
            "  selector: {app: llama}\n"
            "  ports: [{port: 80, targetPort: 8000}]"
        ),
        good_example=(
            "apiVersion: v1\n"
            "kind: Service\n"
            "metadata: {name: llama, namespace: serving}\n"
            "spec:\n"
            "  type: ClusterIP\n"
            "  selector: {app: llama}\n"
            "  ports: [{port: 8000, targetPort: 8000}]"
        ),
        remediation=(
            "Give vLLM a ClusterIP Service and publish it only through a gateway or ingress that "
            "authenticates clients, or set VLLM_API_KEY from a Secret on a server an Ingress routes to. Remove "
            "VLLM_SERVER_DEV_MODE from production containers."
        ),
        references=(
            "https://docs.vllm.ai/en/latest/usage/security.html",
            "https://knative.dev/docs/serving/services/private-services/",
            "https://github.com/knative/serving/pull/13259",
            "https://kubernetes-sigs.github.io/aws-load-balancer-controller/latest/guide/service/nlb/",
            "https://kubernetes-sigs.github.io/aws-load-balancer-controller/latest/deploy/installation/",
            "https://docs.aws.amazon.com/eks/latest/userguide/auto-configure-nlb.html",
            "https://github.com/kserve/kserve/blob/v0.19.0/pkg/controller/v1beta1/inferenceservice/reconcilers/"
            "ingress/kube_ingress_reconciler.go",
            "https://docs.vllm.ai/en/latest/configuration/env_vars.html",
            "https://kubernetes.io/docs/concepts/services-networking/service/#publishing-services-service-types",
            "https://kubernetes-sigs.github.io/aws-load-balancer-controller/latest/guide/ingress/annotations/",
            "https://kubernetes.github.io/ingress-nginx/user-guide/nginx-configuration/annotations/",
            "https://gateway-api.sigs.k8s.io/reference/spec/",
            "https://cloud.google.com/kubernetes-engine/docs/how-to/gatewayclass-capabilities",
            "https://kubernetes-sigs.github.io/aws-load-balancer-controller/latest/guide/gateway/loadbalancerconfig/",
            "https://kubernetes-sigs.github.io/aws-load-balancer-controller/latest/guide/gateway/listenerruleconfig/",
        ),
        scope="stack",
        safe_to_skip_unknown=False,
    )

    def objects(self, inv: Inventory) -> Iterable[Service | Ingress | ServingGroup]:
        return [*inv.services, *inv.ingresses, *self.groups(inv)]

    def check(self, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        yield from super().check(inv, config)
        # a workload whose pods are not known yet may run vLLM with dev mode on: fail closed
        yield from unseen_hits(inv, f"whether its containers set {DEV_MODE}")

    def check_object(self, obj: Service | Ingress | ServingGroup, inv: Inventory,
                     config: LintConfig) -> Iterable[Hit]:
        if isinstance(obj, Service):
            return self._service(inv, obj)
        if isinstance(obj, Ingress):
            return self._routed(inv, obj)
        return [*self._published(inv, obj), *self._dev_mode(inv, obj)]

    def _routed(self, inv: Inventory, ing: Ingress) -> Iterator[Hit]:
        """An Ingress or HTTPRoute in front of vLLM servers that check no API key."""
        if mesh_only(ing):
            return  # a GAMMA route (its parents are Services): no Gateway publishes it (mend23)
        open_: list[tuple[Service, ServingGroup, str]] = []  # (Service, group, why it is only advisory: "" sure)
        # each group judged on its own (small16): a group whose labels are not known yet is a "cannot decide" of its
        # own (fail closed), and does not hide a sure finding on another group behind the same Ingress
        sure, unsure = judged_behind(inv, ing)
        for svc, g in sure:
            if g.kind == "plan" or any(g is x for _, x, _ in open_):
                continue
            key = api_key(inv, g)
            if key is not True:
                open_.append((svc, g, _fronted(svc, g, routed_targets(ing, svc)) or key or ""))
        # (what is not known, whether only for want of a ReferenceGrant outside the inputs: never a block, mend16)
        unknown = sorted({(u.text, isinstance(u, OutsideInputs)) for _svc, g, u in unsure
                          if g.kind != "plan" and not any(g is x for _, x, _ in open_) and api_key(inv, g) is not True})
        if not open_ and not unknown:
            return
        reach = ingress_reach(ing)
        if reach is None:
            return  # the Ingress authenticates its clients
        how, advisory = reach
        # where the route's reach makes every known answer advisory, an unknown one is too (mend13: a Service's
        # selector the template fills blocked behind a Gateway its known one is advisory at)
        for text, outside in unknown:
            yield Hit(subject_of(ing), f"cannot decide: {text}", ing.location, tuple(ing.suppressions),
                      undecided=True, level="advisory" if advisory or outside else None)
        kind = "Ingress" if ing.kind == "Ingress" else ing.kind
        for level_reason in sorted({why for _, _, why in open_}):
            batch = [(svc, g) for svc, g, why in open_ if why == level_reason]
            behind = listed(f"{group_subject(g)} ({svc.kind} `{svc.name}`)" for svc, g in batch)
            message = (f"{kind} `{ing.namespace}/{ing.name}` routes to {behind} {how}, and vLLM checks no API key "
                       "there (no --api-key, no VLLM_API_KEY): whoever reaches it can call every route")
            why = "; ".join(w for w in (advisory, level_reason) if w)
            if why:
                yield hit(ing, f"{message} (advisory: {why})", level="advisory")
            else:
                yield hit(ing, f"{message}; {_REMEDY}")

    def _published(self, inv: Inventory, g: ServingGroup) -> Iterator[Hit]:
        """The group's own controller publishes it outside the cluster (a Knative Service's route)."""
        if g.published is None:
            return
        if g.published is UNKNOWN:
            what = ("the `networking.knative.dev/visibility` label" if g.kind.startswith("Knative") else
                    "its `spec.router` or the `security.opendatahub.io/enable-auth` annotation"
                    if g.kind == "LLMInferenceService" else
                    "the visibility label or the `serving.kserve.io/deploymentMode` annotation")
            # every answer a known label gives is advisory (the cluster's domain and gateway decide the rest), so an
            # unknown one is too: said at the label's line, never a silent pass
            yield Hit(group_subject(g), f"cannot decide whether {group_subject(g)} is published outside the cluster: "
                      f"{what} is not known yet (advisory: a route's reach is the cluster's ingress configuration)",
                      g.at("published"), tuple(g.suppressions), level="advisory")
            return
        if g.published_undecided is not None and api_key(inv, g) is not True:
            raise Undecidable(g.published_undecided)  # the Gateway's class or scheme at preview: fail closed
        message = f"{group_subject(g)} {g.published}, with no gateway that authenticates clients"
        key = api_key(inv, g) if g.kind == "LLMInferenceService" and not g.published_advisory else None
        if key is True:  # a sure route onto a server that checks an API key (a Gateway of the inputs decided it)
            return
        if isinstance(key, str):
            yield Hit(group_subject(g), f"{message} (advisory: {key})", g.at("published"), tuple(g.suppressions),
                      level="advisory")
            return
        if g.published_advisory:
            yield Hit(group_subject(g), f"{message} (advisory: {g.published_advisory})", g.at("published"),
                      tuple(g.suppressions), level="advisory")
            return
        yield Hit(group_subject(g), message, g.at("published"), tuple(g.suppressions))

    def _service(self, inv: Inventory, svc: Service) -> Iterator[Hit]:
        kind = known(svc.type, f"type of Service `{svc.name}`")
        if kind not in EXTERNAL_SERVICE_TYPES:
            return
        groups = [g for g in selectable(inv, svc) if g.kind != "plan" and selects(svc, g)]
        if not groups:
            return
        # a port not known at preview is named as such, never printed as the model's `<unknown>` (mend12)
        known_ports = [str(p) for p in dict.fromkeys(svc.ports) if p is not UNKNOWN]
        items = known_ports + (["a port not known yet"] if UNKNOWN in svc.ports else [])
        ports = ("port " if len(known_ports) == 1 else "ports " if known_ports else "") + (
            f"{', '.join(items[:-1])} and {items[-1]}" if len(items) > 1 else "".join(items))
        # mend24: a Service that lists no port read "directly on port its ports"
        ports = f"on {ports}" if ports else "(the Service lists no port)"
        at = svc.type_location or svc.location
        fronts = [fronting_containers(svc, g) for g in groups]
        if all(fronts):  # every port reaches another container of the pod first: a proxy sidecar, say
            yield hit(svc, f"Service `{svc.namespace}/{svc.name}` of type {kind} exposes "
                           f"{listed(group_subject(g) for g in groups)} {ports} through container "
                           f"{listed(sorted({f for fs in fronts for f in fs}))}, not vLLM itself (advisory: whether "
                           "that container authenticates clients is not in the inputs)", at, level="advisory")
            return
        message = (f"Service `{svc.namespace}/{svc.name}` of type {kind} exposes "
                   f"{listed(group_subject(g) for g in groups)} directly {ports}, with no gateway that "
                   "authenticates clients; make it `type: ClusterIP` and publish vLLM only through a gateway or "
                   "Ingress that does")
        internal = (internal_scheme(svc) or controller_decides(svc, groups)) if kind == "LoadBalancer" else None
        if kind == "NodePort":  # reachable where the nodes' security groups or firewall let clients in
            yield hit(svc, f"{message} (advisory: who reaches a NodePort depends on the nodes' firewall, which the "
                           "inputs do not show)",
                      at, level="advisory")
        elif internal is not None:  # reachable inside the network only
            yield hit(svc, f"{message} (advisory: {internal})", at, level="advisory")
        else:
            yield hit(svc, message, at)

    def _dev_mode(self, inv: Inventory, g: ServingGroup) -> Iterator[Hit]:
        for c in g.containers:
            found = env_value(inv, g, c, DEV_MODE, read_env_from=c.runs_vllm)
            if found is None:
                continue
            value, source, where = found
            if value is UNKNOWN or not isinstance(value, str | int | float | bool):
                raise Undecidable(f"{DEV_MODE} of container `{c.name}`")
            on = dev_mode_on(str(value))
            if on is False:
                continue
            if on is None:
                yield Hit(
                    group_subject(g),
                    f"container `{c.name}` sets {DEV_MODE}={value!r}{source}, which is not an integer: vLLM reads "
                    "it with int() and stops with a ValueError at start-up (dev mode is not on)",
                    where, tuple(g.suppressions), level="advisory",
                )
                continue
            yield Hit(
                group_subject(g),
                f"container `{c.name}` sets {DEV_MODE}={value}{source}, which serves unauthenticated development "
                f"endpoints (/sleep, /reset_prefix_cache, /collective_rpc); remove {DEV_MODE} from the container",
                where,
                tuple(g.suppressions),
            )


def _fronted(svc: Service, g: ServingGroup, targets: list[Any]) -> str:
    """Why the traffic a route sends to a Service (its target ports ``targets``: :func:`routed_targets`) may be
    authenticated before vLLM: it reaches another container of the pod (a proxy sidecar), whose checks the rule cannot
    read. Empty when some of it reaches vLLM itself."""
    fronts = fronting_containers(svc, g, targets)
    if not fronts:
        return ""
    return (f"{svc.kind} `{svc.name}` sends the traffic to container {listed(fronts)}, not to vLLM itself; whether "
            "that container authenticates clients is not in the inputs")


def api_key(inv: Inventory, g: ServingGroup) -> bool | str | None:
    """Whether the group's vLLM server checks an API key: True when --api-key or VLLM_API_KEY (env, or an envFrom
    ConfigMap of the inputs) sets one, None when nothing does, else why one may be set that the inputs do not
    show (an envFrom Secret, or a ConfigMap not in the inputs). vLLM turns the check on for a non-empty key
    (``args.api_key or envs.VLLM_API_KEY``, vllm/entrypoints/openai/api_server.py)."""
    if g.engine.extra.get("api_key") not in (None, ""):
        return True
    unseen: list[str] = []
    for c in vllm_containers(g):
        try:
            found = env_value(inv, g, c, "VLLM_API_KEY", read_env_from=True)
        except Undecidable:
            return True  # a key from a source not known yet: SW306's unknown-source findings speak of it
        if found is not None and (found[0] is UNKNOWN or str(found[0]).strip()):
            return True  # a secretKeyRef, or a value the inputs set
        names = {m.name for m in inv.config_maps if m.kind == "ConfigMap" and m.namespace == g.namespace}
        unseen += [f"envFrom {src.kind} `{src.name}`" for src in c.env_from
                   if src.kind == "secret" or src.name not in names]
    if unseen:
        return f"{listed(sorted(set(unseen)))} is not in the inputs and could set VLLM_API_KEY"
    return None


#: Annotations on an Ingress that make its controller authenticate the clients: the AWS Load Balancer Controller's
#: ALB authentication (auth-type cognito or oidc), ingress-nginx's external authentication, basic or digest
#: authentication and client certificates.
_INGRESS_AUTH = (
    ("alb.ingress.kubernetes.io/auth-type", ("cognito", "oidc")),
    ("nginx.ingress.kubernetes.io/auth-url", None),
    ("nginx.ingress.kubernetes.io/auth-type", ("basic", "digest")),
    ("nginx.ingress.kubernetes.io/auth-tls-verify-client", ("on",)),
)
#: Annotations that narrow who reaches an Ingress without authenticating: inbound CIDRs, the load balancer's own
#: security groups, a WAF ACL, ingress-nginx's source-range allow list.
_INGRESS_NARROW = ("alb.ingress.kubernetes.io/inbound-cidrs", "alb.ingress.kubernetes.io/security-groups",
                   "alb.ingress.kubernetes.io/wafv2-acl-arn", "alb.ingress.kubernetes.io/waf-acl-id",
                   "nginx.ingress.kubernetes.io/whitelist-source-range",
                   "nginx.ingress.kubernetes.io/allowlist-source-range")
ALB_SCHEME = "alb.ingress.kubernetes.io/scheme"
#: The IngressClass controllers that make ALBs: the AWS Load Balancer Controller's and EKS Auto Mode's.
_ALB_CONTROLLERS = ("ingress.k8s.aws/alb", "eks.amazonaws.com/alb")


def ingress_reach(ing: Ingress) -> tuple[str, str] | None:
    """How an Ingress or HTTPRoute publishes its backends (as SW306 says it) and why that is only advisory ("" when
    the Ingress itself says it faces the internet); None when its annotations make the controller authenticate
    the clients."""
    ann = ing.annotations
    for key, values in _INGRESS_AUTH:
        value = ann.get(key)
        if value is None:
            continue
        value = known(value, f"annotation `{key}` of {ing.kind} `{ing.name}`")
        if values is None or str(value).strip().lower() in values:
            return None
    if ing.kind == "Route":
        return ("through the OpenShift router", "whether the router is reachable from outside the cluster is its "
                "IngressController, which the inputs do not show")
    if ing.kind != "Ingress":
        if ing.gateway_auth is not None:
            return None  # a policy of the inputs authenticates its clients, or no Gateway of the inputs admits it
        if ing.gateway_undecided is not None:
            raise Undecidable(ing.gateway_undecided)
        if ing.gateway is not None:  # what the Gateways of the inputs say (adapters.k8s.gateway)
            return ing.gateway
        gateways = [p for p, ref in zip(ing.parents, ing.parent_refs, strict=True) if not is_mesh_parent(ref)]
        parents = listed(f"`{p}`" for p in gateways) if gateways else "its parent Gateway"
        return (f"through {parents}", "whether the Gateway is reachable from outside the cluster is its GatewayClass "
                "and the Service its controller makes, which the inputs do not show")
    cls = known(ing.class_name, f"the ingress class of Ingress `{ing.name}`")
    scheme = ann.get(ALB_SCHEME)
    alb = cls == "alb" or scheme is not None or ing.class_controller in _ALB_CONTROLLERS
    if not alb:
        said = f"the `{cls}` ingress controller" if cls else "the cluster's default ingress controller"
        return (f"through {said}", "whether that controller is reachable from outside the cluster is its own "
                "Service, which the inputs do not show")
    if ing.class_scheme is not None:  # the class's IngressClassParams: the controller takes it over the annotation
        scheme, said = ing.class_scheme[0], f"{ing.class_scheme[1]} of its IngressClass: scheme {ing.class_scheme[0]}"
    else:
        scheme = str(known(scheme, f"annotation `{ALB_SCHEME}` of Ingress `{ing.name}`") or "").strip()
        said = f"`{ALB_SCHEME}: {scheme}`"
    if scheme != "internet-facing":
        if scheme == "internal":
            return (f"on an internal ALB ({said})", "an internal ALB is reachable from the VPC "
                    "and the networks joined to it, not from the internet")
        return ("on an ALB", f"without `{ALB_SCHEME}` the controller makes it internal unless the IngressClass's "
                "IngressClassParams set a scheme, which the inputs do not show")
    how = f"on an internet-facing ALB ({said})"
    narrow = [k for k in _INGRESS_NARROW if k in ann
              and not (k.endswith("inbound-cidrs") and _world(ann[k]))]
    if narrow:
        return how, f"`{narrow[0]}` may narrow who reaches it to clients the inputs do not show"
    return how, ""


def _world(value: object) -> bool:
    """Whether an inbound-cidrs value admits the whole internet."""
    return isinstance(value, str) and any(c.strip() in WORLD for c in value.split(","))


#: Annotations that make a cloud load balancer internal, and their values (model.vocab).
_INTERNAL_LB = INTERNAL_LB_ANNOTATIONS


#: What hands a LoadBalancer Service to the AWS Load Balancer Controller, which provisions an internal NLB unless the
#: Service asks for another scheme (since v2.2.0: its docs' guide/service/nlb, "Secure by default").
LBC_CLASS = "service.k8s.aws/nlb"
#: EKS Auto Mode's load balancer class: the cluster's default class there, and an NLB is internet-facing only when the
#: Service's scheme annotation says so (EKS user guide, "Use Service Annotations to configure Network Load Balancers").
AUTO_MODE_CLASS = "eks.amazonaws.com/nlb"
_AWS_CLASSES = {LBC_CLASS: "the AWS Load Balancer Controller", AUTO_MODE_CLASS: "EKS Auto Mode"}
#: Label and annotation prefixes that say the cluster is not on AWS, whose clouds give a LoadBalancer Service with no
#: internal annotation an external address: GKE, AKS, OCI, DigitalOcean.
_OTHER_CLOUDS = (
    ("cloud.google.com/", "GKE"), ("networking.gke.io/", "GKE"), ("service.beta.kubernetes.io/azure-", "AKS"),
    ("kubernetes.azure.com/", "AKS"), ("oci.oraclecloud.com/", "OCI"), ("service.beta.kubernetes.io/oci-", "OCI"),
    ("service.beta.kubernetes.io/do-loadbalancer-", "DigitalOcean"), ("doks.digitalocean.com/", "DigitalOcean"),
)
_LB_TYPE = "service.beta.kubernetes.io/aws-load-balancer-type"
_LB_SCHEME = AWS_LB_SCHEME


def internal_scheme(svc: Service) -> str | None:
    """Why a LoadBalancer Service gets an internal load balancer, or None: an annotation that makes it internal, or
    the AWS Load Balancer Controller's own default where the Service names that controller and no scheme."""
    for key in (*(k for k, _ in _INTERNAL_LB), _LB_TYPE):
        known(svc.annotations.get(key), f"annotation `{key}` of Service `{svc.name}`")
    found = internal_annotation(svc.annotations)
    if found is not None:
        return f"{found} keeps the load balancer off the internet"
    if _LB_SCHEME in svc.annotations:
        return None
    lb_type = svc.annotations.get(_LB_TYPE)
    cls = svc.load_balancer_class
    if isinstance(cls, str) and cls in _AWS_CLASSES:
        how, who = f"`loadBalancerClass: {cls}`", _AWS_CLASSES[cls]
    elif isinstance(lb_type, str) and lb_type.strip().lower() == "external" and cls is None:
        how, who = f"`{_LB_TYPE}: external`", _AWS_CLASSES[LBC_CLASS]
    else:
        return None
    return f"{how} hands it to {who}, which makes the load balancer internal unless `{_LB_SCHEME}` says internet-facing"


def cloud_shown(svc: Service, groups: Iterable[ServingGroup]) -> str | None:
    """The cloud other than AWS that the Service's annotations or its pods' node selectors and pool labels name, or
    None when they name none."""
    keys = [*svc.annotations]
    for g in groups:
        if isinstance(g.node_selector, dict):
            keys.extend(g.node_selector)
        if g.pool is not None:
            keys.extend(g.pool.labels)
    for key in keys:
        for prefix, cloud in _OTHER_CLOUDS:
            if isinstance(key, str) and key.startswith(prefix):
                return cloud
    return None


def controller_decides(svc: Service, groups: Iterable[ServingGroup]) -> str | None:
    """Why a LoadBalancer Service that names no class and no scheme is not sure to be public, or None when it is.

    On EKS the AWS Load Balancer Controller (v2.5 and later, its Helm value enableServiceMutatorWebhook on by default)
    sets ``loadBalancerClass: service.k8s.aws/nlb`` on every LoadBalancer Service created without a class
    (webhooks/core/service_mutator.go), and EKS Auto Mode makes ``eks.amazonaws.com/nlb`` the default class: either
    way the NLB is internal unless the scheme annotation says internet-facing. Without them (the in-tree provider) it
    is public. Which one the cluster runs is not in a manifest; a cloud other than AWS named in the inputs is."""
    if svc.load_balancer_class is not None or _LB_SCHEME in svc.annotations:
        return None
    if cloud_shown(svc, groups) is not None:
        return None
    return ("on EKS with the AWS Load Balancer Controller v2.5+ (its Service webhook, on by default, sets "
            f"`loadBalancerClass: {LBC_CLASS}` at creation) or EKS Auto Mode the load balancer is internal, elsewhere "
            f"public; which one runs is the cluster's, not the manifest's: write `{_LB_SCHEME}` or a "
            "`loadBalancerClass` to make it sure")


def internal_annotation(annotations: dict[str, str]) -> str | None:
    """``key: value`` of the annotation that makes a LoadBalancer Service internal, or None."""
    for key, values in _INTERNAL_LB:
        value = annotations.get(key)
        if isinstance(value, str) and value.strip().lower() in values:
            return f"`{key}: {value}`"
    return None


def dev_mode_on(value: str) -> bool | None:
    """Whether vLLM turns dev mode on for this value; None when vLLM cannot read it.

    vLLM reads the variable as ``bool(int(os.getenv("VLLM_SERVER_DEV_MODE", "0")))`` (vllm/envs.py), so
    ``"00"``, ``" 0 "`` and ``"-0"`` are off, any other integer is on, and a word such as ``"true"`` or
    an empty value makes ``int()`` raise when the API server reads it at start-up.
    """
    try:
        return int(value) != 0
    except ValueError:
        return None
