"""The typed environment spec: what a stack config says and what the Pulumi components take.

One set of pydantic models, ``extra="forbid"`` everywhere, bounds in ``Field``, a description per
field. The vLLM command line is rendered from :class:`EngineArgsSpec` (never typed twice). A stack
file (``stacks/Pulumi.<env>.yaml``) holds one :class:`EnvironmentSpec` under the config key
``shardwise:environment``.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Any, Literal

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
    prefill_context_parallel_size: int = Field(
        1, ge=1, le=64, description="Prefill context-parallel ranks (vLLM 0.12+): each holds the TP shard, and vLLM's "
        "world size, the GPUs an engine requests, is TP × PP × PCP.",
    )
    data_parallel_size: int = Field(1, ge=1, le=256, description="Data-parallel ranks (MoE expert parallel).")
    enable_expert_parallel: bool = Field(False, description="Place MoE experts on different ranks.")
    gpu_memory_utilization: float | None = Field(
        None, gt=0.0, le=1.0, description="Fraction of each GPU's memory vLLM may use (None: the release's default, "
        "0.9, 0.92 from vLLM 0.20, 1.0 with 0.34's extensible KV cache); written whenever set, 0.9 included.",
    )
    max_model_len: int | None = Field(
        None, ge=16, le=10_000_000, description="Longest prompt+output in tokens."
    )
    max_num_seqs: int | None = Field(None, ge=1, le=65_536, description="Sequences batched at once.")
    max_num_batched_tokens: int | None = Field(
        None, ge=16, le=10_000_000, description="Token budget per scheduler step."
    )
    dtype: Literal["auto", "bfloat16", "float16", "float32"] = Field("auto", description="Activation dtype.")
    # every name vLLM's QUANTIZATION_METHODS holds in the releases read (capacity.weights.VLLM_QUANTIZATION_METHODS)
    quantization: Literal[
        "aqlm", "auto-round", "awq", "awq_marlin", "bitblas", "bitsandbytes", "compressed-tensors", "cpu_awq",
        "deepspeedfp", "experts_int8", "fbgemm_fp8", "fp8", "fp_quant", "gguf", "gptq", "gptq_bitblas", "gptq_marlin",
        "gptq_marlin_24", "hqq", "inc", "ipex", "marlin", "modelopt", "modelopt_fp4", "moe_wna16", "mxfp4",
        "neuron_quant", "petit_nvfp4", "ptpc_fp8", "qqq", "quark", "rtn", "torchao", "tpu_int8",
    ] | None = Field(
        None, description="Weight quantisation method (usually detected from the checkpoint); any of vLLM's."
    )
    kv_cache_dtype: Literal["auto", "fp8", "fp8_e4m3", "fp8_e5m2"] = Field(
        "auto", description="KV-cache element type; fp8 halves the KV per token."
    )
    block_size: Literal[8, 16, 32, 64, 128] | None = Field(
        None, description="Tokens per KV-cache block (None: vLLM's choice, 16 or what the attention backend or a "
        "hybrid model's state layers need); written whenever set, 16 included.",
    )
    enforce_eager: bool = Field(False, description="Disable CUDA graphs.")
    enable_prefix_caching: bool | None = Field(None, description="Reuse KV blocks of shared prefixes.")
    enable_chunked_prefill: bool | None = Field(
        None, description="Split long prefills into max_num_batched_tokens chunks (None: vLLM's default)."
    )
    kv_cache_memory_bytes: int | None = Field(
        None, ge=1,
        description="KV cache per GPU in bytes; vLLM (0.10.2+) then ignores gpu_memory_utilization's budget.",
    )
    cpu_offload_gb: float | None = Field(
        None, ge=0, le=100_000,
        description="GiB of each GPU's decoder-layer weights vLLM keeps in CPU memory (UVA offload); the sizing "
        "counts it for a dense 16-bit checkpoint and cannot decide it elsewhere.",
    )
    port: int = Field(8000, ge=1, le=65_535, description="HTTP port of the OpenAI-compatible API.")
    revision: str | None = Field(
        None, min_length=1, description="Model revision (branch, tag or commit) to download and serve."
    )
    extra_args: tuple[str, ...] = Field(
        (), description="Further `vllm serve` flags passed through as written (`--trust-remote-code`, "
        "`--tool-call-parser hermes`, `--chat-template ...`, `--lora-modules ...`, `--speculative-config ...`). "
        "Flags the rules read (parallelism, lengths, dtype, memory, port, load format, multi-node launch) "
        "are refused here: set their typed field; so is `--config` (a file would hide its flags from the rules).",
    )

    def to_args(self) -> list[str]:
        """The ``vllm serve`` arguments for this spec: the model, one flag per set field, then ``extra_args``."""
        args = [self.model]
        for name, field in type(self).model_fields.items():
            if name in ("model", "extra_args"):
                continue
            value = getattr(self, name)
            if value is None or value == field.default:
                continue
            flag = "--" + name.replace("_", "-")
            if isinstance(value, bool):
                args.append(flag if value else "--no-" + name.replace("_", "-"))
            else:
                args.extend([flag, str(value)])
        return [*args, *self.extra_args]


class NodePoolSpec(_Spec):
    """A pool of identical GPU nodes."""

    name: str = Field(pattern=_DNS_LABEL, description="Pool name; also the node label shardwise.dev/pool.")
    instance_type: str = Field(description="AWS GPU instance type from the catalog, e.g. p5.48xlarge.")
    provisioner: Literal["managed-nodegroup", "karpenter"] = Field(
        "managed-nodegroup", description="EKS managed node group or a Karpenter NodePool."
    )
    capacity_type: Literal["on-demand", "spot", "capacity-block"] = Field(
        "on-demand", description="How the nodes are bought (capacity-block: an EC2 Capacity Block)."
    )
    min_size: int = Field(0, ge=0, le=1000, description="Fewest nodes.")
    desired_size: int = Field(1, ge=0, le=1000, description="Nodes to start with (managed node groups).")
    max_size: int = Field(1, ge=1, le=1000, description="Most nodes.")
    multi_node: bool = Field(
        False, description="Nodes serve multi-node groups: EFA, a cluster placement group, one subnet."
    )
    efa: bool | None = Field(None, description="EFA interfaces; default: multi_node on an EFA instance.")
    disk_size_gib: int = Field(500, ge=50, le=16_384, description="Root volume for images and weights.")
    capacity_reservation_id: str | None = Field(
        None, pattern=r"^cr-[0-9a-f]{8,17}$",
        description="EC2 capacity reservation the nodes launch into, targeted from the launch template: an "
        "On-Demand Capacity Reservation (capacity_type on-demand; its instance type, platform and zone must be "
        "the pool's, and it must accept targeted launches) or a Capacity Block for ML (capacity_type "
        "capacity-block).",
    )
    availability_zone: str | None = Field(
        None, pattern=r"^[a-z]{2}(-[a-z]+)+-\d[a-z]$",
        description="Launch only in this zone (the pool's subnets in it): a capacity reservation's zone, which a "
        "pool with capacity_reservation_id must name (a reservation holds instances in one zone).",
    )
    ami_alias: str = Field(
        "al2023@latest", min_length=1,
        description="Karpenter EC2NodeClass AMI alias; pin a version (al2023@v20250505) for production.",
    )
    disk_throughput_mib_s: int = Field(
        125, ge=125, le=2000,
        description="gp3 root-volume throughput (MiB/s); an `empty-dir` model cache loads at this rate.",
    )
    instance_store: Literal["none", "raid0"] = Field(
        "none",
        description="`raid0`: the node's NVMe instance-store disks as one RAID-0 array at /mnt/k8s-disks/0 "
        "(nodeadm localStorage / Karpenter instanceStorePolicy); needed by a `node-nvme` model cache.",
    )
    suppress: tuple[SuppressionSpec, ...] = Field((), description="Rules skipped for this pool, with reasons.")

    @model_validator(mode="after")
    def _sizes(self) -> NodePoolSpec:
        if not self.min_size <= self.desired_size <= self.max_size:
            raise ValueError(
                f"need min_size <= desired_size <= max_size, got {self.min_size}, "
                f"{self.desired_size}, {self.max_size}"
            )
        if self.capacity_type == "capacity-block" and not self.capacity_reservation_id:
            raise ValueError("capacity_type capacity-block needs capacity_reservation_id")
        if self.capacity_type == "spot" and self.capacity_reservation_id:
            raise ValueError("a spot pool cannot launch into a capacity reservation: use capacity_type on-demand "
                             "(an On-Demand Capacity Reservation) or capacity-block")
        return self


class AutoscalingSpec(_Spec):
    """Queue-depth autoscaling for the replicas."""

    kind: Literal["keda", "hpa"] = Field("keda", description="KEDA ScaledObject or an HPA on an external metric.")
    metric: Literal["vllm:num_requests_waiting", "vllm:num_requests_running", "cpu", "gpu"] = Field(
        "vllm:num_requests_waiting", description="Signal to scale on."
    )
    threshold: float = Field(5, gt=0, description="Target value of the metric per replica.")
    min_replicas: int = Field(1, ge=0, le=1000, description="Warm replicas kept at all times.")
    max_replicas: int = Field(4, ge=1, le=1000, description="Most replicas the autoscaler may run.")
    scale_down_window_seconds: int = Field(300, ge=0, le=3600, description="HPA scale-down stabilisation.")
    prometheus_address: str = Field(
        "http://prometheus-operated.monitoring.svc:9090", description="Prometheus for KEDA's trigger."
    )


_C_IDENT = r"^[A-Za-z_][A-Za-z0-9_]*$"
_ENV_NAME = r"^[-._a-zA-Z][-._a-zA-Z0-9]*$"
_QUALIFIED = r"^([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$"


class ModelCacheSpec(_Spec):
    """Where the weights live between restarts, and how fast a pod reads them from there.

    ``empty-dir`` lives as long as the pod (a recreated pod downloads again); ``pvc`` keeps them on a
    volume (FSx for Lustre ``ReadWriteMany`` shared by every replica, or EBS ``ReadWriteOnce``);
    ``node-nvme`` keeps them on the node's instance-store RAID-0 (a pod restarted on the same node
    finds them); ``s3`` streams safetensors from S3 with vLLM's ``--load-format runai_streamer``.
    """

    kind: Literal["empty-dir", "pvc", "node-nvme", "s3"] = Field("empty-dir", description="Cache kind.")
    storage_class: str | None = Field(
        None, pattern=_DNS_LABEL, description="pvc: StorageClass of the claim the component creates."
    )
    claim_name: str | None = Field(None, pattern=_DNS_LABEL, description="pvc: an existing claim to mount instead.")
    access_mode: Literal["ReadWriteMany", "ReadWriteOnce"] = Field(
        "ReadWriteMany", description="pvc: ReadWriteMany (FSx for Lustre, EFS) or ReadWriteOnce (EBS)."
    )
    throughput_mib_s: float | None = Field(
        None, gt=0, le=200_000,
        description="Read throughput one pod gets from the cache (MiB/s); sets the startup-probe budget. "
        "Required for pvc, node-nvme and s3; an empty-dir reads at the pool's disk_throughput_mib_s.",
    )
    host_path: str = Field(
        "/mnt/k8s-disks/0/shardwise-model-cache", pattern=r"^/[^\s]*$",
        description="node-nvme: directory on the instance-store RAID-0 that holds the cache.",
    )
    s3_uri: str | None = Field(
        None, pattern=r"^s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](/.*)?$",
        description="s3: the s3://bucket/prefix holding the model's safetensors, config and tokenizer.",
    )

    @model_validator(mode="after")
    def _kind_fields(self) -> ModelCacheSpec:
        if self.kind == "pvc" and not (self.storage_class or self.claim_name):
            raise ValueError("a pvc cache needs storage_class (a new claim) or claim_name (an existing one)")
        if self.kind == "s3" and not self.s3_uri:
            raise ValueError("an s3 cache needs s3_uri")
        if self.kind != "s3" and self.s3_uri:
            raise ValueError("s3_uri is for kind s3")
        if self.kind != "pvc" and (self.storage_class or self.claim_name):
            raise ValueError("storage_class and claim_name are for kind pvc")
        return self


class SecretKeySpec(_Spec):
    name: str = Field(pattern=_DNS_LABEL.replace("{0,61}", "{0,251}"), description="Secret or ConfigMap name.")
    key: str = Field(min_length=1, description="Key inside it.")
    optional: bool = Field(False, description="The pod starts without it.")


class EnvVarSpec(_Spec):
    """One environment variable: a value, or a reference (exactly one)."""

    name: str = Field(pattern=_ENV_NAME, description="Variable name.")
    value: str | None = Field(None, description="A literal value.")
    secret_key_ref: SecretKeySpec | None = Field(None, description="A key of a Secret.")
    config_map_key_ref: SecretKeySpec | None = Field(None, description="A key of a ConfigMap.")
    field_path: str | None = Field(None, description="Downward API field, e.g. status.podIP.")

    @model_validator(mode="after")
    def _one_source(self) -> EnvVarSpec:
        sources = [self.value, self.secret_key_ref, self.config_map_key_ref, self.field_path]
        if sum(s is not None for s in sources) != 1:
            raise ValueError(f"env `{self.name}` needs exactly one of value, secret_key_ref, config_map_key_ref, "
                             "field_path")
        return self


class EnvFromSpec(_Spec):
    """Every key of a Secret or ConfigMap as environment variables."""

    secret: str | None = Field(None, pattern=_DNS_LABEL, description="A Secret whose keys become variables.")
    config_map: str | None = Field(None, pattern=_DNS_LABEL, description="A ConfigMap whose keys become variables.")
    prefix: str | None = Field(None, pattern=_C_IDENT, description="Prefix added to each variable name.")

    @model_validator(mode="after")
    def _one_source(self) -> EnvFromSpec:
        if (self.secret is None) == (self.config_map is None):
            raise ValueError("env_from needs exactly one of secret, config_map")
        return self


class VolumeSpec(_Spec):
    """An extra pod volume (exactly one source)."""

    name: str = Field(pattern=_DNS_LABEL, description="Volume name (volume_mounts refer to it).")
    secret: str | None = Field(None, pattern=_DNS_LABEL, description="A Secret's keys as files.")
    config_map: str | None = Field(None, pattern=_DNS_LABEL, description="A ConfigMap's keys as files.")
    claim_name: str | None = Field(None, pattern=_DNS_LABEL, description="An existing PersistentVolumeClaim.")
    empty_dir_gib: int | None = Field(None, ge=1, le=16_384, description="A scratch emptyDir of this size.")
    host_path: str | None = Field(None, pattern=r"^/", description="A directory of the node.")

    @model_validator(mode="after")
    def _one_source(self) -> VolumeSpec:
        sources = [self.secret, self.config_map, self.claim_name, self.empty_dir_gib, self.host_path]
        if sum(s is not None for s in sources) != 1:
            raise ValueError(f"volume `{self.name}` needs exactly one of secret, config_map, claim_name, "
                             "empty_dir_gib, host_path")
        return self


class VolumeMountSpec(_Spec):
    name: str = Field(pattern=_DNS_LABEL, description="A volume of `volumes`.")
    mount_path: str = Field(pattern=r"^/", description="Where the volume appears in the vLLM container.")
    read_only: bool = Field(False, description="Mount read-only.")
    sub_path: str | None = Field(None, description="A path inside the volume to mount instead of its root.")


class TolerationSpec(_Spec):
    key: str | None = Field(None, description="Taint key (none: every key, with Exists).")
    operator: Literal["Equal", "Exists"] = Field("Equal", description="Equal (key and value) or Exists (key).")
    value: str | None = Field(None, description="Taint value (Equal).")
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"] | None = Field(
        None, description="Taint effect (none: every effect)."
    )


class ServiceAccountSpec(_Spec):
    """The pods' service account, and the IAM role it gets (weights in S3, private ECR)."""

    name: str = Field(pattern=_DNS_LABEL, description="ServiceAccount name.")
    create: bool = Field(True, description="Create it (else it must exist).")
    role_arn: str | None = Field(
        None, pattern=r"^arn:aws[a-z-]*:iam::\d{12}:role/.+$", description="IAM role for the pods."
    )
    mode: Literal["pod-identity", "irsa"] = Field(
        "pod-identity",
        description="pod-identity: an EKS Pod Identity association (needs the eks-pod-identity-agent add-on); "
        "irsa: the eks.amazonaws.com/role-arn annotation (needs the cluster's OIDC provider).",
    )


