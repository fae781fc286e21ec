"""The hardware vocabulary: what a node of a given instance type, GPU or set of node labels carries.

One home below the adapters, ``plan``, the renderer and the components, so that all of them ask one
place what a ``p5.48xlarge`` is (8 × H100-SXM-80GB on NVSwitch, one NVLink domain of 8, EFA) and
what a node's labels say about its accelerators. The GPU and instance data are the catalog's
(``data/gpus.json``, ``data/instances.json``); the label names are in :mod:`shardwise.rules.model.vocab`.

Node labels -> :class:`~shardwise.rules.model.NodePool`. The families read, most explicit first:

- ours (set by :class:`~shardwise.components.GpuNodePool`): ``shardwise.dev/gpu-product``,
  ``-gpu-count``, ``-gpu-memory-gib``, ``-nvlink`` (``nvswitch`` | ``nvlink`` | ``pcie``),
  ``-nvlink-domain-size``, ``-efa`` (``"true"``/``"false"``) and ``-pool``;
- NVIDIA GPU Feature Discovery: ``nvidia.com/gpu.product`` (``NVIDIA-H100-80GB-HBM3``),
  ``nvidia.com/gpu.count``, ``nvidia.com/gpu.memory`` (MiB, as NVML reports it) and
  ``nvidia.com/gpu.clique`` (a multi-node NVLink domain);
- Karpenter on AWS (``karpenter.k8s.aws/``) and EKS Auto Mode (``eks.amazonaws.com/``), the same
  suffixes: ``instance-gpu-name`` (``h100``), ``-gpu-count``, ``-gpu-memory`` (MiB, the nominal size
  EC2 publishes), ``-gpu-manufacturer``, and ``instance-family`` (``p5``) or ``instance-category`` +
  ``instance-generation`` (``p`` + ``5``), looked up in the instance catalog. ``instance-gpu-name`` is EC2's GPU name:
  where the EC2 types of the catalog carry it in several memory sizes (``a100``: p4d 40 GB, p4de 80 GB; ``v100``: p3,
  p3dn) and no instance type, family or memory label picks one, the GPU's memory is unknown;
- GKE: ``cloud.google.com/gke-accelerator`` (``nvidia-l4``, ``nvidia-h100-80gb``) with
  ``cloud.google.com/gke-accelerator-count``, and TPU nodes' ``cloud.google.com/gke-tpu-accelerator``
  (``tpu-v5-lite-podslice``) with ``cloud.google.com/gke-tpu-topology`` (``2x4``);
- Cloud Run: ``run.googleapis.com/accelerator`` (``nvidia-l4``, ``nvidia-rtx-pro-6000``), the node selector of a
  Knative Service that Cloud Run gives one GPU of that type per instance;
- the AMD GPU operator's node labeller: ``amd.com/gpu.product-name`` and ``amd.com/gpu.vram`` (or its
  ``beta.amd.com/`` copy; the GPUs' memory in whole GiB, ``192G``: it picks a product's size, and alone is the
  memory);
- CoreWeave's ``gpu.nvidia.com/model`` / ``gpu.nvidia.com/class`` (``H100_NVLINK_80GB``, ``A100_PCIE_80GB``) with
  ``gpu.nvidia.com/count``, and Volcengine VKE's ``machine.cluster.vke.volcengine.com/gpu-name`` (``NVIDIA-L20``,
  ``Tesla-V100``) and Alibaba Cloud ACK's ``aliyun.accelerator/nvidia_name`` (``NVIDIA-A10``,
  ``Tesla-V100-SXM2-16GB``): a bare family name there (``Tesla-V100``, 16 or 32 GB) leaves the GPU's memory unknown.
  AKS's ``kubernetes.azure.com/accelerator`` (``nvidia``) and NFD's ``feature.node.kubernetes.io/pci-10de.present`` name
  a maker, no GPU, and are not read;
- the well-known ``node.kubernetes.io/instance-type`` (and the deprecated
  ``beta.kubernetes.io/instance-type``): an AWS instance type from the instance catalog (SageMaker HyperPod's
  ``ml.`` names read as the EC2 type), or one of the common Azure GPU sizes (``Standard_ND96isr_H100_v5``) or OCI
  GPU shapes (``BM.GPU.A10.4``, which OKE writes there) from small tables here.

Explicit labels win over what an instance type or family implies. Values that do not parse are left
unset rather than guessed; a label that names an accelerator the catalog does not know leaves the
pool's GPU memory unknown (the capacity rules say they cannot decide) instead of unset (which would
read as "no GPU").
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

from ..model import UNKNOWN, Location, NodePool, Taint
from ..model.errors import CatalogError
from ..model.vocab import (
    ACK_GPU_NAME,
    AMD_PRODUCT,
    AMD_VRAM,
    AMD_VRAM_BETA,
    CLOUD_RUN_ACCELERATOR,
    COREWEAVE_GPU_CLASS,
    COREWEAVE_GPU_COUNT,
    COREWEAVE_GPU_MODEL,
    EKS_PREFIX,
    GFD_CLIQUE,
    GFD_COUNT,
    GFD_FAMILY,
    GFD_MEMORY_MIB,
    GFD_PRODUCT,
    GKE_ACCELERATOR,
    GKE_ACCELERATOR_COUNT,
    GKE_TPU_ACCELERATOR,
    GKE_TPU_TOPOLOGY,
    INSTANCE_CATEGORY_SUFFIX,
    INSTANCE_FAMILY_SUFFIX,
    INSTANCE_GENERATION_SUFFIX,
    INSTANCE_GPU_COUNT_SUFFIX,
    INSTANCE_GPU_MANUFACTURER_SUFFIX,
    INSTANCE_GPU_MEMORY_SUFFIX,
    INSTANCE_GPU_NAME_SUFFIX,
    INSTANCE_TYPE,
    INSTANCE_TYPE_BETA,
    KARPENTER_AWS_PREFIX,
    LABEL_EFA,
    LABEL_GPU_COUNT,
    LABEL_GPU_MEMORY_GIB,
    LABEL_GPU_PRODUCT,
    LABEL_NVLINK,
    LABEL_NVLINK_DOMAIN_SIZE,
    VKE_GPU_NAME,
)
from .lookup import (
    family_sizes,
    find_gpu,
    find_instance,
    instance_types,
    instances_for_gpu,
    of_family,
    product_unsized,
    size_unnamed,
)
from .partitions import ASSUMED_MODE

_INTERCONNECTS = {"nvswitch": "nvswitch", "nvlink": "nvlink", "pcie": "pcie", "true": "nvlink", "false": "pcie"}


#: Memory labels above this are no figure (64 TiB per GPU; 1e300 would overflow the sizing arithmetic).
MAX_GPU_MEMORY_GIB = 65536.0


#: The MIG device profile GPU Feature Discovery appends to the product under the single strategy.
_MIG_PRODUCT = re.compile(r"-MIG-\d+g\.\d+gb(?:[.+]me)?$", re.IGNORECASE)


def _int(value: Any, top: float = math.inf) -> int | None:
    try:
        n = int(str(value).strip())
    except (TypeError, ValueError):
        return None
    return n if 0 <= n <= top else None


def _vram_mib(value: Any) -> int | None:
    """MiB of the AMD node labeller's ``amd.com/gpu.vram`` value (``192G``: the memory bank's bytes in GiB, rounded to
    a whole number; ROCm/k8s-device-plugin v1.31.0.10, cmd/k8s-node-labeller/main.go), None when it is not that."""
    text = str(value).strip() if isinstance(value, (str, int)) and not isinstance(value, bool) else ""
    if len(text) < 2 or text[-1] not in "Gg" or not text[:-1].isdigit():
        return None
    gib = int(text[:-1])
    return gib * 1024 if 0 < gib <= MAX_GPU_MEMORY_GIB else None


def vram_gib(labels: Mapping[str, Any]) -> int | None:
    """The GiB of the AMD node labeller's ``amd.com/gpu.vram`` (or ``beta.amd.com/gpu.vram``) of ``labels``, None when
    neither is set in its form."""
    mib = _vram_mib(labels.get(AMD_VRAM) if AMD_VRAM in labels else labels.get(AMD_VRAM_BETA))
    return None if mib is None else mib // 1024


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


#: Common Azure GPU VM sizes (AKS node.kubernetes.io/instance-type): GPU, GPUs per VM, how they are
#: joined, and whether the VM has InfiniBand. From the Azure VM size pages (NCasT4_v3, NCv3, NDv2,
#: NC A100 v4, ND A100 v4, NDm A100 v4, NCads H100 v5, ND H100 v5, ND H200 v5, ND MI300X v5).
_AZURE_SIZES: dict[str, tuple[str, int, str, bool]] = {
    "standard_nc4as_t4_v3": ("T4", 1, "pcie", False),
    "standard_nc8as_t4_v3": ("T4", 1, "pcie", False),
    "standard_nc16as_t4_v3": ("T4", 1, "pcie", False),
    "standard_nc64as_t4_v3": ("T4", 4, "pcie", False),
    "standard_nc6s_v3": ("V100-16GB", 1, "pcie", False),
    "standard_nc12s_v3": ("V100-16GB", 2, "pcie", False),
    "standard_nc24s_v3": ("V100-16GB", 4, "pcie", False),
    "standard_nc24rs_v3": ("V100-16GB", 4, "pcie", True),
    "standard_nd40rs_v2": ("V100-32GB", 8, "nvlink", True),
    "standard_nc24ads_a100_v4": ("A100-PCIe-80GB", 1, "pcie", False),
    "standard_nc48ads_a100_v4": ("A100-PCIe-80GB", 2, "pcie", False),
    "standard_nc96ads_a100_v4": ("A100-PCIe-80GB", 4, "pcie", False),
    "standard_nd96asr_v4": ("A100-40GB", 8, "nvswitch", True),
    "standard_nd96amsr_a100_v4": ("A100-80GB", 8, "nvswitch", True),
    "standard_nc40ads_h100_v5": ("H100-NVL-94GB", 1, "pcie", False),
    "standard_nc80adis_h100_v5": ("H100-NVL-94GB", 2, "nvlink", False),
    "standard_nd96isr_h100_v5": ("H100-SXM-80GB", 8, "nvswitch", True),
    "standard_nd96isr_h200_v5": ("H200-141GB", 8, "nvswitch", True),
    "standard_nd96isr_mi300x_v5": ("MI300X", 8, "fabric", True),
}

#: OCI GPU shapes (OKE sets a node's ``node.kubernetes.io/instance-type`` to its shape, e.g. ``BM.GPU.A10.4``): GPU,
#: GPUs per node, how they are joined, and False (the shape alone does not put the node in an RDMA cluster network:
#: only instances launched into one are joined by it). From Oracle's "Compute Shapes" reference, GPU shapes
#: (docs.oracle.com/en-us/iaas/Content/Compute/References/computeshapes.htm): VM.GPU.A10.1/.2 and BM.GPU.A10.4 carry
#: NVIDIA A10 24 GB on PCIe; BM.GPU4.8 A100 40 GB and BM.GPU.A100-v2.8 A100 80 GB (SXM4, NVSwitch); BM.GPU.H100.8,
#: BM.GPU.H200.8 and BM.GPU.B200.8 eight HGX GPUs on NVSwitch; BM.GPU.MI300X.8 eight MI300X on Infinity Fabric;
#: VM.GPU3.1/.2/.4 and BM.GPU3.8 V100 16 GB (SXM2, NVLink); BM.GPU.L40S.4 four L40S 48 GB (192 GB of GPU memory in the
#: reference's table; the L40S has no NVLink, so PCIe; place16). Oracle prices these per GPU hour on its price list; no
#: price is carried here (as for the Azure sizes, the pool prices only EC2 instances).
_OCI_SHAPES: dict[str, tuple[str, int, str, bool]] = {
    "vm.gpu.a10.1": ("A10", 1, "pcie", False),
    "vm.gpu.a10.2": ("A10", 2, "pcie", False),
    "bm.gpu.a10.4": ("A10", 4, "pcie", False),
    "bm.gpu4.8": ("A100-40GB", 8, "nvswitch", False),
    "bm.gpu.a100-v2.8": ("A100-80GB", 8, "nvswitch", False),
    "bm.gpu.h100.8": ("H100-SXM-80GB", 8, "nvswitch", False),
    "bm.gpu.h200.8": ("H200-141GB", 8, "nvswitch", False),
    "bm.gpu.b200.8": ("B200", 8, "nvswitch", False),
    "bm.gpu.mi300x.8": ("MI300X", 8, "fabric", False),
    "bm.gpu.l40s.4": ("L40S", 4, "pcie", False),
    "vm.gpu3.1": ("V100-16GB", 1, "pcie", False),
    "vm.gpu3.2": ("V100-16GB", 2, "nvlink", False),
    "vm.gpu3.4": ("V100-16GB", 4, "nvlink", False),
    "bm.gpu3.8": ("V100-16GB", 8, "nvlink", False),
}

#: Sizes of clouds other than AWS by the lower-cased name a node's instance-type label gives.
_OTHER_SIZES: dict[str, tuple[str, int, str, bool]] = {**_AZURE_SIZES, **_OCI_SHAPES}


def other_cloud_size(instance_type: str) -> tuple[str, int, str, bool] | None:
    """(GPU, GPUs per node, interconnect, InfiniBand) of an Azure VM size or OCI GPU shape the tables above hold."""
    return _OTHER_SIZES.get(instance_type.strip().lower())


#: Karpenter's instance-gpu-manufacturer values -> the vendor names the catalog uses.
_MANUFACTURERS = {"nvidia": "nvidia", "amd": "amd", "aws": "aws", "habana": "intel", "intel": "intel",
                  "google": "google"}


def manufacturer_vendor(value: str) -> str | None:
    """The catalog's vendor name for a Karpenter ``instance-gpu-manufacturer`` value (``habana`` -> ``intel``), or
    None for a maker the catalog does not know."""
    return _MANUFACTURERS.get(value.strip().lower())


def _label(labels: Mapping[str, str], suffix: str) -> str | None:
    """A Karpenter (``karpenter.k8s.aws/``) or EKS Auto Mode (``eks.amazonaws.com/``) instance label."""
    return labels.get(KARPENTER_AWS_PREFIX + suffix) or labels.get(EKS_PREFIX + suffix)


def _families() -> dict[str, list[Any]]:
    """Instance family (``p5``, ``g6e``, ``p6-b200``) -> its instance types in the catalog."""
    out: dict[str, list[Any]] = {}
    for inst in instance_types().values():
        if inst.cloud == "aws":
            out.setdefault(inst.name.split(".", 1)[0], []).append(inst)
    return out


def _family_members(labels: Mapping[str, str]) -> list[Any]:
    """The catalog's instance types of the family the labels name (``instance-family``, or
    ``instance-category`` + ``instance-generation``); [] when they name none."""
    family = _label(labels, INSTANCE_FAMILY_SUFFIX)
    families = _families()
    if family:
        return families.get(family.strip().lower(), [])
    category, generation = _label(labels, INSTANCE_CATEGORY_SUFFIX), _label(labels, INSTANCE_GENERATION_SUFFIX)
    if not category or not generation:
        return []
    prefix = f"{category.strip().lower()}{generation.strip()}"
    return [i for f, insts in families.items() if f.startswith(prefix) and not f[len(prefix):][:1].isdigit()
            for i in insts]


def _family_gpu(members: list[Any]) -> tuple[str | None, int | None, bool]:
    """(GPU, GPUs per node, named) an instance family (or category + generation) implies: the GPU when
    every instance type of the family carries the same one, the count when they also carry as many.
    ``named`` is True when the labels name a family the catalog has but whose GPU is not one (``p4``:
    A100 40 GB on p4d, 80 GB on p4de)."""
    gpus = {i.gpu for i in members}
    counts = {i.gpus for i in members}
    count = next(iter(counts)) if len(counts) == 1 else None
    if len(gpus) != 1:
        return None, count, bool(members)
    return next(iter(gpus)), count, False


def _family_links(members: list[Any]) -> tuple[str | None, bool | None]:
    """(interconnect, EFA) every instance type of a family shares: the interconnect of its multi-GPU types when
    they agree (a one-GPU type joins no GPUs: g6e.xlarge beside the PCIe-only g6e.12xlarge and g6e.48xlarge), and
    EFA when all have it or none does. A Karpenter NodePool that may launch any size of ``g6e`` launches GPUs
    that only PCIe joins, whichever size it picks."""
    links = {i.interconnect for i in members if i.gpus > 1}
    efa = {bool(i.efa) for i in members}
    return (next(iter(links)) if len(links) == 1 else None), (next(iter(efa)) if len(efa) == 1 else None)


def _tpu_chips(topology: str | None) -> int | None:
    """Chips on one host of a GKE TPU slice: a slice of at most 4 chips is one host (every TPU
    generation has 4 or 8 chips per host); larger slices are spread over hosts GKE chooses."""
    if not topology:
        return None
    try:
        chips = math.prod(int(d) for d in topology.lower().split("x"))
    except ValueError:
        return None
    return chips if 0 < chips <= 4 else None


def _find_gpu(name: str, memory_mib: int | None = None) -> Any:
    try:
        return find_gpu(name, memory_mib=memory_mib)
    except CatalogError:
        return None


#: What :func:`pool_from_labels` reads from the labels (and the ``gpus_per_node`` fallback) alone.
_READ_FIELDS = ("instance_type", "gpu", "gpus_per_node", "gpu_memory_gib", "interconnect", "nvlink_domain_size",
                "clique", "efa", "fabric", "accelerator", "gpu_memory_why", "accelerator_families")
#: Those fields by the labels' items and the fallback: every workload that selects the same instance type asks.
_READ: dict[tuple[Any, ...], tuple[Any, ...]] = {}


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
    key: tuple[Any, ...] | None = (tuple(labels.items()), gpus_per_node)
    try:
        read = _READ.get(key)  # type: ignore[arg-type]
    except TypeError:  # a label value that cannot be hashed
        key = read = None
    if read is None:
        pool = _pool_from_labels(name, labels, location, taints, kind, gpus_per_node)
        if key is not None:
            if len(_READ) >= 4096:
                _READ.clear()
            _READ[key] = tuple(getattr(pool, f) for f in _READ_FIELDS)
        return pool
    pool = NodePool(name=name, location=location, kind=kind, labels=dict(labels), taints=list(taints))
    for f, value in zip(_READ_FIELDS, read, strict=True):
        setattr(pool, f, value)
    return pool


def _ec2_name(instance_type: str) -> str:
    """The EC2 instance type a node label names: SageMaker HyperPod's EKS nodes carry SageMaker's name for it,
    ``ml.`` before the EC2 name (``node.kubernetes.io/instance-type=ml.g6e.xlarge``, the selector of
    aws-samples/sagemaker-genai-hosting-examples' HyperPod deployments), the same machine with the same GPUs.
    Only the hardware is read from it: the pool keeps the label's name, so no EC2 price is put on a HyperPod
    instance, which SageMaker prices apart."""
    name = instance_type.strip()
    return name[3:] if name[:3].lower() == "ml." else name


def _pool_from_labels(name: str, labels: Mapping[str, str], location: Location, taints: Iterable[Taint], kind: str,
                      gpus_per_node: int | None) -> NodePool:
    pool = NodePool(name=name, location=location, kind=kind, labels=dict(labels), taints=list(taints))

    instance = None
    sized: tuple[str, int, str, bool] | None = None  # an Azure VM size or an OCI shape
    itype = labels.get(INSTANCE_TYPE) or labels.get(INSTANCE_TYPE_BETA)
    if itype:
        pool.instance_type = str(itype)
        try:
            instance = find_instance(_ec2_name(str(itype)))
        except CatalogError:
            sized = other_cloud_size(str(itype))

    # Memory labels in MiB pick the GPU's size (A100 40 vs 80 GB). As the memory figure they are
    # used only when the GPU is not in the catalog: GFD's is NVML's total (what nvidia-smi shows,
    # more than CUDA lets vLLM see) and Karpenter's is EC2's nominal size, while the catalog's
    # memory_gib is the total CUDA reports, which gpu_memory_utilization is a fraction of.
    gfd_mib = _int(labels.get(GFD_MEMORY_MIB), MAX_GPU_MEMORY_GIB * 1024)
    karpenter_mib = _int(_label(labels, INSTANCE_GPU_MEMORY_SUFFIX), MAX_GPU_MEMORY_GIB * 1024)
    # AMD's node labeller: whole GiB (readers17), as a MiB figure to pick a size of a product by, or the memory itself
    vram = labels.get(AMD_VRAM) if AMD_VRAM in labels else labels.get(AMD_VRAM_BETA)
    amd_mib = _vram_mib(vram)
    memory_mib = gfd_mib or karpenter_mib or amd_mib

    product = (labels.get(LABEL_GPU_PRODUCT) or labels.get(GFD_PRODUCT) or _label(labels, INSTANCE_GPU_NAME_SUFFIX)
               or labels.get(GKE_ACCELERATOR) or labels.get(GKE_TPU_ACCELERATOR) or labels.get(AMD_PRODUCT)
               or labels.get(CLOUD_RUN_ACCELERATOR))
    if isinstance(product, str) and _MIG_PRODUCT.search(product):
        # mig20: GPU Feature Discovery's product under MIG's single strategy is the GPU's with the MIG device's profile
        # after it (``NVIDIA-A100-SXM4-80GB-MIG-1g.10gb``; NVIDIA/gpu-feature-discovery README, "MIG 'single'
        # strategy"): the GPU is the one before it; the slice's memory is sized by capacity.group.mig_slice
        product = _MIG_PRODUCT.sub("", product)
    # CoreWeave's and Volcengine's GPU names come without a memory figure this reader knows the unit of: a bare family
    # name there (Volcengine's ``Tesla-V100``: 16 or 32 GB) names no size, so the pool's memory is unknown
    platform_product = None
    if product is None:
        platform_product = (labels.get(COREWEAVE_GPU_MODEL) or labels.get(COREWEAVE_GPU_CLASS)
                            or labels.get(VKE_GPU_NAME) or labels.get(ACK_GPU_NAME))
        product = platform_product
    members = _family_members(labels) if instance is None else []
    family_gpu, family_count, ambiguous = _family_gpu(members) if product is None else (None, None, False)
    family_link, family_efa = _family_links(members)
    named_unknown = ambiguous
    unsized = ec2_name = False
    if product:
        # A bare family name under Karpenter's or EKS Auto Mode's ``instance-gpu-name`` (EC2's GPU name: ``a100`` is
        # p4d's A100 40 GB and p4de's 80 GB, ``v100`` p3's 16 GB and p3dn's 32 GB) or a platform's GPU name
        # (Volcengine's ``Tesla-V100``) names no size: an instance type or family picks it where it holds one GPU of
        # that name, a memory label where one is set; otherwise the pool's memory is unknown, never the family's
        # first size. GPU Feature Discovery writes NVML's full product name (``NVIDIA-A100-SXM4-40GB``), GKE its own
        # specific names (``nvidia-tesla-a100`` is the A2 machines' 40 GB part, ``nvidia-a100-80gb`` the 80 GB one)
        # and ours the catalog's: those keep the size the catalog gives them.
        ec2_name = product == _label(labels, INSTANCE_GPU_NAME_SUFFIX) and product not in (
            labels.get(LABEL_GPU_PRODUCT), labels.get(GFD_PRODUCT))
        # GPU Feature Discovery's label is NVML's full name; a hand-written bare one (``NVIDIA-A100``) names no size
        gfd_name = product == labels.get(GFD_PRODUCT) and product != labels.get(LABEL_GPU_PRODUCT)
        bare = not memory_mib and (((ec2_name or platform_product is not None) and size_unnamed(str(product)))
                                   or (gfd_name and product_unsized(str(product))))
        held = {instance.gpu} if instance is not None else (
            {sized[0]} if sized is not None else {i.gpu for i in members})
        if not held and ec2_name:
            # Karpenter's and EKS Auto Mode's GPU names are EC2's (``GpuInfo.Name``, lower-cased): the EC2 instance
            # types of the catalog that carry a GPU of that name (``h100``: only p5's H100 SXM 80 GB)
            held = {i.gpu for i in instance_types().values() if i.cloud == "aws" and of_family(str(product), i.gpu)}
        picked = next(iter(held)) if len(held) == 1 and of_family(str(product), next(iter(held))) else None
        unsized = bare and picked is None
        pool.gpu = _find_gpu(picked) if bare and picked else (None if unsized else _find_gpu(str(product), memory_mib))
        named_unknown = pool.gpu is None
    elif instance is not None:
        pool.gpu = _find_gpu(instance.gpu)
    elif sized is not None:
        pool.gpu = _find_gpu(sized[0])
    elif family_gpu is not None:
        pool.gpu = _find_gpu(family_gpu)

    count = None
    for key in (LABEL_GPU_COUNT, GFD_COUNT, KARPENTER_AWS_PREFIX + INSTANCE_GPU_COUNT_SUFFIX,
                EKS_PREFIX + INSTANCE_GPU_COUNT_SUFFIX, GKE_ACCELERATOR_COUNT, COREWEAVE_GPU_COUNT):
        count = _int(labels.get(key)) if key in labels else None
        if count is not None:
            break
    if count is None and instance is not None:
        count = instance.gpus
    if count is None and sized is not None:
        count = sized[1]
    if count is None and GKE_TPU_ACCELERATOR in labels:
        count = _tpu_chips(labels.get(GKE_TPU_TOPOLOGY))
    if count is None and CLOUD_RUN_ACCELERATOR in labels:
        count = 1  # Cloud Run attaches one GPU to an instance
    if count is None:
        count = family_count
    if count is None:
        count = gpus_per_node
    pool.gpus_per_node = count

    mem_gib = _float(labels.get(LABEL_GPU_MEMORY_GIB), MAX_GPU_MEMORY_GIB) if LABEL_GPU_MEMORY_GIB in labels else None
    if mem_gib is None and pool.gpu is not None:
        mem_gib = pool.gpu.memory_gib
    if mem_gib is None and memory_mib:
        mem_gib = round(memory_mib / 1024, 2)
    pool.gpu_memory_gib = UNKNOWN if mem_gib is None and named_unknown else mem_gib
    if mem_gib is None and vram is not None and amd_mib is None:  # named, but not in the labeller's form: say so
        pool.gpu_memory_gib = UNKNOWN
        pool.gpu_memory_why = (f"the label {AMD_VRAM if AMD_VRAM in labels else AMD_VRAM_BETA} is {vram!r}, not the "
                               "AMD node labeller's form (the GPUs' memory in whole GiB then G, as `192G`)")
    if pool.gpu_memory_gib is UNKNOWN and unsized:
        pool.gpu_memory_why = (f"the label names {product!r}, a GPU the catalog holds in several memory sizes, and no "
                               "label says which")
        if gfd_name:
            pool.gpu_memory_why = (f"the label nvidia.com/gpu.product names {product!r}, a GPU the catalog holds in "
                                   "several memory sizes, not NVML's full name for one of them (GPU Feature Discovery "
                                   "writes `NVIDIA-A100-SXM4-80GB`), and no nvidia.com/gpu.memory label says which")
        if ec2_name:
            pool.gpu_memory_why = (f"the label names {product!r}, EC2's name for a GPU that AWS instance types carry "
                                   "in several memory sizes, and no instance type, instance family or GPU memory label "
                                   "says which")

    link = _INTERCONNECTS.get(str(labels.get(LABEL_NVLINK, "")).strip().lower())
    if link is None and instance is not None:
        link = instance.interconnect
    if link is None and sized is not None:
        link = sized[2]
    if link is None:
        link = family_link  # every multi-GPU type of the family the NodePool may launch
    if link is None and pool.gpu is not None and isinstance(count, int) and count > 1:
        link = pool.gpu.interconnect  # what multi-GPU servers of this part usually have
    if link is None and pool.gpu is not None and count is None and pool.gpu.interconnect == "pcie":
        link = "pcie"  # a part without NVLink (L40S, L4, A10G): PCIe joins them on a node of any size
    pool.interconnect = link  # type: ignore[assignment]

    domain = _int(labels.get(LABEL_NVLINK_DOMAIN_SIZE)) if LABEL_NVLINK_DOMAIN_SIZE in labels else None
    if domain is None and instance is not None and instance.nvlink_domain_size:
        domain = instance.nvlink_domain_size  # the catalog's (72 on a p6e-gb200 UltraServer)
    if domain is None and labels.get(GFD_CLIQUE) and pool.gpu is not None:
        domain = pool.gpu.nvlink_domain_size  # a clique is a multi-node NVLink domain
    if domain is None and link == "nvswitch" and isinstance(count, int) and count > 0:
        domain = count
    if domain is None and sized is not None and link == "nvlink":
        domain = sized[1]
    if domain is None and link == "nvlink" and pool.gpu is not None:
        # NVLink bridges join only as many cards as the part allows (H100 NVL: pairs), never more than the node has
        domain = pool.gpu.nvlink_domain_size
        if isinstance(count, int) and count > 0:
            domain = min(domain, count)
    pool.nvlink_domain_size = domain
    if not str(labels.get(ASSUMED_MODE, "spx")).startswith("spx"):
        # amd17: devices that are partitions of AMD Instinct GPUs: the sources read say nothing of the links between
        # partitions (of one GPU or of two), so no fabric is assumed (catalog/partitions.py)
        pool.interconnect = UNKNOWN
        pool.nvlink_domain_size = UNKNOWN

    clique = labels.get(GFD_CLIQUE)
    pool.clique = str(clique) if clique else None

    efa = _bool(labels[LABEL_EFA]) if LABEL_EFA in labels else None
    if efa is None and instance is not None:
        efa = instance.efa
    if efa is None:
        efa = family_efa
    pool.efa = efa
    if efa:
        pool.fabric = "efa"
    elif sized is not None and sized[3]:
        pool.fabric = "infiniband"
    pool.accelerator = _vendor(labels, pool)
    if pool.gpu is None and (_label(labels, INSTANCE_GPU_MANUFACTURER_SUFFIX) or "").strip().lower() == "habana":
        pool.accelerator_families = ("intel-gaudi",)  # EC2 names Gaudi's maker habana; Intel's GPUs are not it
    return pool


def _vendor(labels: Mapping[str, str], pool: NodePool) -> str | None:
    """Who makes the pool's accelerators: the catalog's GPU says, else the label family does."""
    if pool.gpu is not None:
        return str(pool.gpu.vendor)
    manufacturer = _label(labels, INSTANCE_GPU_MANUFACTURER_SUFFIX)
    if manufacturer:
        return manufacturer_vendor(manufacturer)
    # a bare family name of several sizes (Volcengine's ``Tesla-V100``, EC2's ``a100``): its memory is unknown, its
    # maker is not where every size of the family is one maker's (place16: the pool had no vendor)
    for name in (labels.get(VKE_GPU_NAME), labels.get(ACK_GPU_NAME), _label(labels, INSTANCE_GPU_NAME_SUFFIX)):
        if name and size_unnamed(str(name)):
            vendors = {find_gpu(size).vendor for size in family_sizes(str(name))}
            if len(vendors) == 1:
                return str(vendors.pop())
    if GKE_TPU_ACCELERATOR in labels:
        return "google"
    if AMD_PRODUCT in labels or AMD_VRAM in labels or AMD_VRAM_BETA in labels:
        return "amd"
    if any(k in labels for k in (GFD_PRODUCT, GFD_COUNT, GFD_MEMORY_MIB, GFD_FAMILY, COREWEAVE_GPU_MODEL,
                                 COREWEAVE_GPU_CLASS, COREWEAVE_GPU_COUNT, ACK_GPU_NAME)):
        return "nvidia"
    accel = labels.get(GKE_ACCELERATOR) or labels.get(CLOUD_RUN_ACCELERATOR) or ""
    return "nvidia" if accel.lower().startswith("nvidia") else None


# --------------------------------------------------------------------------------------------------
# Nodes by name: what plan, render and the components ask
# --------------------------------------------------------------------------------------------------


def instance_pool(instance_type: str, location: Location, gpus_per_node: int | None = None) -> NodePool:
    """The pool of nodes of ``instance_type`` (the catalog's; an unknown one raises CatalogError), read as
    its node labels would be, with ``gpus_per_node`` overriding the instance's GPU count."""
    inst = catalog_instance(instance_type)
    labels = {INSTANCE_TYPE: inst.name}
    if gpus_per_node:
        labels[LABEL_GPU_COUNT] = str(gpus_per_node)
    return pool_from_labels(inst.name, labels, location)


def gpu_pool(gpu_name: str, gpus_per_node: int, location: Location) -> NodePool:
    """A pool of nodes with ``gpus_per_node`` of the GPU and the interconnect multi-GPU servers of it
    usually have; where the part's NVLink domain spans nodes (GB200 and GB300 NVL72: 72 GPUs over trays of 4), that
    domain, as the instance types of such racks carry it (``plan``'s replica runs inside one domain)."""
    labels = {LABEL_GPU_PRODUCT: gpu_name, LABEL_GPU_COUNT: str(gpus_per_node)}
    gpu = find_gpu(gpu_name)
    if gpu.gpus_per_node and gpu.nvlink_domain_size > max(gpu.gpus_per_node, gpus_per_node):  # a tray of a rack
        labels[LABEL_NVLINK_DOMAIN_SIZE] = str(gpu.nvlink_domain_size)
    return pool_from_labels(gpu_name, labels, location)


def catalog_instance(name: str) -> Any:
    """The catalog's instance type ``name`` (CatalogError when it has none)."""
    return find_instance(name)


def largest_instance(gpu_name: str) -> Any:
    """The catalog's instance type with the most of this GPU (None: none carries it)."""
    found = instances_for_gpu(gpu_name)
    return found[-1] if found else None


def instance_with(gpu_name: str, gpus: int) -> Any:
    """The catalog's first instance type with exactly ``gpus`` of this GPU (None: none)."""
    same = [i for i in instances_for_gpu(gpu_name) if i.gpus == gpus]
    return same[0] if same else None


def node_links(pool: NodePool) -> tuple[int, int]:
    """(GPUs per node, GPUs one NVLink domain of the node joins) of a pool: 1 on PCIe-only nodes, the
    pool's domain where NVLink joins only some GPUs (H100 NVL pairs), else the whole node (8 when the
    pool does not say how many GPUs a node has). A domain wider than the node (GB200 NVL72: 72 GPUs over 18
    trays of 4, joined by NVLink switches; ``nvidia.com/gpu.clique`` names it) is the pool's domain."""
    gpus = pool.gpus_per_node if isinstance(pool.gpus_per_node, int) and pool.gpus_per_node > 0 else 8
    size = pool.nvlink_domain_size if isinstance(pool.nvlink_domain_size, int) and pool.nvlink_domain_size > 0 else None
    if pool.interconnect == "pcie":
        domain = 1
    elif pool.interconnect == "nvlink" and size:
        domain = size
    elif pool.interconnect == "nvswitch" and size and size > gpus:
        domain = size
    else:
        domain = gpus if gpus > 1 or pool.interconnect else 1
    return gpus, domain


def instance_nvlink_domain(inst: Any) -> int:
    """GPUs one NVLink domain of an instance type's node joins, as its node labels say it: 1 on PCIe-only
    instances, every GPU of the node otherwise."""
    return 1 if inst.interconnect == "pcie" else int(inst.gpus)


#: EC2 instance categories whose instances carry no accelerator (Karpenter's ``instance-category`` label: the
#: letters of the family before its generation, ``m`` of ``m8g``): general purpose, compute, memory and storage
#: optimised, burstable, HPC, Mac. The accelerated ones (``p``, ``g``, ``inf``, ``trn``, ``dl``, ``f``, ``vt``)
#: are not here. (aws/karpenter-provider-aws, pkg/providers/instancetype/types.go: the category label.)
NO_ACCELERATOR_CATEGORIES = frozenset({"a", "c", "d", "h", "hpc", "i", "im", "is", "m", "mac", "r", "t", "u", "x",
                                       "z"})
_TYPE_SCHEME = re.compile(r"([a-z]+)(?:-[0-9]+tb)?([0-9]+)")
_FAMILY_KEYS = (INSTANCE_TYPE, INSTANCE_TYPE_BETA, KARPENTER_AWS_PREFIX + INSTANCE_FAMILY_SUFFIX,
                EKS_PREFIX + INSTANCE_FAMILY_SUFFIX)
_CATEGORY_KEYS = (KARPENTER_AWS_PREFIX + INSTANCE_CATEGORY_SUFFIX, EKS_PREFIX + INSTANCE_CATEGORY_SUFFIX)


def _no_accelerator_values(key: str, values: Iterable[Any]) -> bool:
    """Whether every value of an instance type, family or category label names a category without accelerators
    (``m8g``, ``c6i.4xlarge``, ``r``); False for any other key or a value of another shape."""
    vals = [v.strip().lower() for v in values if isinstance(v, str)]
    if not vals:
        return False
    if key in _CATEGORY_KEYS:
        return all(v in NO_ACCELERATOR_CATEGORIES for v in vals)
    if key in _FAMILY_KEYS:
        schemes = [_TYPE_SCHEME.match(v.split(".", 1)[0]) for v in vals]
        return all(m is not None and m.group(1) in NO_ACCELERATOR_CATEGORIES for m in schemes)
    return False


def selects_no_accelerator(node_selector: Any, affinity: Any) -> bool:
    """Whether a pod's node selection admits only EC2 instances without an accelerator: its nodeSelector names an
    instance type, family or category of :data:`NO_ACCELERATOR_CATEGORIES` (``karpenter.k8s.aws/instance-family:
    m8g``), or every term of its required node affinity has an ``In`` on such a key with only such values."""
    if isinstance(node_selector, Mapping) and any(
            _no_accelerator_values(str(k), [v]) for k, v in node_selector.items()):
        return True
    terms = affinity if isinstance(affinity, list) else []
    return bool(terms) and all(
        isinstance(term, list) and any(
            getattr(e, "operator", None) == "In" and _no_accelerator_values(getattr(e, "key", ""), e.values)
            for e in term)
        for term in terms)
