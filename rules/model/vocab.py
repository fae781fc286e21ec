"""The label, annotation, resource and taint names shardwise reads and writes.

One home for the vocabulary, below both the adapters that read manifests and :mod:`.render`, which
writes them: neither reaches into the other for a name. Only constants live here; what the labels
mean for a node pool is read in :mod:`.catalog.hardware`.
"""

from __future__ import annotations

# ours (set by GpuNodePool and read back)
LABEL_GPU_PRODUCT = "shardwise.dev/gpu-product"
LABEL_GPU_COUNT = "shardwise.dev/gpu-count"
LABEL_GPU_MEMORY_GIB = "shardwise.dev/gpu-memory-gib"
LABEL_NVLINK = "shardwise.dev/nvlink"
LABEL_NVLINK_DOMAIN_SIZE = "shardwise.dev/nvlink-domain-size"
LABEL_EFA = "shardwise.dev/efa"
LABEL_POOL = "shardwise.dev/pool"
# our annotations
ANN_P95 = "shardwise.dev/p95-context-tokens"
ANN_TARGET_CONCURRENCY = "shardwise.dev/target-concurrency"
#: Output tokens per second one replica generates at the declared load (measured): the cost per million tokens
ANN_OUTPUT_TPS = "shardwise.dev/output-tokens-per-second"
#: A per-output-token latency target in milliseconds: tensor parallelism may be there to meet it (SW104).
ANN_TPOT_TARGET = "shardwise.dev/tpot-target-ms"
ANN_BASE_MODEL = "shardwise.dev/base-model"
#: The vLLM release a workload's image holds, where its tag names none (``registry/ml/vllm:build-4512``, ``latest``,
#: a digest): the capacity rules size for it instead of assuming the current release.
ANN_VLLM_VERSION = "shardwise.dev/vllm-version"
ANN_PRODUCTION = "shardwise.dev/production"
ANN_IGNORE = "shardwise.dev/ignore"
# NVIDIA GPU Feature Discovery
GFD_PRODUCT = "nvidia.com/gpu.product"
GFD_COUNT = "nvidia.com/gpu.count"
GFD_MEMORY_MIB = "nvidia.com/gpu.memory"
GFD_CLIQUE = "nvidia.com/gpu.clique"
# Karpenter (AWS provider)
KARPENTER_GPU_NAME = "karpenter.k8s.aws/instance-gpu-name"
KARPENTER_GPU_COUNT = "karpenter.k8s.aws/instance-gpu-count"
KARPENTER_GPU_MEMORY_MIB = "karpenter.k8s.aws/instance-gpu-memory"
KARPENTER_NODEPOOL = "karpenter.sh/nodepool"
# well-known
INSTANCE_TYPE = "node.kubernetes.io/instance-type"
INSTANCE_TYPE_BETA = "beta.kubernetes.io/instance-type"

GPU_TAINT_KEY = "nvidia.com/gpu"
GPU_RESOURCE = "nvidia.com/gpu"
EFA_RESOURCE = "vpc.amazonaws.com/efa"

# LeaderWorkerSet
LWS_EXCLUSIVE = "leaderworkerset.sigs.k8s.io/exclusive-topology"
# Labels the LWS controller puts on the pods it creates (sigs.k8s.io/lws, api/leaderworkerset/v1): the set's
# name, the group's index and the pod's index in its group (0: the leader).
LWS_NAME = "leaderworkerset.sigs.k8s.io/name"
LWS_GROUP_INDEX = "leaderworkerset.sigs.k8s.io/group-index"
LWS_WORKER_INDEX = "leaderworkerset.sigs.k8s.io/worker-index"

# Helm: an object created at a release's hook (``test``, ``pre-install``…) rather than as part of it.
HELM_HOOK = "helm.sh/hook"
#: The AWS Load Balancer Controller's (and EKS Auto Mode's) scheme of a LoadBalancer Service: internal or
#: internet-facing (kubernetes-sigs.github.io/aws-load-balancer-controller, guide/service/annotations).
AWS_LB_SCHEME = "service.beta.kubernetes.io/aws-load-balancer-scheme"
#: Annotations that make a cloud load balancer internal (a private address in the VPC), with the values the providers
#: read so: AWS Load Balancer Controller and the in-tree AWS provider, GKE, AKS, OCI. Read on a LoadBalancer Service
#: and on a Gateway's ``spec.infrastructure.annotations`` (which the Gateway's controller copies to its Service).
INTERNAL_LB_ANNOTATIONS = (
    ("service.beta.kubernetes.io/aws-load-balancer-scheme", ("internal",)),
    ("service.beta.kubernetes.io/aws-load-balancer-internal", ("true", "0.0.0.0/0")),
    ("networking.gke.io/load-balancer-type", ("internal",)),
    ("cloud.google.com/load-balancer-type", ("internal",)),
    ("service.beta.kubernetes.io/azure-load-balancer-internal", ("true",)),
    ("service.beta.kubernetes.io/oci-load-balancer-internal", ("true",)),
)

#: Which extended resources request accelerators, who makes them and how many devices each holds is the
#: vendor table, :mod:`.catalog.accelerators` (``catalog/data/accelerators.json``).

