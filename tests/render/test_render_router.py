"""rules/render/router.py: the ALB Ingress and the Gateway API route in front of the services."""

from __future__ import annotations

from render_support import multinode, service
from shardwise.rules.model.spec import RouterSpec
from shardwise.rules.render.router import render_router

CERT = "arn:aws:acm:us-east-1:123456789012:certificate/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"


def test_alb_router():
    (ing,) = render_router(RouterSpec(name="llm", namespace="serving", services=("llama-70b",), certificate_arn=CERT,
                                      inbound_cidrs=("10.42.0.0/16", "192.0.2.0/24")), [service()])
    assert ing["metadata"]["annotations"] == {
        "alb.ingress.kubernetes.io/scheme": "internal",
        # HTTPS with the certificate, TLS 1.3/1.2; port 80 only redirects; open to the listed ranges alone
        "alb.ingress.kubernetes.io/listen-ports": '[{"HTTP": 80}, {"HTTPS": 443}]',
        "alb.ingress.kubernetes.io/certificate-arn": CERT,
        "alb.ingress.kubernetes.io/ssl-policy": "ELBSecurityPolicy-TLS13-1-2-2021-06",
        "alb.ingress.kubernetes.io/ssl-redirect": "443",
        "alb.ingress.kubernetes.io/inbound-cidrs": "10.42.0.0/16,192.0.2.0/24",
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


def test_alb_listeners_https_only_or_plain_http():
    def listeners(**kw):
        (ing,) = render_router(RouterSpec(name="llm", namespace="serving", services=("llama-70b",), **kw), [service()])
        return {k.rsplit("/", 1)[1]: v for k, v in ing["metadata"]["annotations"].items()
                if k.rsplit("/", 1)[1] in ("listen-ports", "certificate-arn", "ssl-redirect", "inbound-cidrs")}

    assert listeners(certificate_arn=CERT, http="off", inbound_cidrs=("0.0.0.0/0",)) == {
        "listen-ports": '[{"HTTPS": 443}]', "certificate-arn": CERT, "inbound-cidrs": "0.0.0.0/0"}
    assert listeners(http="plain", inbound_cidrs=("10.42.0.0/16",)) == {
        "listen-ports": '[{"HTTP": 80}]', "inbound-cidrs": "10.42.0.0/16"}


def test_router_spec_refuses_contradictory_listeners():
    import pydantic
    import pytest

    def error(**kw):
        with pytest.raises(pydantic.ValidationError) as e:
            RouterSpec(name="llm", services=("llama-70b",), **kw)
        return e.value.errors()[0]["msg"].removeprefix("Value error, ")

    assert error(http="plain", certificate_arn=CERT) == (
        "http `plain` has no HTTPS listener: drop certificate_arn, or use `redirect`/`off`")
    assert error(inbound_cidrs=("10.42.0.1/16",)) == (
        "inbound_cidrs: `10.42.0.1/16` is not a CIDR (host bits set, or not an address)")
    assert error(kind="gateway-api", inbound_cidrs=("10.0.0.0/8",)) == (
        "certificate_arn and inbound_cidrs are for alb-ingress: a gateway-api route's Gateway owns its listeners")
    # an IAM server certificate is not an ACM one
    assert error(certificate_arn="arn:aws:iam::123456789012:server-certificate/x").startswith(
        "String should match pattern '^arn:aws[a-z-]*:acm:")


def test_gateway_api_router_grants_cross_namespace_access():
    r = RouterSpec(name="llm", kind="gateway-api", services=("llama-70b",))
    route, grant = render_router(r, [service()])
    assert route["kind"] == "HTTPRoute" and route["metadata"]["namespace"] == "gateway"
    assert route["spec"]["parentRefs"] == [{"name": "inference-gateway", "namespace": "gateway"}]
    assert route["spec"]["rules"][0]["backendRefs"] == [{"name": "llama-70b", "namespace": "serving", "port": 8000}]
    assert grant["kind"] == "ReferenceGrant" and grant["metadata"]["namespace"] == "serving"
    assert grant["spec"]["from"] == [{"group": "gateway.networking.k8s.io", "kind": "HTTPRoute",
                                      "namespace": "gateway"}]
