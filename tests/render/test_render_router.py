"""rules/render/router.py: the ALB Ingress and the Gateway API route in front of the services."""

from __future__ import annotations

from render_support import multinode, service
from shardwise.rules.model.spec import RouterSpec
from shardwise.rules.render.router import render_router


def test_alb_router():
    (ing,) = render_router(RouterSpec(name="llm", namespace="serving", services=("llama-70b",)),
                                  [service()])
    assert ing["metadata"]["annotations"] == {
        "alb.ingress.kubernetes.io/scheme": "internal",
        "alb.ingress.kubernetes.io/target-type": "ip",
        # in-flight requests of a pod that leaves finish during its drain (drain_seconds)
        "alb.ingress.kubernetes.io/target-group-attributes":
            "load_balancing.algorithm.type=least_outstanding_requests,deregistration_delay.timeout_seconds=30",
        "alb.ingress.kubernetes.io/healthcheck-path": "/health",
        "alb.ingress.kubernetes.io/backend-protocol": "HTTP",
        "alb.ingress.kubernetes.io/load-balancer-attributes": "idle_timeout.timeout_seconds=600",
    }
    backend = {"service": {"name": "llama-70b", "port": {"number": 8000}}}
    assert ing["spec"] == {"ingressClassName": "alb", "defaultBackend": backend, "rules": [
        {"http": {"paths": [{"path": "/", "pathType": "Prefix", "backend": backend}]}}]}
    two = RouterSpec(name="llm", namespace="serving", services=("llama-70b", "llama-405b"), domain="llm.example.com")
    (ing2,) = render_router(two, [service(), multinode()])
    assert [r["host"] for r in ing2["spec"]["rules"]] == ["llama-70b.llm.example.com", "llama-405b.llm.example.com"]
    assert "defaultBackend" not in ing2["spec"]


def test_gateway_api_router_grants_cross_namespace_access():
    r = RouterSpec(name="llm", kind="gateway-api", services=("llama-70b",))
    route, grant = render_router(r, [service()])
    assert route["kind"] == "HTTPRoute" and route["metadata"]["namespace"] == "gateway"
    assert route["spec"]["parentRefs"] == [{"name": "inference-gateway", "namespace": "gateway"}]
    assert route["spec"]["rules"][0]["backendRefs"] == [{"name": "llama-70b", "namespace": "serving", "port": 8000}]
    assert grant["kind"] == "ReferenceGrant" and grant["metadata"]["namespace"] == "serving"
    assert grant["spec"]["from"] == [{"group": "gateway.networking.k8s.io", "kind": "HTTPRoute",
                                      "namespace": "gateway"}]
