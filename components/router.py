"""InferenceRouter: least-outstanding-requests routing in front of vLLM replicas."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pulumi
from shardwise.rules import render
from shardwise.rules.spec import RouterSpec, VllmMultiNodeSpec, VllmServiceSpec

from ._k8s import declare, depends_on
from .validation import validate_router


def _hostname(status: Any) -> str | None:
    """The load balancer's DNS name from an Ingress status (None until the controller sets it)."""
    lb = getattr(status, "load_balancer", None) if status is not None else None
    ingress = getattr(lb, "ingress", None) if lb is not None else None
    if not ingress:
        return None
    return getattr(ingress[0], "hostname", None) or getattr(ingress[0], "ip", None)


class InferenceRouter(pulumi.ComponentResource):
    """An internal AWS Load Balancer Controller Ingress, or Gateway API HTTPRoutes, for the backends.

    The ALB variant sets ``load_balancing.algorithm.type=least_outstanding_requests``: a request
    to vLLM can take seconds to minutes, so round-robin piles work onto the slowest replica. Target
    type ``ip`` sends traffic straight to pod IPs, health-checked on ``/health``. One backend is the
    default route; several are routed by host ``<service>.<domain>``.
    """

    hostname: pulumi.Output[str | None]
    routes: list[str]

    def __init__(
        self,
        name: str,
        spec: RouterSpec,
        backends: Sequence[VllmServiceSpec | VllmMultiNodeSpec],
        *,
        validate: bool = True,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        if validate:
            validate_router(spec, backends)
        super().__init__("shardwise:router:InferenceRouter", name, None, opts)
        deps = depends_on(opts)
        child = pulumi.ResourceOptions(parent=self, depends_on=deps)
        hostname: pulumi.Output[str | None] = pulumi.Output.from_input(None)
        self.routes = []
        for obj in render.render_router(spec, backends):
            res = declare(f"{name}-{obj['kind'].lower()}-{obj['metadata']['name']}", obj, child)
            if obj["kind"] == "Ingress":
                hostname = res.status.apply(_hostname)  # type: ignore[attr-defined]
            if obj["kind"] in ("Ingress", "HTTPRoute"):
                self.routes.append(obj["metadata"]["name"])
        self.hostname = hostname
        self.register_outputs({"hostname": self.hostname, "routes": self.routes})
