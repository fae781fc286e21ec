"""The ECR pull-through cache of a ServingEnvironment (``image_cache``).

ECR keeps a copy of each upstream image it is asked for under a repository prefix, in the account's private
registry: the first pull of ``<account>.dkr.ecr.<region>.amazonaws.com/docker-hub/vllm/vllm-openai:v0.13.0`` makes
ECR fetch ``vllm/vllm-openai:v0.13.0`` from Docker Hub, and every later pull (every node, every replacement)
comes from ECR in the region, through the VPC's ECR interface endpoints and the S3 gateway endpoint (the layers),
not through the NAT gateway, and outside Docker Hub's pull limits.

One rule per upstream registry the workloads' images come from (:data:`PULL_THROUGH_UPSTREAMS`): Docker Hub
(``registry-1.docker.io``, which needs a Secrets Manager credential whose name starts ``ecr-pullthroughcache/``,
in the rule's account and region) and ECR Public (``public.ecr.aws``, none). Images of other registries, and
those the program gives in ``images``, are left as they are. The nodes' IAM role may pull from ECR already
(``AmazonEC2ContainerRegistryReadOnly``); the first pull of an image through a rule also needs
``ecr:BatchImportUpstreamImage`` and, for a repository ECR has not made yet, ``ecr:CreateRepository``
(ECR's "IAM permissions required to sync an upstream registry"): an inline policy on the node role grants
both, on the cache's repositories only.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pulumi
import pulumi_aws as aws
from shardwise.rules.model.spec import EnvironmentSpec, VllmMultiNodeSpec
from shardwise.rules.vllm import images
from shardwise.rules.vllm.imageref import PULL_THROUGH_UPSTREAMS, cache_prefix, through_cache

from ._workload import Workload


def cached_workloads(spec: EnvironmentSpec, given: Sequence[str] = ()) -> dict[str, str]:
    """Workload name → the cache prefix its image is pulled through, for the workloads whose image a rule
    mirrors and the program did not give (``given``)."""
    if spec.image_cache is None:
        return {}
    out: dict[str, str] = {}
    for w in (*spec.services, *spec.multi_node):
        prefix = cache_prefix(w.image)
        if prefix is not None and w.name not in given:
            out[w.name] = prefix
    return out


def image_cache_findings(spec: EnvironmentSpec, given: Sequence[str] = ()) -> list[tuple[str, str]]:
    """Problems found before anything is declared: a Docker Hub rule without its credential, a credential in
    another region than the rule's."""
    cache = spec.image_cache
    if cache is None or not cache.create_rules:
        return []
    out: list[tuple[str, str]] = []
    hub = [w for w in (*spec.services, *spec.multi_node)
           if cached_workloads(spec, given).get(w.name) == "docker-hub"]
    if hub and cache.docker_hub_credential_arn is None:
        out.append(("image_cache.docker_hub_credential_arn", (
            f"`{hub[0].image}` of `{hub[0].name}` is on Docker Hub, and ECR creates a Docker Hub pull-through cache "
            "rule only with a credential: store a Docker Hub username and access token (keys username and "
            "accessToken) in a Secrets Manager secret named ecr-pullthroughcache/…, in this account and region, "
            "and give its ARN")))
    arn = cache.docker_hub_credential_arn
    if arn is not None and arn.split(":")[3] != spec.region:
        out.append(("image_cache.docker_hub_credential_arn", (
            f"the secret is in {arn.split(':')[3]}, the pull-through cache rule in {spec.region}: ECR reads the "
            "credential only from the rule's own account and region")))
    return out


def pinned_fields(w: Workload) -> dict[str, Any]:
    """What a workload decides from its image, read from the upstream reference: its image becomes an Output
    (the registry's account comes from the node role), and the launcher, the EFA check and the rules would
    otherwise wait for it."""
    version = images.vllm_version(w.image, w.vllm_version)
    out: dict[str, Any] = {"vllm_version": w.vllm_version or (images.version_text(version) if version else None)}
    if isinstance(w, VllmMultiNodeSpec):
        out["image_efa"] = images.image_has_efa(w.image, w.image_efa)
    return out


class ImageCache:
    """The pull-through cache rules, the node role's policy, and the rewritten images (see the module doc).

    ``rules`` (by prefix), ``policy`` (None when ``node_role_name`` is None) and ``images`` (workload name →
    the cache's reference, an Output that resolves once the rules and the policy exist)."""

    def __init__(self, name: str, parent: pulumi.Resource, spec: EnvironmentSpec, node_role_arn: pulumi.Input[str],
                 node_role_name: pulumi.Input[str] | None, given: Sequence[str] = ()) -> None:
        cache = spec.image_cache
        assert cache is not None
        child = pulumi.ResourceOptions(parent=parent)
        wanted = cached_workloads(spec, given)
        prefixes = sorted(set(wanted.values()))
        self.rules: dict[str, aws.ecr.PullThroughCacheRule] = {}
        if cache.create_rules:
            for prefix in prefixes:
                credential = cache.docker_hub_credential_arn if prefix == "docker-hub" else None
                self.rules[prefix] = aws.ecr.PullThroughCacheRule(
                    f"{name}-{prefix}", ecr_repository_prefix=prefix,
                    upstream_registry_url=PULL_THROUGH_UPSTREAMS[prefix], credential_arn=credential, opts=child)
        arn = pulumi.Output.from_input(node_role_arn)
        self.policy: aws.iam.RolePolicy | None = None
        if node_role_name is not None and prefixes:
            self.policy = aws.iam.RolePolicy(
                f"{name}-pull-through", role=node_role_name,
                policy=arn.apply(lambda a: import_policy(a, spec.region, prefixes)), opts=child)
        ready = [r.id for r in self.rules.values()] + ([self.policy.id] if self.policy is not None else [])
        registry = pulumi.Output.all(arn, *ready).apply(lambda v: registry_host(v[0], spec.region))
        by_name = {w.name: w for w in (*spec.services, *spec.multi_node)}

        def cached(image: str) -> pulumi.Output[str]:
            return registry.apply(lambda host: through_cache(image, host) or image)

        self.images: dict[str, pulumi.Output[str]] = {n: cached(by_name[n].image) for n in wanted}


def registry_host(role_arn: str, region: str) -> str:
    """The private ECR registry of the node role's account in ``region``."""
    partition, account = role_arn.split(":")[1], role_arn.split(":")[4]
    return f"{account}.dkr.ecr.{region}.amazonaws.com" + (".cn" if partition == "aws-cn" else "")


def import_policy(role_arn: str, region: str, prefixes: Sequence[str]) -> str:
    """The node role's inline policy: import upstream images into, and create, the cache's repositories only."""
    partition, account = role_arn.split(":")[1], role_arn.split(":")[4]
    return json.dumps({"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Action": ["ecr:BatchImportUpstreamImage", "ecr:CreateRepository"],
        "Resource": [f"arn:{partition}:ecr:{region}:{account}:repository/{p}/*" for p in prefixes]}]})


def role_name(role_arn: pulumi.Input[str]) -> pulumi.Output[str]:
    """An IAM role's name: the last part of its ARN's path (``arn:aws:iam::<account>:role/<path>/<name>``)."""
    return pulumi.Output.from_input(role_arn).apply(lambda a: a.rsplit("/", 1)[-1])
