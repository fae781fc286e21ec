"""SW406: round-robin load balancing in front of vLLM replicas."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ..engine import Hit, LintConfig, ObjectRule, RuleMeta, group_subject, hit, subject_of
from ..model import ROUTER_LOGICS, UNKNOWN, Ingress, Inventory, Router, ServingGroup, Undecidable, known
from ..model.unknown import UNKNOWN_TOKEN, UNRESOLVED
from ._net import judged_behind, targets
from ._words import listed

ALB_ATTRS = "alb.ingress.kubernetes.io/target-group-attributes"
ALB_ALGORITHM = "load_balancing.algorithm.type"
LEAST_OUTSTANDING = "least_outstanding_requests"
NGINX_BALANCE = "nginx.ingress.kubernetes.io/load-balance"
NGINX_HASH = "nginx.ingress.kubernetes.io/upstream-hash-by"
#: the controllers an IngressClass of the inputs names (``spec.controller``): the AWS Load Balancer Controller's and EKS
#: Auto Mode's ALB, and ingress-nginx's (its chart's IngressClass ``nginx``)
ALB_CONTROLLERS = ("ingress.k8s.aws/alb", "eks.amazonaws.com/alb")
NGINX_CONTROLLER = "k8s.io/ingress-nginx"


def routing(ing: Ingress) -> tuple[str, str] | None:
    """(controller, algorithm) for an Ingress whose controller we know, else None.

    The class is ``spec.ingressClassName``, else the older ``kubernetes.io/ingress.class`` annotation (the adapter's
    ``class_name``; networking.k8s.io/v1 IngressSpec: controllers honour either), and the controller of the
    IngressClass of that name where the inputs hold it. A class not known yet (a preview's computed
    ``ingressClassName``) may name any controller. The AWS Load Balancer Controller defaults to round_robin;
    ingress-nginx (retired) to round_robin too.
    """
    ann = ing.annotations

    def written(key: str) -> Any:  # a value not known at preview (UNKNOWN) may name any controller or algorithm
        return known(ann.get(key, ""), f"the annotation {key} of Ingress `{ing.name}`")

    cls = str(known(ing.class_name, f"the ingress class of Ingress `{ing.name}`") or "").lower()
    controller = ing.class_controller
    if cls == "alb" or controller in ALB_CONTROLLERS or any(k.startswith("alb.ingress.kubernetes.io/") for k in ann):
        attrs = {}
        for part in str(written(ALB_ATTRS)).split(","):
            key, _, value = part.partition("=")
            attrs[key.strip()] = value.strip()
        return "alb", attrs.get(ALB_ALGORITHM) or "round_robin"
    if cls == "nginx" or controller == NGINX_CONTROLLER or any(
            k.startswith("nginx.ingress.kubernetes.io/") for k in ann):
        if NGINX_HASH in ann:
            return "nginx", "consistent hash"
        return "nginx", str(known(ann.get(NGINX_BALANCE, "round_robin"), f"the annotation {NGINX_BALANCE} of Ingress "
                                                                          f"`{ing.name}`"))
    return None


def _several_replicas(inv: Inventory, g: ServingGroup) -> bool:
    if g.replicas is UNKNOWN or (isinstance(g.replicas, int) and g.replicas > 1):
        return True
    for a in inv.autoscalers:
        if any(t is g for t in targets(inv, a)):
            top = a.max_replicas
            if top is UNKNOWN or (isinstance(top, int) and top > 1):
                return True
    return False


def _router_groups(inv: Inventory, r: Router) -> list[ServingGroup]:
    """The serving groups whose pods a router with Kubernetes discovery sends requests to: those of its
    ``--k8s-namespace`` whose pod labels hold every term of its ``--k8s-label-selector``."""
    if r.watch_namespace is UNKNOWN:
        raise Undecidable("the namespace the router discovers engines in (--k8s-namespace)")
    if r.selector is UNKNOWN:
        raise Undecidable("the router's --k8s-label-selector",
                          "a value not known yet, or a set-based term shardwise does not read")
    out = []
    for g in inv.groups:
        labels = g.pod_labels
        if g.kind == "plan" or g.namespace != r.watch_namespace or not isinstance(labels, dict):
            continue  # labels not known yet (a preview's computed labels): not this router's to claim
        if not inv.same_unit(r.location.file, g.location.file):
            continue  # another repository's or stack's pods (place16)
        if all(labels.get(k) == v for k, v in r.selector.items()):
            out.append(g)
    return out


class RoundRobinInFrontOfVllm(ObjectRule[Ingress | Router]):
    meta = RuleMeta(
        code="SW406",
        name="round-robin-in-front-of-vllm",
        enforcement="advisory",
        severity="medium",
        summary="A load balancer spreads requests over vLLM replicas round-robin instead of by load.",
        why=(
            "vLLM requests differ by orders of magnitude in cost (a 20-token answer vs a 30,000-token "
            "prompt). Round-robin sends the next request to a replica regardless of how many it is already "
            "running, so queues build on some replicas while others idle and tail latency grows. "
            "Least-outstanding-requests routing sends each request to the least busy replica."
        ),
        bad_example=(
            "apiVersion: networking.k8s.io/v1\n"
            "kind: Ingress\n"
            "metadata:\n"
            "  annotations:\n"
            "    alb.ingress.kubernetes.io/scheme: internal"
        ),
        good_example=(
            "apiVersion: networking.k8s.io/v1\n"
            "kind: Ingress\n"
            "metadata:\n"
            "  annotations:\n"
            "    alb.ingress.kubernetes.io/scheme: internal\n"
            "    alb.ingress.kubernetes.io/target-group-attributes: "
            "load_balancing.algorithm.type=least_outstanding_requests"
        ),
        remediation=(
            "On the AWS Load Balancer Controller set alb.ingress.kubernetes.io/target-group-attributes to "
            "load_balancing.algorithm.type=least_outstanding_requests, or route through a gateway that balances "
            "on vLLM's own load (the Gateway API Inference Extension picks an endpoint from each replica's queue "
            "and KV-cache metrics). On vLLM production-stack's router (the vllm-stack chart's "
            "routerSpec.routingLogic, roundrobin by default in every release) choose session, prefixaware or kvaware: "
            "each falls back to the engine with the lowest request rate. ingress-nginx is retired (no releases or "
            "security fixes after March 2026): move those Ingresses to a maintained Gateway API implementation "
            "instead of tuning its annotations."
        ),
        references=(
            "https://kubernetes-sigs.github.io/aws-load-balancer-controller/latest/guide/ingress/annotations/#target-group-attributes",
            "https://docs.aws.amazon.com/elasticloadbalancing/latest/application/edit-target-group-attributes.html#modify-routing-algorithm",
            "https://gateway-api-inference-extension.sigs.k8s.io/",
            "https://kubernetes.io/blog/2025/11/11/ingress-nginx-retirement/",
            "https://github.com/vllm-project/production-stack/blob/vllm-stack-0.1.12/src/vllm_router/routers/routing_logic.py",
        ),
        scope="stack",
        safe_to_skip_unknown=True,
    )

    def objects(self, inv: Inventory) -> Iterable[Ingress | Router]:
        return [*inv.ingresses, *inv.routers]

    def check_object(self, ing: Ingress | Router, inv: Inventory, config: LintConfig) -> Iterator[Hit]:
        if isinstance(ing, Router):
            yield from self._check_router(ing, inv)
            return
        try:
            route = routing(ing)
        except Undecidable:
            # an annotation not known at preview: said only where the Ingress balances replicas of vLLM
            sure, unsure = judged_behind(inv, ing)
            behind = [g for _svc, g in sure] + [g for _svc, g, _u in unsure]
            if any(g.kind != "plan" and _several_replicas(inv, g) for g in behind):
                raise
            return
        if route is None:
            return
        controller, algorithm = route
        if algorithm in (LEAST_OUTSTANDING, "ewma", "consistent hash"):
            return
        # each group judged on its own (small16): a group whose labels are not known yet is a "cannot decide" of its
        # own, and does not hide the groups the Ingress surely balances
        sure, unsure = judged_behind(inv, ing)
        groups: list[ServingGroup] = []
        for _svc, g in sure:
            if g not in groups and g.kind != "plan" and _several_replicas(inv, g):
                groups.append(g)
        if groups:
            retired = "" if controller == "alb" else " (ingress-nginx, retired: no fixes after March 2026)"
            yield hit(
                ing,
                f"balances {listed(group_subject(g) for g in groups)} with {algorithm}{retired}, which ignores "
                "each replica's load",
            )
        unknown = {u.text for _svc, g, u in unsure
                   if g not in groups and g.kind != "plan" and _several_replicas(inv, g)}
        for text in sorted(unknown):
            yield Hit(subject_of(ing), f"cannot decide: {text}", ing.location, tuple(ing.suppressions), undecided=True)

    def _check_router(self, r: Router, inv: Inventory) -> Iterator[Hit]:
        if r.logic is UNKNOWN:
            written = r.written.get("--routing-logic")  # readers16: name what was written ($(ROUTING_LOGIC))
            if written is None or UNKNOWN_TOKEN in written:  # a preview's computed word: not known yet
                raise Undecidable("the router's --routing-logic")
            raise Undecidable(f"the router's --routing-logic `{written}`",
                              "a value no literal env or ConfigMap of the inputs gives: lint the ConfigMap that sets "
                              "it with the router, or write it literally" if "$(" in written
                              else UNRESOLVED)
        if r.logic not in ROUTER_LOGICS:
            return  # not one of argparse's choices at any release read: the router exits at start (SW003 says so)
        if r.logic != "roundrobin" and not (r.discovery == "k8s" and r.discovery_type != "pod-ip"):
            return  # session, prefix or KV affinity over the pods, else the pod with the lowest request rate
        if r.discovery == "static":
            if r.backends is UNKNOWN:
                raise Undecidable("the router's --static-backends")
            if r.static_models is UNKNOWN:
                raise Undecidable("the router's --static-models")
            if r.static_models is None or len(r.static_models) != len(r.backends):
                return  # the router refuses to start (validate_args; StaticServiceDiscovery asserts one model a URL)
            # the router sends a request only to the backends that serve its model (request.py: `model in
            # ep.model_names`): round-robin matters where one model has more than one backend
            shared = [b for b, m in zip(r.backends, r.static_models, strict=True) if r.static_models.count(m) > 1]
            if shared:
                yield hit(r, f"vllm-router balances {len(shared)} static backends ({', '.join(shared)}) "
                          "with --routing-logic roundrobin, which ignores each engine's load")
            return
        if r.discovery is UNKNOWN:
            raise Undecidable("the router's --service-discovery")
        if r.discovery != "k8s":
            return
        found = _router_groups(inv, r)
        # the router sends a request only to the engines that serve its model: round-robin matters where one model
        # has more than one engine (a group of several replicas, or several groups of the same model)
        models = [g.engine.model for g in found if isinstance(g.engine.model, str)]
        groups = [g for g in found if _several_replicas(inv, g)
                  or (isinstance(g.engine.model, str) and models.count(g.engine.model) > 1)]
        if groups and r.discovery_type is UNKNOWN:
            raise Undecidable("the router's --k8s-service-discovery-type")
        if r.discovery_type not in ("pod-ip", "service-name"):
            return  # not one of argparse's choices: the router exits at start
        if groups and r.discovery_type == "service-name":
            # the router picks a Service (K8sServiceNameServiceDiscovery) and kube-proxy one of its pods, whatever
            # --routing-logic says; which Services match the selector is not read here
            raise Undecidable(
                "how the router's Services spread requests over the engine pods",
                f"--k8s-service-discovery-type service-name: the router sends each request to a Service, which "
                f"kube-proxy spreads over its pods without regard to their load, whatever --routing-logic "
                f"{r.logic} picks; shardwise does not read which Services it finds")
        if groups and r.logic != "roundrobin":
            return
        if groups:
            yield hit(r, f"vllm-router balances {listed(group_subject(g) for g in groups)} with --routing-logic "
                      "roundrobin, which ignores each replica's load")