class PodSpec(_Spec):
    """Escape hatches onto the pod template. Keys and fields the rules read are refused here."""

    labels: dict[str, str] = Field({}, description="Extra pod labels.")
    annotations: dict[str, str] = Field({}, description="Extra pod annotations.")
    env: tuple[EnvVarSpec, ...] = Field((), description="Extra environment variables of the vLLM container.")
    env_from: tuple[EnvFromSpec, ...] = Field((), description="Secrets and ConfigMaps as environment variables.")
    volumes: tuple[VolumeSpec, ...] = Field((), description="Extra pod volumes.")
    volume_mounts: tuple[VolumeMountSpec, ...] = Field((), description="Mounts of `volumes` in the vLLM container.")
    requests: dict[str, str] = Field({}, description="Resource requests beyond GPUs and EFA (cpu, memory, ...).")
    limits: dict[str, str] = Field({}, description="Resource limits beyond GPUs and EFA.")
    service_account: ServiceAccountSpec | None = Field(None, description="The pods' service account and IAM role.")
    node_selector: dict[str, str] = Field({}, description="Added to the pool's node selector.")
    node_affinity: tuple[dict[str, Any], ...] = Field(
        (), description="Extra requiredDuringScheduling node selector terms' matchExpressions "
        "(each a {key, operator, values} mapping), ANDed with the pool selector.",
    )
    tolerations: tuple[TolerationSpec, ...] = Field((), description="Added to the GPU toleration.")
    priority_class_name: str | None = Field(
        None, pattern=_DNS_LABEL.replace("{0,61}", "{0,251}"), description="PriorityClass of the pods."
    )
    image_pull_secrets: tuple[str, ...] = Field((), description="Secrets for private registries.")

    @field_validator("labels", "annotations", "node_selector")
    @classmethod
    def _keys(cls, v: dict[str, str]) -> dict[str, str]:
        for k in v:
            if not re.match(_QUALIFIED, k):
                raise ValueError(f"`{k}` is not a valid label or annotation key")
        return v


