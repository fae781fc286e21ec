"""Nodes and node pools: Node, Karpenter NodePool and EC2NodeClass, and matching workloads to pools.

Node and NodePool labels become :class:`NodePool` through :func:`.pools.pool_from_labels`; an
EC2NodeClass becomes a :class:`LaunchTemplate` (its instance-metadata options); an EKS Auto Mode NodeClass, which
sets none, becomes the one AWS launches its managed instances with (:func:`auto_mode_template`).
:func:`resolve_pools` matches each serving group to a pool.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ...catalog import CatalogError, find_gpu, find_instance, instances_for_gpu
from ...catalog.accelerators import accelerators, families_made_by, families_of, resource_names, vendor_of
from ...catalog.hardware import NO_ACCELERATOR_CATEGORIES, manufacturer_vendor, pool_from_labels, vram_gib
from ...catalog.lookup import family_sizes, instance_types, of_family, product_unsized, size_unnamed
from ...catalog.partitions import ASSUMED_MODE, PARTITION_LABELS, label_mode, mode_of, partition_sizes, partitionable
from ...model import (
    UNKNOWN,
    Inventory,
    LaunchTemplate,
    Location,
    MatchExpression,
    NodePool,
    ServingGroup,
    Taint,
    is_unknown,
)
from ...model.errors import InputError
from ...model.vocab import (
    ACK_GPU_NAME,
    AMD_PRODUCT,
    COREWEAVE_GPU_CLASS,
    COREWEAVE_GPU_MODEL,
    EKS_NODEGROUP,
    EKS_PREFIX,
    GFD_CLIQUE,
    GFD_MEMORY_MIB,
    GFD_PRODUCT,
    GKE_ACCELERATOR,
    GKE_NODEPOOL,
    GKE_TPU_ACCELERATOR,
    GPU_LABELS,
    HOSTNAME,
    INSTANCE_CATEGORY_SUFFIX,
    INSTANCE_FAMILY_SUFFIX,
    INSTANCE_GENERATION_SUFFIX,
    INSTANCE_GPU_COUNT_SUFFIX,
    INSTANCE_GPU_MANUFACTURER_SUFFIX,
    INSTANCE_GPU_MEMORY_SUFFIX,
    INSTANCE_GPU_NAME_SUFFIX,
    INSTANCE_SIZE_SUFFIX,
    INSTANCE_TYPE,
    INSTANCE_TYPE_BETA,
    KARPENTER_AWS_PREFIX,
    KARPENTER_NODEPOOL,
    LABEL_EFA,
    LABEL_GPU_MEMORY_GIB,
    LABEL_GPU_PRODUCT,
    LABEL_NVLINK,
    LABEL_POOL,
    VKE_GPU_NAME,
)
from .claims import resolve_claims
from .configjoin import CONFIG_REF, link_config_maps
from .fields import (
    as_list,
    as_map,
    int_field,
    line_of,
    read_annotations,
    str_map,
    suppressions_from,
    typed_map,
    whole_quantity,
)
from .network import link_backends, link_ingress_classes

SELECTOR_POOL_KIND = "selector"  # NodePool.kind of a pool synthesised from a workload's own selector

#: The API group of EKS Auto Mode's NodeClass (``nodeClassRef: {group: eks.amazonaws.com, kind: NodeClass}``).
AUTO_MODE_GROUP = "eks.amazonaws.com"


def auto_mode_template(name: str, loc: Location, inv: Inventory) -> str:
    """The launch settings of EKS Auto Mode NodeClass ``name``, added once; returns the reference a pool uses.

    Auto Mode launches its nodes as EC2 managed instances whose launch templates AWS owns: the instance metadata
    service requires IMDSv2 with a hop limit of 1, and a NodeClass (its own ``default`` included) has no field
    that changes it (docs.aws.amazon.com/eks/latest/userguide/auto-security.html). So the settings are known
    whether or not the NodeClass object is in the inputs."""
    ref = f"{AUTO_MODE_GROUP}/NodeClass/{name}"
    if not any(lt.id == ref for lt in inv.launch_templates):
        inv.launch_templates.append(LaunchTemplate(name=f"EKS Auto Mode NodeClass {name}", id=ref,
                                                   http_tokens="required", http_put_response_hop_limit=1,
                                                   location=loc))
    return ref


def read_taints(raw: Any) -> list[Taint]:
    return [
        Taint(str(t.get("key")), str(t["value"]) if t.get("value") is not None else None,
              str(t.get("effect", "NoSchedule")))
        for t in as_list(raw) if isinstance(t, dict) and t.get("key")
    ]


def add_node(obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    meta, spec = as_map(obj.get("metadata")), as_map(obj.get("spec"))
    ann, lines = read_annotations(meta)
    capacity = as_map(as_map(obj.get("status")).get("capacity"))
    count, vendor = None, None
    for resource in resource_names():  # the first accelerator the node advertises
        if resource in capacity:
            count = whole_quantity(capacity[resource])  # a count Kubernetes would not hold reads as none
            vendor = vendor_of(resource) if count is not None else None
            break
    name = str(meta.get("name") or "unnamed")
    # amd17: a mode's resource in the capacity (the ROCm device plugin's mixed strategy, ``amd.com/cpx_nps4``)
    modes = {m for k in capacity if (m := mode_of(str(k))) is not None and whole_quantity(capacity[k])}
    variants = _sized_variants(name, str_map(meta.get("labels")),  # a bare GPU name: the sizes it may be
                               modes.pop() if len(modes) == 1 else None)
    suppressions = suppressions_from(ann, lines, loc.file, loc.line)
    for vname, vlabels in variants:
        pool = pool_from_labels(vname, vlabels, loc, read_taints(spec.get("taints")), kind="node",
                                gpus_per_node=count)
        pool.accelerator = pool.accelerator or vendor
        if capacity:  # what the kubelet reports its device plugins advertise, each accelerator resource with a unit
            held = tuple(str(k) for k, v in capacity.items() if families_of(str(k)) and whole_quantity(v))
            pool.node_resources = held
            pool.accelerator_families = tuple(dict.fromkeys(a.family for k in held for a in families_of(k)))
        pool.suppressions = list(suppressions)
        pool.variant_of = name if len(variants) > 1 else None
        inv.pools.append(pool)


#: Karpenter (``karpenter.k8s.aws/``) and EKS Auto Mode (``eks.amazonaws.com/``) requirement keys whose ``In`` list
#: of several values becomes one pool per value, the most specific first: a NodePool that lists instance types, GPU
#: names or instance families launches, for each pod, one of the instance types they admit (karpenter.sh, Concepts >
#: NodePools > spec.template.spec.requirements; EKS Auto Mode, "Create a Node Pool", its supported labels).
_EXPANDABLE = (INSTANCE_TYPE, *(prefix + suffix for suffix in (INSTANCE_GPU_NAME_SUFFIX, INSTANCE_FAMILY_SUFFIX)
                                for prefix in (KARPENTER_AWS_PREFIX, EKS_PREFIX)))


#: How Karpenter reads an instance type's name (karpenter-provider-aws, pkg/providers/instancetype/types.go,
#: ``instanceTypeScheme``): its ``instance-category`` is the leading letters, its ``instance-generation`` the digits
#: after them (``p`` and ``6`` of ``p6-b200.48xlarge``, ``g`` and ``6`` of ``g6e.xlarge``, ``inf`` and ``2``).
_TYPE_SCHEME = re.compile(r"([a-z]+)(?:-[0-9]+tb)?([0-9]+)")


def _category_generation(family: str | None) -> tuple[str, int] | None:
    """(instance-category, instance-generation) of an instance family, as Karpenter labels its nodes."""
    m = _TYPE_SCHEME.match(family or "")
    return (m.group(1), int(m.group(2))) if m else None


def _category_families(reqs: list[tuple[str, str, list[str]]]) -> tuple[str, list[str]] | None:
    """(the family label, the families) an ``In`` on ``instance-category`` stands for: every AWS instance family of
    those categories the catalog knows (``g``: g4dn, g5, g6, g6e, g7e), in the catalog's order; None when the
    requirements have no such ``In``. A category is many families, and so many GPUs."""
    for key, op, values in reqs:
        for prefix in (KARPENTER_AWS_PREFIX, EKS_PREFIX):
            if key == prefix + INSTANCE_CATEGORY_SUFFIX and op == "In" and values:
                wanted = {v.lower() for v in values}
                families = dict.fromkeys(
                    f for f in (i.name.split(".", 1)[0] for i in instance_types().values() if i.cloud == "aws")
                    if (_category_generation(f) or ("",))[0] in wanted)
                return prefix + INSTANCE_FAMILY_SUFFIX, list(families)
    return None


def _gpu_memory_families(reqs: list[tuple[str, str, list[str]]]) -> tuple[str, list[str]] | None:
    """(the family label, the families) a requirement ``In``, ``Gt`` or ``Lt`` on ``instance-gpu-memory`` stands for
    when nothing names a type, GPU, family or category: every AWS instance family whose GPU's EC2 memory figure the
    catalog holds (``GpuInfo.ec2_memory_mib``), in the catalog's order, for :func:`_excluded` to drop those the
    figure rules out; None when the requirements have no such requirement. Karpenter gives an instance type with no
    GPU no ``instance-gpu-memory`` requirement but ``DoesNotExist``, which none of these operators admits
    (karpenter-provider-aws, pkg/providers/instancetype/types.go), so such a NodePool launches only GPU instances; a
    family whose figure the catalog does not hold (p6e-gb200, the accelerators with no GPU) is not offered."""
    for key, op, values in reqs:
        for prefix in (KARPENTER_AWS_PREFIX, EKS_PREFIX):
            if key == prefix + INSTANCE_GPU_MEMORY_SUFFIX and op in ("In", "Gt", "Lt") and values:
                families: dict[str, None] = {}
                for inst in instance_types().values():
                    try:
                        known_figure = inst.cloud == "aws" and find_gpu(inst.gpu).ec2_memory_mib is not None
                    except CatalogError:
                        known_figure = False
                    if known_figure:
                        families.setdefault(inst.name.split(".", 1)[0], None)
                return prefix + INSTANCE_FAMILY_SUFFIX, list(families)
    return None


def _gpu_count_families(reqs: list[tuple[str, str, list[str]]]) -> tuple[str, list[str]] | None:
    """(the family label, the families) a requirement ``Exists``, ``In``, ``Gt`` or ``Lt`` on ``instance-gpu-count``
    stands for when nothing names a type, GPU, family or category: every AWS instance family of the catalog whose
    accelerator EC2 describes as a GPU, in the catalog's order, less those none of whose instance types the catalog
    holds has a GPU count the requirement admits; None when the requirements have no such requirement. Karpenter
    labels ``instance-gpu-count`` only from EC2's ``GpuInfo`` and gives every other instance type ``DoesNotExist``
    on it (karpenter-provider-aws, pkg/providers/instancetype/types.go); Inferentia and Trainium are described by
    ``NeuronInfo`` and labelled ``instance-accelerator-*`` instead, so they are not offered (nor is a family whose
    accelerator's maker the catalog does not hold). Gaudi's dl1 is a GPU there (``instance-gpu-count`` 8,
    ``instance-gpu-manufacturer`` habana: karpenter-provider-aws's generated instance-types reference)."""
    for key, op, values in reqs:
        for prefix in (KARPENTER_AWS_PREFIX, EKS_PREFIX):
            if key != prefix + INSTANCE_GPU_COUNT_SUFFIX or op not in ("Exists", "In", "Gt", "Lt") or (
                    op != "Exists" and not values):
                continue
            counts: dict[str, set[int]] = {}
            for inst in instance_types().values():
                try:
                    vendor = find_gpu(inst.gpu).vendor if inst.cloud == "aws" else None
                except CatalogError:
                    vendor = None
                if vendor is not None and vendor != "aws":  # "aws": a Neuron device, not an EC2 GPU
                    counts.setdefault(inst.name.split(".", 1)[0], set()).add(inst.gpus)
            families = [f for f, held in counts.items() if any(_count_admitted(n, op, values) for n in held)]
            return prefix + INSTANCE_FAMILY_SUFFIX, families
    return None


def _made_by(families: list[str], reqs: list[tuple[str, str, list[str]]]) -> list[str]:
    """The families of ``families`` whose GPU's maker the NodePool's ``instance-gpu-manufacturer`` requirements
    (``In``, ``NotIn``) admit. Karpenter labels that key from EC2's ``GpuInfo`` manufacturer (``nvidia``, ``amd``,
    ``habana``) and gives an instance type without a GPU ``DoesNotExist`` on it, which an ``In`` does not admit
    (karpenter-provider-aws, pkg/providers/instancetype/types.go), so a category, GPU-memory or GPU-count requirement
    beside ``instance-gpu-manufacturer In [amd]`` launches no NVIDIA family."""
    allowed: set[str] | None = None
    refused: set[str] = set()
    for key, op, values in reqs:
        if key not in (KARPENTER_AWS_PREFIX + INSTANCE_GPU_MANUFACTURER_SUFFIX,
                       EKS_PREFIX + INSTANCE_GPU_MANUFACTURER_SUFFIX) or not values:
            continue
        makers = {manufacturer_vendor(v) or f"?{v.strip().lower()}" for v in values}
        if op == "In":
            allowed = makers if allowed is None else allowed & makers
        elif op == "NotIn":
            refused |= makers
    if allowed is None and not refused:
        return families
    vendors: dict[str, str] = {}
    for inst in instance_types().values():
        try:
            if inst.cloud == "aws" and inst.gpu:
                vendors.setdefault(inst.name.split(".", 1)[0], str(find_gpu(inst.gpu).vendor))
        except CatalogError:
            continue
    return [f for f in families if (vendors.get(f) in allowed if allowed is not None else True)
            and (vendors.get(f) is None or vendors.get(f) not in refused)]


def _count_admitted(count: int, op: str, values: list[str]) -> bool:
    """Whether a GPU count meets Karpenter's requirement ``op values`` (a value that is no integer admits none)."""
    if op == "Exists":
        return True
    try:
        wanted = [int(v) for v in values]
    except ValueError:
        return False
    if op == "In":
        return count in wanted
    return count > wanted[0] if op == "Gt" else count < wanted[0]


def _requirements(tspec: Mapping[str, Any]) -> list[tuple[str, str, list[str]]]:
    """``spec.template.spec.requirements`` as (key, operator, values); ``minValues`` only asks Karpenter to keep that
    many values open when it launches, and changes none of the instance types a requirement admits."""
    out = []
    for req in as_list(tspec.get("requirements")):
        req = as_map(req)
        out.append((str(req.get("key", "")), str(req.get("operator", "")),
                    [str(v).strip() for v in as_list(req.get("values"))]))
    return out


def _family(pool: NodePool) -> str | None:
    """The instance family of a pool's nodes: its instance type's (``g6e`` of ``g6e.12xlarge``) or its label's."""
    if isinstance(pool.instance_type, str) and pool.instance_type:
        return pool.instance_type.strip().lower().split(".", 1)[0]
    named = pool.labels.get(KARPENTER_AWS_PREFIX + INSTANCE_FAMILY_SUFFIX) or pool.labels.get(
        EKS_PREFIX + INSTANCE_FAMILY_SUFFIX)
    return named.strip().lower() if named else None


def _same_gpu(pool: NodePool, name: str) -> bool | None:
    """Whether GPU ``name`` (a label's value: ``l40s``, ``a10g``) is the pool's; None when either is not known."""
    if pool.gpu is None:
        return None
    try:
        find_gpu(name)
    except CatalogError:
        return None
    return of_family(name, pool.gpu.name)  # ``a100`` is p4d's A100 40 GB and p4de's 80 GB alike


def _excluded(pool: NodePool, reqs: list[tuple[str, str, list[str]]]) -> bool:
    """Whether a requirement of the NodePool rules out the kind ``pool`` is (its instance type, family or GPU), read
    with Karpenter's operators: ``NotIn`` a value, ``In`` values that do not hold it, ``Gt``/``Lt`` an integer
    (GPU count, GPU memory, generation) strictly above or below. Only what the pool's own figures decide counts.
    The GPU memory compared is EC2's MiB figure for one GPU (``GpuInfo.ec2_memory_mib``), which Karpenter's
    ``instance-gpu-memory`` label carries (karpenter-provider-aws, pkg/providers/instancetype/types.go:
    ``gpu.MemoryInfo.SizeInMiB``), not the memory CUDA reports."""
    family = _family(pool)
    scheme = _category_generation(family)
    figures: dict[str | None, int | None] = {
        INSTANCE_GPU_COUNT_SUFFIX: pool.gpus_per_node if isinstance(pool.gpus_per_node, int) else None,
        INSTANCE_GPU_MEMORY_SUFFIX: pool.gpu.ec2_memory_mib if pool.gpu is not None else None,
        INSTANCE_GENERATION_SUFFIX: scheme[1] if scheme else None,
    }
    for key, op, values in reqs:
        suffix = key[len(KARPENTER_AWS_PREFIX):] if key.startswith(KARPENTER_AWS_PREFIX) else (
            key[len(EKS_PREFIX):] if key.startswith(EKS_PREFIX) else None)
        if op in ("In", "NotIn") and values:
            held: bool | None = None
            if key == INSTANCE_TYPE and isinstance(pool.instance_type, str) and pool.instance_type:
                held = pool.instance_type.strip().lower() in {v.lower() for v in values}
            elif suffix == INSTANCE_FAMILY_SUFFIX and family:
                held = family in {v.lower() for v in values}
            elif suffix == INSTANCE_GPU_NAME_SUFFIX:
                checks = [_same_gpu(pool, v) for v in values]
                held = True if any(checks) else (False if all(c is False for c in checks) else None)
            elif suffix == INSTANCE_CATEGORY_SUFFIX and scheme:
                held = scheme[0] in {v.lower() for v in values}
            elif suffix in figures and figures[suffix] is not None:
                held = str(figures[suffix]) in values
            if held is not None and held != (op == "In"):
                return True
        elif op in ("Gt", "Lt") and len(values) == 1 and suffix in figures:
            try:
                bound = int(values[0])
            except ValueError:
                continue
            figure = figures[suffix]
            if figure is not None and not (figure > bound if op == "Gt" else figure < bound):
                return True
    return False


def _most_gpus(pool: NodePool, reqs: list[tuple[str, str, list[str]]]) -> int | None:
    """The most GPUs a node of the Karpenter NodePool kind ``pool`` may have, where its GPU count is not one figure
    and the NodePool's requirements bound it; None where they do not (or a figure is not known). Karpenter launches
    only instance types that meet every requirement, and labels them with the well-known labels
    ``karpenter.k8s.aws/instance-gpu-count`` (EC2's ``GpuInfo`` count) and ``karpenter.k8s.aws/instance-size`` (the
    part of the type after the dot; karpenter.sh, Concepts > Scheduling, "Well-Known Labels";
    karpenter-provider-aws, pkg/providers/instancetype/types.go). So an ``In`` on the GPU count bounds it by its
    largest value and an ``Lt`` by one less than its value, with no catalog figure needed; an ``In`` on sizes bounds
    it by the largest GPU count of the family's types of those sizes, where the catalog holds every one of them."""
    if isinstance(pool.gpus_per_node, int) or is_unknown(pool.gpus_per_node):
        return None
    bounds: list[int] = []
    family = _family(pool)
    for key, op, values in reqs:
        suffix = key[len(KARPENTER_AWS_PREFIX):] if key.startswith(KARPENTER_AWS_PREFIX) else (
            key[len(EKS_PREFIX):] if key.startswith(EKS_PREFIX) else None)
        if suffix == INSTANCE_GPU_COUNT_SUFFIX and op in ("In", "Lt") and values:
            try:
                counts = [int(v) for v in values]
            except ValueError:
                continue
            bounds.append(max(counts) if op == "In" else counts[0] - 1)
        elif suffix == INSTANCE_SIZE_SUFFIX and op == "In" and values and family:
            types = [instance_types().get(f"{family}.{v.strip().lower()}") for v in values]
            if all(t is not None for t in types):
                bounds.append(max(t.gpus for t in types if t is not None))
    return max(min(bounds), 0) if bounds else None


def _sized_variants(name: str, labels: dict[str, str],
                    mode: str | None = None) -> list[tuple[str, dict[str, str]]]:
    """One kind of a NodePool as the kinds it launches when it names a GPU by a bare family name that EC2 gives to
    several sizes (``instance-gpu-name`` ``a100``: p4d's A100 40 GB and p4de's 80 GB; ``v100``: p3's 16 GB and
    p3dn's 32 GB) and nothing else picks the size (no instance type, family or GPU memory): one kind per AWS family of
    the catalog whose GPU is of that name (``name/p4d``, ``name/p4de``), judged like the kinds of an instance-family
    list. Karpenter labels ``instance-gpu-name`` with EC2's lower-cased ``GpuInfo`` name, the same on both families
    (karpenter-provider-aws, pkg/providers/instancetype/types.go), and may launch either."""
    if INSTANCE_TYPE in labels or INSTANCE_TYPE_BETA in labels:
        return [(name, labels)]
    for prefix in (KARPENTER_AWS_PREFIX, EKS_PREFIX):
        if prefix + INSTANCE_FAMILY_SUFFIX in labels or prefix + INSTANCE_GPU_MEMORY_SUFFIX in labels:
            return [(name, labels)]
    for prefix in (KARPENTER_AWS_PREFIX, EKS_PREFIX):
        gpu = labels.get(prefix + INSTANCE_GPU_NAME_SUFFIX)
        if not gpu or not size_unnamed(gpu):
            continue
        families = list(dict.fromkeys(i.name.split(".", 1)[0] for i in instance_types().values()
                                      if i.cloud == "aws" and of_family(gpu, i.gpu)))
        if len(families) > 1:
            return [(f"{name}/{f}", {**labels, prefix + INSTANCE_FAMILY_SUFFIX: f}) for f in families]
    # place16: a GPU Feature Discovery product label that is a bare family name, not NVML's full name for one size
    # (``nvidia.com/gpu.product: NVIDIA-A100``, hand-written), with no nvidia.com/gpu.memory: each catalog GPU of the
    # family, judged like the kinds above (a finding blocks only where it holds on each); it took the first size
    product = labels.get(GFD_PRODUCT)
    if product and LABEL_GPU_PRODUCT not in labels and GFD_MEMORY_MIB not in labels and product_unsized(product):
        sizes = family_sizes(product)
        if len(sizes) > 1:
            return [(f"{name}/{size}", {**labels, LABEL_GPU_PRODUCT: size}) for size in sizes]
    return _partition_variants(name, labels, mode)


def _partition_variants(name: str, labels: dict[str, str], mode: str | None) -> list[tuple[str, dict[str, str]]]:
    """amd17: a node of AMD Instinct GPUs that may run partitioned (MI300X, MI325X, MI355X) as the sizes one
    ``amd.com`` device of it may be (:mod:`shardwise.rules.catalog.partitions`): the partition mode its labels name
    (the node labeller's ``amd.com/gpu.compute-memory-partition``) or ``mode`` (a mode's resource it advertises or a
    pod requests) picks them; with none, the whole GPU and the smallest partition, judged like the sizes of a bare
    GPU name (a finding blocks only where it holds on each). Each size is the GPU memory label of one kind, and
    :data:`ASSUMED_MODE` says which it is (a partitioned kind has no fabric assumed between its devices)."""
    if LABEL_GPU_MEMORY_GIB in labels or ASSUMED_MODE in labels:
        return [(name, labels)]
    gpu = pool_from_labels(name, labels, Location()).gpu
    if not partitionable(gpu):
        return [(name, labels)]
    assert gpu is not None
    vram = vram_gib(labels)
    if vram is not None and vram < round(gpu.memory_gib):
        # readers17: the labeller writes the memory of each device it sees (a KFD node: a partition on a partitioned
        # GPU), so a vram under the whole GPU's is the size of one partition, the device a pod gets; a vram of the
        # whole GPU's size does not say the GPU is whole (partitions of one memory partition), so the sizes follow
        named = label_mode(labels) or mode
        return [(name, {**labels, LABEL_GPU_MEMORY_GIB: f"{vram:g}", ASSUMED_MODE: f"{named or 'partition'} {vram}G"})]
    sizes = partition_sizes(gpu, label_mode(labels) or mode)
    out = [(f"{name}/{size}" if len(sizes) > 1 else name,
            {**labels, LABEL_GPU_MEMORY_GIB: f"{gib:g}", ASSUMED_MODE: size}) for size, gib in sizes]
    return [(name, labels)] if len(out) == 1 and out[0][1][ASSUMED_MODE].startswith("spx") else out


def add_karpenter_pool(obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    meta, spec = as_map(obj.get("metadata")), as_map(obj.get("spec"))
    ann, lines = read_annotations(meta)
    name = str(meta.get("name") or "unnamed")
    template = as_map(spec.get("template"))
    tspec = as_map(template.get("spec"))
    labels = str_map(as_map(template.get("metadata")).get("labels"))
    labels[KARPENTER_NODEPOOL] = name
    capacity_type = None
    lists: dict[str, list[str]] = {}
    reqs = _requirements(tspec)
    for key, op, values in reqs:
        if op != "In" or not values:
            continue
        if key == "karpenter.sh/capacity-type":
            capacity_type = ",".join(values)
        if len(values) == 1:
            labels[key] = values[0]
        elif key in _EXPANDABLE:
            lists.setdefault(key, list(dict.fromkeys(values)))
    taints = read_taints(tspec.get("taints"))
    variants = [(name, labels)]
    listed = False
    multi = next((k for k in _EXPANDABLE if k in lists), None)
    if multi is not None:  # one pool per instance type (or GPU name, or family) the NodePool may launch
        variants = [(f"{name}/{v}", {**labels, multi: v}) for v in lists[multi]]
    elif not any(k in labels for k in _EXPANDABLE) and (
            category := _category_families(reqs) or _gpu_memory_families(reqs) or _gpu_count_families(reqs)
    ) is not None:
        key, families = category  # one pool per family of the categories (or of the GPU memory), as for a family list
        families = _made_by(families, reqs)
        listed = not any(op == "In" and k in (KARPENTER_AWS_PREFIX + INSTANCE_GPU_MANUFACTURER_SUFFIX,
                                              EKS_PREFIX + INSTANCE_GPU_MANUFACTURER_SUFFIX) for k, op, _ in reqs)
        if len(families) == 1:
            variants = [(name, {**labels, key: families[0]})]
        elif families:
            variants = [(f"{name}/{f}", {**labels, key: f}) for f in families]
    variants = [v for vname, vlabels in variants for v in _sized_variants(vname, vlabels)]
    ref = typed_map(tspec, "nodeClassRef", "spec.template.spec.nodeClassRef", loc)
    node_class = ref.get("name")
    if node_class is not None and node_class is not UNKNOWN and not isinstance(node_class, str):
        raise InputError(f"spec.template.spec.nodeClassRef.name: expected a string, found {node_class!r}", loc.file,
                         line_of(ref, "name") or loc.line)
    launch = str(node_class) if node_class else None
    if node_class and ref.get("group") == AUTO_MODE_GROUP:  # EKS Auto Mode: AWS's launch settings, not a template
        launch = auto_mode_template(str(node_class), loc, inv)
    suppressions = suppressions_from(ann, lines, loc.file, loc.line)
    weight = int_field(spec, "weight", 0, loc, "spec.weight")  # the CRD: an integer, 1 to 100
    pools = [pool_from_labels(pool_name, pool_labels, loc, taints, kind="karpenter")
             for pool_name, pool_labels in variants]
    if len(pools) > 1:  # the kinds the other requirements rule out are not launched (all ruled out: read them all)
        pools = [p for p in pools if not _excluded(p, reqs)] or pools
    no_accelerator = _cpu_only(reqs)
    for pool in pools:
        if no_accelerator:
            pool.accelerator_families = ()
        pool.catalog_listed = listed
        pool.capacity_type = capacity_type
        pool.launch_template = launch
        pool.suppressions = list(suppressions)
        pool.variant_of = name if len(pools) > 1 else None
        pool.weight = weight if isinstance(weight, int) else 0
        pool.max_gpus_per_node = _most_gpus(pool, reqs)
        inv.pools.append(pool)


def add_ec2_node_class(obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    meta, spec = as_map(obj.get("metadata")), as_map(obj.get("spec"))
    ann, lines = read_annotations(meta)
    spec = typed_map(obj, "spec", "spec", loc)
    md = typed_map(spec, "metadataOptions", "spec.metadataOptions", loc)
    tokens = md.get("httpTokens")
    # the CRD's enum: the API server rejects any other value
    if tokens is not None and tokens is not UNKNOWN and tokens not in ("required", "optional"):
        raise InputError(f"spec.metadataOptions.httpTokens: expected required or optional, found {tokens!r}",
                         loc.file, line_of(md, "httpTokens") or loc.line)
    # Karpenter v1's CRD defaults (karpenter.k8s.aws_ec2nodeclasses.yaml): httpTokens required, hop limit 1.
    inv.launch_templates.append(LaunchTemplate(
        name=str(meta.get("name") or "unnamed"),
        kind="EC2NodeClass",
        http_tokens=str(tokens or "required"),
        http_put_response_hop_limit=int_field(md, "httpPutResponseHopLimit", 1, loc,
                                               "spec.metadataOptions.httpPutResponseHopLimit"),
        location=loc,
        suppressions=suppressions_from(ann, lines, loc.file, loc.line),
    ))



def _launches(pool: NodePool, key: str, value: Any) -> bool:
    """Whether a Karpenter NodePool whose labels do not set ``key`` launches a node labelled ``key=value`` for a
    pod that selects it. Karpenter launches, of the instance types a NodePool's requirements allow, one the pod's
    own node selector and required affinity allow too (karpenter.sh, Concepts > Scheduling: a pod's requirements
    narrow the NodePool's), and labels the node with the well-known labels of that type
    (node.kubernetes.io/instance-type; karpenter.k8s.aws/instance-family, instance-gpu-name, EKS Auto Mode's
    eks.amazonaws.com/ ones). Read for the instance type: its family, the name before the dot (``p5en`` of
    ``p5en.48xlarge``), is the pool's, and its GPU is the pool's when the pool names one; for a family or a GPU
    name: the pool's, where the pool's family or GPU is known."""
    if pool.kind != "karpenter" or not isinstance(value, str):
        return False
    name = value.strip().lower()
    if key in _NARROWING:  # category, generation, GPU memory or count: as the NodePool's own requirement reads it
        return not _excluded(pool, [(key, "In", [name])])
    if key in (KARPENTER_AWS_PREFIX + INSTANCE_FAMILY_SUFFIX, EKS_PREFIX + INSTANCE_FAMILY_SUFFIX):
        family = _family(pool)
        return family is None or family == name
    if key in (KARPENTER_AWS_PREFIX + INSTANCE_GPU_NAME_SUFFIX, EKS_PREFIX + INSTANCE_GPU_NAME_SUFFIX):
        return _same_gpu(pool, name) is not False
    if key not in (INSTANCE_TYPE, INSTANCE_TYPE_BETA):
        return False
    family = name.split(".", 1)[0]
    for prefix in (KARPENTER_AWS_PREFIX, EKS_PREFIX):
        named = pool.labels.get(prefix + INSTANCE_FAMILY_SUFFIX)
        if named is not None and named.strip().lower() != family:
            return False
    inst = instance_types().get(name)
    return pool.gpu is None or inst is None or inst.gpu == pool.gpu.name


#: The well-known labels of an instance type (both prefixes) a pod's own selector or required affinity narrows a
#: Karpenter NodePool's kinds by, read as the NodePool's own requirements on them are (:func:`_excluded`): Karpenter
#: launches an instance type that meets the NodePool's requirements and the pod's (karpenter.sh, Concepts >
#: Scheduling, "Well-Known Labels": a pod's nodeSelector or node affinity on them further constrains the NodePool's).
_NARROWING = frozenset(prefix + suffix for prefix in (KARPENTER_AWS_PREFIX, EKS_PREFIX) for suffix in (
    INSTANCE_CATEGORY_SUFFIX, INSTANCE_GENERATION_SUFFIX, INSTANCE_GPU_MEMORY_SUFFIX, INSTANCE_GPU_COUNT_SUFFIX))
#: ... and those of them :func:`_launches` reads for an ``In`` (it also lands a pod on the instance type it names).
_NAMING = frozenset((INSTANCE_TYPE, INSTANCE_TYPE_BETA, *(prefix + suffix for prefix in (
    KARPENTER_AWS_PREFIX, EKS_PREFIX) for suffix in (INSTANCE_FAMILY_SUFFIX, INSTANCE_GPU_NAME_SUFFIX))))


def _term_admits(pool: NodePool, e: MatchExpression) -> bool:
    """Whether the kind ``pool`` meets one expression of a pod's required node affinity. On a Karpenter NodePool whose
    labels do not set the well-known label of the instance type it reads, the expression is read as the NodePool's
    own requirement on it would be (:func:`_excluded`: ``In``, ``NotIn``, ``Gt``, ``Lt``; an ``In`` on the instance
    type, family or GPU name by :func:`_launches`); otherwise against the pool's labels."""
    if pool.kind == "karpenter" and e.key not in pool.labels:
        if e.operator == "In" and e.key in _NAMING:
            return any(_launches(pool, e.key, v) for v in e.values)
        if (e.key in _NARROWING or e.key in _NAMING) and e.operator in ("In", "NotIn", "Gt", "Lt"):
            return not _excluded(pool, [(e.key, e.operator, [str(v).strip() for v in e.values])])
    return e.matches(pool.labels)


def _selected_type(pool: NodePool, g: ServingGroup) -> str | None:
    """The instance type ``g`` selects (its nodeSelector, or the one value of an ``In`` of its first required
    affinity term) where the Karpenter NodePool ``pool`` does not set one: the type Karpenter launches for it."""
    if pool.kind != "karpenter" or INSTANCE_TYPE in pool.labels or INSTANCE_TYPE_BETA in pool.labels:
        return None
    labels = _selector_labels(g)
    value = labels.get(INSTANCE_TYPE, labels.get(INSTANCE_TYPE_BETA))
    return value.strip() if isinstance(value, str) and _launches(pool, INSTANCE_TYPE, value) else None


def _narrowed(pool: NodePool, g: ServingGroup) -> NodePool:
    """``pool`` as the node Karpenter launches for ``g``: of the instance type ``g`` selects, when the NodePool
    allows several (:func:`_selected_type`); the pool itself otherwise."""
    chosen = _selected_type(pool, g)
    if chosen is None:
        return pool
    # one kind of a NodePool that lists several (``gpu/p5en``) is named by the NodePool: ``gpu/p5en.48xlarge``
    out = pool_from_labels(f"{pool.variant_of or pool.name}/{chosen}", {**pool.labels, INSTANCE_TYPE: chosen},
                           pool.location, pool.taints, kind=pool.kind)
    out.capacity_type, out.launch_template = pool.capacity_type, pool.launch_template
    out.suppressions = list(pool.suppressions)
    return out


#: The EC2 instance categories (Karpenter's ``instance-category``, the leading letters of the type: ``c`` of
#: ``c6g.xlarge``, ``hpc`` of ``hpc7g.16xlarge``) of no type with an accelerator a device plugin advertises: general
#: purpose, compute, memory and storage optimised, HPC and Mac. The accelerated ones are p, g, gr, dl, inf, trn, f and
#: vt (docs.aws.amazon.com/ec2/latest/instancetypes/instance-type-names.html, "Instance families").
_NO_ACCELERATOR_CATEGORIES = NO_ACCELERATOR_CATEGORIES  # one list, the catalog's (a pod's selector reads it too)


def _cpu_only(reqs: list[tuple[str, str, list[str]]]) -> bool:
    """Whether a NodePool's ``In`` on the instance type, family or category admits only categories with no
    accelerator (:data:`_NO_ACCELERATOR_CATEGORIES`): ``instance-category In [c, m, r]``, ``instance-family In
    [c6g]``."""
    for key, op, values in reqs:
        if op != "In" or not values:
            continue
        if key in (KARPENTER_AWS_PREFIX + INSTANCE_CATEGORY_SUFFIX, EKS_PREFIX + INSTANCE_CATEGORY_SUFFIX):
            cats = {v.strip().lower() for v in values}
        elif key in (INSTANCE_TYPE, INSTANCE_TYPE_BETA, KARPENTER_AWS_PREFIX + INSTANCE_FAMILY_SUFFIX,
                     EKS_PREFIX + INSTANCE_FAMILY_SUFFIX):
            schemes = [_category_generation(v.strip().lower().split(".", 1)[0]) for v in values]
            if any(sc is None for sc in schemes):
                continue
            cats = {sc[0] for sc in schemes if sc is not None}
        else:
            continue
        if cats <= _NO_ACCELERATOR_CATEGORIES:
            return True
    return False


def _has_no_accelerator(pool: NodePool) -> bool:
    """Whether the nodes of ``pool`` are known to have no accelerator: a Node whose capacity lists none, or an
    instance type (family, category) of a category that has none. EC2's scheme reads only an EC2 type, ``family.size``
    (sched19: GCE's ``a3-highgpu-8g``, eight H100s, was read as category ``a``, Graviton's a1, and so as having none;
    Compute Engine names machine types ``series-kind-size``, cloud.google.com/compute/docs/machine-resource)."""
    if pool.gpu is not None:
        return False
    if pool.accelerator_families is not None:
        return pool.accelerator_families == ()
    named_type = pool.instance_type.strip() if isinstance(pool.instance_type, str) else ""
    category = _category_generation(_family(pool)) if not named_type or "." in named_type else None
    if named_type and category is None:
        return False  # a type of another cloud's naming: what it has is the catalog's to say
    named = [pool.labels.get(prefix + INSTANCE_CATEGORY_SUFFIX) for prefix in (KARPENTER_AWS_PREFIX, EKS_PREFIX)]
    cats = {category[0]} if category else {str(c).strip().lower() for c in named if c}
    return (bool(cats) and cats <= _NO_ACCELERATOR_CATEGORIES and pool.accelerator is None
            and (pool.gpus_per_node is None or pool.gpus_per_node == 0))


def pool_families(pool: NodePool) -> tuple[str, ...] | None:
    """The vendor-table families whose resources the nodes of ``pool`` may advertise (``()``: none); None when not
    known. A Node's capacity says; else a GPU the catalog knows (the families advertising its resource, by its
    architecture where a resource has several); else the families the labels name (Karpenter's manufacturer
    ``habana`` is Gaudi, not Intel's GPUs); else every family of the pool's maker."""
    if _has_no_accelerator(pool):
        return ()
    if pool.accelerator_families is not None:
        return pool.accelerator_families
    if pool.gpu is not None:
        fams = families_of(pool.gpu.k8s_resource)
        by_arch = [a for a in fams if pool.gpu.architecture in a.architectures]
        return tuple(a.family for a in (by_arch or fams)) or None
    return families_made_by(pool.accelerator) if pool.accelerator else None


def _advertises(pool: NodePool, g: ServingGroup) -> bool:
    """Whether the nodes of ``pool`` may advertise the accelerator resource ``g``'s pods request. The scheduler binds
    a pod that requests an extended resource only to a node whose allocatable holds it (kube-scheduler's
    NodeResourcesFit filter), and Karpenter launches only an instance type whose resources hold the pod's requests;
    a device plugin advertises its own family's devices only (``nvidia.com/gpu`` on NVIDIA GPUs, ``habana.ai/gaudi``
    on Gaudi, ``gpu.intel.com/i915`` or ``gpu.intel.com/xe`` on Intel's GPUs, by kernel driver: Intel's GPU plugin,
    intel/intel-device-plugins-for-kubernetes cmd/gpu_plugin/README.md; ``aws.amazon.com/neuron*`` on Inferentia
    and Trainium). So a pool whose accelerator family is known (:func:`pool_families`; a Node's capacity names the
    resources exactly) and is none of the families that advertise the resource never holds the pod, however its
    labels and taints read; nor does one known to have no accelerator. Unknown on either side (a resource the table
    does not know, a pool that does not say whose accelerators it has), or a request of none: it may."""
    resource = g.accelerator_resource
    if not resource or g.gpus_per_pod == 0 or g.gpus_per_pod is None:
        return True
    if pool.node_resources is not None and families_of(resource):  # a Node's capacity: exactly what it advertises
        return resource in pool.node_resources
    wanted = {a.family for a in families_of(resource)}
    held = pool_families(pool)
    return not wanted or held is None or bool(wanted & set(held))


#: The labels that name one node pool of a cluster, set on its nodes by what makes them: Karpenter's NodePool
#: (``karpenter.sh/nodepool``), an EKS managed node group (``eks.amazonaws.com/nodegroup``), a GKE node pool
#: (``cloud.google.com/gke-nodepool``), and a shardwise stack's pool (``shardwise.dev/pool``, which the stack's
#: components put on the nodes of each pool they make and on the pods of the services they place there). A name is one
#: pool of a cluster: a pod that selects it lands there or nowhere.
POOL_NAME_LABELS = (KARPENTER_NODEPOOL, EKS_NODEGROUP, GKE_NODEPOOL, LABEL_POOL)


def _pinned_to(g: ServingGroup) -> tuple[str, frozenset[str]] | None:
    """(the pool-name label, the names) ``g``'s pods are confined to: a nodeSelector on one of
    :data:`POOL_NAME_LABELS`, or an ``In`` on one label in every term of its required node affinity (a pod needs one
    term to match); None when its selector confines it to no named pool."""
    selector = g.node_selector if isinstance(g.node_selector, dict) else {}
    for key in POOL_NAME_LABELS:
        if isinstance(selector.get(key), str):
            return key, frozenset([selector[key]])
    for key in POOL_NAME_LABELS:
        names: set[str] = set()
        for term in g.affinity:
            ins = [e for e in term if e.key == key and e.operator == "In" and e.values]
            if not ins:
                break
            names |= set(ins[0].values)
        else:
            if g.affinity and names:
                return key, frozenset(names)
    return None


def _held_by(pool: NodePool) -> str:
    """What accelerator the nodes of ``pool`` have, for a message: ``no accelerator``, ``Intel Gaudi``, ..."""
    fams = pool_families(pool)
    if fams == ():
        return "no accelerator"
    if pool.node_resources:
        return ", ".join(pool.node_resources)
    titles = [a.title for a in accelerators() if fams is not None and a.family in fams]
    if pool.gpu is not None:
        return pool.gpu.name
    return " or ".join(titles) or str(pool.accelerator)


def _unplaceable(declared: list[NodePool], g: ServingGroup) -> str | None:
    """Why ``g``'s pods never schedule, where its selector pins them to pools of the inputs by name
    (:func:`_pinned_to`) and no node of those pools advertises the accelerator resource they request
    (:func:`_advertises`); None when that is not so or not known: a pool named that is not in the inputs may be
    anything, and a Node labelled with the name is one node of that pool, whose other nodes the inputs do not show
    (each name must be a pool the inputs define: a Karpenter NodePool, an EKS node group, a stack's pool)."""
    pinned = _pinned_to(g)
    if pinned is None or not (isinstance(g.gpus_per_pod, int) and g.gpus_per_pod > 0) or not g.accelerator_resource:
        return None
    key, names = pinned
    named = [p for p in declared if p.labels.get(key) in names]
    defined = {p.labels.get(key) for p in named if p.kind != "node"}  # a Node is one node of its pool, not all
    if defined != names or any(_advertises(p, g) for p in named):
        return None
    if any(p.catalog_listed and pool_families(p) != () for p in named):
        return None  # kinds the catalog listed for a category: EC2 may have others (g4ad's AMD GPU in category g)
    pools = " and ".join(dict.fromkeys(f"`{p.variant_of or p.name}` ({_held_by(p)})" for p in named))
    wanted = ", ".join(f"{key}={n}" for n in sorted(names))
    return (f"the selector ({wanted}) confines the pods to pool {pools}, whose nodes never advertise "
            f"{g.accelerator_resource}")


#: The node labels that name what accelerator a node has, set by what makes or describes the node, not by the team:
#: the cloud's instance type (node.kubernetes.io/instance-type, from the cloud provider), Karpenter's and EKS Auto
#: Mode's instance family, category and GPU name, GKE's ``cloud.google.com/gke-accelerator`` (GPU node pools) and
#: ``cloud.google.com/gke-tpu-accelerator`` (TPU node pools: GKE docs, "Deploy TPU workloads in GKE Standard", the
#: nodeSelector a TPU Pod uses), NVIDIA GPU Feature Discovery's product, AMD's node labeller's product name, CoreWeave's
#: Volcano Engine's and Alibaba Cloud ACK's GPU model. A pod selecting one of them lands only on nodes of that hardware.
_HARDWARE_LABELS = frozenset((
    INSTANCE_TYPE, INSTANCE_TYPE_BETA, GFD_PRODUCT, GKE_ACCELERATOR, GKE_TPU_ACCELERATOR, AMD_PRODUCT,
    COREWEAVE_GPU_MODEL, COREWEAVE_GPU_CLASS, VKE_GPU_NAME, ACK_GPU_NAME,
    *(prefix + suffix for prefix in (KARPENTER_AWS_PREFIX, EKS_PREFIX)
      for suffix in (INSTANCE_FAMILY_SUFFIX, INSTANCE_CATEGORY_SUFFIX, INSTANCE_GPU_NAME_SUFFIX)),
))


def _ruled_out(g: ServingGroup, key: str, values: list[str]) -> str | None:
    """What the nodes labelled ``key`` with any of ``values`` have, for a message, where none of them advertises the
    resource ``g``'s pods request (:func:`_advertises`, on the pool those labels describe); None where one may, or
    where the labels do not say what the nodes have (a type the catalog lacks). ``g`` requests at least one device
    (:func:`_hardware_unplaceable` asks only then), so the answer depends on its resource alone and is kept by
    (resource, key, values): a pool built from the labels for every group was about 1 % of a lint of the generated
    manifests, where most groups select one of a few instance types (lintspeed21)."""
    memo = (g.accelerator_resource, key, tuple(values))
    if memo in _RULED_OUT:
        return _RULED_OUT[memo]
    if len(_RULED_OUT) >= 4096:
        _RULED_OUT.clear()
    _RULED_OUT[memo] = answer = _ruled_out_now(g, key, values)
    return answer


#: :func:`_ruled_out`'s answers by (the resource requested, the label, its values).
_RULED_OUT: dict[tuple[str | None, str, tuple[str, ...]], str | None] = {}


def _ruled_out_now(g: ServingGroup, key: str, values: list[str]) -> str | None:
    held = []
    for value in values:
        pool = pool_from_labels(f"{key}={value}", {key: value}, g.location, kind=SELECTOR_POOL_KIND)
        if pool_families(pool) is None or _advertises(pool, g):
            return None
        held.append(_held_by(pool))
    return " or ".join(dict.fromkeys(held)) if held else None


def _hardware_unplaceable(g: ServingGroup) -> str | None:
    """Why ``g``'s pods never schedule, where its selector confines them to nodes whose hardware never advertises the
    accelerator resource they request: a nodeSelector on a label of :data:`_HARDWARE_LABELS` (a GKE TPU node pool's
    ``cloud.google.com/gke-tpu-accelerator: tpu-v5-lite-podslice`` for ``nvidia.com/gpu``; an ``inf2.xlarge`` instance
    type), or, in every term of its required node affinity, an ``In`` on one whose values all name such hardware. The
    scheduler binds a pod only to a node that matches its selector and one of its terms (NodeAffinity filter) and whose
    allocatable holds its requests (NodeResourcesFit), so no node passes both, whatever pools the inputs declare. None
    where that is not so or not known (hardware the catalog does not know, a label the team sets)."""
    if not (isinstance(g.gpus_per_pod, int) and g.gpus_per_pod > 0) or not g.accelerator_resource:
        return None
    if not families_of(g.accelerator_resource):
        return None
    selector = g.node_selector if isinstance(g.node_selector, dict) else {}
    for key, value in selector.items():
        if key in _HARDWARE_LABELS and isinstance(value, str):
            held = _ruled_out(g, key, [value])
            if held is not None:
                return (f"the nodeSelector ({key}={value}) places the pods on nodes of {held}, which never advertise "
                        f"{g.accelerator_resource}")
    if not g.affinity:
        return None
    out = []
    for term in g.affinity:
        found = None
        for e in term:
            if e.operator == "In" and e.key in _HARDWARE_LABELS and e.values:
                held = _ruled_out(g, e.key, [str(v) for v in e.values])
                if held is not None:
                    found = f"{e.key} In {list(e.values)}: {held}"
                    break
        if found is None:
            return None
        out.append(found)
    terms = "; ".join(dict.fromkeys(out))
    return (f"the required node affinity ({terms}) places the pods on nodes that never advertise "
            f"{g.accelerator_resource}")


def _pool_admits(pool: NodePool, g: ServingGroup, advertised: dict[tuple[int, str], bool] | None = None) -> bool:
    """Whether ``g``'s pods may land on ``pool``: its nodes may advertise the resource they request, its labels meet
    their nodeSelector and one term of their required node affinity, and they tolerate its taints. ``advertised``
    keeps :func:`_advertises`'s answers by (the pool's id, the resource requested) over one :func:`resolve_pools`:
    for a group that requests one, the answer depends on nothing else of the group, and asking it of every pair was
    most of this test (lintspeed30)."""
    resource = g.accelerator_resource
    if advertised is None or not resource or g.gpus_per_pod == 0 or g.gpus_per_pod is None:
        if not _advertises(pool, g):
            return False
    else:
        key = (id(pool), resource)
        held = advertised.get(key)
        if held is None:
            held = advertised[key] = _advertises(pool, g)
        if not held:
            return False
    labels = pool.labels
    for k, v in g.node_selector.items():
        if labels.get(k) != v and not (k not in labels and _launches(pool, k, v)):
            return False
    if g.affinity and not any(all(_term_admits(pool, e) for e in term) for term in g.affinity):
        return False
    for taint in pool.taints:
        blocking = taint.effect is UNKNOWN or taint.effect in ("NoSchedule", "NoExecute")
        if blocking and not any(t.tolerates(taint) for t in g.tolerations):
            return False
    return True


def _selector_labels(g: ServingGroup, term: int = 0) -> dict[str, str]:
    """The labels a node matching ``g``'s nodeSelector and the ``term``-th term of its required node affinity has
    (its single-valued ``In`` expressions): a pod needs only one term to match."""
    labels = dict(g.node_selector)
    for e in g.affinity[term] if term < len(g.affinity) else ():
        if e.operator == "In" and len(e.values) == 1 and e.key not in labels:
            labels[e.key] = e.values[0]
    return labels


def _selector_kinds(g: ServingGroup) -> NodePool | list[NodePool] | None:
    """:func:`pool_from_selector` over every term of ``g``'s required node affinity: Kubernetes ORs the terms
    (``nodeSelectorTerms``: "The terms are ORed", k8s.io/api core/v1 types.go; the matchExpressions of one term are
    ANDed), so a pod whose terms name different GPUs may land on any of them, and each is one kind of node it is
    judged on (a finding blocks only where it holds on each). A term that names no GPU leaves the GPU unknown: no
    pool. One term, or terms that all name the same GPU: the first term's pool."""
    made = pool_from_selector(g)
    if len(g.affinity) < 2:
        return made
    kinds: list[NodePool] = []
    seen: set[tuple[Any, Any]] = set()
    for term in range(len(g.affinity)):
        per_term = made if term == 0 else pool_from_selector(g, term)
        if per_term is None:
            return None
        for pool in per_term if isinstance(per_term, list) else [per_term]:
            key = (pool.gpu.name if pool.gpu is not None else pool.name, pool.gpus_per_node)
            if key not in seen:
                seen.add(key)
                kinds.append(pool)
    if len(kinds) < 2:
        return made
    g.pool_options_from = "terms"
    return kinds


def pool_from_selector(g: ServingGroup, term: int = 0) -> NodePool | list[NodePool] | None:
    """A node pool synthesised from a group's own selector, when its labels identify a GPU.

    A selector that pins one node by ``kubernetes.io/hostname`` names a real node whose accelerators
    the manifest does not describe: its pool has an unknown GPU, count and fabric, so the rules that
    need them say they cannot decide instead of reporting a workload without a pool. A selector naming a GPU by a
    bare family name gives one pool per size it may be (:func:`_sized_variants`), the kinds of one pool.
    """
    labels = _selector_labels(g, term)
    used = [k for k in labels if k in GPU_LABELS or k in (LABEL_NVLINK, LABEL_EFA, GFD_CLIQUE, *PARTITION_LABELS)]
    if not any(k in GPU_LABELS for k in used):
        if HOSTNAME in labels:
            return _pinned_node(g, labels)
        return None
    name = ",".join(f"{k.rsplit('/', 1)[-1]}={labels[k]}" for k in used)
    variants = _sized_variants(name, labels, mode_of(g.accelerator_resource))
    if len(variants) > 1:  # a bare GPU name (``nvidia.com/gpu.product: NVIDIA-A100``): each size it may be
        kinds = [pool_from_labels(vname, vlabels, g.location, kind=SELECTOR_POOL_KIND) for vname, vlabels in variants]
        for kind in kinds:
            kind.variant_of = name
        return kinds
    pool = pool_from_labels(name, variants[0][1], g.location, kind=SELECTOR_POOL_KIND)
    if pool.gpu is None and pool.gpus_per_node is None and pool.gpu_memory_gib is None:
        return None
    return pool


def _pinned_node(g: ServingGroup, labels: dict[str, str]) -> NodePool:
    """The node ``labels`` pin by ``kubernetes.io/hostname``, as a pool whose GPU, count and fabric no input
    describes: the rules that need them say they cannot decide."""
    pool = NodePool(name=f"hostname={labels[HOSTNAME]}", location=g.location, kind=SELECTOR_POOL_KIND,
                    labels=labels, gpus_per_node=UNKNOWN, gpu_memory_gib=UNKNOWN, efa=UNKNOWN)
    node = labels[HOSTNAME]
    pool.hardware_why = (f"the pod is pinned to node `{node}` by its {HOSTNAME} label, and no input describes "
                         f"that node's GPUs: lint the node's manifest with the rest (`kubectl get node {node} "
                         "-o yaml`: GPU Feature Discovery's nvidia.com/gpu.product and gpu.count labels), or "
                         "select the node by a GPU label")
    return pool


def _pinned_elsewhere(g: ServingGroup, declared: list[NodePool]) -> list[NodePool]:
    """The nodes a term of ``g``'s required node affinity pins by ``kubernetes.io/hostname`` alone (or by
    ``matchFields`` ``metadata.name``, read as it: :func:`..pods.read_affinity`) that no pool of ``declared`` is (a
    Node of the inputs is judged as the pod's selector and tolerations admit it or not), each a kind whose GPU no
    input describes. Kubernetes ORs the terms, so the pod may be bound there whatever the
    other terms' pools hold (review48: a term naming g4dn.xlarge beside a pinned node, with a NodePool of g4dn and g5
    in the inputs, blocked on the T4 alone). Only where the pod has another term: a pin alone is judged as it was."""
    if len(g.affinity) < 2:
        return []
    named = {p.labels.get(HOSTNAME) for p in declared}
    out: list[NodePool] = []
    for term in g.affinity:
        if not all(e.key == HOSTNAME and e.operator == "In" for e in term):
            continue
        for node in term[0].values:
            if node not in named and all(node in e.values for e in term):
                named.add(node)
                out.append(_pinned_node(g, {**g.node_selector, HOSTNAME: node}))
    return out


def _hourly(pool: NodePool, gpus: int) -> float | None:
    """The lowest catalog on-demand price of an instance type of ``pool``'s kind that holds ``gpus`` GPUs (its
    instance type's, else those of its GPU in its family, if it names one); None when the catalog prices none."""
    if isinstance(pool.instance_type, str) and pool.instance_type:
        try:
            return find_instance(pool.instance_type).price_per_hour_usd
        except CatalogError:
            return None
    if pool.gpu is None:
        return None
    family = _family(pool)
    prices = [i.price_per_hour_usd for i in instances_for_gpu(pool.gpu.name)
              if i.price_per_hour_usd is not None and i.gpus >= gpus
              and (family is None or i.name.split(".", 1)[0] == family)]
    return min(prices) if prices else None


def _kinds(pools: list[NodePool], g: ServingGroup) -> list[NodePool]:
    """The kinds of one NodePool ``g`` may land on, one per GPU (and GPUs per node), the one it is billed on first.

    Karpenter launches, of the instance types that hold the pod, the cheapest on-demand one (its on-demand
    allocation strategy is ``lowest-price``: karpenter.sh, Concepts > Scheduling, and the AWS provider's
    CreateFleet call); a NodePool that may launch spot is ordered by price too, the price the pod would pay if it
    landed on-demand. Kinds the catalog prices none of keep their order, after the priced ones."""
    asked = g.scheduled_gpus  # the instance type must hold the pod's whole request (native sidecars' GPUs too)
    per_pod = asked if isinstance(asked, int) and asked > 0 else 1
    seen: set[tuple[Any, Any]] = set()
    out: list[NodePool] = []
    for p in pools:
        kind = (p.gpu.name if p.gpu is not None else p.name, p.gpus_per_node)
        if kind not in seen:
            seen.add(kind)
            out.append(p)
    prices = {id(p): _hourly(p, per_pod) for p in out}
    return sorted(out, key=lambda p: (prices[id(p)] is None, prices[id(p)] or 0.0))


def _node_kinds(pick: list[NodePool], g: ServingGroup) -> list[NodePool]:
    """The Nodes of the inputs ``g`` may be bound to, one per GPU (and GPUs per node), where ``pick`` (the pools
    that admit it, in order) begins with a Node and more than one kind of GPU is among its Nodes: the scheduler binds
    a pod to any node that passes its filters (nodeSelector, required node affinity, taints, resources), scored, not
    chosen by the manifest, so each is a kind the pod is judged on. Empty otherwise."""
    if pick[0].kind != "node" or pick[0].variant_of is not None:
        return []
    out: list[NodePool] = []
    seen: set[tuple[Any, Any]] = set()
    for p in pick:
        if p.kind != "node" or p.variant_of is not None:
            continue
        key = (p.gpu.name if p.gpu is not None else p.name, p.gpus_per_node)
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out if len(out) > 1 else []


def _admitting_kinds(pick: list[NodePool], g: ServingGroup) -> list[NodePool]:
    """The kinds of node ``g`` may land on where more than one pool or Node of the inputs admits it (``pick``, those
    that admit it, in the inputs' order) and they hold more than one kind of GPU: one per GPU (and GPUs per node),
    the cheapest first, then by name, so the inputs' order decides nothing. Empty otherwise.

    The scheduler binds a pod to any Node that passes its filters (scored, not chosen by the manifest), and
    Karpenter launches a node for a pod that no Node holds from any NodePool that admits it, the highest weight
    first (karpenter.sh, Concepts > NodePools: "If multiple NodePools are matched, Karpenter will use the NodePool
    with the highest weight"): so a Karpenter NodePool of a lower weight than another that admits the pod is not
    one; every Node and every NodePool of the highest weight is (read49: a NodePool of g4dn.xlarge and one of
    g5.xlarge, a pod whose affinity terms admit both, was judged on the first of the file only)."""
    karpenter = [p.weight for p in pick if p.kind == "karpenter"]
    top = max(karpenter) if karpenter else 0
    sources: dict[str, list[NodePool]] = {}
    for p in pick:
        if p.kind == "karpenter" and p.weight < top:
            continue
        key = f"{p.kind}\0{p.variant_of or p.name}\0{p.location}"
        sources.setdefault(key, []).append(p)
    if len(sources) < 2:
        return []
    found: list[NodePool] = []
    for members in sources.values():
        if members[0].variant_of is not None:
            found.extend(m for m in members if m.location == members[0].location)
        else:
            found.append(_narrowed(members[0], g))
    asked = g.scheduled_gpus
    per_pod = asked if isinstance(asked, int) and asked > 0 else 1
    prices = {id(p): _hourly(p, per_pod) for p in found}
    ordered = sorted(found, key=lambda p: (prices[id(p)] is None, prices[id(p)] or 0.0,
                                           p.gpu.name if p.gpu is not None else "", p.kind, p.name))
    seen: set[tuple[Any, Any]] = set()
    kinds: list[NodePool] = []
    for p in ordered:
        kind = (p.gpu.name if p.gpu is not None else p.name, p.gpus_per_node)
        if kind not in seen:
            seen.add(kind)
            kinds.append(p)
    return kinds if len(kinds) > 1 else []


def _by_weight(pools: list[NodePool]) -> list[NodePool]:
    """``pools`` with the Karpenter NodePools among them ordered by weight, highest first, in the places they hold
    (the others keep theirs): "If multiple NodePools are matched, Karpenter will use the NodePool with the highest
    weight" (karpenter.sh, Concepts > NodePools). Equal weights keep the inputs' order."""
    spots = [i for i, p in enumerate(pools) if p.kind == "karpenter"]
    if len(spots) < 2:
        return pools
    out = list(pools)
    for i, p in zip(spots, sorted((pools[i] for i in spots), key=lambda p: -p.weight), strict=True):
        out[i] = p
    return out


def resolve_pools(inv: Inventory) -> None:
    """Set ``group.pool`` for every group that has none (or only one synthesised from its selector).

    With declared pools (Nodes, Karpenter NodePools, stack pools): the first pool whose labels
    satisfy the nodeSelector and one required node-affinity term, and whose NoSchedule/NoExecute
    taints the group tolerates (a pool that says which GPU it has is preferred when the group
    requests GPUs, and of those one whose nodes have as many GPUs as a pod requests: the scheduler and
    Karpenter use no other). Without declared pools: a pool synthesised from the selector's GPU labels, or
    None.
    """
    if inv.workload_refs:  # Deployments at replicas 0 that Argo Rollouts run: sized at the Rollouts' replicas
        from .workloads import size_referenced_workloads

        size_referenced_workloads(inv)
    if inv.cross_refs:  # only the OME, KServe, Arks, ConfigMap-reader and ingress-class readers keep cross references
        kserve = [r.kind.startswith("kserve ") for r in inv.cross_refs]  # kserve.SERVICE_REF, RUNTIME_REF
        ingress = [r.kind.startswith("ingress class") for r in inv.cross_refs]  # network.INGRESS_CLASS_REF, ..PARAMS
        config = [r.kind == CONFIG_REF for r in inv.cross_refs]
        arks = [r.kind.startswith("arks ") for r in inv.cross_refs]  # operators.ARKS_APP_REF, ARKS_MODEL_REF
        gateway = [r.kind.startswith("gateway api ") for r in inv.cross_refs]  # gateway.GATEWAY_REF, ...
        if any(ingress):
            link_ingress_classes(inv)
        if any(config):  # workloads whose ConfigMap another input holds
            link_config_maps(inv)
        if any(arks):  # ArksApplications served from the ArksModel another object holds
            from .operators import link_arks_models

            link_arks_models(inv)
        # OME's (its kinds' names): OME services read as what their runtimes deploy
        if not all(k or i or c or a or gw for k, i, c, a, gw in zip(kserve, ingress, config, arks, gateway,
                                                                     strict=True)):
            from .ome import link_services

            link_services(inv)
        if any(kserve):  # KServe InferenceServices read on the runtime another input holds
            from .kserve import link_runtimes

            link_runtimes(inv)
        if any(gateway):  # HTTPRoutes and LLMInferenceService routes on the Gateways of the inputs
            from .gateway import link_gateways

            link_gateways(inv)
            link_backends(inv)  # HTTPRoutes to the InferencePools of the inputs, and the grants of their refs
    if inv.hardware_profiles:  # what an Open Data Hub hardware profile of the inputs gives the services naming it
        from .hwprofiles import apply_hardware_profiles

        apply_hardware_profiles(inv)
    if inv.limit_ranges:  # what the LimitRanger writes into the pods of a namespace, or refuses of them, at admission
        from .limitranges import apply_limit_ranges

        apply_limit_ranges(inv)
    if any(m.name == "inferenceservice-config" for m in inv.config_maps):  # KServe's cluster config is in the inputs
        from .kserve import apply_cluster_config

        apply_cluster_config(inv)
    resolve_claims(inv)  # a claim's devices are the pod's request, before a pool is picked by it
    declared = [p for p in inv.pools if p.kind != SELECTOR_POOL_KIND]
    advertised: dict[tuple[int, str], bool] = {}  # _pool_admits's memo: the pools of ``declared`` live till the end
    for g in inv.groups:
        if g.pool is not None and g.pool.kind != SELECTOR_POOL_KIND:
            continue
        g.unplaceable = None
        if g.node_selector is UNKNOWN:  # not known yet: no pool can be matched (SW206 says so)
            g.pool = None
            continue
        unit = [p for p in declared if inv.same_unit(p.location.file, g.location.file)] if inv.units else declared
        if unit:
            matching = _by_weight([p for p in unit if _pool_admits(p, g, advertised)])
            with_gpus = [p for p in matching if p.gpu is not None or p.gpus_per_node is UNKNOWN or p.gpus_per_node]
            wants_gpus = isinstance(g.gpus_per_pod, int) and g.gpus_per_pod > 0
            pick = (with_gpus or matching) if wants_gpus else matching
            asked = g.scheduled_gpus  # the pod's whole request: its native sidecars' GPUs too (KEP-753)
            if wants_gpus and isinstance(asked, int):  # the scheduler (and Karpenter choosing an instance type)
                # only uses nodes the pod fits
                fits = [p for p in pick if (not isinstance(p.gpus_per_node, int) or p.gpus_per_node >= asked)
                        and (p.max_gpus_per_node is None or p.max_gpus_per_node >= asked)]
                pick = fits or pick
            g.pool = _narrowed(pick[0], g) if pick else None
            g.pool_options, g.pool_options_from = [], ""
            nodes = _node_kinds(pick, g) if pick and g.pool is pick[0] else []
            if nodes:  # Nodes of other GPUs its selector admits: the scheduler may bind it to any of them
                g.pool, g.pool_options, g.pool_options_from = nodes[0], nodes[1:], "nodes"
            elif pick and g.pool is pick[0] and pick[0].variant_of is not None:  # it may land on several kinds
                kinds = _kinds([p for p in pick if p.variant_of == pick[0].variant_of
                                and p.location == pick[0].location], g)
                g.pool, g.pool_options = kinds[0], kinds[1:]
            if wants_gpus and pick and g.pool is not None:  # mend37: other pools and Nodes that admit it too
                every = _admitting_kinds(pick, g)
                if every:
                    g.pool, g.pool_options = every[0], every[1:]
                    g.pool_options_from = "nodes" if all(p.kind == "node" for p in every) else "pools"
            pinned = _pinned_elsewhere(g, unit) if g.pool is not None else []
            if pinned:  # a node another term pins, which no declared pool is: a kind whose GPU is not known
                g.pool_options = [*g.pool_options, *pinned]
                g.pool_options_from = g.pool_options_from or "terms"
            if g.pool is None:
                g.unplaceable = _unplaceable(unit, g) or _hardware_unplaceable(g)
        elif g.pool is None:  # a pool synthesised from the selector already is the one it would make again
            g.unplaceable = _hardware_unplaceable(g)
            if g.unplaceable:  # sched19: no node its selector names holds the pods: no pool to size them on
                g.pool, g.pool_options = None, []
                continue
            made = _selector_kinds(g)
            if isinstance(made, list):  # a bare GPU name, or terms naming other GPUs: the kinds, judged on each
                g.pool, g.pool_options = made[0], made[1:]
            else:
                g.pool, g.pool_options, g.pool_options_from = made, [], ""

