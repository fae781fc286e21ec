"""InferenceRouter (:mod:`shardwise.components.router`): an ALB Ingress or Gateway API routes in front of
the serving groups."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..model.spec import RouterSpec, VllmMultiNodeSpec, VllmServiceSpec
from .common import HEALTH_PATH, LABEL_MANAGED_BY, LABEL_NAME

ALB_TG_ATTRIBUTES = "alb.ingress.kubernetes.io/target-group-attributes"
#: Namespace label that makes the AWS Load Balancer Controller inject pod readiness gates: a pod
#: counts as ready only once its ALB target is healthy, so a rolling update never removes the last
#: registered replica (AWS Load Balancer Controller docs, "Pod readiness gate").
ALB_READINESS_GATE_LABEL = "elbv2.k8s.aws/pod-readiness-gate-inject"
ALB_ANNOTATIONS = {
    "alb.ingress.kubernetes.io/target-type": "ip",
    ALB_TG_ATTRIBUTES: "load_balancing.algorithm.type=least_outstanding_requests",
    "alb.ingress.kubernetes.io/healthcheck-path": HEALTH_PATH,
    "alb.ingress.kubernetes.io/backend-protocol": "HTTP",
    # Streaming completions of long outputs outlive the 60 s default idle timeout.
    "alb.ingress.kubernetes.io/load-balancer-attributes": "idle_timeout.timeout_seconds=600",
}


#: The TLS policy of the HTTPS listener: TLS 1.3 and 1.2 only (an ELB predefined policy).
ALB_SSL_POLICY = "ELBSecurityPolicy-TLS13-1-2-2021-06"


def listener_annotations(router: RouterSpec) -> dict[str, str]:
    """The listeners of an ALB router and who may reach them.

    ``redirect``: HTTPS on 443 with ``certificate_arn`` and port 80 answering with a redirect to it (the
    controller gives an HTTP listener only that default action when ``ssl-redirect`` is set); ``off``: HTTPS
    only; ``plain``: HTTP on 80 only. ``inbound-cidrs`` becomes the load balancer's security group rules:
    left out, the controller allows 0.0.0.0/0, so the components require it."""
    ann: dict[str, str] = {}
    if router.http == "plain":
        ann["alb.ingress.kubernetes.io/listen-ports"] = '[{"HTTP": 80}]'
    else:
        ports = '[{"HTTP": 80}, {"HTTPS": 443}]' if router.http == "redirect" else '[{"HTTPS": 443}]'
        ann["alb.ingress.kubernetes.io/listen-ports"] = ports
        if router.certificate_arn:
            ann["alb.ingress.kubernetes.io/certificate-arn"] = router.certificate_arn
        ann["alb.ingress.kubernetes.io/ssl-policy"] = ALB_SSL_POLICY
        if router.http == "redirect":
            ann["alb.ingress.kubernetes.io/ssl-redirect"] = "443"
    if router.inbound_cidrs:
        ann["alb.ingress.kubernetes.io/inbound-cidrs"] = ",".join(router.inbound_cidrs)
    return ann


def _backend_host(router: RouterSpec, service: str) -> str | None:
    if len(router.services) == 1:
        return None
    return f"{service}.{router.domain}"


def render_router(router: RouterSpec,
                  backends: Sequence[VllmServiceSpec | VllmMultiNodeSpec]) -> list[dict[str, Any]]:
    """An internal ALB Ingress with least-outstanding-requests routing and the listeners of
    :func:`listener_annotations`, or Gateway API routes.

    One service is the default backend; several are told apart by host (``<service>.<domain>``).
    An Ingress routes only to Services of its own namespace (checked by the components).
    """
    by_name = {b.name: b for b in backends}
    chosen = [by_name[s] for s in router.services]
    if router.kind == "alb-ingress":
        ann = {"alb.ingress.kubernetes.io/scheme": "internal" if router.internal else "internet-facing",
               **ALB_ANNOTATIONS, **listener_annotations(router)}
        # the load balancer lets in-flight requests of a deregistered pod finish while it drains
        drain = max(b.drain_seconds for b in chosen)
        ann[ALB_TG_ATTRIBUTES] = f"{ann[ALB_TG_ATTRIBUTES]},deregistration_delay.timeout_seconds={drain}"
        rules = []
        for b in chosen:
            rule: dict[str, Any] = {"http": {"paths": [{
                "path": "/", "pathType": "Prefix",
                "backend": {"service": {"name": b.name, "port": {"number": b.engine.port}}},
            }]}}
            host = _backend_host(router, b.name)
            if host:
                rule["host"] = host
            rules.append(rule)
        spec: dict[str, Any] = {"ingressClassName": "alb", "rules": rules}
        if len(chosen) == 1:
            spec["defaultBackend"] = {"service": {"name": chosen[0].name,
                                                  "port": {"number": chosen[0].engine.port}}}
        return [{
            "apiVersion": "networking.k8s.io/v1",
            "kind": "Ingress",
            "metadata": {"name": router.name, "namespace": router.namespace,
                         "labels": {LABEL_NAME: router.name, LABEL_MANAGED_BY: "shardwise"},
                         "annotations": ann},
            "spec": spec,
        }]
    out: list[dict[str, Any]] = []
    for b in chosen:
        route: dict[str, Any] = {
            "parentRefs": [{"name": router.gateway, "namespace": router.namespace}],
            "rules": [{
                "matches": [{"path": {"type": "PathPrefix", "value": "/"}}],
                "backendRefs": [{"name": b.name, "namespace": b.namespace, "port": b.engine.port}],
            }],
        }
        host = _backend_host(router, b.name)
        if host:
            route["hostnames"] = [host]
        name = router.name if len(chosen) == 1 else f"{router.name}-{b.name}"
        out.append({
            "apiVersion": "gateway.networking.k8s.io/v1",
            "kind": "HTTPRoute",
            "metadata": {"name": name, "namespace": router.namespace,
                         "labels": {LABEL_NAME: router.name, LABEL_MANAGED_BY: "shardwise"}},
            "spec": route,
        })
    for ns in sorted({b.namespace for b in chosen if b.namespace != router.namespace}):
        out.append({
            "apiVersion": "gateway.networking.k8s.io/v1beta1",
            "kind": "ReferenceGrant",
            "metadata": {"name": f"{router.name}-from-{router.namespace}", "namespace": ns},
            "spec": {
                "from": [{"group": "gateway.networking.k8s.io", "kind": "HTTPRoute",
                          "namespace": router.namespace}],
                "to": [{"group": "", "kind": "Service"}],
            },
        })
    return out