class MetricsSpec(_Spec):
    """How Prometheus finds vLLM's /metrics (KEDA's queue-depth query reads it)."""

    monitor: Literal["pod-monitor", "service-monitor", "external", "none"] = Field(
        "pod-monitor",
        description="pod-monitor / service-monitor: a Prometheus Operator object the component creates; "
        "external: scraped by something else (say so); none: not scraped (refused with a Prometheus autoscaler).",
    )
    labels: dict[str, str] = Field(
        {}, description="Labels the Prometheus selects monitors by (kube-prometheus-stack: release: <name>)."
    )
    interval_seconds: int = Field(15, ge=1, le=3600, description="Scrape interval.")


_VERSION = r"^\d+\.\d+(\.\d+)?([.+-][0-9A-Za-z.+-]*)?$"


class _WorkloadSpec(_Spec):
    """Fields every vLLM workload has (a replicated service or a multi-node group)."""

    name: str = Field(pattern=_DNS_LABEL, description="Name of the Kubernetes objects and the serving group.")
    namespace: str = Field("serving", pattern=_DNS_LABEL, description="Namespace of the objects.")
    pool: str = Field(description="Name of the node pool to run on.")
    engine: EngineArgsSpec = Field(description="vLLM engine arguments.")
    image: str = Field("vllm/vllm-openai:v0.11.0", description="Container image pinned by tag or digest.")
    vllm_version: str | None = Field(
        None, pattern=_VERSION,
        description="vLLM version inside `image`; read from the tag of vllm/vllm-openai and AWS DLC vLLM images.",
    )
    p95_context_tokens: int | None = Field(None, ge=1, description="Declared p95 prompt+output length.")
    target_concurrency: int | None = Field(
        None, ge=1, le=10_000_000,
        description="Sequences the whole workload (all its replicas together) serves at once at the p95 "
        "context: the load SW103 sizes (annotation shardwise.dev/target-concurrency; `plan --concurrency`).")
    output_tokens_per_second: float | None = Field(
        None, gt=0, allow_inf_nan=False,
        description="Output tokens per second one replica generates at the declared load (measured); "
        "gives the cost per million output tokens.")
    tpot_target_ms: float | None = Field(
        None, gt=0, lt=3_600_000, allow_inf_nan=False,
        description="Declared per-output-token latency target (ms; annotation shardwise.dev/tpot-target-ms): "
        "a sharding that may be there to meet it is advisory, never blocking (SW104, SW202).")
    base_model: str | None = Field(None, description="Catalog model whose shape an unknown model id has.")
    weights_gib: float | None = Field(
        None, gt=0, le=100_000,
        description="Size of the checkpoint's weights (GiB); default: the capacity model's estimate.",
    )
    model_load_seconds: int | None = Field(
        None, ge=30, le=7200,
        description="Longest model load you have measured (s); the startup probe allows at least this, and at "
        "least what the weights take at the cache's throughput.",
    )
    hf_token_secret: str | None = Field("hf-token", description="Secret with key HF_TOKEN; null for none.")
    api_key_secret: SecretKeySpec | None = Field(
        None, description="The Secret key holding vLLM's API key (env VLLM_API_KEY, which vLLM reads when "
        "`--api-key` is not given): requests to /v1 then need `Authorization: Bearer <key>`; /health and /metrics "
        "stay open to the probes and Prometheus. Required behind an alb-ingress router.",
    )
    model_cache_gib: int = Field(200, ge=1, le=16_384, description="Size of the model cache volume (GiB).")
    cache: ModelCacheSpec = Field(ModelCacheSpec(), description="Where the weights are kept between restarts.")
    drain_seconds: int = Field(
        30, ge=0, le=3600,
        description="preStop: how long a terminating pod keeps serving its in-flight requests after it "
        "leaves the endpoints (the grace period adds 30 s).",
    )
    pod: PodSpec = Field(PodSpec(), description="Escape hatches onto the pod template.")
    run_as_non_root: bool = Field(
        False,
        description="Run the pods as UID 2000, GID 0 (the `vllm` user newer vllm/vllm-openai images ship; "
        "the image itself stays USER root) with no privilege escalation, every capability dropped and the "
        "RuntimeDefault seccomp profile, HOME and the Hugging Face cache under /home/vllm: the Pod Security "
        "`restricted` level. Not with a node-nvme cache (a root-owned hostPath).",
    )
    metrics: MetricsSpec = Field(MetricsSpec(), description="How Prometheus scrapes /metrics.")
    suppress: tuple[SuppressionSpec, ...] = Field((), description="Rules skipped for this workload, with reasons.")


