"""The shardwise Pulumi program: one ServingEnvironment per stack.

The stack config ``shardwise:environment`` (see ``stacks/Pulumi.<env>.yaml``) is loaded into the
typed :class:`~shardwise.rules.spec.EnvironmentSpec` — the same model ``shardwise lint stacks/``
reads — and handed to :class:`~shardwise.components.ServingEnvironment`, which validates it with the
shardwise rules before declaring anything. Kubernetes resources go to the EKS cluster the spec names,
through a provider whose kubeconfig authenticates with ``aws eks get-token``.

Exports: ``endpoints`` (in-cluster service URLs and router hostnames), ``pools`` (node pool names)
and ``sizing`` (per service: weights and KV cache per GPU, KV tokens, concurrency).
"""

from __future__ import annotations

import json

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s
from shardwise.components import ServingEnvironment
from shardwise.rules.adapters.stack import spec_from_value
from shardwise.rules.errors import InputError


def kubeconfig(cluster_name: str, region: str, endpoint: str, ca_data: str) -> str:
    """A kubeconfig for an EKS cluster that gets its token from the AWS CLI."""
    user = {"exec": {
        "apiVersion": "client.authentication.k8s.io/v1beta1",
        "command": "aws",
        "args": ["eks", "get-token", "--cluster-name", cluster_name, "--region", region, "--output", "json"],
    }}
    return json.dumps({
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": cluster_name, "cluster": {"server": endpoint, "certificate-authority-data": ca_data}}],
        "users": [{"name": cluster_name, "user": user}],
        "contexts": [{"name": cluster_name, "context": {"cluster": cluster_name, "user": cluster_name}}],
        "current-context": cluster_name,
    })


config = pulumi.Config("shardwise")
try:
    spec = spec_from_value(config.require_object("environment"), "shardwise:environment")
except InputError as e:
    raise pulumi.RunError(f"stack config {e}") from None

aws_region = pulumi.Config("aws").get("region")
if aws_region and aws_region != spec.region:
    raise pulumi.RunError(f"aws:region is {aws_region} but shardwise:environment.region is {spec.region}")

cluster = aws.eks.get_cluster_output(name=spec.cluster_name)
provider = k8s.Provider(
    f"{spec.name}-eks",
    kubeconfig=pulumi.Output.all(cluster.endpoint, cluster.certificate_authorities[0].data).apply(
        lambda a: kubeconfig(spec.cluster_name, spec.region, a[0], a[1])
    ),
    enable_server_side_apply=True,
)
env = ServingEnvironment(spec.name, spec, opts=pulumi.ResourceOptions(providers=[provider]))

pulumi.export("endpoints", env.endpoints)
pulumi.export("pools", env.pool_names)
pulumi.export("sizing", env.sizing)