# GKE
GKE_ACCELERATOR = "cloud.google.com/gke-accelerator"
GKE_ACCELERATOR_COUNT = "cloud.google.com/gke-accelerator-count"
GKE_TPU_ACCELERATOR = "cloud.google.com/gke-tpu-accelerator"
GKE_TPU_TOPOLOGY = "cloud.google.com/gke-tpu-topology"
GKE_NODEPOOL = "cloud.google.com/gke-nodepool"
EKS_NODEGROUP = "eks.amazonaws.com/nodegroup"  # EKS managed node groups label their nodes with their name
# Cloud Run (a Knative Service with a GPU): the node selector that attaches the GPU, with GKE's values
# (``nvidia-l4``, ``nvidia-rtx-pro-6000``), one GPU per instance (cloud.google.com/run/docs/configuring/services/gpu)
CLOUD_RUN_ACCELERATOR = "run.googleapis.com/accelerator"
# Karpenter and EKS Auto Mode describe the instance with the same suffixes under two prefixes.
KARPENTER_AWS_PREFIX = "karpenter.k8s.aws/"
EKS_PREFIX = "eks.amazonaws.com/"
INSTANCE_FAMILY_SUFFIX = "instance-family"
INSTANCE_CATEGORY_SUFFIX = "instance-category"
INSTANCE_GENERATION_SUFFIX = "instance-generation"
INSTANCE_GPU_NAME_SUFFIX = "instance-gpu-name"
INSTANCE_GPU_COUNT_SUFFIX = "instance-gpu-count"
INSTANCE_GPU_MEMORY_SUFFIX = "instance-gpu-memory"
INSTANCE_GPU_MANUFACTURER_SUFFIX = "instance-gpu-manufacturer"
INSTANCE_SIZE_SUFFIX = "instance-size"  # ``xlarge``, ``12xlarge``: the part of the instance type after the dot
# NVIDIA GPU Feature Discovery, beyond the product/count/memory/clique above
GFD_FAMILY = "nvidia.com/gpu.family"
# CoreWeave: the GPU class of a node (``H100_NVLINK_80GB``, ``A100_PCIE_80GB``, ``A100_NVLINK``; llm-d's charts write
# ``H200``) under two keys, and its GPU count (docs.coreweave.com, "Advanced Label Selectors"; SkyPilot's CoreWeave
# label formatter reads the same keys)
COREWEAVE_GPU_MODEL = "gpu.nvidia.com/model"
COREWEAVE_GPU_CLASS = "gpu.nvidia.com/class"
COREWEAVE_GPU_COUNT = "gpu.nvidia.com/count"
# Volcengine VKE: the GPU of a node (``Tesla-V100``, ``NVIDIA-L20``), the label vllm-project/aibrix's KV-cache
# controller selects by default (KVCacheAnnotationNodeAffinityDefaultKey)
VKE_GPU_NAME = "machine.cluster.vke.volcengine.com/gpu-name"
# Alibaba Cloud ACK: the GPU of a node, NVML's name with dashes (``Tesla-V100-SXM2-16GB``, ``NVIDIA-A10``), the label
# ACK's GPU nodes carry (AliyunContainerService/gpushare-device-plugin, cmd/inspect/main.go: ``cardNameKey``)
ACK_GPU_NAME = "aliyun.accelerator/nvidia_name"
# AMD GPU operator's node labeller
AMD_PRODUCT = "amd.com/gpu.product-name"
AMD_COUNT = "amd.com/gpu.count"
#: the labeller's VRAM of the node's GPUs, whole GiB rounded then ``G`` (``192G``), where they are all one size; its
#: experimental copy under ``beta.amd.com`` (ROCm/k8s-device-plugin v1.31.0.10, cmd/k8s-node-labeller/main.go:
#: ``"vram"`` and ``createLabels``)
AMD_VRAM = "amd.com/gpu.vram"
AMD_VRAM_BETA = "beta.amd.com/gpu.vram"
# A pod pinned to one node by name: the node is real, what it carries is not in the manifest.
HOSTNAME = "kubernetes.io/hostname"

#: Labels that, on their own, can say which accelerator (or how many) a node has.
GPU_LABELS: tuple[str, ...] = (
    LABEL_GPU_PRODUCT, LABEL_GPU_COUNT, LABEL_GPU_MEMORY_GIB,
    GFD_PRODUCT, GFD_COUNT, GFD_MEMORY_MIB,
    *(prefix + suffix for prefix in (KARPENTER_AWS_PREFIX, EKS_PREFIX) for suffix in (
        INSTANCE_GPU_NAME_SUFFIX, INSTANCE_GPU_COUNT_SUFFIX, INSTANCE_GPU_MEMORY_SUFFIX, INSTANCE_FAMILY_SUFFIX,
        INSTANCE_CATEGORY_SUFFIX, INSTANCE_GENERATION_SUFFIX)),
    GKE_ACCELERATOR, GKE_ACCELERATOR_COUNT, GKE_TPU_ACCELERATOR, CLOUD_RUN_ACCELERATOR, AMD_PRODUCT,
    AMD_VRAM, AMD_VRAM_BETA, COREWEAVE_GPU_MODEL, COREWEAVE_GPU_CLASS, COREWEAVE_GPU_COUNT, VKE_GPU_NAME,
    ACK_GPU_NAME, INSTANCE_TYPE, INSTANCE_TYPE_BETA,
)