class VllmServiceSpec(_WorkloadSpec):
    """One model served by independent replicas, each TP GPUs of one node."""

    replicas: int = Field(1, ge=0, le=1000, description="Replicas when autoscaling is off; else the start.")
    autoscaling: AutoscalingSpec | None = Field(
        AutoscalingSpec(), description="Queue-depth autoscaling; null for none."
    )


class VllmMultiNodeSpec(_WorkloadSpec):
    """One model over several nodes as a LeaderWorkerSet: TP inside a node, PP across nodes, or data-parallel
    engines spread over the nodes (vLLM's --data-parallel-size-local launch)."""

    groups: int = Field(1, ge=1, le=100, description="Independent LeaderWorkerSet replicas.")
    launcher: Literal["auto", "native", "ray"] = Field(
        "auto",
        description="native: vLLM's --nnodes/--node-rank/--master-addr launch (vLLM >= 0.11.1); ray: a Ray "
        "cluster per group; auto: native when the image's vLLM has it, else ray.",
    )
    image_efa: bool | None = Field(
        None,
        description="The image carries libfabric and the aws-ofi-nccl plugin; known for AWS DLC vLLM images "
        "(true) and vllm/vllm-openai (false), to be declared for others on EFA pools.",
    )
    model_cache_gib: int = Field(1000, ge=1, le=16_384, description="Size of the model cache volume (GiB).")
    network_interface: str = Field("eth0", description="NCCL_SOCKET_IFNAME / GLOO_SOCKET_IFNAME.")
    exclusive_topology: str | None = Field(
        None, min_length=1,
        description="Opt-in: a node label whose domain holds one whole group and no other (LWS "
        "exclusive-topology), e.g. topology.k8s.aws/network-node-layer-3; the pool's nodes must carry it, or "
        "groups stay Pending.",
    )


