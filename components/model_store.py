"""The model store of a ServingEnvironment (``model_store``): an S3 bucket for the weights, and a role to read it.

Every node of a pool otherwise downloads the checkpoint from the Hugging Face Hub (131 GiB for Llama 3.1 70B in
bf16, 756 GiB for 405B) through the VPC's one NAT gateway. With a store, a workload whose ``cache`` is ``s3``
with an ``s3_uri`` in the bucket streams the safetensors from S3 into GPU memory (vLLM's ``--load-format
runai_streamer`` with the ``s3://`` path as the model), through the VPC's S3 gateway endpoint (a new VPC has it;
``network.endpoints`` in an existing one): no NAT, no local copy.

The bucket: private (ACLs disabled: ``BucketOwnerEnforced``; every public access blocked), encrypted at rest
with S3-managed keys (SSE-S3), not versioned (weights are replaced, not edited), refusing requests without TLS.
The role: readable by EKS Pod Identity (``pods.eks.amazonaws.com``), ``s3:GetObject`` on the bucket's objects
and ``s3:ListBucket`` on the bucket, nothing else. A covered workload without ``pod.service_account`` gets
one (named after it, created) with this role; one with a service account and no ``role_arn`` gets the role;
one with its own ``role_arn`` keeps it. EKS Pod Identity injects ``AWS_REGION`` and the container credentials'
variables, which the streamer's AWS SDK reads.

Copying the weights into the bucket is not part of the program (e.g. ``huggingface-cli download`` then
``aws s3 sync``, once per model revision).
"""

from __future__ import annotations

import json
from typing import Any

import pulumi
import pulumi_aws as aws
from shardwise.rules.model.spec import EnvironmentSpec

from ._workload import Workload
from .cluster import POD_IDENTITY_PRINCIPAL, _assume

#: What validation sees as the store's role while the role is not yet declared.
STAND_IN_ROLE = "arn:aws:iam::000000000000:role/shardwise-model-store"


def bucket_of(uri: str) -> str:
    """The bucket of an ``s3://bucket/prefix`` URI."""
    return uri.removeprefix("s3://").split("/", 1)[0]


def stored_workloads(spec: EnvironmentSpec) -> list[Workload]:
    """The workloads that stream from the store's bucket."""
    store = spec.model_store
    if store is None:
        return []
    return [w for w in (*spec.services, *spec.multi_node)
            if w.cache.kind == "s3" and w.cache.s3_uri and bucket_of(w.cache.s3_uri) == store.bucket]


def service_account_with(w: Workload, role_arn: Any) -> dict[str, Any] | None:
    """The workload's service account with the store's role (``role_arn``), or None when it keeps its own role."""
    sa = w.pod.service_account
    if sa is None:
        return {"name": w.name, "create": True, "role_arn": role_arn, "mode": "pod-identity"}
    if sa.role_arn:
        return None
    return {**sa.model_dump(), "role_arn": role_arn}


def model_store_findings(spec: EnvironmentSpec) -> list[tuple[str, str]]:
    """A workload the store's role would be given to through IRSA: the role trusts EKS Pod Identity only."""
    out: list[tuple[str, str]] = []
    for kind in ("services", "multi_node"):
        for i, w in enumerate(getattr(spec, kind)):
            sa = w.pod.service_account
            if w in stored_workloads(spec) and sa is not None and not sa.role_arn and sa.mode == "irsa":
                out.append((f"{kind}[{i}].pod.service_account.mode", (
                    f"`{w.name}` reads the model store through the role this environment creates, which EKS Pod "
                    "Identity gives to pods (the cluster has no IAM OIDC provider shardwise makes): use mode "
                    "pod-identity, or a role_arn of your own that trusts your OIDC provider")))
    return out


def with_store_role(data: dict[str, Any], spec: EnvironmentSpec, role_arn: Any) -> None:
    """Give, in ``data`` (a dumped EnvironmentSpec), the store's role to the workloads that read the store."""
    stored = {w.name for w in stored_workloads(spec)}
    for kind in ("services", "multi_node"):
        for item, w in zip(data[kind], getattr(spec, kind), strict=True):
            if w.name in stored:
                sa = service_account_with(w, role_arn)
                if sa is not None:
                    item["pod"]["service_account"] = sa


def partition(region: str) -> str:
    """The AWS partition of a region."""
    return "aws-cn" if region.startswith("cn-") else "aws-us-gov" if region.startswith("us-gov-") else "aws"


def read_policy(bucket: str, region: str) -> str:
    """Read the store: list the bucket, get its objects."""
    arn = f"arn:{partition(region)}:s3:::{bucket}"
    return json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": ["s3:ListBucket"], "Resource": [arn]},
        {"Effect": "Allow", "Action": ["s3:GetObject"], "Resource": [f"{arn}/*"]}]})


def tls_only_policy(bucket: str, region: str) -> str:
    """The bucket's policy: deny every request that does not come over TLS."""
    arn = f"arn:{partition(region)}:s3:::{bucket}"
    return json.dumps({"Version": "2012-10-17", "Statement": [{
        "Sid": "DenyInsecureTransport", "Effect": "Deny", "Principal": "*", "Action": "s3:*",
        "Resource": [arn, f"{arn}/*"], "Condition": {"Bool": {"aws:SecureTransport": "false"}}}]})


class ModelStore:
    """The bucket, its settings, and the readers' role (see the module doc): ``bucket``, ``role``, ``resources``
    (every resource, by kind)."""

    def __init__(self, name: str, parent: pulumi.Resource, spec: EnvironmentSpec) -> None:
        store = spec.model_store
        assert store is not None
        child = pulumi.ResourceOptions(parent=parent)
        self.bucket = aws.s3.Bucket(f"{name}-bucket", bucket=store.bucket, force_destroy=store.force_destroy,
                                    opts=child)
        after = pulumi.ResourceOptions(parent=parent, depends_on=[self.bucket])
        self.resources: dict[str, pulumi.CustomResource] = {
            "bucket": self.bucket,
            "public_access_block": aws.s3.BucketPublicAccessBlock(
                f"{name}-public-access", bucket=self.bucket.id, block_public_acls=True, block_public_policy=True,
                ignore_public_acls=True, restrict_public_buckets=True, opts=child),
            "ownership": aws.s3.BucketOwnershipControls(
                f"{name}-ownership", bucket=self.bucket.id, rule={"object_ownership": "BucketOwnerEnforced"},
                opts=child),
            "encryption": aws.s3.BucketServerSideEncryptionConfiguration(
                f"{name}-encryption", bucket=self.bucket.id,
                rules=[{"apply_server_side_encryption_by_default": {"sse_algorithm": "AES256"}}], opts=child),
            "policy": aws.s3.BucketPolicy(f"{name}-tls-only", bucket=self.bucket.id,
                                          policy=tls_only_policy(store.bucket, spec.region), opts=after),
        }
        self.role = aws.iam.Role(f"{name}-reader", assume_role_policy=_assume(POD_IDENTITY_PRINCIPAL), opts=child)
        self.resources["role"] = self.role
        self.resources["role_policy"] = aws.iam.RolePolicy(
            f"{name}-read", role=self.role.name, policy=read_policy(store.bucket, spec.region), opts=child)
