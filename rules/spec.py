"""The typed environment spec: what a stack config says and what the Pulumi components take.

One set of pydantic models, ``extra="forbid"`` everywhere, bounds in ``Field``, a description per
field. The vLLM command line is rendered from :class:`EngineArgsSpec` (never typed twice). A stack
file (``stacks/Pulumi.<env>.yaml``) holds one :class:`EnvironmentSpec` under the config key
``shardwise:environment``.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

_DNS_LABEL = r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$"
_CODE = re.compile(r"^SW\d{3}$")


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SuppressionSpec(_Spec):
    """Skip one rule for this object, with the reason written down."""

    code: str = Field(description="Rule code, e.g. SW106.")
    reason: str = Field(min_length=1, description="Why the rule does not apply here.")

    @field_validator("code")
    @classmethod
    def _code(cls, v: str) -> str:
        if not _CODE.match(v):
            raise ValueError(f"'{v}' is not a rule code (SWnnn)")
        return v


class EngineArgsSpec(_Spec):
    """vLLM engine arguments. Field names are vLLM's; each renders as ``--field-name value``."""

    model: str = Field(min_length=1, description="Hugging Face model id or local path.")
    served_model_name: str | None = Field(None, description="Name clients use in the OpenAI API.")
    tensor_parallel_size: int = Field(1, ge=1, le=64, description="GPUs one layer is split across.")
    pipeline_parallel_size: int = Field(1, ge=1, le=64, description="Pipeline stages (nodes).")
    data_parallel_size: int = Field(1, ge=1, le=256, description="Data-parallel ranks (MoE expert parallel).")
    enable_expert_parallel: bool = Field(False, description="Place MoE experts on different ranks.")
    gpu_memory_utilization: float = Field(
        0.9, gt=0.0, le=1.0, description="Fraction of each GPU's memory vLLM may use."
    )
    max_model_len: int | None = Field(
        None, ge=16, le=10_000_000, description="Longest prompt+output in tokens."
    )
    max_num_seqs: int | None = Field(None, ge=1, le=65_536, description="Sequences batched at once.")
    max_num_batched_tokens: int | None = Field(
        None, ge=16, le=10_000_000, description="Token budget per scheduler step."
    )
    dtype: Literal["auto", "bfloat16", "float16", "float32"] = Field("auto", description="Activation dtype.")
    quantization: Literal["awq", "awq_marlin", "gptq", "gptq_marlin", "fp8", "compressed-tensors",
                          "bitsandbytes", "mxfp4", "modelopt"] | None = Field(
        None, description="Weight quantisation method (usually detected from the checkpoint)."
    )
    kv_cache_dtype: Literal["auto", "fp8", "fp8_e4m3", "fp8_e5m2"] = Field(
        "auto", description="KV-cache element type; fp8 halves the KV per token."
    )
    block_size: Literal[8, 16, 32, 64, 128] = Field(16, description="Tokens per KV-cache block.")
    enforce_eager: bool = Field(False, description="Disable CUDA graphs.")
    enable_prefix_caching: bool | None = Field(None, description="Reuse KV blocks of shared prefixes.")
    port: int = Field(8000, ge=1, le=65_535, description="HTTP port of the OpenAI-compatible API.")

    def to_args(self) -> list[str]:
        """The ``vllm serve`` arguments for this spec: the model, then one flag per set field."""
        args = [self.model]
        for name, field in type(self).model_fields.items():
            if name == "model":
                continue
            value = getattr(self, name)
            if value is None or value == field.default:
                continue
            flag = "--" + name.replace("_", "-")
            if isinstance(value, bool):
                args.append(flag if value else "--no-" + name.replace("_", "-"))
            else:
                args.extend([flag, str(value)])
        return args