class RouterSpec(_Spec):
    """Least-outstanding-requests routing in front of the replicas."""

    name: str = Field(pattern=_DNS_LABEL, description="Name of the Ingress or HTTPRoute.")
    namespace: str = Field("gateway", pattern=_DNS_LABEL, description="Namespace of the router.")
    kind: Literal["alb-ingress", "gateway-api"] = Field(
        "alb-ingress", description="AWS Load Balancer Controller Ingress, or Gateway API HTTPRoutes."
    )
    services: tuple[str, ...] = Field(min_length=1, description="Names of the services to route to.")
    internal: bool = Field(
        True, description="An internal load balancer; false: internet-facing, in public subnets tagged "
        "kubernetes.io/role/elb (a new VPC gets them; an existing one names their ranges in "
        "network.load_balancer_cidrs).",
    )
    domain: str | None = Field(
        None, pattern=r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$",
        description="DNS suffix; with several services each is routed by host <service>.<domain>.",
    )
    gateway: str = Field(
        "inference-gateway", pattern=_DNS_LABEL,
        description="Gateway (in the router's namespace) a gateway-api route attaches to.",
    )
    certificate_arn: str | None = Field(
        None, pattern=r"^arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate/[0-9A-Za-z-]+$",
        description="alb-ingress: the ACM certificate of the HTTPS listener (port 443); required unless "
        "`http: plain`.",
    )
    http: Literal["redirect", "off", "plain"] = Field(
        "redirect",
        description="alb-ingress, port 80: `redirect` (to HTTPS), `off` (no HTTP listener), or `plain` (HTTP "
        "only, no certificate: write it to mean it).",
    )
    inbound_cidrs: tuple[str, ...] = Field(
        (), description="alb-ingress: who may reach the load balancer (alb.ingress.kubernetes.io/inbound-cidrs). "
        "Required: without it the controller opens the listeners to 0.0.0.0/0, so that is written to mean it.",
    )

    @model_validator(mode="after")
    def _hosts(self) -> RouterSpec:
        if len(self.services) > 1 and not self.domain:
            raise ValueError("a router with several services needs `domain` to route by host")
        if len(set(self.services)) != len(self.services):
            raise ValueError("a router lists each service once")
        if self.http == "plain" and self.certificate_arn:
            raise ValueError("http `plain` has no HTTPS listener: drop certificate_arn, or use `redirect`/`off`")
        for cidr in self.inbound_cidrs:
            try:
                ipaddress.ip_network(cidr)
            except ValueError:
                raise ValueError(f"inbound_cidrs: `{cidr}` is not a CIDR (host bits set, or not an address)") \
                    from None
        if self.kind == "gateway-api" and (self.certificate_arn or self.inbound_cidrs):
            raise ValueError("certificate_arn and inbound_cidrs are for alb-ingress: a gateway-api route's "
                             "Gateway owns its listeners")
        return self


