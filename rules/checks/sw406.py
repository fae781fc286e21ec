"""SW406: round-robin load balancing in front of vLLM replicas."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ..engine import Hit, LintConfig, ObjectRule, RuleMeta, group_subject, hit
from ..model import UNKNOWN, Ingress, Inventory, ServingGroup
from ._net import groups_behind, targets
from ._words import listed

ALB_ATTRS = "alb.ingress.kubernetes.io/target-group-attributes"
ALB_ALGORITHM = "load_balancing.algorithm.type"
LEAST_OUTSTANDING = "least_outstanding_requests"
NGINX_BALANCE = "nginx.ingress.kubernetes.io/load-balance"
NGINX_HASH = "nginx.ingress.kubernetes.io/upstream-hash-by"
INGRESS_CLASS = "kubernetes.io/ingress.class"


def routing(ing: Ingress) -> tuple[str, str] | None:
    """(controller, algorithm) for an Ingress whose controller we know, else None.

    The AWS Load Balancer Controller defaults to round_robin; ingress-nginx (retired) to round_robin too.
    """
    ann = ing.annotations
    cls = str(ann.get(INGRESS_CLASS, "")).lower()
    if cls == "alb" or any(k.startswith("alb.ingress.kubernetes.io/") for k in ann):
        attrs = {}
        for part in str(ann.get(ALB_ATTRS, "")).split(","):
            key, _, value = part.partition("=")
            attrs[key.strip()] = value.strip()
        return "alb", attrs.get(ALB_ALGORITHM) or "round_robin"
    if cls == "nginx" or any(k.startswith("nginx.ingress.kubernetes.io/") for k in ann):
        if NGINX_HASH in ann:
            return "nginx", "consistent hash"
        return "nginx", str(ann.get(NGINX_BALANCE, "round_robin"))
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


class RoundRobinInFrontOfVllm(ObjectRule[Ingress]):
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
            "and KV-cache metrics). ingress-nginx is retired (no releases or security fixes after March 2026): "
            "move those Ingresses to a maintained Gateway API implementation instead of tuning its annotations."
        ),
        references=(
            "https://kubernetes-sigs.github.io/aws-load-balancer-controller/latest/guide/ingress/annotations/#target-group-attributes",
            "https://docs.aws.amazon.com/elasticloadbalancing/latest/application/edit-target-group-attributes.html#modify-routing-algorithm",
            "https://gateway-api-inference-extension.sigs.k8s.io/",
            "https://kubernetes.io/blog/2025/11/11/ingress-nginx-retirement/",
        ),
        scope="stack",
        safe_to_skip_unknown=True,
    )

    def objects(self, inv: Inventory) -> Iterable[Ingress]:
        return inv.ingresses

    def check_object(self, ing: Ingress, inv: Inventory, config: LintConfig) -> Iterator[Hit]:
        route = routing(ing)
        if route is None:
            return
        controller, algorithm = route
        if algorithm in (LEAST_OUTSTANDING, "ewma", "consistent hash"):
            return
        groups: list[ServingGroup] = []
        for _svc, g in groups_behind(inv, ing):
            if g not in groups and g.kind != "plan" and _several_replicas(inv, g):
                groups.append(g)
        if not groups:
            return
        retired = "" if controller == "alb" else " (ingress-nginx, retired: no fixes after March 2026)"
        yield hit(
            ing,
            f"balances {listed(group_subject(g) for g in groups)} with {algorithm}{retired}, which ignores "
            "each replica's load",
        )
