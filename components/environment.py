"""ServingEnvironment: everything one environment serves, from one typed spec."""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_aws as aws
from shardwise.rules.adapters.stack import sizing_summary
from shardwise.rules.render import LABEL_MANAGED_BY
from shardwise.rules.spec import EnvironmentSpec

from ._k8s import declare
from .multinode import VllmMultiNode
from .network import RuntimeNetwork
from .nodepool import GpuNodePool
from .router import InferenceRouter
from .validation import validate_environment
from .vllm import VllmService


class ServingEnvironment(pulumi.ComponentResource):
    """Network, GPU node pools, vLLM services, multi-node groups and routers of one environment.

    The whole spec is validated with the shardwise rules first (``pulumi.InputPropertyError`` with
    paths such as ``services[0].engine.tensor_parallel_size``); the child components then skip their
    own validation. Kubernetes resources use the provider passed in ``opts``
    (``pulumi.ResourceOptions(providers=[k8s_provider])``), AWS resources the default AWS provider.
    """

    network: RuntimeNetwork
    pools: dict[str, GpuNodePool]
    services: dict[str, VllmService]
    multi_node: dict[str, VllmMultiNode]
    routers: dict[str, InferenceRouter]
    endpoints: dict[str, Any]
    pool_names: list[str]
    sizing: dict[str, dict[str, Any]]

    def __init__(self, name: str, spec: EnvironmentSpec, opts: pulumi.ResourceOptions | None = None) -> None:
        validate_environment(spec)
        super().__init__("shardwise:environment:ServingEnvironment", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)

        namespaces: list[pulumi.Resource] = []
        if spec.create_namespaces:
            wanted = {s.namespace for s in (*spec.services, *spec.multi_node)} | {r.namespace for r in spec.routers}
            for ns in sorted(wanted):
                obj = {"apiVersion": "v1", "kind": "Namespace",
                       "metadata": {"name": ns, "labels": {LABEL_MANAGED_BY: "shardwise"}}}
                namespaces.append(declare(f"{name}-namespace-{ns}", obj, child))
        in_namespaces = pulumi.ResourceOptions(parent=self, depends_on=namespaces)

        self.network = RuntimeNetwork(
            f"{name}-network", spec.network, region=spec.region, cluster_name=spec.cluster_name,
            services=spec.services, multi_node=spec.multi_node, routers=spec.routers, opts=in_namespaces,
        )
        cluster_sg: pulumi.Input[str] = spec.cluster_security_group_id or aws.eks.get_cluster_output(
            name=spec.cluster_name).vpc_config.cluster_security_group_id
        self.pools = {
            p.name: GpuNodePool(
                f"{name}-{p.name}", p, cluster_name=spec.cluster_name, node_role_arn=spec.node_role_arn,
                subnet_ids=self.network.private_subnet_ids,
                security_group_ids=[self.network.security_group_id, cluster_sg],
                validate=False, opts=child,
            )
            for p in spec.pools
        }
        pools = {p.name: p for p in spec.pools}
        self.services = {
            s.name: VllmService(f"{name}-{s.name}", s, pools[s.pool], production=spec.production,
                                validate=False, opts=in_namespaces)
            for s in spec.services
        }
        self.multi_node = {
            m.name: VllmMultiNode(f"{name}-{m.name}", m, pools[m.pool], production=spec.production,
                                  validate=False, opts=in_namespaces)
            for m in spec.multi_node
        }
        backends = [*spec.services, *spec.multi_node]
        self.routers = {
            r.name: InferenceRouter(f"{name}-{r.name}", r, backends, validate=False, opts=in_namespaces)
            for r in spec.routers
        }

        self.endpoints = {s: c.endpoint for s, c in self.services.items()}
        self.endpoints.update({m: c.endpoint for m, c in self.multi_node.items()})
        self.endpoints.update({f"router/{r}": c.hostname for r, c in self.routers.items()})
        self.pool_names = [p.name for p in spec.pools]
        self.sizing = sizing_summary(spec)
        self.register_outputs({
            "endpoints": self.endpoints,
            "pool_names": self.pool_names,
            "sizing": self.sizing,
            "vpc_id": self.network.vpc_id,
            "security_group_id": self.network.security_group_id,
        })
