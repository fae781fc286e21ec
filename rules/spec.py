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
    suppress: tuple[SuppressionSpec, ...] = ()

    @model_validator(mode="after")
    def _sizes(self) -> NodePoolSpec:
        if not self.min_size <= self.desired_size <= self.max_size:
            raise ValueError(
                f"need min_size <= desired_size <= max_size, got {self.min_size}, "
                f"{self.desired_size}, {self.max_size}"
            )
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
    base_model: str | None = None
    model_load_seconds: int = Field(1800, ge=30, le=7200)
    hf_token_secret: str | None = "hf-token"
    model_cache_gib: int = Field(1000, ge=1, le=16_384)
    network_interface: str = Field("eth0", description="NCCL_SOCKET_IFNAME / GLOO_SOCKET_IFNAME.")
    suppress: tuple[SuppressionSpec, ...] = ()


class RouterSpec(_Spec):
    """Least-outstanding-requests routing in front of the replicas."""

    name: str = Field(pattern=_DNS_LABEL)
    namespace: str = Field("gateway", pattern=_DNS_LABEL)
    kind: Literal["alb-ingress", "gateway-api"] = "alb-ingress"
    services: tuple[str, ...] = Field(min_length=1, description="Names of the services to route to.")
    internal: bool = True


class NetworkSpec(_Spec):
    """VPC pieces for the GPU nodes."""

    vpc_id: str | None = Field(None, description="Use an existing VPC instead of creating one.")
    cidr: str = Field("10.40.0.0/16")
    availability_zones: tuple[str, ...] = Field(("us-east-1a", "us-east-1b"), min_length=1)
    private_subnet_ids: tuple[str, ...] = Field((), description="Existing private subnets (existing-VPC mode).")
    gateway_namespace: str = Field("gateway", pattern=_DNS_LABEL)


class EnvironmentSpec(_Spec):
    """Everything one environment (stack) serves."""

    name: str = Field(pattern=_DNS_LABEL)
    production: bool = False
    region: str = "us-east-1"
    cluster_name: str = Field(description="Existing EKS cluster to add node pools to.")
    node_role_arn: str | None = Field(None, description="IAM role for managed node groups.")
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
        for s in (*self.services, *self.multi_node):
            if s.pool not in pools:
                raise ValueError(f"service '{s.name}' uses pool '{s.pool}', which is not defined")
        for r in self.routers:
            for name in r.services:
                if name not in names:
                    raise ValueError(f"router '{r.name}' routes to '{name}', which is not a service")
        return self
