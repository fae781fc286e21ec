"""InferenceRouter: least-outstanding-requests routing in front of vLLM replicas."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pulumi
from pydantic import ValidationError
from shardwise.rules.model.spec import RouterSpec, VllmMultiNodeSpec, VllmServiceSpec
from shardwise.rules.render.router import render_router

from ._k8s import (
    INSTALLS_DOC,
    KUBECONFIG_DOC,
    PROVIDER_DOC,
    child_opts,
    declare,
    depends_on,
    doc,
    installed_by,
    provider_for,
)
from ._workload import pydantic_findings
from .errors import ArgumentsError
from .inputs import Unknowns
from .validation import router_findings


@dataclass(kw_only=True)
class InferenceRouterArgs:
    """Arguments of :class:`InferenceRouter`: the fields of :class:`~shardwise.rules.model.spec.RouterSpec`
    (``name`` and ``namespace`` accept Outputs) and the ``backends`` (VllmService / VllmMultiNode
    components or their specs); ``services`` defaults to every backend."""

    name: pulumi.Input[str]
    backends: Sequence[Any] = field(metadata=doc("VllmService / VllmMultiNode components (or their specs)."))
    namespace: pulumi.Input[str] = "gateway"
    kind: str = "alb-ingress"
    services: Sequence[str] | None = field(default=None, metadata=doc(
        "Names of the backends to route to (default: every backend)."))
    internal: bool = True
    domain: str | None = None
    gateway: str = "inference-gateway"
    certificate_arn: pulumi.Input[str] | None = None
    http: str = "redirect"
    inbound_cidrs: Sequence[str] = ()
    validate: bool = field(default=True, metadata=doc("False skips the checks (an Ingress across namespaces)."))
    installs: Mapping[str, pulumi.Resource] = field(default_factory=dict, metadata=doc(INSTALLS_DOC))
    k8s_provider: pulumi.ProviderResource | None = field(default=None, metadata=doc(PROVIDER_DOC))
    kubeconfig: pulumi.Input[str] | None = field(default=None, metadata=doc(KUBECONFIG_DOC))


def _hostname(status: Any) -> str | None:
    """The load balancer's DNS name from an Ingress status (None until the controller sets it)."""
    lb = getattr(status, "load_balancer", None) if status is not None else None
    ingress = getattr(lb, "ingress", None) if lb is not None else None
    if not ingress:
        return None
    return getattr(ingress[0], "hostname", None) or getattr(ingress[0], "ip", None)


class InferenceRouter(pulumi.ComponentResource):
    """An internal AWS Load Balancer Controller Ingress, or Gateway API HTTPRoutes, for the backends.

    The ALB listens on HTTPS with ``certificate_arn`` (TLS 1.3/1.2 policy) and port 80 redirects to it
    (``http: redirect``), is closed (``off``), or, with ``http: plain`` and no certificate, serves HTTP only;
    ``inbound_cidrs`` are the only sources its security group admits (required: the controller's own default
    is 0.0.0.0/0). The ALB does not authenticate: every backend must name ``api_key_secret`` (vLLM then asks
    ``Authorization: Bearer <key>`` on /v1; /health stays open to the target health checks).

    The ALB variant sets ``load_balancing.algorithm.type=least_outstanding_requests`` (a request to vLLM
    can take seconds to minutes; round-robin piles work onto the slowest replica) and a deregistration
    delay equal to the backends' ``drain_seconds``; target type ``ip`` sends traffic straight to pod IPs,
    health-checked on ``/health``. Label the backends' namespace ``elbv2.k8s.aws/pod-readiness-gate-inject:
    enabled`` (ServingEnvironment does) so a pod counts as ready only once its ALB target is healthy. One
    backend is the default route; several are routed by host ``<service>.<domain>``.

    Outputs: ``ingress`` (or ``routes`` and ``reference_grants`` for the Gateway API) resources;
    ``hostname`` (the load balancer's DNS name once the controller sets it), ``route_names``.
    """

    spec: RouterSpec
    ingress: pulumi.CustomResource | None
    routes: list[pulumi.CustomResource]
    reference_grants: list[pulumi.CustomResource]
    hostname: pulumi.Output[str | None]
    route_names: list[str]

    def __init__(self, name: str, args: InferenceRouterArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        unknowns = Unknowns()
        backends: list[VllmServiceSpec | VllmMultiNodeSpec] = [getattr(b, "spec", b) for b in args.backends]
        for b in args.backends:
            if hasattr(b, "unknowns"):
                unknowns.merge(b.unknowns)
        services = list(args.services) if args.services is not None else [b.name for b in backends]
        values = unknowns.replace({"name": args.name, "namespace": args.namespace, "kind": args.kind,
                                   "services": services, "internal": args.internal, "domain": args.domain,
                                   "gateway": args.gateway, "certificate_arn": args.certificate_arn,
                                   "http": args.http, "inbound_cidrs": list(args.inbound_cidrs)})
        try:
            spec = RouterSpec.model_validate(values)
        except ValidationError as e:
            raise ArgumentsError("InferenceRouter", pydantic_findings(e, unknowns)) from None
        if args.validate:
            found = router_findings(spec, backends)
            if found:
                raise ArgumentsError("InferenceRouter", found)
        for path in unknowns.deferred:
            unknowns.field_check(path, RouterSpec, path)
        unknowns.finish("InferenceRouter")
        super().__init__("shardwise:router:InferenceRouter", name, None, opts)
        self.spec, self.unknowns = spec, unknowns
        provider = provider_for(name, self, args.k8s_provider, args.kubeconfig)
        self.ingress, self.routes, self.reference_grants, self.route_names = None, [], [], []
        hostname: pulumi.Output[str | None] = pulumi.Output.from_input(None)
        # the Ingress waits for its load balancer's address, which the controller sets once the backends'
        # targets exist: as long as the slowest backend's first rollout, and 10 minutes for the ALB
        timeout = f"{max((getattr(b, 'rollout_minutes', 10) for b in args.backends), default=10) + 10}m"
        for obj in render_router(spec, backends):
            extra = {"custom_timeouts": pulumi.CustomTimeouts(create=timeout, update=timeout)} \
                if obj["kind"] == "Ingress" else {}
            child = child_opts(self, provider, [*depends_on(opts), *installed_by(obj["kind"], args.installs)], **extra)
            res = declare(f"{name}-{obj['kind'].lower()}-{obj['metadata']['name']}", unknowns.substitute(obj), child)
            if obj["kind"] == "Ingress":
                self.ingress = res
                hostname = res.status.apply(_hostname)  # type: ignore[attr-defined]
            elif obj["kind"] == "HTTPRoute":
                self.routes.append(res)
            else:
                self.reference_grants.append(res)
            if obj["kind"] in ("Ingress", "HTTPRoute"):
                self.route_names.append(obj["metadata"]["name"])
        self.hostname = hostname
        self.register_outputs({"ingress": self.ingress, "routes": self.routes,
                               "reference_grants": self.reference_grants, "hostname": self.hostname,
                               "route_names": self.route_names})