class NetworkSpec(_Spec):
    """VPC pieces for the GPU nodes."""

    vpc_id: str | None = Field(None, description="Use an existing VPC instead of creating one.")
    cidr: str = Field(
        "10.40.0.0/16",
        description="CIDR of the new VPC, a /16 to /28 as AWS allows, with room for a private subnet per zone and "
        "the load-balancer and NAT subnets (a /23 holds three zones); with vpc_id, set it to that VPC's CIDR (the "
        "endpoint security group allows it).",
    )
    availability_zones: tuple[str, ...] = Field(
        ("us-east-1a", "us-east-1b"), min_length=1, description="Zones of the new VPC's private subnets."
    )
    private_subnet_ids: tuple[str, ...] = Field((), description="Existing private subnets (existing-VPC mode).")
    gateway_namespace: str = Field(
        "gateway", pattern=_DNS_LABEL, description="Namespace whose pods may call the API port (gateways, routers)."
    )
    monitoring_namespace: str | None = Field(
        "monitoring", pattern=_DNS_LABEL,
        description="Namespace whose Prometheus may scrape /metrics on the API port; null for none.",
    )
    nat_gateway: bool = Field(
        True, description="One NAT gateway for HTTPS egress (model hub downloads) from the private subnets."
    )
    endpoints: bool | None = Field(
        None, description="Create the S3 gateway and ECR interface endpoints (images and weights stay private); "
        "null: yes in a new VPC, no in an existing one (which usually has them: a second one conflicts).",
    )
    load_balancer_cidrs: tuple[str, ...] = Field(
        (), description="An existing VPC with an alb-ingress router: the CIDRs of the subnets its load balancer is "
        "placed in (those tagged kubernetes.io/role/internal-elb, or kubernetes.io/role/elb for an internet-facing "
        "one): the ALB connects to pod IPs from there, and the "
        "API port's NetworkPolicy admits these ranges only. A new VPC has load-balancer subnets of its own.",
    )

    @model_validator(mode="after")
    def _existing_vpc(self) -> NetworkSpec:
        if self.vpc_id and not self.private_subnet_ids:
            raise ValueError("an existing VPC (vpc_id) needs its private_subnet_ids")
        if self.private_subnet_ids and not self.vpc_id:
            raise ValueError("private_subnet_ids need the vpc_id they belong to")
        for cidr in self.load_balancer_cidrs:
            try:
                ipaddress.ip_network(cidr)
            except ValueError:
                raise ValueError(f"load_balancer_cidrs: `{cidr}` is not a CIDR (host bits set, or not an address)") \
                    from None
        return self


