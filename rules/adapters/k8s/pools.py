"""Node labels -> :class:`~shardwise.rules.model.NodePool`: what GPUs a set of nodes carries.

The label names are in :mod:`shardwise.rules.vocab`.

Three label families describe GPU nodes, and a fourth names the instance type:

- ours (set by :class:`~shardwise.components.GpuNodePool`): ``shardwise.dev/gpu-product``,
  ``-gpu-count``, ``-gpu-memory-gib``, ``-nvlink`` (``nvswitch`` | ``nvlink`` | ``pcie``),
  ``-nvlink-domain-size``, ``-efa`` (``"true"``/``"false"``) and ``-pool``;
- NVIDIA GPU Feature Discovery: ``nvidia.com/gpu.product`` (``NVIDIA-H100-80GB-HBM3``),
  ``nvidia.com/gpu.count``, ``nvidia.com/gpu.memory`` (MiB, as NVML reports it) and
  ``nvidia.com/gpu.clique`` (a multi-node NVLink domain);
- Karpenter on AWS: ``karpenter.k8s.aws/instance-gpu-name`` (``h100``), ``-gpu-count`` and
  ``-gpu-memory`` (MiB, the nominal size EC2 publishes);
- the well-known ``node.kubernetes.io/instance-type`` (and the deprecated
  ``beta.kubernetes.io/instance-type``), looked up in the instance catalog for the GPU, its count,
  the interconnect and EFA support.

Explicit labels win over what the instance type implies. Values that do not parse, and GPU or
instance names the catalog does not know, are left unset rather than guessed: a node's labels are
facts about a cluster, not something the user can fix in the file being linted.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from ...errors import CatalogError
from ...model import Location, NodePool, Taint
from ...vocab import (
    GFD_CLIQUE,
    GFD_COUNT,
    GFD_MEMORY_MIB,
    GFD_PRODUCT,
    INSTANCE_TYPE,
    INSTANCE_TYPE_BETA,
    KARPENTER_GPU_COUNT,
    KARPENTER_GPU_MEMORY_MIB,
    KARPENTER_GPU_NAME,
    LABEL_EFA,
    LABEL_GPU_COUNT,
    LABEL_GPU_MEMORY_GIB,
    LABEL_GPU_PRODUCT,
    LABEL_NVLINK,
    LABEL_NVLINK_DOMAIN_SIZE,
)

_INTERCONNECTS = {"nvswitch": "nvswitch", "nvlink": "nvlink", "pcie": "pcie", "true": "nvlink", "false": "pcie"}


#: Memory labels above this are no figure (64 TiB per GPU; 1e300 would overflow the sizing arithmetic).
MAX_GPU_MEMORY_GIB = 65536.0


def _int(value: Any, top: float = math.inf) -> int | None:
    try:
        n = int(str(value).strip())
    except (TypeError, ValueError):
        return None
    return n if 0 <= n <= top else None


def _float(value: Any, top: float = math.inf) -> float | None:
    try:
        x = float(str(value).strip())
    except (TypeError, ValueError):
        return None
    return x if 0 < x <= top else None  # nan and inf are no figure either


def _bool(value: Any) -> bool | None:
    v = str(value).strip().lower()
    if v in ("true", "yes", "1"):
        return True
    if v in ("false", "no", "0"):
        return False
    return None


def pool_from_labels(
    name: str,
    labels: Mapping[str, str],
    location: Location,
    taints: Iterable[Taint] = (),
    kind: str = "labels",
    *,
    gpus_per_node: int | None = None,
) -> NodePool:
    """Build a node pool from node labels (see the module docstring for the families read).

    ``gpus_per_node`` is a fallback for the GPU count when no label gives it (a Node's
    ``status.capacity``); labels and the instance type win over it.
    """
    from ... import catalog  # deferred: the catalog data loads only when a pool is built

    pool = NodePool(name=name, location=location, kind=kind, labels=dict(labels), taints=list(taints))

    instance = None
    itype = labels.get(INSTANCE_TYPE) or labels.get(INSTANCE_TYPE_BETA)
    if itype:
        pool.instance_type = str(itype)
        try:
            instance = catalog.find_instance(str(itype))
        except CatalogError:
            instance = None

    # Memory labels in MiB pick the GPU's size (A100 40 vs 80 GB). As the memory figure they are
    # used only when the GPU is not in the catalog: GFD's is NVML's total (what nvidia-smi shows,
    # more than CUDA lets vLLM see) and Karpenter's is EC2's nominal size, while the catalog's
    # memory_gib is the total CUDA reports, which gpu_memory_utilization is a fraction of.
    gfd_mib = _int(labels.get(GFD_MEMORY_MIB), MAX_GPU_MEMORY_GIB * 1024)
    karpenter_mib = _int(labels.get(KARPENTER_GPU_MEMORY_MIB), MAX_GPU_MEMORY_GIB * 1024)
    memory_mib = gfd_mib or karpenter_mib

    product = labels.get(LABEL_GPU_PRODUCT) or labels.get(GFD_PRODUCT) or labels.get(KARPENTER_GPU_NAME)
    if product:
        try:
            pool.gpu = catalog.find_gpu(str(product), memory_mib=memory_mib)
        except CatalogError:
            pool.gpu = None
    elif instance is not None:
        pool.gpu = catalog.find_gpu(instance.gpu)

    count = None
    for key in (LABEL_GPU_COUNT, GFD_COUNT, KARPENTER_GPU_COUNT):
        count = _int(labels.get(key)) if key in labels else None
        if count is not None:
            break
    if count is None and instance is not None:
        count = instance.gpus
    if count is None:
        count = gpus_per_node
    pool.gpus_per_node = count

    mem_gib = _float(labels.get(LABEL_GPU_MEMORY_GIB), MAX_GPU_MEMORY_GIB) if LABEL_GPU_MEMORY_GIB in labels else None
    if mem_gib is None and pool.gpu is not None:
        mem_gib = pool.gpu.memory_gib
    if mem_gib is None and memory_mib:
        mem_gib = round(memory_mib / 1024, 2)
    pool.gpu_memory_gib = mem_gib

    link = _INTERCONNECTS.get(str(labels.get(LABEL_NVLINK, "")).strip().lower())
    if link is None and instance is not None:
        link = instance.interconnect
    if link is None and pool.gpu is not None and isinstance(count, int) and count > 1:
        link = pool.gpu.interconnect  # what multi-GPU servers of this part usually have
    pool.interconnect = link  # type: ignore[assignment]

    domain = _int(labels.get(LABEL_NVLINK_DOMAIN_SIZE)) if LABEL_NVLINK_DOMAIN_SIZE in labels else None
    if domain is None and link == "nvswitch" and isinstance(count, int) and count > 0:
        domain = count
    pool.nvlink_domain_size = domain

    clique = labels.get(GFD_CLIQUE)
    pool.clique = str(clique) if clique else None

    efa = _bool(labels[LABEL_EFA]) if LABEL_EFA in labels else None
    if efa is None and instance is not None:
        efa = instance.efa
    pool.efa = efa
    return pool