class NodePoolSpec(_Spec):
    """A pool of identical GPU nodes."""

    name: str = Field(pattern=_DNS_LABEL, description="Pool name; also the node label shardwise.dev/pool.")
    instance_type: str = Field(description="AWS GPU instance type from the catalog, e.g. p5.48xlarge.")
    provisioner: Literal["managed-nodegroup", "karpenter"] = Field(
        "managed-nodegroup", description="EKS managed node group or a Karpenter NodePool."
    )
    capacity_type: Literal["on-demand", "spot", "capacity-block"] = "on-demand"
    min_size: int = Field(0, ge=0, le=1000)
    desired_size: int = Field(1, ge=0, le=1000)
    max_size: int = Field(1, ge=1, le=1000)
    multi_node: bool = Field(
        False, description="Nodes serve multi-node groups: EFA, a cluster placement group, one subnet."
    )
    efa: bool | None = Field(None, description="EFA interfaces; default: multi_node on an EFA instance.")
    disk_size_gib: int = Field(500, ge=50, le=16_384, description="Root volume for images and weights.")
    capacity_reservation_id: str | None = Field(
        None, pattern=r"^cr-[0-9a-f]{8,17}$",
        description="EC2 Capacity Block reservation the nodes launch into (capacity_type capacity-block).",
    )
    ami_alias: str = Field(
        "al2023@latest", min_length=1,
        description="Karpenter EC2NodeClass AMI alias; pin a version (al2023@v20250505) for production.",
    )
    suppress: tuple[SuppressionSpec, ...] = ()

    @model_validator(mode="after")
    def _sizes(self) -> NodePoolSpec:
        if not self.min_size <= self.desired_size <= self.max_size:
            raise ValueError(
                f"need min_size <= desired_size <= max_size, got {self.min_size}, "
                f"{self.desired_size}, {self.max_size}"
            )
        if self.capacity_type == "capacity-block" and not self.capacity_reservation_id:
            raise ValueError("capacity_type capacity-block needs capacity_reservation_id")
        return self


class AutoscalingSpec(_Spec):
    """Queue-depth autoscaling for the replicas."""

    kind: Literal["keda", "hpa"] = Field("keda", description="KEDA ScaledObject or an HPA on an external metric.")
    metric: Literal["vllm:num_requests_waiting", "vllm:num_requests_running", "cpu", "gpu"] = Field(
        "vllm:num_requests_waiting", description="Signal to scale on."
    )
    threshold: float = Field(5, gt=0, description="Target value of the metric per replica.")
    min_replicas: int = Field(1, ge=0, le=1000, description="Warm replicas kept at all times.")
    max_replicas: int = Field(4, ge=1, le=1000)
    scale_down_window_seconds: int = Field(300, ge=0, le=3600, description="HPA scale-down stabilisation.")
    prometheus_address: str = Field(
        "http://prometheus-operated.monitoring.svc:9090", description="Prometheus for KEDA's trigger."
    )


class VllmServiceSpec(_Spec):
    """One model served by independent replicas, each TP GPUs of one node."""

    name: str = Field(pattern=_DNS_LABEL)
    namespace: str = Field("serving", pattern=_DNS_LABEL)
    pool: str = Field(description="Name of the node pool to run on.")
    engine: EngineArgsSpec
    replicas: int = Field(1, ge=0, le=1000, description="Replicas when autoscaling is off; else the start.")
    image: str = Field("vllm/vllm-openai:v0.11.0", description="Container image pinned by tag or digest.")
    p95_context_tokens: int | None = Field(None, ge=1, description="Declared p95 prompt+output length.")
    output_tokens_per_second: float | None = Field(
        None, gt=0, allow_inf_nan=False,
        description="Output tokens per second one replica generates at the declared load (measured); "
        "gives the cost per million output tokens.")
    base_model: str | None = Field(None, description="Catalog model whose shape an unknown model id has.")
    model_load_seconds: int = Field(900, ge=30, le=7200, description="Longest expected model load.")
    hf_token_secret: str | None = Field("hf-token", description="Secret with key HF_TOKEN; null for none.")
    model_cache_gib: int = Field(200, ge=1, le=16_384)
    autoscaling: AutoscalingSpec | None = AutoscalingSpec()
    suppress: tuple[SuppressionSpec, ...] = ()


class VllmMultiNodeSpec(_Spec):
    """One model over several nodes as a LeaderWorkerSet: TP inside a node, PP across nodes."""

    name: str = Field(pattern=_DNS_LABEL)
    namespace: str = Field("serving", pattern=_DNS_LABEL)
    pool: str
    engine: EngineArgsSpec
    groups: int = Field(1, ge=1, le=100, description="Independent LeaderWorkerSet replicas.")
    image: str = "vllm/vllm-openai:v0.11.0"
    launcher: Literal["native", "ray"] = Field("native", description="vLLM's --nnodes launch or a Ray cluster.")
    p95_context_tokens: int | None = Field(None, ge=1)
    output_tokens_per_second: float | None = Field(
        None, gt=0, allow_inf_nan=False, description="Output tokens per second one group generates (measured).")
    base_model: str | None = None
    model_load_seconds: int = Field(1800, ge=30, le=7200)
    hf_token_secret: str | None = "hf-token"
    model_cache_gib: int = Field(1000, ge=1, le=16_384)
    network_interface: str = Field("eth0", description="NCCL_SOCKET_IFNAME / GLOO_SOCKET_IFNAME.")
    exclusive_topology: str | None = Field(
        "topology.k8s.aws/network-node-layer-3", min_length=1,
        description="Node label whose domain holds one whole group and no other "
        "(LWS exclusive-topology); null to place groups freely.",
    )
    suppress: tuple[SuppressionSpec, ...] = ()