class ClusterSpec(_Spec):
    """The EKS cluster, when the environment creates it (else `cluster_name` names an existing one)."""

    create: bool = Field(False, description="Create the EKS cluster in this environment's VPC.")
    version: str = Field("1.35", pattern=r"^1\.\d{2}$", description="Kubernetes version of a created cluster.")
    admin_principal_arns: tuple[str, ...] = Field(
        (), description="IAM roles or users given cluster-admin through EKS access entries.",
    )
    endpoint_public_access: bool = Field(
        True, description="The API endpoint is reachable from outside the VPC (from `public_access_cidrs`)."
    )
    public_access_cidrs: tuple[str, ...] = Field(
        (), description="Who may reach a public endpoint: required with endpoint_public_access (no default of "
        "0.0.0.0/0; write it to mean it).")
    addons: tuple[str, ...] = Field(
        ("vpc-cni", "coredns", "kube-proxy", "eks-pod-identity-agent"),
        description="EKS managed add-ons (a pvc model cache also needs its CSI driver's add-on and IAM role).",
    )
    system_instance_type: str = Field(
        "m6i.large", min_length=1, description="Instance type of the CPU node group for cluster services.",
    )
    system_nodes: int = Field(2, ge=1, le=20, description="Nodes of that group (CoreDNS, controllers, Prometheus).")
    helm_charts: bool = Field(
        True,
        description="Install with Helm what the environment needs: the NVIDIA device plugin, the EFA device "
        "plugin (EFA pools), the LeaderWorkerSet controller (multi-node groups), KEDA (KEDA autoscalers) and "
        "kube-prometheus-stack (Prometheus monitors).",
    )
    chart_versions: dict[str, str] = Field(
        {}, description="Override the pinned chart versions, by chart name (see docs/components.md).",
    )
    gpu_telemetry: bool = Field(
        True, description="A created cluster: install NVIDIA's DCGM exporter on the GPU nodes (GPU utilisation, "
        "memory, power, XID errors as DCGM_FI_* metrics, scraped by kube-prometheus-stack's Prometheus when "
        "it is installed); an autoscaler on the `gpu` metric needs it.",
    )
    load_balancer_controller_policy_arn: str | None = Field(
        None, pattern=r"^arn:aws[a-z-]*:iam::(aws|\d{12}):policy/.+$",
        description="A created cluster with an alb-ingress router: the IAM policy of the AWS Load Balancer "
        "Controller (made from the iam_policy.json of the controller's release); its role gets it through Pod "
        "Identity.",
    )
    installed: tuple[str, ...] = Field(
        (), description="An existing cluster: what it already runs, from the prerequisites in "
        "docs/components.md (nvidia-device-plugin, aws-efa-k8s-device-plugin, lws, keda, prometheus-operator, "
        "aws-load-balancer-controller, cluster-autoscaler, karpenter, gateway-api, dcgm-exporter); checked at "
        "preview.",
    )
    priority_classes: tuple[str, ...] = Field(
        (), description="An existing cluster: the PriorityClasses it has (pods that name another fail at preview).",
    )


