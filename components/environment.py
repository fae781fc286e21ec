"""ServingEnvironment: everything one environment serves, from one typed spec."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s
from pydantic import ValidationError
from shardwise.rules.adapters.stack import sizing_summary
from shardwise.rules.model.spec import EnvironmentSpec, VllmMultiNodeSpec, VllmServiceSpec
from shardwise.rules.render.environment import environment_namespaces
from shardwise.rules.render.network import wants_public_subnets
from shardwise.rules.render.nodepool import pool_efa

from ._k8s import KUBECONFIG_DOC, PROVIDER_DOC, child_opts, declare, doc, provider_for
from ._workload import pydantic_findings
from .cluster import EksCluster, EksClusterArgs, cluster_findings
from .errors import ArgumentsError
from .hf_token import secret_metadata, token_findings
from .image_cache import ImageCache, image_cache_findings, pinned_fields, role_name
from .inputs import Unknowns, is_output
from .model_store import (
    STAND_IN_ROLE,
    ModelStore,
    model_store_findings,
    service_account_with,
    stored_workloads,
    with_store_role,
)
from .multinode import VllmMultiNode, VllmMultiNodeArgs
from .network import RuntimeNetwork, RuntimeNetworkArgs, declare_network_policies, public_subnet_findings
from .nodepool import GpuNodePool, GpuNodePoolArgs
from .router import InferenceRouter, InferenceRouterArgs
from .validation import (
    DEFAULT,
    VALIDATE_DOC,
    Validation,
    as_validation,
    environment_findings,
    prerequisite_findings,
)
from .vllm import VllmService, VllmServiceArgs


@dataclass(kw_only=True)
class ServingEnvironmentArgs:
    """Arguments of :class:`ServingEnvironment`: the environment spec (a stack config's
    ``shardwise:environment``) and the values a program may give as Outputs instead."""

    spec: EnvironmentSpec | Mapping[str, Any] = field(metadata=doc(
        "The environment: an EnvironmentSpec (a stack config's shardwise:environment) or a mapping of its fields."))
    node_role_arn: pulumi.Input[str] | None = field(default=None, metadata=doc(
        "Overrides spec.node_role_arn (e.g. an `aws.iam.Role(...).arn`)."))
    cluster_security_group_id: pulumi.Input[str] | None = field(default=None, metadata=doc(
        "Overrides spec.cluster_security_group_id."))
    vpc_id: pulumi.Input[str] | None = field(default=None, metadata=doc(
        "Existing-VPC mode with a VPC of the program (with private_subnet_ids)."))
    private_subnet_ids: pulumi.Input[Sequence[pulumi.Input[str]]] | None = field(default=None, metadata=doc(
        "That VPC's private subnets."))
    images: Mapping[str, pulumi.Input[str]] = field(default_factory=dict, metadata=doc(
        "Per workload name, its image (e.g. an ECR repository URL with a tag)."))
    k8s_provider: pulumi.ProviderResource | None = field(default=None, metadata=doc(PROVIDER_DOC))
    kubeconfig: pulumi.Input[str] | None = field(default=None, metadata=doc(KUBECONFIG_DOC))
    validate: bool | Validation | Mapping[str, str] = field(default=True, metadata=doc(VALIDATE_DOC))
    hf_token: pulumi.Input[str] | None = field(default=None, metadata=doc(
        "The Hugging Face token, as a Pulumi secret (the program's `shardwise:hfToken`): one Secret "
        "`hf_token_secret` (key HF_TOKEN) is created with it in each namespace whose workloads name one. "
        "Required when a workload's model is gated, unless `hf_token_secret_exists`."))
    hf_token_secret_exists: bool = field(default=False, metadata=doc(
        "The workloads' `hf_token_secret` Secrets are made outside this program (the program's "
        "`shardwise:hfTokenSecretExists`)."))
    api_key: pulumi.Input[str] | None = field(default=None, metadata=doc(
        "vLLM's API key, as a Pulumi secret (the program's `shardwise:apiKey`): the Secret each workload's "
        "`api_key_secret` names is created with it (under that key) in the workload's namespace. Required when a "
        "workload names one, unless `api_key_secret_exists`."))
    api_key_secret_exists: bool = field(default=False, metadata=doc(
        "The workloads' `api_key_secret` Secrets are made outside this program (the program's "
        "`shardwise:apiKeySecretExists`)."))


def api_key_findings(spec: EnvironmentSpec, key_given: bool, secret_exists: bool) -> list[tuple[str, str]]:
    """A workload that names an ``api_key_secret`` nothing creates: its pods would wait for the Secret
    (CreateContainerConfigError) until the rollout times out."""
    if key_given or secret_exists:
        return []
    return [(f"{kind}[{i}].api_key_secret", f"nothing creates the Secret `{w.api_key_secret.name}` that `{w.name}` "
             "reads vLLM's API key from: give api_key (a Pulumi secret, e.g. `pulumi config set --secret "
             "shardwise:apiKey …`), or set api_key_secret_exists when the Secret is made outside this program")
            for kind in ("services", "multi_node") for i, w in enumerate(getattr(spec, kind))
            if w.api_key_secret is not None]


def validate_environment(spec: EnvironmentSpec, validation: Validation = DEFAULT,
                         more: Sequence[tuple[str, str]] = ()) -> list[str]:
    """Raise :class:`ArgumentsError` with every problem of ``spec`` (and ``more``, found beforehand); return the
    notes of suppressed findings."""
    found, notes = environment_findings(spec, validation)
    found += prerequisite_findings(spec)
    found += more
    if found:
        raise ArgumentsError("ServingEnvironment", found)
    return notes


def _with_tokens(spec: EnvironmentSpec, args: ServingEnvironmentArgs, unknowns: Unknowns) -> EnvironmentSpec:
    """The spec with the program's overrides in it (Outputs as stand-ins), for validation."""
    data = spec.model_dump()
    if args.node_role_arn is not None:
        data["node_role_arn"] = unknowns.replace(args.node_role_arn, "node_role_arn")
    if args.cluster_security_group_id is not None:
        data["cluster_security_group_id"] = unknowns.replace(args.cluster_security_group_id,
                                                             "cluster_security_group_id")
    if args.vpc_id is not None:
        data["network"]["vpc_id"] = unknowns.replace(args.vpc_id, "vpc_id")
        ids = args.private_subnet_ids
        data["network"]["private_subnet_ids"] = [unknowns.replace(ids, "private_subnet_ids")] if is_output(ids) \
            else unknowns.replace(list(ids or []), "private_subnet_ids")  # type: ignore[arg-type]
    with_store_role(data, spec, STAND_IN_ROLE)  # the role the environment creates for the model store's readers
    names = {item["name"] for kind in ("services", "multi_node") for item in data[kind]}
    unknown = [(f"images.{n}", f"no service or multi-node group is named `{n}`") for n in args.images if n not in names]
    if unknown:
        raise ArgumentsError("ServingEnvironment", unknown)
    for kind in ("services", "multi_node"):
        for item in data[kind]:
            if item["name"] in args.images:
                item["image"] = unknowns.replace(args.images[item["name"]], f"images.{item['name']}")
    try:
        return EnvironmentSpec.model_validate(data)
    except ValidationError as e:
        raise ArgumentsError("ServingEnvironment", pydantic_findings(e, unknowns)) from None