class RouterSpec(_Spec):
    """Least-outstanding-requests routing in front of the replicas."""

    name: str = Field(pattern=_DNS_LABEL)
    namespace: str = Field("gateway", pattern=_DNS_LABEL)
    kind: Literal["alb-ingress", "gateway-api"] = "alb-ingress"
    services: tuple[str, ...] = Field(min_length=1, description="Names of the services to route to.")
    internal: bool = True
    domain: str | None = Field(
        None, pattern=r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$",
        description="DNS suffix; with several services each is routed by host <service>.<domain>.",
    )
    gateway: str = Field(
        "inference-gateway", pattern=_DNS_LABEL,
        description="Gateway (in the router's namespace) a gateway-api route attaches to.",
    )

    @model_validator(mode="after")
    def _hosts(self) -> RouterSpec:
        if len(self.services) > 1 and not self.domain:
            raise ValueError("a router with several services needs `domain` to route by host")
        if len(set(self.services)) != len(self.services):
            raise ValueError("a router lists each service once")
        return self


class NetworkSpec(_Spec):
    """VPC pieces for the GPU nodes."""

    vpc_id: str | None = Field(None, description="Use an existing VPC instead of creating one.")
    cidr: str = Field(
        "10.40.0.0/16",
        description="CIDR of the new VPC; with vpc_id, set it to that VPC's CIDR (the endpoint security group "
        "and the ALB-to-pod NetworkPolicy allow it).",
    )
    availability_zones: tuple[str, ...] = Field(("us-east-1a", "us-east-1b"), min_length=1)
    private_subnet_ids: tuple[str, ...] = Field((), description="Existing private subnets (existing-VPC mode).")
    gateway_namespace: str = Field("gateway", pattern=_DNS_LABEL)
    monitoring_namespace: str | None = Field(
        "monitoring", pattern=_DNS_LABEL,
        description="Namespace whose Prometheus may scrape /metrics on the API port; null for none.",
    )
    nat_gateway: bool = Field(
        True, description="One NAT gateway for HTTPS egress (model hub downloads) from the private subnets."
    )
    endpoints: bool = Field(
        True, description="Create the S3 gateway and ECR interface endpoints (images and weights stay private)."
    )

    @model_validator(mode="after")
    def _existing_vpc(self) -> NetworkSpec:
        if self.vpc_id and not self.private_subnet_ids:
            raise ValueError("an existing VPC (vpc_id) needs its private_subnet_ids")
        if self.private_subnet_ids and not self.vpc_id:
            raise ValueError("private_subnet_ids need the vpc_id they belong to")
        return self


class EnvironmentSpec(_Spec):
    """Everything one environment (stack) serves."""

    name: str = Field(pattern=_DNS_LABEL)
    production: bool = False
    region: str = "us-east-1"
    cluster_name: str = Field(description="Existing EKS cluster to add node pools to.")
    node_role_arn: str | None = Field(
        None, pattern=r"^arn:aws[a-z-]*:iam::\d{12}:role/.+$", description="IAM role of the GPU nodes."
    )
    cluster_security_group_id: str | None = Field(
        None, pattern=r"^sg-[0-9a-f]{8,17}$",
        description="The EKS cluster security group the nodes also join; looked up from the cluster when null.",
    )
    create_namespaces: bool = Field(True, description="Create the serving and gateway namespaces.")
    network: NetworkSpec = NetworkSpec()
    pools: tuple[NodePoolSpec, ...] = Field(min_length=1)
    services: tuple[VllmServiceSpec, ...] = ()
    multi_node: tuple[VllmMultiNodeSpec, ...] = ()
    routers: tuple[RouterSpec, ...] = ()

    @model_validator(mode="after")
    def _references(self) -> EnvironmentSpec:
        pools = {p.name for p in self.pools}
        if len(pools) != len(self.pools):
            raise ValueError("pool names must be unique")
        names = [s.name for s in self.services] + [m.name for m in self.multi_node]
        if len(set(names)) != len(names):
            raise ValueError("service names must be unique")
        served: list[VllmServiceSpec | VllmMultiNodeSpec] = [*self.services, *self.multi_node]
        for s in served:
            if s.pool not in pools:
                raise ValueError(f"service '{s.name}' uses pool '{s.pool}', which is not defined")
        for r in self.routers:
            for name in r.services:
                if name not in names:
                    raise ValueError(f"router '{r.name}' routes to '{name}', which is not a service")
        return self