#: ECR's pattern for a pull-through cache rule's credential (CreatePullThroughCacheRule's credentialArn).
_PULL_THROUGH_SECRET = (r"^arn:aws(-\w+)*:secretsmanager:[a-z0-9-]+:\d{12}:secret:"
                        r"ecr-pullthroughcache/[A-Za-z0-9/_+=.@-]+$")


class ImageCacheSpec(_Spec):
    """An ECR pull-through cache for the workloads' images: each node pulls the vLLM image (10-20 GiB) from ECR in
    the region, through the VPC's ECR endpoints, instead of from Docker Hub or ECR Public through the NAT gateway
    (and within Docker Hub's pull limits)."""

    create_rules: bool = Field(
        True, description="Create the pull-through cache rules (prefixes docker-hub and ecr-public, for the "
        "registries the workloads' images come from); false: the account has them already, with those prefixes.",
    )
    docker_hub_credential_arn: str | None = Field(
        None, pattern=_PULL_THROUGH_SECRET,
        description="The Secrets Manager secret (keys username and accessToken) of the Docker Hub rule: ECR "
        "requires one for Docker Hub, named with the ecr-pullthroughcache/ prefix, in the stack's account and "
        "region.",
    )


class ModelStoreSpec(_Spec):
    """An S3 bucket the environment creates for model weights: workloads whose ``cache`` is ``s3`` with an
    ``s3_uri`` in it stream the safetensors from there (vLLM's ``runai_streamer``) through the VPC's S3 gateway
    endpoint, with an IAM role that may read it, instead of each node downloading from the Hugging Face Hub
    through the NAT gateway. The weights are copied into it outside the program."""

    bucket: str = Field(
        pattern=r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$",
        description="Name of the bucket to create (globally unique); private, encrypted (SSE-S3), unversioned, "
        "with every public access blocked.",
    )
    force_destroy: bool = Field(
        False, description="`pulumi destroy` deletes the bucket with the weights in it (else it fails while "
        "objects remain).",
    )


class EnvironmentSpec(_Spec):
    """Everything one environment (stack) serves."""

    name: str = Field(pattern=_DNS_LABEL, description="Environment name; prefixes the Pulumi resource names.")
    production: bool = Field(False, description="Production stack: the rules expect headroom (SW404).")
    region: str = Field("us-east-1", description="AWS region (must equal aws:region).")
    cluster_name: str = Field(pattern=r"^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$",
                              description="EKS cluster to add node pools to (created when cluster.create).")
    node_role_arn: str | None = Field(
        None, pattern=r"^arn:aws[a-z-]*:iam::\d{12}:role/.+$", description="IAM role of the GPU nodes."
    )
    cluster_security_group_id: str | None = Field(
        None, pattern=r"^sg-[0-9a-f]{8,17}$",
        description="The EKS cluster security group the nodes also join; looked up from the cluster when null.",
    )
    cluster: ClusterSpec = Field(ClusterSpec(), description="Create the EKS cluster too (default: it exists).")
    create_namespaces: bool = Field(True, description="Create the serving and gateway namespaces.")
    network: NetworkSpec = Field(NetworkSpec(), description="VPC and NetworkPolicy settings.")
    pools: tuple[NodePoolSpec, ...] = Field(min_length=1, description="GPU node pools.")
    services: tuple[VllmServiceSpec, ...] = Field((), description="Replicated vLLM services.")
    multi_node: tuple[VllmMultiNodeSpec, ...] = Field((), description="Multi-node vLLM groups.")
    routers: tuple[RouterSpec, ...] = Field((), description="Routers in front of the services.")
    image_cache: ImageCacheSpec | None = Field(
        None, description="An ECR pull-through cache the workloads' Docker Hub and ECR Public images are pulled "
        "through (their references rewritten to it).",
    )
    model_store: ModelStoreSpec | None = Field(
        None, description="An S3 bucket for model weights, which workloads with an s3 cache in it read with an IAM "
        "role this environment creates.",
    )

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
