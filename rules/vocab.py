"""The label, annotation, resource and taint names shardwise reads and writes.

One home for the vocabulary, below both the adapters that read manifests and :mod:`.render`, which
writes them: neither reaches into the other for a name. Only constants live here; what the labels
mean for a node pool is read in :mod:`.adapters.k8s.pools`.
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
ANN_BASE_MODEL = "shardwise.dev/base-model"
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

#: Labels that, on their own, can say which GPU (or how many) a node has.
GPU_LABELS: tuple[str, ...] = (
    LABEL_GPU_PRODUCT, LABEL_GPU_COUNT, LABEL_GPU_MEMORY_GIB,
    GFD_PRODUCT, GFD_COUNT, GFD_MEMORY_MIB,
    KARPENTER_GPU_NAME, KARPENTER_GPU_COUNT, KARPENTER_GPU_MEMORY_MIB,
    INSTANCE_TYPE, INSTANCE_TYPE_BETA,
)

# LeaderWorkerSet
LWS_EXCLUSIVE = "leaderworkerset.sigs.k8s.io/exclusive-topology"