class ServingEnvironment(pulumi.ComponentResource):
    """Network, cluster (when ``cluster.create``), GPU node pools, vLLM services, multi-node groups and
    routers of one environment.

    The whole spec is validated with the shardwise rules first (one ``ArgumentsError`` with every
    problem, paths such as ``services[0].engine.tensor_parallel_size``); the children then skip their own
    rule checks. An existing cluster needs existing-VPC mode (``network.vpc_id``): nodes in a VPC of
    their own never join it; its VPC is compared with ``network.vpc_id`` when the cluster is looked up.
    Kubernetes resources use ``k8s_provider`` (or ``kubeconfig``, or the provider in ``opts``); a created
    cluster brings its own. With ``image_cache`` the workloads' Docker Hub and ECR Public images are pulled
    through an ECR pull-through cache (:mod:`.image_cache`); with ``model_store`` an S3 bucket holds the weights
    that workloads with an ``s3`` cache in it stream from (:mod:`.model_store`).

    Outputs: ``network``, ``cluster``, ``pools``, ``services``, ``multi_node``, ``routers`` (components),
    ``namespaces``, ``network_policies``, ``token_secrets``, ``api_key_secrets`` (resources, the last two by
    ``namespace/name``), ``image_cache_rules`` (the ECR pull-through cache rules, by prefix), ``model_store`` (the
    bucket, its settings and its readers' role and policy, by kind);
    ``endpoints``, ``pool_names``, ``sizing``, ``validation``, ``vpc_id``, ``security_group_id``.
    """

    def __init__(self, name: str, args: ServingEnvironmentArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        unknowns = Unknowns()
        try:
            spec = args.spec if isinstance(args.spec, EnvironmentSpec) else EnvironmentSpec.model_validate(args.spec)
        except ValidationError as e:
            raise ArgumentsError("ServingEnvironment", pydantic_findings(e, unknowns)) from None
        checked = _with_tokens(spec, args, unknowns)
        validation = as_validation(args.validate)
        token = [f for kind in ("services", "multi_node") for i, w in enumerate(getattr(spec, kind))
                 for f in token_findings(w, args.hf_token is not None, args.hf_token_secret_exists, f"{kind}[{i}].")]
        token += api_key_findings(spec, args.api_key is not None, args.api_key_secret_exists)
        token += cluster_findings(spec.cluster)
        token += public_subnet_findings(spec.network, wants_public_subnets(spec.routers),
                                        existing_vpc=args.vpc_id is not None)
        token += image_cache_findings(spec, list(args.images))
        token += model_store_findings(spec)
        if spec.image_cache is not None and not spec.cluster.create and args.node_role_arn is None and \
                spec.node_role_arn is None:
            token.append(("node_role_arn", "image_cache: the nodes' IAM role gets the permission to import images "
                          "through the cache, and its account names the registry: give node_role_arn"))
        # whatever `validate` says: a gated model without a token never serves, a public endpoint needs its CIDRs
        notes = validate_environment(checked, validation, token) if validation.enabled else []
        if token and not validation.enabled:
            raise ArgumentsError("ServingEnvironment", token)
        super().__init__("shardwise:environment:ServingEnvironment", name, None, opts)
        for note in notes:
            pulumi.log.warn(note, resource=self)
        self.spec = spec
        child = pulumi.ResourceOptions(parent=self)
        existing_vpc = args.vpc_id if args.vpc_id is not None else spec.network.vpc_id
        self.network = RuntimeNetwork(f"{name}-network", RuntimeNetworkArgs(
            network=spec.network, region=spec.region, cluster_name=spec.cluster_name, vpc_id=args.vpc_id,
            private_subnet_ids=args.private_subnet_ids, network_policies=False, k8s_provider=args.k8s_provider,
            internet_facing=wants_public_subnets(spec.routers),
            kubeconfig=args.kubeconfig), opts=child)

        self.cluster: EksCluster | None = None
        node_role: pulumi.Input[str] | None = args.node_role_arn or spec.node_role_arn
        cluster_name: pulumi.Input[str] = spec.cluster_name
        if spec.cluster.create:
            self.cluster = EksCluster(f"{name}-cluster", EksClusterArgs(
                name=spec.cluster_name, region=spec.region, subnet_ids=self.network.private_subnet_ids,
                cluster=spec.cluster, node_role_arn=node_role,
                efa=any(pool_efa(p) for p in spec.pools), leader_worker_set=bool(spec.multi_node),
                keda=any(s.autoscaling is not None and s.autoscaling.kind == "keda" for s in spec.services),
                prometheus=any(w.metrics.monitor != "none" and w.metrics.monitor != "external"
                               for w in (*spec.services, *spec.multi_node)),
                monitoring_namespace=spec.network.monitoring_namespace or "monitoring",
                karpenter_nodes=any(p.provisioner == "karpenter" for p in spec.pools),
                load_balancer_controller=any(r.kind == "alb-ingress" for r in spec.routers) and
                "aws-load-balancer-controller" not in spec.cluster.installed,
                cluster_autoscaler=any(p.provisioner == "managed-nodegroup" and p.max_size > p.min_size
                                       for p in spec.pools) and "cluster-autoscaler" not in spec.cluster.installed,
                dcgm_exporter=spec.cluster.gpu_telemetry and "dcgm-exporter" not in spec.cluster.installed,
                vpc_id=self.network.vpc_id), opts=child)
            provider: pulumi.ProviderResource | None = self.cluster.provider
            node_role = self.cluster.node_role_arn
            cluster_name = self.cluster.name
            cluster_sg: Any = args.cluster_security_group_id or self.cluster.cluster_security_group_id
            installs: dict[str, Any] = dict(self.cluster.installs())
            node_deps: list[pulumi.Resource] = self.cluster.node_policy_attachments
        else:
            installs, node_deps = {}, []
            provider = provider_for(name, self, args.k8s_provider, args.kubeconfig)
            cluster_sg = self._existing_cluster_sg(spec, args, existing_vpc)

        self.namespaces = []
        if spec.create_namespaces:
            self.namespaces = [declare(f"{name}-namespace-{obj['metadata']['name']}", obj,
                                       child_opts(self, provider))
                               for obj in environment_namespaces(spec)]
        in_namespaces = child_opts(self, provider, self.namespaces)
        # the Hugging Face token: one Secret per namespace and name, made before the workloads that read it
        self.token_secrets: dict[str, pulumi.CustomResource] = {}
        if args.hf_token is not None:
            for w in (*spec.services, *spec.multi_node):
                key = f"{w.namespace}/{w.hf_token_secret}"
                if w.hf_token_secret and key not in self.token_secrets:
                    meta: Any = secret_metadata(w.hf_token_secret, w.namespace)
                    self.token_secrets[key] = k8s.core.v1.Secret(
                        f"{name}-hf-token-{w.namespace}-{w.hf_token_secret}", metadata=meta, type="Opaque",
                        string_data={"HF_TOKEN": pulumi.Output.secret(args.hf_token)}, opts=in_namespaces)

        # vLLM's API key: one Secret per namespace and name, holding every key the workloads there name
        self.api_key_secrets: dict[str, pulumi.CustomResource] = {}
        if args.api_key is not None:
            keys: dict[tuple[str, str], set[str]] = {}
            for w in (*spec.services, *spec.multi_node):
                if w.api_key_secret is not None:
                    keys.setdefault((w.namespace, w.api_key_secret.name), set()).add(w.api_key_secret.key)
            for (ns, secret), names in keys.items():
                key_meta: Any = secret_metadata(secret, ns)
                self.api_key_secrets[f"{ns}/{secret}"] = k8s.core.v1.Secret(
                    f"{name}-api-key-{ns}-{secret}", metadata=key_meta, type="Opaque",
                    string_data={k: pulumi.Output.secret(args.api_key) for k in sorted(names)}, opts=in_namespaces)

        self.model_store: dict[str, pulumi.CustomResource] = {}
        accounts: dict[str, Any] = {}  # workload → its service account with the store's role
        if spec.model_store is not None:
            store = ModelStore(f"{name}-model-store", self, spec)
            self.model_store = store.resources
            for w in stored_workloads(spec):
                sa = service_account_with(w, store.role.arn)
                if sa is not None:
                    accounts[w.name] = sa
        self.image_cache_rules: dict[str, pulumi.CustomResource] = {}
        cached: dict[str, Any] = {}
        if spec.image_cache is not None and node_role is not None:
            made_role = self.cluster.node_role if self.cluster is not None else None
            cache = ImageCache(f"{name}-image-cache", self, spec, node_role,
                               made_role.name if made_role is not None else role_name(node_role), list(args.images))
            self.image_cache_rules, cached = dict(cache.rules), cache.images

        def key_made_by(w: VllmServiceSpec | VllmMultiNodeSpec) -> bool | pulumi.Resource:
            """The API key's Secret this environment makes (the pods wait for it), else made elsewhere."""
            ref = w.api_key_secret
            return self.api_key_secrets.get(f"{w.namespace}/{ref.name}", True) if ref is not None else False

        def made_by(w: VllmServiceSpec | VllmMultiNodeSpec) -> bool | pulumi.Resource:
            """Checked above: the environment makes the Secret (the pods wait for it), or it is made elsewhere."""
            return self.token_secrets.get(f"{w.namespace}/{w.hf_token_secret}") or True
        self.pools = {p.name: GpuNodePool(f"{name}-{p.name}", GpuNodePoolArgs(
            pool=p, cluster_name=cluster_name, node_role_arn=node_role or "", validate=False,
            subnet_ids=self.network.private_subnet_ids, subnet_zones=self.network.private_subnet_zones,
            k8s_provider=provider,
            security_group_ids=[self.network.security_group_id, cluster_sg]),
            opts=pulumi.ResourceOptions(parent=self, depends_on=node_deps or None)) for p in spec.pools}
        common = {"production": spec.production, "validate": False, "k8s_provider": provider,
                  "cluster_name": cluster_name, "installs": installs}
        self.services = {s.name: VllmService(f"{name}-{s.name}", VllmServiceArgs(
            **_fields(s, args, cached, accounts), pool=self.pools[s.pool], hf_token_secret_exists=made_by(s),
            api_key_secret_exists=key_made_by(s), **common),
            opts=in_namespaces) for s in spec.services}
        self.multi_node = {m.name: VllmMultiNode(f"{name}-{m.name}", VllmMultiNodeArgs(
            **_fields(m, args, cached, accounts), pool=self.pools[m.pool], hf_token_secret_exists=made_by(m),
            api_key_secret_exists=key_made_by(m), **common),
            opts=in_namespaces) for m in spec.multi_node}
        backends: dict[str, Any] = {**self.services, **self.multi_node}
        self.routers = {r.name: InferenceRouter(f"{name}-{r.name}", InferenceRouterArgs(
            name=r.name, namespace=r.namespace, kind=r.kind, services=r.services, internal=r.internal,
            domain=r.domain, gateway=r.gateway, certificate_arn=r.certificate_arn, http=r.http,
            inbound_cidrs=r.inbound_cidrs, backends=[backends[s] for s in r.services], validate=False,
            installs=installs, k8s_provider=provider), opts=in_namespaces) for r in spec.routers}
        self.network_policies = declare_network_policies(
            f"{name}-network", self.network, spec.network, list(backends.values()), list(self.routers.values()),
            provider, self.namespaces, existing_vpc=existing_vpc is not None,
            public_subnets=self.network.internet_facing)

        self.endpoints: dict[str, Any] = {s: c.endpoint for s, c in backends.items()}
        self.endpoints.update({f"router/{r}": c.hostname for r, c in self.routers.items()})
        self.pool_names = [p.name for p in spec.pools]
        self.sizing = sizing_summary(spec)
        self.validation = {"suppressed": notes, "checked_when_resolved": unknowns.deferred,
                           "left_to_policy_pack": ["public IP mapping of existing subnets (SW303)"]
                           if existing_vpc is not None else []}
        self.register_outputs({
            "network": self.network, "cluster": self.cluster, "pools": self.pools, "services": self.services,
            "multi_node": self.multi_node, "routers": self.routers, "namespaces": self.namespaces,
            "endpoints": self.endpoints, "pool_names": self.pool_names, "sizing": self.sizing,
            "validation": self.validation, "vpc_id": self.network.vpc_id,
            "security_group_id": self.network.security_group_id, "network_policies": self.network_policies,
            "token_secrets": self.token_secrets, "api_key_secrets": self.api_key_secrets,
            "image_cache_rules": self.image_cache_rules, "model_store": self.model_store,
        })

    def _existing_cluster_sg(self, spec: EnvironmentSpec, args: ServingEnvironmentArgs,
                             vpc_id: pulumi.Input[str] | None) -> pulumi.Input[str]:
        """The existing cluster's security group; the cluster's VPC must be the environment's."""
        # through the AWS provider of this component (opts.provider / providers): the right account and region
        cluster = aws.eks.get_cluster_output(name=spec.cluster_name, opts=pulumi.InvokeOptions(parent=self))
        given = args.cluster_security_group_id or spec.cluster_security_group_id

        def check(values: list[Any]) -> Any:
            sg, cluster_vpc, vpc = values
            if vpc and cluster_vpc and cluster_vpc != vpc:
                raise ArgumentsError("ServingEnvironment", [(
                    "network.vpc_id", f"cluster `{spec.cluster_name}` is in {cluster_vpc}, not in {vpc}: its "
                    f"nodes would never join it")], when="when the cluster was looked up")
            return given or sg

        return pulumi.Output.all(cluster.vpc_config.cluster_security_group_id, cluster.vpc_config.vpc_id,
                                 vpc_id).apply(check)


def _fields(workload: VllmServiceSpec | VllmMultiNodeSpec, args: ServingEnvironmentArgs,
            cached: Mapping[str, Any], accounts: Mapping[str, Any]) -> dict[str, Any]:
    """A workload spec's fields as child ``…Args`` keywords, with the program's image when it gave one, else the
    pull-through cache's (and what the upstream image decides, :func:`~.image_cache.pinned_fields`), and the
    service account that gets the model store's role."""
    values = {f: getattr(workload, f) for f in type(workload).model_fields if f != "pool"}
    if workload.name in accounts:
        values["pod"] = {**workload.pod.model_dump(), "service_account": accounts[workload.name]}
    if workload.name in args.images:
        values["image"] = args.images[workload.name]
    elif workload.name in cached:
        values["image"] = cached[workload.name]
        values.update(pinned_fields(workload))
    return values
